export * from './object-store.ts';
export * from './part-size.ts';
export * from './store-config.ts';
export * from './create-store.ts';
export { S3ObjectStore } from './adapters/s3/index.ts';
export { AzureObjectStore } from './adapters/azure/index.ts';
export { GoogleObjectStore } from './adapters/google/index.ts';
export * from './read-ahead.ts';
