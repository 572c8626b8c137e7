export * from './object-store.ts';
export * from './part-size.ts';
export * from './store-config.ts';
