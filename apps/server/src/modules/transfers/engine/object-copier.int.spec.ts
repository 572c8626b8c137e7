import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { StorageError, type ObjectStore, type ObjectStoreCapabilities } from '@cumulo/storage';
import {
  readAll,
  startAzurite,
  startS3rver,
  type S3rverServer,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import { azuriteStore, s3rverStore } from '../../../../test/harness.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECKSUM_MISMATCH,
  CopyError,
  SOURCE_CHANGED,
  type CopyEndpoint,
  type CopyItem,
  type CopyMethod,
  type CopyTask,
  type FinishedPart,
  type PartLedger,
} from './copy-task.ts';
import { sameContent } from './keys.ts';
import { DEFAULT_TRANSFER_MEMORY, MemoryBudget } from './memory-budget.ts';
import { ObjectCopier, type CopierPools, type CopyOptions } from './object-copier.ts';
import { ThrottleGates } from './throttle.ts';

const MiB = 1024 * 1024;

/** The pools of one worker process, as services.ts builds them, shared by every copy of this file. */
const processPools: CopierPools = {
  memory: new MemoryBudget(DEFAULT_TRANSFER_MEMORY),
  gates: new ThrottleGates(),
};
/** One copy with the process's pools, unless the test gives its own, and the test's tuning. */
const copyObject = (task: CopyTask, options: CopyOptions & Partial<CopierPools> = {}) =>
  new ObjectCopier({ ...processPools, ...options }).copyObject(task);
const abandonCopy = (task: CopyTask) => new ObjectCopier(processPools).abandonCopy(task);
type Parts = NonNullable<ObjectStoreCapabilities['parts']>;

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The executor's ledger lives in PostgreSQL (transfer_items, transfer_parts); this is the same seam in memory. */
class MemoryLedger implements PartLedger {
  readonly uploads = new Map<
    number,
    { method: CopyMethod; uploadId: string | null; partSize: number | null }
  >();
  readonly parts = new Map<number, Map<number, FinishedPart>>();

  async begin(itemId: number, method: CopyMethod, uploadId: string | null, partSize: number | null) {
    this.uploads.set(itemId, { method, uploadId, partSize });
    this.parts.set(itemId, new Map());
  }
  async finishedParts(itemId: number) {
    return [...(this.parts.get(itemId)?.values() ?? [])].sort((a, b) => a.partNumber - b.partNumber);
  }
  async recordPart(itemId: number, part: FinishedPart) {
    this.parts.get(itemId)?.set(part.partNumber, part);
  }
  async clear(itemId: number) {
    this.uploads.delete(itemId);
    this.parts.delete(itemId);
  }
  async lostStart() {}
}

/** A store that delegates to a real one, with some calls replaced to watch or disturb them. */
function wrapStore(
  store: ObjectStore,
  changes: {
    read?: ObjectStore['read'];
    write?: ObjectStore['write'];
    stat?: ObjectStore['stat'];
    copy?: ObjectStore['copy'];
    parts?: Partial<Parts> | 'none';
  } = {},
): ObjectStore {
  const { parts: partsCapability, ...otherCapabilities } = store.capabilities;
  const parts =
    changes.parts === 'none' ? undefined : partsCapability && { ...partsCapability, ...changes.parts };
  return {
    provider: store.provider,
    capabilities: { ...otherCapabilities, ...(parts ? { parts } : {}) },
    verify: () => store.verify(),
    listBuckets: () => store.listBuckets(),
    createBucket: (name, options) => store.createBucket(name, options),
    headBucket: (name) => store.headBucket(name),
    list: (bucket, options) => store.list(bucket, options),
    stat: changes.stat ?? ((bucket, key) => store.stat(bucket, key)),
    read: changes.read ?? ((bucket, key, options) => store.read(bucket, key, options)),
    write: changes.write ?? ((bucket, key, body, options) => store.write(bucket, key, body, options)),
    deleteMany: (bucket, keys) => store.deleteMany(bucket, keys),
    copy: changes.copy ?? ((source, target, options) => store.copy(source, target, options)),
    signedUrl: (bucket, key, options) => store.signedUrl(bucket, key, options),
    close: () => store.close(),
  };
}

/** A store that counts the objects read through it: a server-side copy reads none. */
function watchingReads(store: ObjectStore): { store: ObjectStore; reads: () => number } {
  let reads = 0;
  const counting = wrapStore(store, {
    read: (name, key, options) => {
      reads += 1;
      return store.read(name, key, options);
    },
  });
  return { store: counting, reads: () => reads };
}

let nextItemId = 1;

/** An item as the planner records it: the source as listed. */
async function plannedItem(
  store: ObjectStore,
  bucket: string,
  key: string,
  destinationKey = key,
): Promise<CopyItem> {
  const info = await store.stat(bucket, key);
  if (!info) throw new Error(`${key} was not written`);
  return {
    id: nextItemId++,
    sourceKey: key,
    destinationKey,
    size: info.size,
    sourceEtag: info.etag,
    sourceMd5: info.md5,
    method: null,
    uploadId: null,
    partSize: null,
  };
}

function taskOf(
  item: CopyItem,
  source: CopyEndpoint,
  destination: CopyEndpoint,
  ledger: PartLedger = new MemoryLedger(),
  signal: AbortSignal = new AbortController().signal,
): CopyTask & { copiedBytes: () => number } {
  let bytes = 0;
  return {
    item,
    source,
    destination,
    ledger,
    signal,
    onBytes: (delta) => {
      bytes += delta;
    },
    copiedBytes: () => bytes,
  };
}

/** Headers a copy must keep (as rclone --metadata and DataSync do): serving the copy depends on them. */
const REPORT_HEADERS = {
  cacheControl: 'private, max-age=600',
  contentDisposition: 'attachment; filename="report one.pdf"',
  contentLanguage: 'en-GB',
};
const VIDEO_HEADERS = { cacheControl: 'public, max-age=31536000, immutable', contentEncoding: 'identity' };

