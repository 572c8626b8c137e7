export * from './object-store.ts';
export * from './part-size.ts';
export * from './store-config.ts';
export * from './create-store.ts';
// The adapter classes live at '@cumulo/storage/adapters': importing them here would load every provider SDK.
export * from './read-ahead.ts';
