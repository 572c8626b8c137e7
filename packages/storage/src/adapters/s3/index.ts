export { S3ObjectStore, copySourceOf } from './s3-store.ts';
export { s3ClientConfig, s3LocationFor } from './s3-client-config.ts';
export { toStorageError } from './s3-errors.ts';
