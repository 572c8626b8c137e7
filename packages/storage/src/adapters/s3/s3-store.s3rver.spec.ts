import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, type ObjectInfo } from '../../object-store.ts';
import type { S3Provider, S3StoreConfig } from '../../store-config.ts';
import { objectStoreContract, type ContractFixture } from '../../testing/object-store-contract.ts';
import { S3RVER_KEY, startS3rver } from '../../testing/servers.ts';
import { S3ObjectStore } from './s3-store.ts';
import { keysOf, readAll } from '../../testing/objects.ts';

function buildS3Config(provider: S3Provider, endpoint: string, overrides: Partial<S3StoreConfig> = {}) {
  return {
    provider,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    region: 'us-east-1',
    endpoint,
    ...overrides,
  } satisfies S3StoreConfig;
}

function fixtureFor(provider: S3Provider) {
  return async (): Promise<ContractFixture> => {
    const server = await startS3rver();
    const store = new S3ObjectStore(buildS3Config(provider, server.endpoint), { maxAttempts: 2 });
    const bucket = `cumulo-${provider.toLowerCase()}-${randomBytes(4).toString('hex')}`;
    await store.createBucket(bucket);
    return { store, bucket, missingBucket: `${bucket}-missing`, cleanup: server.stop };
  };
}

objectStoreContract('S3 adapter (genericS3) against s3rver', fixtureFor('genericS3'));
// The same adapter with the aws and wasabi endpoint rules overridden, as PROVIDER_ENDPOINTS does in tests.
objectStoreContract('S3 adapter (aws) against s3rver', fixtureFor('aws'));
objectStoreContract('S3 adapter (wasabi) against s3rver', fixtureFor('wasabi'));

