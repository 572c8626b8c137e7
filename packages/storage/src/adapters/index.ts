// The adapter classes, for code that builds one directly (tests, benches). The product goes through
// createObjectStore, which loads only the adapter an account needs.
export { S3ObjectStore } from './s3/index.ts';
export { AzureObjectStore } from './azure/index.ts';
export { GoogleObjectStore } from './google/index.ts';
