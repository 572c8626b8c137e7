export { GoogleObjectStore, toStorageError } from './google-store.ts';
