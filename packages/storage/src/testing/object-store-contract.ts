import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StorageError,
  type ObjectInfo,
  type ObjectStore,
  type PartsStartOptions,
  type PartsUploadRef,
} from '../object-store.ts';
import { readAll } from './objects.ts';

export interface ContractFixture {
  store: ObjectStore;
  /** A fresh, empty bucket the suite may fill. */
  bucket: string;
  /** A bucket name that does not exist for these credentials. */
  missingBucket: string;
  /** Stops servers, removes data. */
  cleanup(): Promise<void>;
}

export interface ContractOptions {
  /** Size of the multipart write test (must exceed SINGLE_REQUEST_MAX). */
  largeObjectBytes?: number;
  /** Keys for the batch-delete test (S3 batches by 1000, so more than 1000 exercises batching). */
  deleteManyCount?: number;
  /**
   * Whether the adapter declares `capabilities.parts` (default true): when it does, the parts tests run; when it
   * does not (GCS), the suite checks that it is absent.
   */
  parts?: boolean;
  /** Whether a server-side copy's answer tells the copy's MD5 (S3 single-part ETags, GCS; not Azure). Default true. */
  copyAnswersMd5?: boolean;
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Content headers a copy must not lose: an encoded body, a download name, caching, a language. */
const CONTENT_HEADERS = {
  cacheControl: 'public, max-age=86400',
  contentDisposition: 'attachment; filename="report.csv"',
  contentEncoding: 'gzip',
  contentLanguage: 'de-CH',
};
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A readable that yields `total` bytes in 1 MiB chunks and remembers their SHA-256. */
function generated(total: number) {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const chunk = randomBytes(Math.min(1024 * 1024, total - sent));
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

/**
 * The behaviour every ObjectStore adapter must show, run against a real server (s3rver, Azurite) or a
 * recorded one. An adapter's test file calls this with a fixture factory and names the server in `name`.
 */
export function objectStoreContract(
  name: string,
  setup: () => Promise<ContractFixture>,
  options: ContractOptions = {},
) {
  const largeBytes = options.largeObjectBytes ?? 12 * 1024 * 1024 + 123;
  const deleteCount = options.deleteManyCount ?? 1005;
  const withParts = options.parts ?? true;

  describe(`ObjectStore contract: ${name}`, () => {
    let fx: ContractFixture;
    beforeAll(async () => {
      fx = await setup();
    }, 60_000);
    afterAll(async () => {
      await fx?.store.close();
      await fx?.cleanup();
    });

    it('verifies its credentials and lists the bucket with its creation date', async () => {
      await fx.store.verify();
      const buckets = await fx.store.listBuckets();
      const bucket = buckets.find((b) => b.name === fx.bucket);
      expect(bucket).toBeDefined();
      expect(bucket?.createdAt).toBeInstanceOf(Date);
    });

    it('heads an existing bucket and answers null for a missing one', async () => {
      expect(await fx.store.headBucket(fx.bucket)).not.toBeNull();
      expect(await fx.store.headBucket(fx.missingBucket)).toBeNull();
    });

    it('writes a small object in one request and reads it back with its metadata', async () => {
      const body = Buffer.from('hello, cumulo\n');
      const result = await fx.store.write(fx.bucket, 'docs/hello.txt', body, {
        contentType: 'text/plain',
        metadata: { 'cumulo-sha256': sha256(body) },
        size: body.length,
      });
      expect(result.size).toBe(body.length);
      const info = await fx.store.stat(fx.bucket, 'docs/hello.txt');
      expect(info).toMatchObject({ key: 'docs/hello.txt', size: body.length, contentType: 'text/plain' });
      expect(info?.metadata['cumulo-sha256']).toBe(sha256(body));
      expect(info?.lastModified).toBeInstanceOf(Date);
      if (info?.md5) expect(info.md5).toBe(md5(body));
      expect(await readAll(fx.store, fx.bucket, 'docs/hello.txt')).toEqual(body);
    });

    it('tells the object info from a whole read itself, the same as stat (no HEAD needed before a copy)', async () => {
      const body = Buffer.from('read me with my info');
      await fx.store.write(fx.bucket, 'info/read.txt', body, {
        contentType: 'text/plain',
        metadata: { 'cumulo-sha256': 'abc' },
      });
      let reported: ObjectInfo | undefined;
      const read = await readAll(fx.store, fx.bucket, 'info/read.txt', {
        onInfo: (info) => (reported = info),
      });
      expect(read.equals(body)).toBe(true);
      const stat = await fx.store.stat(fx.bucket, 'info/read.txt');
      if (fx.store.provider === 'google') return; // its read answer carries no metadata: it never reports
      expect(reported).toMatchObject({
        size: body.length,
        etag: stat?.etag,
        md5: stat?.md5,
        contentType: 'text/plain',
        metadata: { 'cumulo-sha256': 'abc' },
      });
    });

    it('keeps content headers through single and multipart writes, and tells them on stat and read', async () => {
      const small = randomBytes(1000);
      await fx.store.write(fx.bucket, 'headers/small.bin', small, {
        contentType: 'text/csv',
        contentHeaders: CONTENT_HEADERS,
      });
      const large = generated(largeBytes);
      await fx.store.write(fx.bucket, 'headers/large.bin', large.stream, {
        size: largeBytes,
        contentType: 'text/csv',
        contentHeaders: CONTENT_HEADERS,
      });
      await fx.store.write(fx.bucket, 'headers/none.bin', small, { contentType: 'text/csv' });
      for (const key of ['headers/small.bin', 'headers/large.bin']) {
        expect(await fx.store.stat(fx.bucket, key)).toMatchObject({
          contentType: 'text/csv',
          contentHeaders: CONTENT_HEADERS,
        });
      }
      expect((await fx.store.stat(fx.bucket, 'headers/none.bin'))?.contentHeaders).toEqual({});
      // The stored bytes come back as they are, whatever their encoding says.
      let reported: ObjectInfo | undefined;
      const read = await readAll(fx.store, fx.bucket, 'headers/small.bin', {
        onInfo: (info) => (reported = info),
      });
      expect(read.equals(small)).toBe(true);
      if (fx.store.provider !== 'google') expect(reported?.contentHeaders).toEqual(CONTENT_HEADERS);
    });

    it('reads a byte range, both ends inclusive', async () => {
      const body = Buffer.from('0123456789abcdef');
      await fx.store.write(fx.bucket, 'range.bin', body, { size: body.length });
      expect(
        (await readAll(fx.store, fx.bucket, 'range.bin', { range: { start: 3, end: 7 } })).toString(),
      ).toBe('34567');
      expect((await readAll(fx.store, fx.bucket, 'range.bin', { range: { start: 10 } })).toString()).toBe(
        'abcdef',
      );
    });

    it('writes a large stream in parts, reporting progress, and reads back the same bytes', async () => {
      const source = generated(largeBytes);
      const progress: number[] = [];
      const result = await fx.store.write(fx.bucket, 'big/large.bin', source.stream, {
        size: largeBytes,
        onProgress: (n) => progress.push(n),
      });
      expect(result.size).toBe(largeBytes);
      expect(progress.at(-1)).toBe(largeBytes);
      expect((await fx.store.stat(fx.bucket, 'big/large.bin'))?.size).toBe(largeBytes);
      const hash = createHash('sha256');
      for await (const chunk of await fx.store.read(fx.bucket, 'big/large.bin')) hash.update(chunk as Buffer);
      expect(hash.digest('hex')).toBe(source.digest());
    });

    it('leaves no object behind when a write is aborted', async () => {
      const controller = new AbortController();
      const source = generated(largeBytes);
      let sent = 0;
      source.stream.on('data', (chunk: Buffer) => {
        sent += chunk.length;
        if (sent > largeBytes / 2) controller.abort();
      });
      await expect(
        fx.store.write(fx.bucket, 'aborted.bin', source.stream, {
          size: largeBytes,
          signal: controller.signal,
        }),
      ).rejects.toThrow();
      expect(await fx.store.stat(fx.bucket, 'aborted.bin')).toBeNull();
    });

    it('lists one level with folders, and every key in order across pages', async () => {
      const keys = ['tree/a.txt', 'tree/b/1.txt', 'tree/b/2.txt', 'tree/c/3.txt', 'tree/d.txt'];
      for (const key of keys) await fx.store.write(fx.bucket, key, Buffer.from(key), { size: key.length });

      const level: { objects: string[]; prefixes: string[] } = { objects: [], prefixes: [] };
      for await (const page of fx.store.list(fx.bucket, { prefix: 'tree/', delimiter: '/' })) {
        level.objects.push(...page.objects.map((o) => o.key));
        level.prefixes.push(...page.prefixes);
      }
      expect(level.objects).toEqual(['tree/a.txt', 'tree/d.txt']);
      expect(level.prefixes).toEqual(['tree/b/', 'tree/c/']);

      const pages: string[][] = [];
      for await (const page of fx.store.list(fx.bucket, { prefix: 'tree/', pageSize: 2 })) {
        pages.push(page.objects.map((o) => o.key));
      }
      expect(pages.flat()).toEqual(keys);
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(pages.every((p) => p.length <= 2)).toBe(true);
    });

    it('resumes a listing from a continuation token', async () => {
      const pages = fx.store.list(fx.bucket, { prefix: 'tree/', pageSize: 2 })[Symbol.asyncIterator]();
      const first = await pages.next();
      const token = first.done ? null : first.value.continuationToken;
      expect(token).toBeTruthy();
      const rest: string[] = [];
      for await (const page of fx.store.list(fx.bucket, {
        prefix: 'tree/',
        pageSize: 2,
        continuationToken: token ?? '',
      })) {
        rest.push(...page.objects.map((o) => o.key));
      }
      expect(rest).toEqual(['tree/b/2.txt', 'tree/c/3.txt', 'tree/d.txt']);
    });

    it('lists keys with characters XML escapes exactly as written, with their sizes and ETags', async () => {
      const keys = [`odd/a & b <c> "d" 'e'.txt`, 'odd/r&d/x.txt', 'odd/ü 日本 😀.bin', 'odd/  spaced  '];
      const written = new Map<string, string | null>();
      for (const [index, key] of keys.entries()) {
        const body = Buffer.alloc(index + 1, index);
        written.set(key, (await fx.store.write(fx.bucket, key, body, { size: body.length })).etag);
      }
      const listed: Array<{ key: string; size: number; etag: string | null }> = [];
      const prefixes: string[] = [];
      for await (const page of fx.store.list(fx.bucket, { prefix: 'odd/', delimiter: '/' })) {
        listed.push(...page.objects.map(({ key, size, etag }) => ({ key, size, etag })));
        prefixes.push(...page.prefixes);
      }
      expect(prefixes).toEqual(['odd/r&d/']);
      const expected = keys
        .filter((key) => !key.startsWith('odd/r&d/'))
        .map((key) => ({ key, size: keys.indexOf(key) + 1, etag: written.get(key) ?? null }));
      expect(listed).toEqual(expect.arrayContaining(expected));
      expect(listed).toHaveLength(expected.length);
    });

    it('answers null for a missing object and ObjectNotFound when reading it', async () => {
      expect(await fx.store.stat(fx.bucket, 'nope/missing.txt')).toBeNull();
      const error = await readAll(fx.store, fx.bucket, 'nope/missing.txt').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('ObjectNotFound');
    });

    it('copies within the store without changing the bytes, and answers what it wrote', async () => {
      const copied = await fx.store.copy(
        { bucket: fx.bucket, key: 'docs/hello.txt' },
        { bucket: fx.bucket, key: 'docs/copy.txt' },
      );
      expect((await readAll(fx.store, fx.bucket, 'docs/copy.txt')).toString()).toBe('hello, cumulo\n');
      expect(copied.etag).toBeTruthy();
      expect(copied.md5).toBe(
        (options.copyAnswersMd5 ?? true) ? createHash('md5').update('hello, cumulo\n').digest('hex') : null,
      );
    });

    it('copies with the size and ETag a listing told, without asking the source first', async () => {
      const [listed] =
        (await fx.store.list(fx.bucket, { prefix: 'docs/hello.txt' })[Symbol.asyncIterator]().next()).value
          ?.objects ?? [];
      expect(listed?.etag).toBeTruthy();
      await fx.store.copy(
        { bucket: fx.bucket, key: 'docs/hello.txt' },
        { bucket: fx.bucket, key: 'docs/listed-copy.txt' },
        { size: listed?.size ?? 0, ifMatch: listed?.etag ?? '' },
      );
      expect((await readAll(fx.store, fx.bucket, 'docs/listed-copy.txt')).toString()).toBe('hello, cumulo\n');
    });

    it("copies with metadata added to the source's, keeping its type, headers and metadata", async () => {
      const body = Buffer.from('copied with a record of its source');
      // Without Content-Encoding: Azurite 3.35 answers 500 to any Copy Blob of a gzip-encoded source (Azure copies it).
      const { contentEncoding: _encoding, ...headers } = CONTENT_HEADERS;
      await fx.store.write(fx.bucket, 'added/source.csv', body, {
        contentType: 'text/csv',
        contentHeaders: headers,
        metadata: { owner: 'finance' },
      });
      const source = await fx.store.stat(fx.bucket, 'added/source.csv');
      await fx.store.copy(
        { bucket: fx.bucket, key: 'added/source.csv' },
        { bucket: fx.bucket, key: 'added/copy.csv' },
        { size: body.length, ifMatch: source?.etag ?? '', addMetadata: { 'cumulo-source-etag': 'v1' } },
      );
      const copy = await fx.store.stat(fx.bucket, 'added/copy.csv');
      expect(copy).toMatchObject({
        size: body.length,
        contentType: 'text/csv',
        contentHeaders: headers,
        metadata: { owner: 'finance', 'cumulo-source-etag': 'v1' },
      });
      expect((await readAll(fx.store, fx.bucket, 'added/copy.csv')).equals(body)).toBe(true);
      // The source is left as it was.
      expect((await fx.store.stat(fx.bucket, 'added/source.csv'))?.metadata).toEqual({ owner: 'finance' });
    });

    it('hands out signed URLs that a plain HTTP client can use', async () => {
      const put = await fx.store.signedUrl(fx.bucket, 'signed/up.txt', {
        method: 'PUT',
        expiresInSeconds: 300,
        contentType: 'text/plain',
      });
      const upload = await fetch(put, {
        method: 'PUT',
        body: 'via url',
        headers: { 'content-type': 'text/plain', 'x-ms-blob-type': 'BlockBlob' },
      });
      expect(upload.ok).toBe(true);
      const get = await fx.store.signedUrl(fx.bucket, 'signed/up.txt', {
        method: 'GET',
        expiresInSeconds: 300,
      });
      const download = await fetch(get);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('via url');
    });

    it(`deletes many keys in provider-sized batches (${deleteCount} keys)`, async () => {
      const keys = Array.from({ length: deleteCount }, (_, i) => `bulk-${String(i).padStart(5, '0')}`);
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(
          keys.slice(i, i + 50).map((k) => fx.store.write(fx.bucket, k, Buffer.from('x'), { size: 1 })),
        );
      }
      const result = await fx.store.deleteMany(fx.bucket, [...keys, 'bulk-never-existed']);
      expect(result.errors).toEqual([]);
      expect(result.deleted).toEqual(expect.arrayContaining(keys));
      let left = 0;
      for await (const page of fx.store.list(fx.bucket, { prefix: 'bulk-' })) left += page.objects.length;
      expect(left).toBe(0);
    });

    // A store that declares metadataInListings is never asked with a stat for what its listing would tell.
    it('lists objects with their user metadata exactly when it declares so', async () => {
      const body = Buffer.from('listed with metadata');
      await fx.store.write(fx.bucket, 'meta/listed.txt', body, {
        metadata: { 'cumulo-sha256': sha256(body) },
        md5: md5(body),
      });
      const listed: ObjectInfo[] = [];
      for await (const page of fx.store.list(fx.bucket, { prefix: 'meta/' })) listed.push(...page.objects);
      const declared = fx.store.capabilities.metadataInListings === true;
      expect(listed.map((o) => [o.key, o.metadata['cumulo-sha256']])).toEqual([
        ['meta/listed.txt', declared ? sha256(body) : undefined],
      ]);
    });

    it('refuses a buffer whose MD5 does not match, and keeps one that does', async () => {
      const body = Buffer.from('checked on arrival');
      await fx.store.write(fx.bucket, 'md5/good.txt', body, { md5: md5(body) });
      expect(await readAll(fx.store, fx.bucket, 'md5/good.txt')).toEqual(body);
      const error = await fx.store
        .write(fx.bucket, 'md5/bad.txt', body, { md5: md5(Buffer.from('other bytes')) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(await fx.store.stat(fx.bucket, 'md5/bad.txt')).toBeNull();
    });

    if (withParts) partsContract(() => fx);
    else {
      it('does not offer parts', () => {
        expect(fx.store.capabilities.parts).toBeUndefined();
      });
    }

    it('creates a bucket', async () => {
      const name = `${fx.bucket}-new`;
      await fx.store.createBucket(name);
      expect(await fx.store.headBucket(name)).not.toBeNull();
    });
  });
}

const PART_BYTES = 5 * 1024 * 1024;

/**
 * `capabilities.parts`, as the transfer engine uses it: parts sent in any order and in parallel, each checked by
 * its MD5 on arrival, listed to resume, completed with the metadata, or aborted without a trace.
 */
function partsContract(fixture: () => ContractFixture) {
  const partsOf = () => {
    const parts = fixture().store.capabilities.parts;
    if (!parts) throw new Error('the adapter does not declare capabilities.parts');
    return parts;
  };
  /** Three parts: two of PART_BYTES and a short last one, as the engine cuts an object. */
  const pieces = (whole: Buffer) => [
    whole.subarray(0, PART_BYTES),
    whole.subarray(PART_BYTES, 2 * PART_BYTES),
    whole.subarray(2 * PART_BYTES),
  ];
  const open = async (key: string, options: PartsStartOptions = {}): Promise<PartsUploadRef> => {
    const { bucket } = fixture();
    return { bucket, key, uploadId: await partsOf().start(bucket, key, options) };
  };
  /** No parts are left: S3 forgets the upload (NoSuchUpload), Azure has no upload object and lists none. */
  const expectNoParts = async (upload: PartsUploadRef) => {
    const answer = await partsOf()
      .listParts(upload)
      .then(
        (list) => list,
        (error: unknown) => error,
      );
    if (answer instanceof StorageError) expect(answer.code).toBe('ObjectNotFound');
    else expect(answer).toEqual([]);
  };

  describe('parts', () => {
    it('declares limits that fit a part of 5 MiB', () => {
      const { limits } = partsOf();
      expect(limits.minPart).toBeLessThanOrEqual(PART_BYTES);
      expect(limits.maxPart).toBeGreaterThanOrEqual(PART_BYTES);
      expect(limits.maxParts).toBeGreaterThanOrEqual(10_000);
    });

    it('takes parts out of order and in parallel, lists them, and completes to the exact bytes and metadata', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const whole = randomBytes(2 * PART_BYTES + 1234);
      const metadata = { 'cumulo-sha256': sha256(whole) };
      const upload = await open('parts/assembled.bin', {
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
        metadata,
      });
      const sent = await Promise.all(
        [3, 1, 2].map(async (partNumber) => {
          const body = pieces(whole)[partNumber - 1] as Buffer;
          const { etag } = await parts.uploadPart(upload, partNumber, body, { md5: md5(body) });
          return { partNumber, etag };
        }),
      );
      const listed = await parts.listParts(upload);
      expect(listed.map((p) => [p.partNumber, p.size])).toEqual([
        [1, PART_BYTES],
        [2, PART_BYTES],
        [3, 1234],
      ]);
      // The etags the store lists are the ones it answered (S3 completes with them; Azure uses none).
      for (const part of listed)
        expect(part.etag).toBe(sent.find((s) => s.partNumber === part.partNumber)?.etag);
      // Nothing is visible before completion.
      expect(await store.stat(bucket, upload.key)).toBeNull();

      await parts.complete(upload, sent, {
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
        metadata,
        md5: md5(whole),
      });
      const info = await store.stat(bucket, upload.key);
      expect(info).toMatchObject({
        size: whole.length,
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
      });
      expect(info?.metadata['cumulo-sha256']).toBe(sha256(whole));
      if (info?.md5) expect(info.md5).toBe(md5(whole));
      expect(sha256(await readAll(store, bucket, upload.key))).toBe(sha256(whole));
    });

    it('keeps metadata known only at completion (a checksum computed while the parts streamed)', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const whole = randomBytes(PART_BYTES + 77);
      const upload = await open('parts/late-metadata.bin', {
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
        metadata: { origin: 'bench' },
      });
      const sent = await Promise.all(
        [1, 2].map(async (partNumber) => {
          const body = pieces(whole)[partNumber - 1] as Buffer;
          return {
            partNumber,
            etag: (await parts.uploadPart(upload, partNumber, body, { md5: md5(body) })).etag,
          };
        }),
      );
      await parts.complete(upload, sent, {
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
        metadata: { origin: 'bench', 'cumulo-sha256': sha256(whole) },
      });
      const info = await store.stat(bucket, upload.key);
      // S3 adds late metadata by copying the object onto itself, which must keep its content headers.
      expect(info).toMatchObject({
        size: whole.length,
        contentType: 'application/x-cumulo',
        contentHeaders: CONTENT_HEADERS,
      });
      expect(info?.metadata).toMatchObject({ origin: 'bench', 'cumulo-sha256': sha256(whole) });
      expect(sha256(await readAll(store, bucket, upload.key))).toBe(sha256(whole));
    });

    it('refuses a part whose MD5 does not match and keeps none of it', async () => {
      const parts = partsOf();
      const upload = await open('parts/damaged.bin');
      const body = randomBytes(1024);
      const damaged = Buffer.from(body);
      damaged[0] = (damaged[0] ?? 0) ^ 0xff;
      const error = await parts.uploadPart(upload, 1, damaged, { md5: md5(body) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(await parts.listParts(upload)).toEqual([]);
      // The same part sent intact is taken.
      await parts.uploadPart(upload, 1, body, { md5: md5(body) });
      expect((await parts.listParts(upload)).map((p) => [p.partNumber, p.size])).toEqual([[1, 1024]]);
      await parts.abort(upload);
    });

    it('takes streamed parts of a known length and completes to the exact bytes', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const whole = randomBytes(PART_BYTES + 4321);
      const upload = await open('parts/streamed.bin', { contentType: 'application/x-cumulo' });
      const sent = await Promise.all(
        [2, 1].map(async (partNumber) => {
          const body = pieces(whole)[partNumber - 1] as Buffer;
          // Arrives in small chunks, as a ranged GET's body does.
          const chunks = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, index) =>
            body.subarray(index * 65_536, (index + 1) * 65_536),
          );
          const answer = await parts.uploadPart(upload, partNumber, {
            stream: Readable.from(chunks),
            length: body.length,
          });
          // A store that declares it answers the MD5 of what it received: what the engine checks streamed parts by.
          if (parts.answersPartMd5) expect(answer.md5).toBe(md5(body));
          else if (answer.md5 !== null) expect(answer.md5).toBe(md5(body));
          return { partNumber, etag: answer.etag };
        }),
      );
      await parts.complete(
        upload,
        sent.sort((a, b) => a.partNumber - b.partNumber),
        { contentType: 'application/x-cumulo' },
      );
      expect(await store.stat(bucket, upload.key)).toMatchObject({ size: whole.length });
      expect(sha256(await readAll(store, bucket, upload.key))).toBe(sha256(whole));
    });

    it('fails a streamed part that ends short of, or runs past, its length and keeps none of it', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const upload = await open('parts/streamed-short.bin');
      const body = randomBytes(256 * 1024);
      const short = await parts
        .uploadPart(upload, 1, { stream: Readable.from([body.subarray(0, 100_000)]), length: body.length })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(short).toBeInstanceOf(Error);
      const long = await parts
        .uploadPart(upload, 2, { stream: Readable.from([body, body.subarray(0, 10)]), length: body.length })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(long).toBeInstanceOf(Error);
      expect(await parts.listParts(upload).catch(() => [])).toEqual([]);
      // Nothing can be completed from it, and nothing is visible.
      const completed = await parts.complete(upload, [{ partNumber: 1, etag: md5(body) }], {}).then(
        () => true,
        () => false,
      );
      expect(completed).toBe(false);
      expect(await store.stat(bucket, upload.key)).toBeNull();
      await parts.abort(upload);
    });

    it('aborts without leaving an object or parts, and a second abort is fine', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const upload = await open('parts/aborted.bin');
      const whole = randomBytes(PART_BYTES + 10);
      await parts.uploadPart(upload, 2, whole.subarray(PART_BYTES), { md5: md5(whole.subarray(PART_BYTES)) });
      await parts.uploadPart(upload, 1, whole.subarray(0, PART_BYTES), {
        md5: md5(whole.subarray(0, PART_BYTES)),
      });
      expect(await parts.listParts(upload)).toHaveLength(2);
      await parts.abort(upload);
      expect(await store.stat(bucket, upload.key)).toBeNull();
      await expectNoParts(upload);
      await parts.abort(upload);
    });