describe('object copier against real stores (two s3rver instances and Azurite)', () => {
  let s3a: S3rverServer;
  let s3b: S3rverServer;
  let azurite: TestStoreServer;
  let storeA: ObjectStore;
  let storeB: ObjectStore;
  let azure: ObjectStore;
  const bucket = `copier-${randomUUID().slice(0, 8)}`;
  const otherBucket = `${bucket}-2`;
  // Small pauses: the throttling tests must not sleep for seconds.
  const gates = () => new ThrottleGates({ baseDelayMs: 1, maxDelayMs: 8, maxAttempts: 5 });

  const endpointA = (store: ObjectStore = storeA, name = bucket): CopyEndpoint => ({
    store,
    accountId: 'account-a',
    bucket: name,
    endpointKey: 's3rver-a',
  });
  const endpointB = (store: ObjectStore = storeB): CopyEndpoint => ({
    store,
    accountId: 'account-b',
    bucket,
    endpointKey: 's3rver-b',
  });
  const endpointAzure = (store: ObjectStore = azure): CopyEndpoint => ({
    store,
    accountId: 'account-azure',
    bucket,
    endpointKey: 'azurite',
  });

  beforeAll(async () => {
    [s3a, s3b, azurite] = await Promise.all([startS3rver(), startS3rver(), startAzurite()]);
    storeA = s3rverStore(s3a.endpoint, { retry: { maxAttempts: 2 } });
    storeB = s3rverStore(s3b.endpoint, { retry: { maxAttempts: 2 } });
    azure = azuriteStore(azurite.endpoint, { retry: { maxAttempts: 2 } });
    await Promise.all([
      storeA.createBucket(bucket),
      storeA.createBucket(otherBucket),
      storeB.createBucket(bucket),
      azure.createBucket(bucket),
    ]);
  });

  afterAll(async () => {
    await Promise.all([storeA?.close(), storeB?.close(), azure?.close()]);
    await Promise.all([s3a?.stop(), s3b?.stop(), azurite?.stop()]);
  });

  describe('single request for small objects', () => {
    it('copies S3 → Azure byte-identical, with cumulo-md5, content type and headers, user metadata, no SHA-256 pass', async () => {
      const bytes = randomBytes(300 * 1024);
      await storeA.write(bucket, 'docs/report one.pdf', bytes, {
        contentType: 'application/pdf',
        contentHeaders: REPORT_HEADERS,
        metadata: { owner: 'finance' },
      });
      const item = await plannedItem(storeA, bucket, 'docs/report one.pdf');
      const task = taskOf(item, endpointA(), endpointAzure());

      const result = await copyObject(task);

      // The source's MD5 verifies it: no SHA-256 is computed, and the MD5 is what later syncs compare.
      expect(result).toEqual({ method: 'single', md5: md5(bytes), sha256: null, verifiedBy: 'md5' });
      expect((await readAll(azure, bucket, 'docs/report one.pdf')).equals(bytes)).toBe(true);
      const copied = await azure.stat(bucket, 'docs/report one.pdf');
      // The source version it holds, for a later Skip Existing Files (the name survives Azure's C# identifiers).
      expect(copied?.metadata).toEqual({
        owner: 'finance',
        'cumulo-md5': md5(bytes),
        'cumulo-source-etag': item.sourceEtag,
      });
      expect(copied?.contentType).toBe('application/pdf');
      expect(copied?.contentHeaders).toEqual(REPORT_HEADERS);
      expect(copied?.md5).toBe(md5(bytes));
      expect(task.copiedBytes()).toBe(bytes.length);
    });

    it('copies Azure → S3 byte-identical, with cumulo-md5, content type and headers', async () => {
      const bytes = randomBytes(2 * MiB + 17);
      await azure.write(bucket, 'from-azure/photo.jpg', bytes, {
        contentType: 'image/jpeg',
        contentHeaders: { contentDisposition: 'inline; filename="photo.jpg"' },
      });
      const task = taskOf(
        await plannedItem(azure, bucket, 'from-azure/photo.jpg'),
        endpointAzure(),
        endpointB(),
      );

      const result = await copyObject(task);

      expect(result.method).toBe('single');
      expect((await readAll(storeB, bucket, 'from-azure/photo.jpg')).equals(bytes)).toBe(true);
      const copied = await storeB.stat(bucket, 'from-azure/photo.jpg');
      expect(copied?.metadata['cumulo-md5']).toBe(md5(bytes));
      expect(copied?.metadata['cumulo-sha256']).toBeUndefined();
      expect(copied?.md5).toBe(md5(bytes));
      expect(copied?.contentType).toBe('image/jpeg');
      expect(copied?.contentHeaders).toEqual({ contentDisposition: 'inline; filename="photo.jpg"' });
    });

    it('refuses bytes damaged on the read and writes nothing', async () => {
      const bytes = randomBytes(64 * 1024);
      await storeA.write(bucket, 'damaged/small.bin', bytes);
      const damaging = wrapStore(storeA, {
        read: async (name, key) => {
          const altered = await readAll(storeA, name, key);
          altered[100] = (altered[100] ?? 0) ^ 0xff;
          return Readable.from([altered]);
        },
      });
      const task = taskOf(
        await plannedItem(storeA, bucket, 'damaged/small.bin'),
        endpointA(damaging),
        endpointAzure(),
      );

      const error = await copyObject(task).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).retryable).toBe(true);
      expect(await azure.stat(bucket, 'damaged/small.bin')).toBeNull();
    });

    it('fails with "The source object changed during the copy" when the ETag moved since planning', async () => {
      await storeA.write(bucket, 'moving.txt', Buffer.from('first version'));
      const item = await plannedItem(storeA, bucket, 'moving.txt');
      await storeA.write(bucket, 'moving.txt', Buffer.from('second version'));
      const task = taskOf({ ...item, size: 'second version'.length }, endpointA(), endpointB());

      const error = await copyObject(task).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe('The source object changed during the copy');
      expect((error as CopyError).retryable).toBe(true);
      expect(await storeB.stat(bucket, 'moving.txt')).toBeNull();
    });
  });

  describe('parallel parts for large objects', () => {
    const large = randomBytes(40 * MiB);
    const partSize = 5 * MiB; // 8 parts

    beforeAll(async () => {
      // Uploaded whole, as a tool that PUTs whole files does: its ETag is its MD5, which verifies every copy.
      await s3a.putWhole(bucket, 'large/video.mp4', large, {
        ContentType: 'video/mp4',
        CacheControl: VIDEO_HEADERS.cacheControl,
        ContentEncoding: VIDEO_HEADERS.contentEncoding,
        Metadata: { camera: 'north' },
      });
    });

    it('copies 40 MiB S3 → S3 across endpoints in parts, verified by MD5, checksums in metadata', async () => {
      const item = await plannedItem(storeA, bucket, 'large/video.mp4');
      const task = taskOf(item, endpointA(), endpointB());

      const result = await copyObject(task, { partSize, partConcurrency: 3 });

      expect(result).toEqual({ method: 'parts', md5: md5(large), sha256: null, verifiedBy: 'md5' });
      expect((await readAll(storeB, bucket, 'large/video.mp4')).equals(large)).toBe(true);
      const copied = await storeB.stat(bucket, 'large/video.mp4');
      expect(copied?.contentType).toBe('video/mp4');
      expect(copied?.contentHeaders).toEqual(VIDEO_HEADERS);
      expect(copied?.metadata).toEqual({
        camera: 'north',
        'cumulo-md5': md5(large),
        'cumulo-source-etag': item.sourceEtag,
      });
      expect(task.copiedBytes()).toBe(large.length);
      expect(await s3b.openUploads(bucket)).toEqual([]);
    });

    it('holds no more part buffers than the memory budget grants, and objects sharing one buffer both finish', async () => {
      let reading = 0;
      let mostReading = 0;
      const watched = wrapStore(storeA, {
        read: async (name, key, options) => {
          reading += 1;
          mostReading = Math.max(mostReading, reading);
          const stream = await storeA.read(name, key, options);
          stream.once('close', () => (reading -= 1));
          return stream;
        },
      });
      const endpoint = { ...endpointA(), store: watched };
      const twoParts = new MemoryBudget(2 * partSize);
      const task = taskOf(await plannedItem(storeA, bucket, 'large/video.mp4'), endpoint, endpointB());

      const result = await copyObject(task, { partSize, partConcurrency: 4, memory: twoParts });

      expect(result).toMatchObject({ method: 'parts', md5: md5(large), verifiedBy: 'md5' });
      expect((await readAll(storeB, bucket, 'large/video.mp4')).equals(large)).toBe(true);
      expect(mostReading).toBe(2);
      expect(twoParts.held).toBe(0);

      // One buffer for two objects: the second waits for the first instead of the two holding each other up.
      const onePart = new MemoryBudget(partSize);
      const copies = ['one', 'two'].map(async (name) => {
        const item = await plannedItem(storeA, bucket, 'large/video.mp4', `single/${name}`);
        return copyObject(taskOf(item, endpointA(), endpointB()), { partSize, memory: onePart });
      });
      for (const copied of await Promise.all(copies)) expect(copied.md5).toBe(md5(large));
      expect((await readAll(storeB, bucket, 'single/two')).equals(large)).toBe(true);
      expect(onePart.held).toBe(0);
    });

    it("streams every part with streamParts 'always': no part buffer, each part checked by the MD5 S3 answers", async () => {
      const budget = new MemoryBudget(DEFAULT_TRANSFER_MEMORY);
      const units: number[] = [];
      const lease = budget.lease.bind(budget);
      budget.lease = (unit, wanted, signal) => {
        units.push(unit);
        return lease(unit, wanted, signal);
      };
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'always/video.mp4');
      const task = taskOf(item, endpointA(), endpointB());

      const result = await copyObject(task, {
        partSize,
        partConcurrency: 3,
        memory: budget,
        streamParts: 'always',
      });

      // The source's MD5 is recorded, but nothing hashed the object whole to check it: the parts were checked.
      expect(result).toEqual({ method: 'parts', md5: md5(large), sha256: null, verifiedBy: 'part-md5s' });
      expect(units.every((unit) => unit < partSize)).toBe(true);
      expect((await readAll(storeB, bucket, 'always/video.mp4')).equals(large)).toBe(true);
      const copied = await storeB.stat(bucket, 'always/video.mp4');
      expect(copied?.metadata).toEqual({
        camera: 'north',
        'cumulo-md5': md5(large),
        'cumulo-source-etag': item.sourceEtag,
      });
      // A later sync finds it up to date.
      const source = await storeA.stat(bucket, 'large/video.mp4');
      expect(source && copied && sameContent(source, copied, false)).toBe(true);
      expect(task.copiedBytes()).toBe(large.length);
      expect(await s3b.openUploads(bucket)).toEqual([]);
    });

    it("records the source version of a source without MD5 streamed with streamParts 'always', which a sync compares", async () => {
      const withoutMd5 = wrapStore(storeA, {
        stat: async (name, key) => {
          const info = await storeA.stat(name, key);
          return info && { ...info, md5: null };
        },
      });
      const item = {
        ...(await plannedItem(storeA, bucket, 'large/video.mp4', 'always/no-md5.mp4')),
        sourceMd5: null,
      };
      const task = taskOf(item, endpointA(withoutMd5), endpointB());

      const result = await copyObject(task, { partSize, streamParts: 'always' });

      expect(result).toEqual({ method: 'parts', md5: null, sha256: null, verifiedBy: 'part-md5s' });
      const copied = await storeB.stat(bucket, 'always/no-md5.mp4');
      expect(copied?.metadata).toEqual({ camera: 'north', 'cumulo-source-etag': item.sourceEtag });
      const source = await withoutMd5.stat(bucket, 'large/video.mp4');
      expect(source && copied && sameContent(source, copied, false)).toBe(true);
      expect((await readAll(storeB, bucket, 'always/no-md5.mp4')).equals(large)).toBe(true);
    });

    it('copies 40 MiB S3 → Azure in parts with the source MD5 kept, and Content-MD5 set at commit', async () => {
      const task = taskOf(await plannedItem(storeA, bucket, 'large/video.mp4'), endpointA(), endpointAzure());

      const result = await copyObject(task, { partSize, partConcurrency: 4 });

      expect(result.method).toBe('parts');
      expect((await readAll(azure, bucket, 'large/video.mp4')).equals(large)).toBe(true);
      const copied = await azure.stat(bucket, 'large/video.mp4');
      // The source's MD5 was known at start, so it is the comparable checksum; no SHA-256 is needed on top.
      expect(copied?.metadata).toMatchObject({ camera: 'north', 'cumulo-md5': md5(large) });
      expect(copied?.md5).toBe(md5(large));
      expect(copied).toMatchObject({ contentType: 'video/mp4', contentHeaders: VIDEO_HEADERS });
    });

    it('verifies by SHA-256 when the source exposes no comparable MD5, stored in metadata at commit (Azure)', async () => {
      // As an object under SSE-KMS (whose ETag is no MD5) answers: the wrapper hides its MD5.
      const withoutMd5 = wrapStore(storeA, {
        stat: async (name, key) => {
          const info = await storeA.stat(name, key);
          return info && { ...info, md5: null };
        },
      });
      const item = {
        ...(await plannedItem(storeA, bucket, 'large/video.mp4', 'no-md5/video.mp4')),
        sourceMd5: null,
      };
      const task = taskOf(item, endpointA(withoutMd5), endpointAzure());

      const result = await copyObject(task, { partSize });

      expect(result).toEqual({
        method: 'parts',
        md5: md5(large),
        sha256: sha256(large),
        verifiedBy: 'sha256',
      });
      expect((await azure.stat(bucket, 'no-md5/video.mp4'))?.metadata['cumulo-sha256']).toBe(sha256(large));
    });

    it('streams to a destination without parts (as GCS), hashing on the way', async () => {
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'streamed/video.mp4');
      const task = taskOf(item, endpointA(), endpointB(wrapStore(storeB, { parts: 'none' })));

      const result = await copyObject(task);

      // The source's MD5 verifies the copy: no SHA-256 pass on top, as in a parts copy.
      expect(result).toEqual({ method: 'stream', md5: md5(large), sha256: null, verifiedBy: 'md5' });
      expect((await readAll(storeB, bucket, 'streamed/video.mp4')).equals(large)).toBe(true);
      const streamed = await storeB.stat(bucket, 'streamed/video.mp4');
      expect(streamed?.metadata).toEqual({
        camera: 'north',
        'cumulo-md5': md5(large),
        'cumulo-source-etag': item.sourceEtag,
      });
      expect(streamed).toMatchObject({ contentType: 'video/mp4', contentHeaders: VIDEO_HEADERS });
      expect(task.copiedBytes()).toBe(large.length);
    });

    it('resumes an interrupted copy without sending its finished parts again', async () => {
      const ledger = new MemoryLedger();
      const firstRun = new AbortController();
      const sentFirst: number[] = [];
      const parts = storeB.capabilities.parts as Parts;
      const interrupting = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            sentFirst.push(partNumber);
            // The worker dies once three parts are in (the abort plays the SIGKILL for this one copy).
            if (sentFirst.length === 3) firstRun.abort(new Error('worker stopped'));
            return answer;
          },
        },
      });
      const planned = await plannedItem(storeA, bucket, 'large/video.mp4', 'resumed/video.mp4');
      const first = taskOf({ ...planned }, endpointA(), endpointB(interrupting), ledger, firstRun.signal);

      await expect(copyObject(first, { partSize, partConcurrency: 2 })).rejects.toThrow('worker stopped');

      const begun = ledger.uploads.get(planned.id);
      const finishedBefore = (await ledger.finishedParts(planned.id)).map((part) => part.partNumber);
      expect(begun?.method).toBe('parts');
      expect(finishedBefore.length).toBeGreaterThanOrEqual(3);
      expect(await storeB.stat(bucket, 'resumed/video.mp4')).toBeNull();

      // The successor reads the item back as the executor would: with the upload handle the ledger recorded.
      const sentSecond: number[] = [];
      const counting = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            sentSecond.push(partNumber);
            return parts.uploadPart(upload, partNumber, body, options);
          },
        },
      });
      const resumedItem: CopyItem = {
        ...planned,
        method: begun?.method ?? null,
        uploadId: begun?.uploadId ?? null,
        partSize: begun?.partSize ?? null,
      };
      const second = taskOf(resumedItem, endpointA(), endpointB(counting), ledger);

      const result = await copyObject(second, { partSize, partConcurrency: 2 });

      expect(result).toMatchObject({ method: 'parts', md5: md5(large), sha256: null });
      expect(sentSecond.filter((partNumber) => finishedBefore.includes(partNumber))).toEqual([]);
      expect([...finishedBefore, ...sentSecond].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect((await readAll(storeB, bucket, 'resumed/video.mp4')).equals(large)).toBe(true);
      expect(ledger.uploads.has(planned.id)).toBe(false);
      expect(await s3b.openUploads(bucket)).toEqual([]);
    });

    it('aborts the upload and leaves no object when a ranged read returns altered bytes', async () => {
      const damaging = wrapStore(storeA, {
        read: async (name, key, options) => {
          if (options?.range?.start !== 2 * partSize) return storeA.read(name, key, options);
          const altered = await readAll(storeA, name, key, options);
          altered[12345] = (altered[12345] ?? 0) ^ 0x01;
          return Readable.from([altered]);
        },
      });
      const ledger = new MemoryLedger();
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'corrupted/video.mp4');
      const task = taskOf(item, endpointA(damaging), endpointB(), ledger);

      const error = await copyObject(task, { partSize, partConcurrency: 3 }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe(
        'The copied bytes do not match the checksum of the source object',
      );
      expect((error as CopyError).retryable).toBe(true);
      expect(await storeB.stat(bucket, 'corrupted/video.mp4')).toBeNull();
      expect(await s3b.openUploads(bucket, 'corrupted/')).toEqual([]);
      expect(ledger.uploads.has(item.id)).toBe(false);
    });

    it('abandonCopy aborts the upload an interrupted copy left and clears the ledger', async () => {
      const ledger = new MemoryLedger();
      const run = new AbortController();
      const parts = storeB.capabilities.parts as Parts;
      const interrupting = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            run.abort(new Error('canceled'));
            return answer;
          },
        },
      });
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'abandoned/video.mp4');
      const task = taskOf(item, endpointA(), endpointB(interrupting), ledger, run.signal);
      await expect(copyObject(task, { partSize, partConcurrency: 1 })).rejects.toThrow('canceled');
      expect(await s3b.openUploads(bucket, 'abandoned/')).toHaveLength(1);

      await abandonCopy(task);

      expect(await s3b.openUploads(bucket, 'abandoned/')).toEqual([]);
      expect(ledger.uploads.has(item.id)).toBe(false);
      expect(task.item.uploadId).toBeNull();
    });

    it('aborts the upload it opened when its lease went meanwhile: no ledger names it, so nothing else would', async () => {
      class LostLease extends MemoryLedger {
        override async begin(itemId: number): Promise<void> {
          throw new Error(`lease of transfer item ${itemId} was lost`);
        }
      }
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'lease-lost/video.mp4');
      const task = taskOf(item, endpointA(), endpointB(), new LostLease());
      await expect(copyObject(task, { partSize, partConcurrency: 1 })).rejects.toThrow('was lost');
      expect(await s3b.openUploads(bucket, 'lease-lost/')).toEqual([]);
      expect(await storeB.stat(bucket, 'lease-lost/video.mp4')).toBeNull();
    });

    it('copies a large object inside one s3rver in parallel part copies, no byte through the worker', async () => {
      const { store: noReads, reads } = watchingReads(storeA);
      const item = await plannedItem(storeA, bucket, 'large/video.mp4', 'part-copied/video.mp4');
      const task = taskOf(item, endpointA(noReads), endpointA(noReads, otherBucket));

      // serverCopyMax stands in for S3's 5 GiB CopyObject limit, so that 40 MiB takes the part-copy path.
      const result = await copyObject(task, { partSize, serverCopyMax: 8 * MiB });

      expect(reads()).toBe(0);
      expect(result).toMatchObject({ method: 'server-copy', verifiedBy: 'server-copy' });
      expect((await readAll(storeA, otherBucket, 'part-copied/video.mp4')).equals(large)).toBe(true);
      // A multipart upload of its own has another ETag than the source's: the source version says it is a copy.
      const partCopied = await storeA.stat(otherBucket, 'part-copied/video.mp4');
      expect(partCopied?.metadata).toEqual({ camera: 'north', 'cumulo-source-etag': item.sourceEtag });
      expect(partCopied).toMatchObject({ contentType: 'video/mp4', contentHeaders: VIDEO_HEADERS });
      expect(task.copiedBytes()).toBe(large.length);
      expect(await s3a.openUploads(otherBucket, 'part-copied/')).toEqual([]);
    });

    it('copies the bytes itself when the store refuses part copies (a wrapper answers 501: s3rver would copy)', async () => {
      const refusing = wrapStore(storeA, {
        parts: {
          copyPart: () =>
            Promise.reject(
              new StorageError(
                'Unknown',
                'A header you provided implies functionality that is not implemented',
                'aws',
                501,
              ),
            ),
        },
      });
      const task = taskOf(
        await plannedItem(storeA, bucket, 'large/video.mp4', 'fallback/video.mp4'),
        endpointA(refusing),
        endpointA(refusing, otherBucket),
      );

      const result = await copyObject(task, { partSize, serverCopyMax: 8 * MiB });

      expect(result).toMatchObject({ method: 'parts', md5: md5(large) });
      expect((await readAll(storeA, otherBucket, 'fallback/video.mp4')).equals(large)).toBe(true);
      expect(await s3a.openUploads(otherBucket, 'fallback/')).toEqual([]);
    });
  });

  describe("a source uploaded in parts (its ETag the MD5 of its parts' MD5s)", () => {
    const large = randomBytes(40 * MiB);
    /** Parts ETag of `bytes` cut into parts of `partSize`, as S3 computes it. */
    const partsEtag = (bytes: Buffer, partSize: number) => {
      const count = Math.ceil(bytes.length / partSize);
      const md5s = Array.from({ length: count }, (_, i) =>
        createHash('md5')
          .update(bytes.subarray(i * partSize, (i + 1) * partSize))
          .digest(),
      );
      return `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${count}`;
    };
    /** Reads of the source, by first byte. */
    const countingReads = (starts: number[]) =>
      wrapStore(storeA, {
        read: (name, key, options) => {
          starts.push(options?.range?.start ?? 0);
          return storeA.read(name, key, options);
        },
      });

    beforeAll(async () => {
      // The store writes 40 MiB in eight parts of 5 MiB (the S3 minimum), as most tools upload large files.
      await storeA.write(bucket, 'parts/video.mp4', large, {
        contentType: 'video/mp4',
        contentHeaders: VIDEO_HEADERS,
        metadata: { camera: 'north' },
      });
    });

    it("copies S3 → S3 in the source's own parts, checked against its parts ETag, which the copy then has too", async () => {
      const starts: number[] = [];
      let copies = 0;
      const destination = wrapStore(storeB, {
        copy: (source, target, options) => {
          copies += 1;
          return storeB.copy(source, target, options);
        },
      });
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4');
      expect(item.sourceEtag).toBe(partsEtag(large, 5 * MiB));
      const task = taskOf(item, endpointA(countingReads(starts)), endpointB(destination));

      // Cumulo's own part size would be 8 MiB: the source's 5 MiB parts are taken instead.
      const result = await copyObject(task, { partConcurrency: 3 });

      expect(result).toEqual({ method: 'parts', md5: null, sha256: null, verifiedBy: 'parts-md5' });
      expect(starts.sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => i * 5 * MiB));
      const copied = await storeB.stat(bucket, 'parts/video.mp4');
      expect(copied?.etag).toBe(item.sourceEtag);
      // Nothing is learnt after the upload began, so no self-copy adds metadata afterwards.
      expect(copies).toBe(0);
      expect(copied?.metadata).toEqual({ camera: 'north', 'cumulo-source-etag': item.sourceEtag });
      expect(copied).toMatchObject({ contentType: 'video/mp4', contentHeaders: VIDEO_HEADERS });
      expect((await readAll(storeB, bucket, 'parts/video.mp4')).equals(large)).toBe(true);
      expect(task.copiedBytes()).toBe(large.length);
      expect(await s3b.openUploads(bucket)).toEqual([]);
    });

    it("copies S3 → Azure in blocks of the source's part size, checked against its parts ETag", async () => {
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/to-azure.mp4');
      const task = taskOf(item, endpointA(), endpointAzure());

      const result = await copyObject(task);

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'parts-md5' });
      expect((await readAll(azure, bucket, 'parts/to-azure.mp4')).equals(large)).toBe(true);
      expect((await azure.stat(bucket, 'parts/to-azure.mp4'))?.metadata).toEqual({
        camera: 'north',
        'cumulo-source-etag': item.sourceEtag,
      });
    });

    it('resumes without reading its finished parts again: their MD5s are in the ledger', async () => {
      const ledger = new MemoryLedger();
      const firstRun = new AbortController();
      const parts = storeB.capabilities.parts as Parts;
      let sent = 0;
      const interrupting = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            if (++sent === 3) firstRun.abort(new Error('worker stopped'));
            return answer;
          },
        },
      });
      const planned = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/resumed.mp4');
      const first = taskOf({ ...planned }, endpointA(), endpointB(interrupting), ledger, firstRun.signal);
      await expect(copyObject(first, { partConcurrency: 2 })).rejects.toThrow('worker stopped');
      const begun = ledger.uploads.get(planned.id);
      const finished = (await ledger.finishedParts(planned.id)).map(
        (part) => (part.partNumber - 1) * 5 * MiB,
      );
      expect(begun?.partSize).toBe(5 * MiB);
      expect(finished.length).toBeGreaterThanOrEqual(3);

      const starts: number[] = [];
      const resumed: CopyItem = {
        ...planned,
        method: begun?.method ?? null,
        uploadId: begun?.uploadId ?? null,
        partSize: begun?.partSize ?? null,
      };
      const second = taskOf(resumed, endpointA(countingReads(starts)), endpointB(), ledger);
      const result = await copyObject(second, { partConcurrency: 2 });

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'parts-md5' });
      expect(starts.filter((start) => finished.includes(start))).toEqual([]);
      expect([...finished, ...starts].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 8 }, (_, i) => i * 5 * MiB),
      );
      expect((await readAll(storeB, bucket, 'parts/resumed.mp4')).equals(large)).toBe(true);
      expect(await s3b.openUploads(bucket)).toEqual([]);
    });

    it('aborts the upload and leaves no object when a part read returns altered bytes', async () => {
      const damaging = wrapStore(storeA, {
        read: async (name, key, options) => {
          if (options?.range?.start !== 2 * 5 * MiB) return storeA.read(name, key, options);
          const altered = await readAll(storeA, name, key, options);
          altered[777] = (altered[777] ?? 0) ^ 0x80;
          return Readable.from([altered]);
        },
      });
      const ledger = new MemoryLedger();
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/corrupted.mp4');
      const task = taskOf(item, endpointA(damaging), endpointB(), ledger);

      const error = await copyObject(task).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe(
        'The copied bytes do not match the checksum of the source object',
      );
      expect(await storeB.stat(bucket, 'parts/corrupted.mp4')).toBeNull();
      expect(await s3b.openUploads(bucket, 'parts/')).toEqual([]);
      expect(ledger.uploads.has(item.id)).toBe(false);
    });

    it('streams each part from its read into its upload: no part-sized buffer is leased, the budget counts streams', async () => {
      const budget = new MemoryBudget(DEFAULT_TRANSFER_MEMORY);
      const units: number[] = [];
      const lease = budget.lease.bind(budget);
      budget.lease = (unit, wanted, signal) => {
        units.push(unit);
        return lease(unit, wanted, signal);
      };
      let mostHeld = 0;
      let streamed = 0;
      const parts = storeB.capabilities.parts as Parts;
      const watching = wrapStore(storeB, {
        parts: {
          uploadPart: (upload, partNumber, body, options) => {
            mostHeld = Math.max(mostHeld, budget.held);
            if (!Buffer.isBuffer(body)) streamed += 1;
            return parts.uploadPart(upload, partNumber, body, options);
          },
        },
      });
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/streamed.mp4');
      const task = taskOf(item, endpointA(), endpointB(watching));

      const result = await copyObject(task, { partConcurrency: 4, memory: budget });

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'parts-md5' });
      expect(streamed).toBe(8);
      // Four parts of 5 MiB in flight held no more than one part's worth of the budget.
      expect(units.every((unit) => unit < 5 * MiB)).toBe(true);
      expect(mostHeld).toBeGreaterThan(0);
      expect(mostHeld).toBeLessThan(5 * MiB);
      expect(budget.held).toBe(0);
      expect((await storeB.stat(bucket, 'parts/streamed.mp4'))?.etag).toBe(item.sourceEtag);
      expect((await readAll(storeB, bucket, 'parts/streamed.mp4')).equals(large)).toBe(true);
      expect(task.copiedBytes()).toBe(large.length);
    });

    it('sends a part again when the MD5 the store answers is not that of the bytes streamed, then completes', async () => {
      const parts = storeB.capabilities.parts as Parts;
      const sends = new Map<number, number>();
      const misanswering = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            sends.set(partNumber, (sends.get(partNumber) ?? 0) + 1);
            // The store says it received other bytes the first time part 3 arrives.
            return partNumber === 3 && sends.get(3) === 1
              ? { ...answer, md5: md5(Buffer.from('other')) }
              : answer;
          },
        },
      });
      const ledger = new MemoryLedger();
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/re-sent.mp4');
      const task = taskOf(item, endpointA(), endpointB(misanswering), ledger);

      const result = await copyObject(task, { partConcurrency: 3 });

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'parts-md5' });
      expect(sends.get(3)).toBe(2);
      expect([...sends.entries()].filter(([partNumber, count]) => partNumber !== 3 && count !== 1)).toEqual(
        [],
      );
      expect((await readAll(storeB, bucket, 'parts/re-sent.mp4')).equals(large)).toBe(true);
      expect(task.copiedBytes()).toBe(large.length);
      expect(await s3b.openUploads(bucket, 'parts/')).toEqual([]);
    });

    it('fails with CHECKSUM_MISMATCH and leaves nothing when the store keeps answering another MD5 for a part', async () => {
      const parts = storeB.capabilities.parts as Parts;
      const misanswering = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            return partNumber === 5 ? { ...answer, md5: md5(Buffer.from('other')) } : answer;
          },
        },
      });
      const ledger = new MemoryLedger();
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/never-right.mp4');
      const task = taskOf(item, endpointA(), endpointB(misanswering), ledger);

      const error = await copyObject(task).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe(CHECKSUM_MISMATCH);
      expect(await storeB.stat(bucket, 'parts/never-right.mp4')).toBeNull();
      expect(await s3b.openUploads(bucket, 'parts/')).toEqual([]);
      expect(ledger.uploads.has(item.id)).toBe(false);
    });

    it('fails with SOURCE_CHANGED when the source is replaced while its parts stream', async () => {
      const key = 'parts/replaced-midway.mp4';
      await storeA.write(bucket, key, large, { contentType: 'video/mp4' });
      const parts = storeB.capabilities.parts as Parts;
      let replaced: Promise<unknown> | null = null;
      const replacing = wrapStore(storeB, {
        parts: {
          uploadPart: async (upload, partNumber, body, options) => {
            const answer = await parts.uploadPart(upload, partNumber, body, options);
            // Another writer replaces the source (same size, other bytes) once the first part is in.
            replaced ??= storeA.write(bucket, key, randomBytes(large.length), { contentType: 'video/mp4' });
            await replaced;
            return answer;
          },
        },
      });
      const item = await plannedItem(storeA, bucket, key, 'parts/replaced-copy.mp4');
      const task = taskOf(item, endpointA(), endpointB(replacing));

      const error = await copyObject(task, { partConcurrency: 2 }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe(SOURCE_CHANGED);
      expect(await storeB.stat(bucket, 'parts/replaced-copy.mp4')).toBeNull();
      expect(await s3b.openUploads(bucket, 'parts/')).toEqual([]);
    });

    it('copies a source of unequal parts again at its own part size, hashed whole, when the mirror does not match', async () => {
      // 5 + 6 + 1 MiB: the first part and the count fit a uniform layout of 5 MiB parts, which it is not.
      const bytes = randomBytes(12 * MiB);
      const parts = storeA.capabilities.parts as Parts;
      const uploadId = await parts.start(bucket, 'parts/unequal.bin', {});
      const upload = { bucket, key: 'parts/unequal.bin', uploadId };
      const cuts = [0, 5 * MiB, 11 * MiB, 12 * MiB];
      const sent = [];
      for (let i = 0; i < 3; i++) {
        const body = bytes.subarray(cuts[i], cuts[i + 1]);
        sent.push({
          partNumber: i + 1,
          ...(await parts.uploadPart(upload, i + 1, body, { md5: md5(body) })),
        });
      }
      await parts.complete(upload, sent, {});
      const item = await plannedItem(storeA, bucket, 'parts/unequal.bin');
      expect(item.sourceEtag).toMatch(/-3$/);
      const task = taskOf(item, endpointA(), endpointB());

      const result = await copyObject(task);

      expect(result).toEqual({
        method: 'parts',
        md5: md5(bytes),
        sha256: sha256(bytes),
        verifiedBy: 'sha256',
      });
      expect((await readAll(storeB, bucket, 'parts/unequal.bin')).equals(bytes)).toBe(true);
      expect(await s3b.openUploads(bucket, 'parts/')).toEqual([]);
    });

    it("streams to a destination without parts (as GCS), hashing in the source's part sizes to check its parts ETag", async () => {
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/streamed.mp4');
      const task = taskOf(item, endpointA(), endpointB(wrapStore(storeB, { parts: 'none' })));

      const result = await copyObject(task);

      // The MD5 of the whole is the destination's check; the parts ETag the source's; no SHA-256 pass.
      expect(result).toEqual({ method: 'stream', md5: md5(large), sha256: null, verifiedBy: 'parts-md5' });
      expect((await readAll(storeB, bucket, 'parts/streamed.mp4')).equals(large)).toBe(true);
      expect((await storeB.stat(bucket, 'parts/streamed.mp4'))?.metadata).toEqual({
        camera: 'north',
        'cumulo-source-etag': item.sourceEtag,
      });
    });

    it("removes a streamed copy whose bytes do not give the source's parts ETag", async () => {
      const damaging = wrapStore(storeA, {
        read: async (name, key, options) => {
          const altered = await readAll(storeA, name, key, options);
          altered[7 * MiB] = (altered[7 * MiB] ?? 0) ^ 0x04;
          return Readable.from([altered]);
        },
      });
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/streamed-bad.mp4');
      const task = taskOf(item, endpointA(damaging), endpointB(wrapStore(storeB, { parts: 'none' })));

      const error = await copyObject(task).catch((e: unknown) => e);

      expect((error as CopyError).message).toBe(
        'The copied bytes do not match the checksum of the source object',
      );
      expect(await storeB.stat(bucket, 'parts/streamed-bad.mp4')).toBeNull();
    });

    it('checks a small object uploaded in parts against its parts ETag when it is copied in one request', async () => {
      // 6 MiB in a 5 MiB part and a 1 MiB one: read whole, written in one PUT (below 8 MiB).
      const bytes = randomBytes(6 * MiB);
      const parts = storeA.capabilities.parts as Parts;
      const uploadId = await parts.start(bucket, 'parts/small.bin', {});
      const upload = { bucket, key: 'parts/small.bin', uploadId };
      const sent = [];
      for (const [index, body] of [bytes.subarray(0, 5 * MiB), bytes.subarray(5 * MiB)].entries()) {
        sent.push({
          partNumber: index + 1,
          ...(await parts.uploadPart(upload, index + 1, body, { md5: md5(body) })),
        });
      }
      await parts.complete(upload, sent, {});
      const task = taskOf(await plannedItem(storeA, bucket, 'parts/small.bin'), endpointA(), endpointB());

      const result = await copyObject(task);

      expect(result).toEqual({
        method: 'single',
        md5: md5(bytes),
        sha256: sha256(bytes),
        verifiedBy: 'parts-md5',
      });
      expect((await readAll(storeB, bucket, 'parts/small.bin')).equals(bytes)).toBe(true);
    });

    it('copies as from any other source when the store refuses to tell where a part lies', async () => {
      const refusing: ObjectStore = {
        ...wrapStore(storeA),
        capabilities: {
          ...storeA.capabilities,
          partLayout: {
            statPart: () =>
              Promise.reject(new StorageError('Unknown', 'partNumber is not supported', 'genericS3', 400)),
          },
        },
      };
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/no-layout.mp4');
      const task = taskOf(item, endpointA(refusing), endpointB());

      const result = await copyObject(task);

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'sha256', sha256: sha256(large) });
      expect((await readAll(storeB, bucket, 'parts/no-layout.mp4')).equals(large)).toBe(true);
    });

    it('copies it inside one s3rver in part copies of its own parts: the copy has its ETag, which checks it', async () => {
      const { store: noReads, reads } = watchingReads(storeA);
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/part-copied.mp4');
      const task = taskOf(item, endpointA(noReads), endpointA(noReads, otherBucket));

      // serverCopyMax stands in for S3's 5 GiB CopyObject limit, so that 40 MiB takes the part-copy path.
      const result = await copyObject(task, { serverCopyMax: 8 * MiB });

      expect(reads()).toBe(0);
      expect(result).toMatchObject({ method: 'server-copy', verifiedBy: 'parts-md5' });
      expect((await storeA.stat(otherBucket, 'parts/part-copied.mp4'))?.etag).toBe(item.sourceEtag);
      expect((await readAll(storeA, otherBucket, 'parts/part-copied.mp4')).equals(large)).toBe(true);
      expect(await s3a.openUploads(otherBucket, 'parts/')).toEqual([]);
    });

    it('does not mirror parts so large that the memory budget would hold fewer than four', async () => {
      const item = await plannedItem(storeA, bucket, 'parts/video.mp4', 'parts/budget.mp4');
      const task = taskOf(item, endpointA(), endpointB());

      const result = await copyObject(task, { memory: new MemoryBudget(16 * MiB), partSize: 5 * MiB });

      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'sha256', sha256: sha256(large) });
      expect((await readAll(storeB, bucket, 'parts/budget.mp4')).equals(large)).toBe(true);
    });
  });

  describe('server-side copy within one endpoint', () => {
    it('copies between two buckets of one s3rver without reading a byte through the worker', async () => {
      const bytes = randomBytes(12 * MiB);
      // Uploaded whole: the listing shows its MD5.
      await s3a.putWhole(bucket, 'same/archive.zip', bytes, {
        ContentType: 'application/zip',
        CacheControl: REPORT_HEADERS.cacheControl,
        ContentDisposition: REPORT_HEADERS.contentDisposition,
        ContentLanguage: REPORT_HEADERS.contentLanguage,
        Metadata: { project: 'apollo' },
      });
      let reads = 0;
      let stats = 0;
      const noReads = wrapStore(storeA, {
        read: (name, key, options) => {
          reads += 1;
          return storeA.read(name, key, options);
        },
        stat: (name, key) => {
          stats += 1;
          return storeA.stat(name, key);
        },
      });
      const task = taskOf(
        await plannedItem(storeA, bucket, 'same/archive.zip'),
        endpointA(noReads),
        endpointA(noReads, otherBucket),
      );

      const result = await copyObject(task);

      expect(reads).toBe(0);
      // The listing told the size, ETag and MD5: one conditional CopyObject, verified by its answer, no HEAD.
      expect(stats).toBe(0);
      expect(result).toEqual({ method: 'server-copy', md5: md5(bytes), sha256: null, verifiedBy: 'md5' });
      expect((await readAll(storeA, otherBucket, 'same/archive.zip')).equals(bytes)).toBe(true);
      const copied = await storeA.stat(otherBucket, 'same/archive.zip');
      expect(copied?.metadata).toEqual({ project: 'apollo' });
      expect(copied?.contentType).toBe('application/zip');
      expect(copied?.contentHeaders).toEqual(REPORT_HEADERS);
      expect(task.copiedBytes()).toBe(bytes.length);
    });

    it('records the source version on a copy of a source without an MD5, whose copy no checksum would match', async () => {
      // Written in parts (above 8 MiB): its ETag is the MD5 of its parts' MD5s, not the MD5 of its bytes.
      const bytes = randomBytes(12 * MiB);
      await storeA.write(bucket, 'same/multipart.bin', bytes, {
        contentType: 'application/octet-stream',
        contentHeaders: REPORT_HEADERS,
        metadata: { project: 'apollo' },
      });
      const item = await plannedItem(storeA, bucket, 'same/multipart.bin');
      expect(item).toMatchObject({ sourceEtag: expect.stringMatching(/^[0-9a-f]{32}-3$/), sourceMd5: null });
      const task = taskOf(item, endpointA(), endpointA(storeA, otherBucket));

      const result = await copyObject(task);

      expect(result).toMatchObject({ method: 'server-copy', verifiedBy: 'server-copy' });
      expect((await readAll(storeA, otherBucket, 'same/multipart.bin')).equals(bytes)).toBe(true);
      const copied = await storeA.stat(otherBucket, 'same/multipart.bin');
      expect(copied?.metadata).toEqual({ project: 'apollo', 'cumulo-source-etag': item.sourceEtag });
      expect(copied).toMatchObject({
        contentType: 'application/octet-stream',
        contentHeaders: REPORT_HEADERS,
      });
      // The source keeps its own metadata.
      expect((await storeA.stat(bucket, 'same/multipart.bin'))?.metadata).toEqual({ project: 'apollo' });
    });

    it('records the source version on a copy inside Azure of a blob without Content-MD5', async () => {
      const bytes = randomBytes(2 * MiB);
      // Written as a stream: blocks committed without Content-MD5, as most tools write large blobs.
      await azure.write(bucket, 'same/blocks.bin', Readable.from([bytes]), {
        size: bytes.length,
        metadata: { project: 'apollo' },
      });
      const item = await plannedItem(azure, bucket, 'same/blocks.bin', 'same/blocks-copy.bin');
      expect(item.sourceMd5).toBeNull();
      const task = taskOf(item, endpointAzure(), endpointAzure());

      await copyObject(task);

      expect((await readAll(azure, bucket, 'same/blocks-copy.bin')).equals(bytes)).toBe(true);
      expect((await azure.stat(bucket, 'same/blocks-copy.bin'))?.metadata).toEqual({
        project: 'apollo',
        'cumulo-source-etag': item.sourceEtag,
      });
    });
  });

  describe('a source changed after it was listed', () => {
    it('inside one s3rver (which ignores the copy condition): the MD5 of the copy gives it away, the source is asked why, nothing is left', async () => {
      await storeA.write(bucket, 'same/changing.txt', Buffer.from('as it was listed'));
      const item = await plannedItem(storeA, bucket, 'same/changing.txt');
      await storeA.write(bucket, 'same/changing.txt', Buffer.from('as it is now!!!!'));
      const task = taskOf(item, endpointA(storeA), endpointA(storeA, otherBucket));

      const error = await copyObject(task).catch((caught: unknown) => caught);

      // The copy's MD5 differs from the listed one; the source's HEAD then shows a new ETag: it changed.
      expect(error).toBeInstanceOf(CopyError);
      expect((error as CopyError).message).toBe('The source object changed during the copy');
      expect(await storeA.stat(otherBucket, 'same/changing.txt')).toBeNull();
    });
  });

  describe('throttling (a store wrapper answers SlowDown: s3rver never throttles, so the answer is mocked)', () => {
    const slowDown = () => new StorageError('Throttled', 'Please reduce your request rate.', 'aws', 503);

    it('backs off and succeeds when a single write is throttled twice', async () => {
      const bytes = randomBytes(100 * 1024);
      await storeA.write(bucket, 'throttled/small.bin', bytes);
      let writes = 0;
      const throttling = wrapStore(storeB, {
        write: (name, key, body, options) => {
          writes += 1;
          if (writes <= 2) return Promise.reject(slowDown());
          return storeB.write(name, key, body, options);
        },
      });
      const task = taskOf(
        await plannedItem(storeA, bucket, 'throttled/small.bin'),
        endpointA(),
        endpointB(throttling),
      );
      const registry = gates();

      const result = await copyObject(task, { gates: registry });

      expect(result.method).toBe('single');
      expect(writes).toBe(3);
      expect(registry.gateFor('s3rver-b', bucket).backoffLevel).toBe(1);
      expect((await readAll(storeB, bucket, 'throttled/small.bin')).equals(bytes)).toBe(true);
    });

    it('backs off and succeeds when part uploads are throttled twice', async () => {
      const bytes = randomBytes(12 * MiB);
      await storeA.write(bucket, 'throttled/large.bin', bytes);
      const parts = storeB.capabilities.parts as Parts;
      let refusals = 0;
      const throttling = wrapStore(storeB, {
        parts: {
          uploadPart: (upload, partNumber, body, options) => {
            if (refusals < 2) {
              refusals += 1;
              return Promise.reject(slowDown());
            }
            return parts.uploadPart(upload, partNumber, body, options);
          },
        },
      });
      const task = taskOf(
        await plannedItem(storeA, bucket, 'throttled/large.bin'),
        endpointA(),
        endpointB(throttling),
      );

      const result = await copyObject(task, { gates: gates(), partSize: 5 * MiB, partConcurrency: 1 });

      // Written in parts by the store, copied in the same parts and checked against its parts ETag.
      expect(result).toMatchObject({ method: 'parts', verifiedBy: 'parts-md5' });
      expect(refusals).toBe(2);
      expect((await readAll(storeB, bucket, 'throttled/large.bin')).equals(bytes)).toBe(true);
    });
  });
  // s3rver has no SSE-KMS. An object encrypted with it has an ETag of 32 hex digits that is not its MD5, which a
  // listing shows as it is; only the object's own answers (GET, HEAD) tell the encryption, and the S3 adapter then
  // reports no MD5 (s3-store.mock.spec.ts checks that against the headers). These stores stand in for such a
  // source: the same bytes on s3rver, answering with a KMS-like ETag and no MD5.
  describe('a source whose ETag is not its MD5 (SSE-KMS, SSE-C)', () => {
    const kmsEtag = 'c4ca4238a0b923820dcc509a6f75849b';
    const asKms = (store: ObjectStore, realEtag: () => string | null) =>
      wrapStore(store, {
        stat: async (name, key) => {
          const info = await store.stat(name, key);
          return info && { ...info, etag: kmsEtag, md5: null };
        },
        read: (name, key, options = {}) => {
          const onInfo = options.onInfo;
          return store.read(name, key, {
            ...options,
            ...(onInfo ? { onInfo: (info) => onInfo({ ...info, etag: kmsEtag, md5: null }) } : {}),
          });
        },
        // The condition a real KMS source would match is its own ETag; s3rver's object has the plain one.
        copy: (from, to, options = {}) =>
          store.copy(from, to, { ...options, ...(options.ifMatch ? { ifMatch: realEtag() ?? '' } : {}) }),
      });
    const listedAsKms = (item: CopyItem): CopyItem => ({ ...item, sourceEtag: kmsEtag, sourceMd5: kmsEtag });

    it('copies it across endpoints without calling the listed ETag a checksum mismatch', async () => {
      const bytes = randomBytes(200 * 1024);
      await storeA.write(bucket, 'kms/small.bin', bytes);
      const item = listedAsKms(await plannedItem(storeA, bucket, 'kms/small.bin'));
      const task = taskOf(item, endpointA(asKms(storeA, () => null)), endpointB());

      const result = await copyObject(task);

      expect(result).toMatchObject({ method: 'single', sha256: sha256(bytes) });
      expect((await readAll(storeB, bucket, 'kms/small.bin')).equals(bytes)).toBe(true);
    });

    it('copies it server-side, verified by size once the source says its ETag is no MD5', async () => {
      const bytes = randomBytes(100 * 1024);
      const { etag } = await storeA.write(bucket, 'kms/server.bin', bytes);
      const item = listedAsKms(await plannedItem(storeA, bucket, 'kms/server.bin'));
      const task = taskOf(item, endpointA(asKms(storeA, () => etag)), endpointA(storeA, otherBucket));

      const result = await copyObject(task);

      expect(result).toEqual({ method: 'server-copy', md5: null, sha256: null, verifiedBy: 'server-copy' });
      expect((await readAll(storeA, otherBucket, 'kms/server.bin')).equals(bytes)).toBe(true);
      // No MD5 will ever compare the two: the copy records the version it holds, for the next Skip Existing Files.
      expect((await storeA.stat(otherBucket, 'kms/server.bin'))?.metadata).toEqual({
        'cumulo-source-etag': kmsEtag,
      });
    });

    it('copies it server-side even when the store refuses to record the source version afterwards', async () => {
      const bytes = randomBytes(50 * 1024);
      const { etag } = await storeA.write(bucket, 'kms/unrecorded.bin', bytes);
      const item = listedAsKms(await plannedItem(storeA, bucket, 'kms/unrecorded.bin'));
      const refusesSelfCopy = wrapStore(storeA, {
        copy: (from, to, options = {}) =>
          from.bucket === to.bucket && from.key === to.key
            ? Promise.reject(new StorageError('AccessDenied', 'Access Denied', 'aws', 403))
            : storeA.copy(from, to, options),
      });
      const task = taskOf(
        item,
        endpointA(asKms(storeA, () => etag)),
        endpointA(refusesSelfCopy, otherBucket),
      );

      const result = await copyObject(task);

      expect(result).toMatchObject({ method: 'server-copy', verifiedBy: 'server-copy' });
      expect((await readAll(storeA, otherBucket, 'kms/unrecorded.bin')).equals(bytes)).toBe(true);
      expect((await storeA.stat(otherBucket, 'kms/unrecorded.bin'))?.metadata).toEqual({});
    });
  });

  describe('object tags (S3 tag sets, Azure blob index tags), carried as DataSync carries them', () => {
    const TAGS = { team: 'media ops', 'review-date': '2026-11', 'a&b': 'c=d' };
    /** storeA, counting the GetObjectTagging calls a copy makes. */
    const countingTags = () => {
      const asked: string[] = [];
      const get = storeA.capabilities.objectTags?.get;
      const store: ObjectStore = {
        ...wrapStore(storeA),
        capabilities: {
          ...storeA.capabilities,
          objectTags: {
            get: (name, key) => {
              asked.push(key);
              return get ? get(name, key) : Promise.resolve({});
            },
          },
        },
      };
      return { store, asked };
    };
    const tagsOf = (store: ObjectStore, name: string, key: string) =>
      store.capabilities.objectTags?.get(name, key);

    it('copies the tags of a small object and of one in parts across endpoints; asks none of an untagged one', async () => {
      const small = randomBytes(200 * 1024);
      const large = randomBytes(20 * MiB + 5);
      await storeA.write(bucket, 'tagged/small.txt', small, { tags: TAGS });
      await storeA.write(bucket, 'tagged/large.bin', large, { tags: { tier: 'cold' } });
      await storeA.write(bucket, 'tagged/plain.txt', small);
      const { store, asked } = countingTags();

      for (const key of ['tagged/small.txt', 'tagged/large.bin', 'tagged/plain.txt']) {
        const task = taskOf(await plannedItem(storeA, bucket, key), endpointA(store), endpointB());
        await copyObject(task, { partSize: 8 * MiB });
      }

      expect(await tagsOf(storeB, bucket, 'tagged/small.txt')).toEqual(TAGS);
      expect(await tagsOf(storeB, bucket, 'tagged/large.bin')).toEqual({ tier: 'cold' });
      expect((await storeB.stat(bucket, 'tagged/large.bin'))?.partsMd5?.md5).toBeDefined();
      expect(await tagsOf(storeB, bucket, 'tagged/plain.txt')).toEqual({});
      expect(asked).toEqual(['tagged/small.txt', 'tagged/large.bin']);
      expect((await readAll(storeB, bucket, 'tagged/large.bin')).equals(large)).toBe(true);
    });

    it('keeps them on copies inside one store, also in part copies (an upload starts with none)', async () => {
      const large = randomBytes(20 * MiB);
      await storeA.write(bucket, 'tagged/inside.bin', large, { tags: TAGS });
      await storeA.write(bucket, 'tagged/inside.txt', Buffer.from('one request'), { tags: { kind: 'note' } });

      const inParts = taskOf(
        await plannedItem(storeA, bucket, 'tagged/inside.bin'),
        endpointA(),
        endpointA(storeA, otherBucket),
      );
      // serverCopyMax stands in for S3's 5 GiB CopyObject limit, so that 20 MiB takes the part-copy path.
      expect(await copyObject(inParts, { partSize: 8 * MiB, serverCopyMax: 8 * MiB })).toMatchObject({
        method: 'server-copy',
      });
      const whole = taskOf(
        await plannedItem(storeA, bucket, 'tagged/inside.txt'),
        endpointA(),
        endpointA(storeA, otherBucket),
      );
      expect(await copyObject(whole)).toMatchObject({ method: 'server-copy' });

      expect(await tagsOf(storeA, otherBucket, 'tagged/inside.bin')).toEqual(TAGS);
      expect(await tagsOf(storeA, otherBucket, 'tagged/inside.txt')).toEqual({ kind: 'note' });
    });

    it('carries them to Azure as blob index tags and back, whole and in blocks', async () => {
      // Within Azure's rules: letters, digits, space and + - . / : = _ only.
      const AZURE_TAGS = { team: 'media ops', 'review-date': '2026-11', where: 'a/b:c=d+e_f.g' };
      const large = randomBytes(20 * MiB);
      await storeA.write(bucket, 'tagged/to-azure.txt', Buffer.from('to azure'), { tags: AZURE_TAGS });
      await storeA.write(bucket, 'tagged/to-azure.bin', large, { tags: { tier: 'cold' } });
      const { store, asked } = countingTags();
      for (const key of ['tagged/to-azure.txt', 'tagged/to-azure.bin']) {
        const task = taskOf(await plannedItem(storeA, bucket, key), endpointA(store), endpointAzure());
        await copyObject(task, { partSize: 8 * MiB });
      }
      expect(asked).toEqual(['tagged/to-azure.txt', 'tagged/to-azure.bin']);
      expect(await tagsOf(azure, bucket, 'tagged/to-azure.txt')).toEqual(AZURE_TAGS);
      expect(await tagsOf(azure, bucket, 'tagged/to-azure.bin')).toEqual({ tier: 'cold' });
      expect((await readAll(azure, bucket, 'tagged/to-azure.bin')).equals(large)).toBe(true);

      // And back to S3, from the blobs' own tags.
      for (const key of ['tagged/to-azure.txt', 'tagged/to-azure.bin']) {
        const task = taskOf(
          await plannedItem(azure, bucket, key, `back/${key}`),
          endpointAzure(),
          endpointB(),
        );
        await copyObject(task, { partSize: 8 * MiB });
      }
      expect(await tagsOf(storeB, bucket, 'back/tagged/to-azure.txt')).toEqual(AZURE_TAGS);
      expect(await tagsOf(storeB, bucket, 'back/tagged/to-azure.bin')).toEqual({ tier: 'cold' });
    });

    it('copies to Azure without the tags when Azure refuses one of them (its rules are stricter than S3 ones)', async () => {
      // S3 takes @ and letters of any script in a tag; Azure answers 400 InvalidTag.
      const strict = { 'owner@example': 'Zoë' };
      await storeA.write(bucket, 'tagged/strict.txt', Buffer.from('strict'), { tags: strict });
      await storeA.write(bucket, 'tagged/strict.bin', randomBytes(20 * MiB), { tags: strict });
      expect(await tagsOf(storeA, bucket, 'tagged/strict.txt')).toEqual(strict);

      for (const key of ['tagged/strict.txt', 'tagged/strict.bin']) {
        const task = taskOf(await plannedItem(storeA, bucket, key), endpointA(), endpointAzure());
        await copyObject(task, { partSize: 8 * MiB });
      }

      expect((await readAll(azure, bucket, 'tagged/strict.txt')).toString()).toBe('strict');
      expect(await tagsOf(azure, bucket, 'tagged/strict.txt')).toEqual({});
      expect(await tagsOf(azure, bucket, 'tagged/strict.bin')).toEqual({});
      expect((await azure.stat(bucket, 'tagged/strict.bin'))?.size).toBe(20 * MiB);
    });

    it('copies without them when the destination key may write but not tag (AccessDenied), whole and in parts', async () => {
      await storeA.write(bucket, 'tagged/denied.txt', Buffer.from('no tagging here'), { tags: TAGS });
      await storeA.write(bucket, 'tagged/denied.bin', randomBytes(20 * MiB), { tags: TAGS });
      const denied = () => new StorageError('AccessDenied', 'Access Denied', 'aws', 403);
      const refused: string[] = [];
      const parts = storeB.capabilities.parts;
      // S3 refuses the whole write for a key without s3:PutObjectTagging; IAM has no stand-in here, so a wrapper
      // answers as S3 does.
      const noTagging = wrapStore(storeB, {
        write: (name, key, body, options = {}) => {
          if (options.tags) {
            refused.push(key);
            return Promise.reject(denied());
          }
          return storeB.write(name, key, body, options);
        },
        parts: {
          start: (name, key, options) => {
            if (options.tags) {
              refused.push(key);
              return Promise.reject(denied());
            }
            return parts ? parts.start(name, key, options) : Promise.reject(denied());
          },
        },
      });

      for (const key of ['tagged/denied.txt', 'tagged/denied.bin']) {
        const task = taskOf(await plannedItem(storeA, bucket, key), endpointA(), endpointB(noTagging));
        await copyObject(task, { partSize: 8 * MiB });
      }

      expect(refused).toEqual(['tagged/denied.txt', 'tagged/denied.bin']);
      expect((await readAll(storeB, bucket, 'tagged/denied.txt')).toString()).toBe('no tagging here');
      expect(await tagsOf(storeB, bucket, 'tagged/denied.txt')).toEqual({});
      expect(await tagsOf(storeB, bucket, 'tagged/denied.bin')).toEqual({});
      expect(await s3b.openUploads(bucket, 'tagged/')).toEqual([]);
    });

    it('copies without them to a store that does not take x-amz-tagging (501), and fails on a refusal that was not about them', async () => {
      await storeA.write(bucket, 'tagged/untaken.txt', Buffer.from('no tags taken'), { tags: TAGS });
      await storeA.write(bucket, 'tagged/readonly.txt', Buffer.from('never written'), { tags: TAGS });
      const sent: Array<{ key: string; tagged: boolean }> = [];
      // A wrapper answers as such a store does; the second object's destination refuses every write.
      const noTagging = wrapStore(storeB, {
        write: (name, key, body, options = {}) => {
          sent.push({ key, tagged: options.tags !== undefined });
          if (key === 'tagged/readonly.txt')
            return Promise.reject(new StorageError('AccessDenied', 'Access Denied', 'genericS3', 403));
          if (options.tags)
            return Promise.reject(
              new StorageError(
                'Unknown',
                'A header you provided implies functionality that is not implemented',
                'genericS3',
                501,
              ),
            );
          return storeB.write(name, key, body, options);
        },
      });

      const untaken = taskOf(
        await plannedItem(storeA, bucket, 'tagged/untaken.txt'),
        endpointA(),
        endpointB(noTagging),
      );
      await copyObject(untaken);
      const readonly = taskOf(
        await plannedItem(storeA, bucket, 'tagged/readonly.txt'),
        endpointA(),
        endpointB(noTagging),
      );
      const refused = await copyObject(readonly).catch((error: unknown) => error);

      expect((await readAll(storeB, bucket, 'tagged/untaken.txt')).toString()).toBe('no tags taken');
      expect(refused).toMatchObject({ message: 'Access Denied', retryable: false });
      expect(sent).toEqual([
        { key: 'tagged/untaken.txt', tagged: true },
        { key: 'tagged/untaken.txt', tagged: false },
        { key: 'tagged/readonly.txt', tagged: true },
        { key: 'tagged/readonly.txt', tagged: false },
      ]);
    });
  });
});
