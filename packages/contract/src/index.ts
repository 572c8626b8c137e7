export * from './messages.ts';
export * from './validation.ts';
export * from './errors.ts';
export * from './constants.ts';
export * from './api.ts';
