export * from './messages.ts';
export * from './validation.ts';
export * from './errors.ts';
export * from './constants.ts';
export * from './api.ts';
export * from './providers.ts';
export * from './pricing.ts';
export * from './bucket-name.ts';
