// `@cumulo/storage/testing`: the test servers and the helpers that read objects back from them.
export * from './servers.ts';
export * from './objects.ts';