describe('S3 adapter against s3rver: credentials and capabilities', () => {
  let server: Awaited<ReturnType<typeof startS3rver>>;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses an unknown access key with InvalidCredentials and the provider message', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint, { accessKeyId: 'WRONGKEY' }));
    try {
      const error = await store.verify().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({
        code: 'InvalidCredentials',
        status: 403,
        provider: 'genericS3',
        message: 'The AWS Access Key Id you provided does not exist in our records.',
      });
    } finally {
      await store.close();
    }
  });

  it('stores and reads back a bucket CORS configuration, empty when none is set', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    try {
      await store.createBucket('cumulo-cors');
      const cors = store.capabilities.cors;
      expect(cors).toBeDefined();
      if (!cors) return;
      expect(await cors.getCors('cumulo-cors')).toEqual([]);
      const rule = {
        allowedOrigins: ['https://app.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 600,
      };
      await cors.putCors('cumulo-cors', [rule]);
      expect(await cors.getCors('cumulo-cors')).toEqual([rule]);
    } finally {
      await store.close();
    }
  });

  it('writes, reads and ranges keys that need escaping, with metadata, through the direct object requests', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    const keys = [
      'esc/a b+c.txt',
      'esc/100%/done?.txt',
      "esc/!'()*=&;,$@:.txt",
      'esc/#hash~tilde',
      'esc/ü 日本 😀.bin',
      // Not 'a//b': s3rver's router answers 404 for an empty path segment, to the SDK as well.
    ];
    try {
      await store.createBucket('cumulo-escapes');
      for (const [index, key] of keys.entries()) {
        const body = Buffer.from(`body of ${key} ${'x'.repeat(index)}`);
        const md5 = createHash('md5').update(body).digest('hex');
        const written = await store.write('cumulo-escapes', key, body, {
          md5,
          contentType: 'text/plain',
          metadata: { 'cumulo-sha256': createHash('sha256').update(body).digest('hex') },
        });
        expect(written).toMatchObject({ etag: md5, size: body.length, md5Checked: true });
        let info: ObjectInfo | undefined;
        const read = await readAll(store, 'cumulo-escapes', key, { onInfo: (i) => (info = i) });
        expect(read.equals(body)).toBe(true);
        expect(info).toMatchObject({
          key,
          size: body.length,
          md5,
          contentType: 'text/plain',
          metadata: { 'cumulo-sha256': createHash('sha256').update(body).digest('hex') },
        });
        expect(await store.stat('cumulo-escapes', key)).toMatchObject({ size: body.length, md5 });
        const ranged = await readAll(store, 'cumulo-escapes', key, { range: { start: 2, end: 5 } });
        expect(ranged.equals(body.subarray(2, 6))).toBe(true);
      }
      expect(await keysOf(store, 'cumulo-escapes')).toEqual([...keys].sort());
    } finally {
      await store.close();
    }
  });

  it('gives an object written without a content type application/octet-stream, whole or in parts', async () => {
    // The SDK's PutObject and CreateMultipartUpload send it for a blob body; the direct PUT must not differ,
    // or an untyped object would be binary/octet-stream (the server's default) or not by its size alone.
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    try {
      await store.createBucket('cumulo-untyped');
      await store.write('cumulo-untyped', 'whole.bin', randomBytes(1000));
      await store.write('cumulo-untyped', 'parts.bin', randomBytes(12 * 1024 * 1024));
      for (const key of ['whole.bin', 'parts.bin'])
        expect(await store.stat('cumulo-untyped', key)).toMatchObject({
          contentType: 'application/octet-stream',
        });
    } finally {
      await store.close();
    }
  });

  it("tells an object written in parts by its parts' MD5 and where each part lies; none for an object written whole", async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    const MiB = 1024 * 1024;
    const body = randomBytes(12 * MiB + 100);
    const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest();
    try {
      await store.createBucket('cumulo-layouts');
      // Written in parts of the S3 minimum (5 MiB): three parts, the last one 2 MiB + 100 bytes.
      await store.write('cumulo-layouts', 'parts.bin', body);
      await store.write('cumulo-layouts', 'whole.bin', body.subarray(0, 1000));
      const composite = createHash('md5')
        .update(Buffer.concat([0, 1, 2].map((i) => md5Of(body.subarray(i * 5 * MiB, (i + 1) * 5 * MiB)))))
        .digest('hex');

      const info = await store.stat('cumulo-layouts', 'parts.bin');
      let read: ObjectInfo | undefined;
      await readAll(store, 'cumulo-layouts', 'parts.bin', { onInfo: (i) => (read = i) });
      const statPart = store.capabilities.partLayout?.statPart;
      const parts = await Promise.all([1, 3].map((n) => statPart?.('cumulo-layouts', 'parts.bin', n)));

      expect(info).toMatchObject({
        etag: `${composite}-3`,
        md5: null,
        partsMd5: { md5: composite, parts: 3 },
      });
      expect(read?.partsMd5).toEqual({ md5: composite, parts: 3 });
      expect(parts).toEqual([
        { start: 0, size: 5 * MiB, parts: 3, etag: `${composite}-3` },
        { start: 10 * MiB, size: 2 * MiB + 100, parts: 3, etag: `${composite}-3` },
      ]);
      expect(await statPart?.('cumulo-layouts', 'whole.bin', 1)).toBeNull();
      expect(await statPart?.('cumulo-layouts', 'whole.bin', 2)).toBeNull();
      expect((await store.stat('cumulo-layouts', 'whole.bin'))?.partsMd5).toBeUndefined();
      await expect(statPart?.('cumulo-layouts', 'gone.bin', 1)).rejects.toMatchObject({
        code: 'ObjectNotFound',
      });
    } finally {
      await store.close();
    }
  });

  it('writes object tags with the object, whole or in parts, tells their count on reads and stats, and keeps them on server copies', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    const tags = { project: 'Q4 launch', 'cost-center': 'a&b=c/d', empty: '' };
    const get = store.capabilities.objectTags?.get;
    try {
      await store.createBucket('cumulo-tags');
      await store.write('cumulo-tags', 'small.txt', Buffer.from('tagged'), { tags });
      await store.write('cumulo-tags', 'large.bin', randomBytes(9 * 1024 * 1024), { tags: { tier: 'cold' } });
      await store.write('cumulo-tags', 'plain.txt', Buffer.from('untagged'));
      let read: ObjectInfo | undefined;
      await readAll(store, 'cumulo-tags', 'small.txt', { onInfo: (i) => (read = i) });

      expect(read?.tagCount).toBe(3);
      expect((await store.stat('cumulo-tags', 'large.bin'))?.tagCount).toBe(1);
      expect((await store.stat('cumulo-tags', 'plain.txt'))?.tagCount).toBeUndefined();
      expect(await get?.('cumulo-tags', 'small.txt')).toEqual(tags);
      expect(await get?.('cumulo-tags', 'large.bin')).toEqual({ tier: 'cold' });
      expect(await get?.('cumulo-tags', 'plain.txt')).toEqual({});

      expect((await store.stat('cumulo-tags', 'large.bin'))?.partsMd5?.parts).toBe(2);
      // A server-side copy keeps them, with metadata added too (MetadataDirective REPLACE leaves the tags alone).
      await store.copy(
        { bucket: 'cumulo-tags', key: 'small.txt' },
        { bucket: 'cumulo-tags', key: 'copy.txt' },
      );
      await store.copy(
        { bucket: 'cumulo-tags', key: 'small.txt' },
        { bucket: 'cumulo-tags', key: 'added.txt' },
        { addMetadata: { 'cumulo-source-etag': 'x' } },
      );
      expect(await get?.('cumulo-tags', 'copy.txt')).toEqual(tags);
      expect(await get?.('cumulo-tags', 'added.txt')).toEqual(tags);
      // A new version written without tags has none, as on S3.
      await store.write('cumulo-tags', 'small.txt', Buffer.from('rewritten'));
      expect(await get?.('cumulo-tags', 'small.txt')).toEqual({});
    } finally {
      await store.close();
    }
  });

  it('answers BucketAlreadyExists when the bucket name is taken', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    try {
      await store.createBucket('cumulo-taken');
      const error = await store.createBucket('cumulo-taken').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('BucketAlreadyExists');
    } finally {
      await store.close();
    }
  });
});
