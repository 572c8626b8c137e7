export { AzureObjectStore, toStorageError } from './azure-store.ts';