    it('aborting an upload over an existing object leaves that object as it was', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const original = Buffer.from('the object the transfer would have replaced');
      await store.write(bucket, 'parts/kept.txt', original, {
        contentType: 'text/plain',
        metadata: { 'cumulo-sha256': sha256(original) },
      });
      const upload = await open('parts/kept.txt');
      const body = randomBytes(2048);
      await parts.uploadPart(upload, 1, body, { md5: md5(body) });
      await parts.abort(upload);
      const info = await store.stat(bucket, 'parts/kept.txt');
      expect(info).toMatchObject({ size: original.length, contentType: 'text/plain' });
      expect(info?.metadata['cumulo-sha256']).toBe(sha256(original));
      expect(await readAll(store, bucket, 'parts/kept.txt')).toEqual(original);
    });

    it('copies byte ranges of another object of the store into parts, server-side, to the exact bytes', async () => {
      const { store, bucket } = fixture();
      const parts = partsOf();
      const copyPart = parts.copyPart?.bind(parts);
      if (!copyPart) throw new Error('the adapter declares parts without copyPart');
      const source = randomBytes(2 * PART_BYTES + 777);
      await store.write(bucket, 'parts/copy-source.bin', source);
      const upload = await open('parts/copied.bin', { metadata: { 'cumulo-sha256': sha256(source) } });
      const ranges = [
        { partNumber: 2, start: PART_BYTES, end: 2 * PART_BYTES - 1 },
        { partNumber: 3, start: 2 * PART_BYTES, end: source.length - 1 },
        { partNumber: 1, start: 0, end: PART_BYTES - 1 },
      ];
      const copied = await Promise.all(
        ranges.map(async ({ partNumber, start, end }) => {
          const { etag } = await copyPart(
            upload,
            partNumber,
            { bucket, key: 'parts/copy-source.bin' },
            { start, end },
            {},
          );
          return { partNumber, etag };
        }),
      );
      expect((await parts.listParts(upload)).map((p) => [p.partNumber, p.size])).toEqual([
        [1, PART_BYTES],
        [2, PART_BYTES],
        [3, 777],
      ]);
      await parts.complete(upload, copied, { metadata: { 'cumulo-sha256': sha256(source) } });
      expect(sha256(await readAll(store, bucket, 'parts/copied.bin'))).toBe(sha256(source));
      expect((await store.stat(bucket, 'parts/copied.bin'))?.metadata['cumulo-sha256']).toBe(sha256(source));
    });
  });
}
