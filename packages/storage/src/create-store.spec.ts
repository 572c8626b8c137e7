import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A fresh Node process (this one has loaded every SDK through other specs) that notes which provider SDKs it
 * loads: after importing the package, then after building an S3-family store, then an Azure one.
 */
const probe = `
import { registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';
const loaded = new Set();
registerHooks({
  load(url, context, next) {
    for (const sdk of ['@aws-sdk/client-s3', '@azure/storage-blob', '@google-cloud/storage'])
      if (url.includes('/node_modules/' + sdk + '/')) loaded.add(sdk);
    return next(url, context);
  },
});
register();
const steps = {};
const storage = await import('./src/index.ts');
steps.imported = [...loaded];
const s3 = await storage.createObjectStore({
  provider: 'genericS3', endpoint: 'http://127.0.0.1:9', accessKeyId: 'a', secretAccessKey: 'b', forcePathStyle: true,
});
steps.s3 = [s3.provider, ...loaded];
const azure = await storage.createObjectStore({
  provider: 'azure', accountName: 'devstoreaccount1', accountKey: Buffer.from('key').toString('base64'),
  endpoint: 'http://127.0.0.1:9/devstoreaccount1',
});
steps.azure = [azure.provider, ...loaded];
await Promise.all([s3.close(), azure.close()]);
console.log(JSON.stringify(steps));
`;

describe('createObjectStore', () => {
  it('loads a provider SDK only when a store of that provider is built', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', probe], {
      cwd: packageRoot,
    });
    const steps = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string[]>;
    expect(steps.imported).toEqual([]);
    expect(steps.s3).toEqual(['genericS3', '@aws-sdk/client-s3']);
    expect(steps.azure).toEqual(['azure', '@aws-sdk/client-s3', '@azure/storage-blob']);
  });
});
