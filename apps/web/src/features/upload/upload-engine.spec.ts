import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  UPLOAD_CONCURRENT_PARTS,
  UPLOAD_PARALLEL_FILES,
  UPLOAD_RETRIES,
  uploadMessages,
  UPLOAD_BATCH_MAX,
  UPLOAD_SMALL_FILES_IN_FLIGHT,
  type SignedPart,
  type StartUploadBatchBody,
  type StartUploadBody,
  type UploadMode,
  type UploadReportBody,
  type UploadSession,
  type UploadedPart,
} from '@cumulo/contract';
import { UploadEngine, type UploadEvent, type UploadSnapshot, type UploadTarget } from './upload-engine.ts';
import type { LocalFile } from './local-files.ts';
import type { FormRequest, PartRequest, PartResponse, UploadTransport } from './upload-transport.ts';

// The network is faked here (a unit test of the engine's scheduling); the real path runs in e2e/upload.e2e.ts.

const PART = 4;
/** The tests of the resumable session path send even tiny files through it; the batch path has its own tests. */
const SESSION_PATH_ONLY = -1;
const TARGET: UploadTarget = {
  cloudAccountId: '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01',
  bucketName: 'photos',
  path: 'trips/',
  acl: 'private',
  s3Acceleration: false,
};

function localFile(relativePath: string, size: number, lastModified = 1_700_000_000_000): LocalFile {
  const bytes = new Uint8Array(size).map((_, i) => i % 251);
  const name = relativePath.split('/').at(-1) ?? relativePath;
  return { file: new File([bytes], name, { lastModified, type: 'image/jpeg' }), relativePath };
}

interface PutCall {
  sessionId: string;
  partNumber: number;
  request: PartRequest;
}

/** A store and API in memory; `respond` decides each PUT's answer (default: 200 with an ETag). */
class FakeTransport implements UploadTransport {
  starts: StartUploadBody[] = [];
  signs: number[][] = [];
  puts: PutCall[] = [];
  completes: Array<{ sessionId: string; parts: Array<{ part_number: number; etag: string | null }> }> = [];
  aborts: string[] = [];
  reports: UploadReportBody[] = [];
  finishedParts: UploadedPart[] = [];
  mode: UploadMode | null = null;
  inFlight = 0;
  maxInFlight = 0;
  respond: (call: PutCall) => Promise<PartResponse> = (call) =>
    Promise.resolve({ status: 200, etag: `"etag-${call.partNumber}"` });
  private sessions = 0;

  async start(body: StartUploadBody): Promise<UploadSession> {
    this.starts.push(body);
    const partsTotal = Math.max(1, Math.ceil(body.size / PART));
    return {
      session_id: `session-${++this.sessions}`,
      mode: this.mode ?? (partsTotal > 1 ? 's3-multipart' : 'single'),
      part_size: PART,
      parts_total: partsTotal,
      finished_parts: this.finishedParts,
      resumed: this.finishedParts.length > 0,
    };
  }
  async sign(sessionId: string, partNumbers: number[]): Promise<SignedPart[]> {
    this.signs.push(partNumbers);
    return partNumbers.map((n) => ({
      part_number: n,
      url: `https://store.test/${sessionId}/${n}`,
      method: 'PUT' as const,
      headers: {},
    }));
  }
  batchStarts: StartUploadBatchBody[] = [];
  batchCompletes: string[][] = [];
  /** What the batch completion says of a session: null when the object arrived. */
  checkOf: (sessionId: string) => string | null = () => null;
  /** Answer batches with one signed form (S3 family) instead of a signed PUT per file. */
  forms = false;
  async startBatch(body: StartUploadBatchBody) {
    this.batchStarts.push(body);
    const files = body.files.map((file) => {
      const sessionId = `small-${++this.sessions}`;
      return {
        session_id: sessionId,
        key: file.key,
        url: this.forms ? 'https://store.test/bucket/' : `https://store.test/${sessionId}/1`,
        method: this.forms ? ('POST' as const) : ('PUT' as const),
        headers: {},
        fields: this.forms ? { policy: `signed ${file.key}` } : ({} as Record<string, string>),
      };
    });
    if (this.forms) for (const file of files) this.formKeys.set(file.key, file.session_id);
    return { files, form_fields: this.forms ? { 'x-amz-credential': 'batch' } : null };
  }
  formKeys = new Map<string, string>();
  posts: FormRequest[] = [];
  async postForm(request: FormRequest): Promise<PartResponse> {
    this.posts.push(request);
    const sessionId = this.formKeys.get(request.key) ?? '';
    return this.put({
      url: `https://store.test/${sessionId}/1`,
      headers: {},
      body: request.body,
      signal: request.signal,
      onProgress: () => undefined,
    });
  }
  async completeBatch(sessionIds: string[]) {
    this.batchCompletes.push(sessionIds);
    // An API call takes a moment, while PUTs go on finishing.
    await new Promise((resolve) => setTimeout(resolve, 2));
    return sessionIds.map((session_id) => ({ session_id, key: '', error: this.checkOf(session_id) }));
  }
  async complete(sessionId: string, parts: Array<{ part_number: number; etag: string | null }>) {
    this.completes.push({ sessionId, parts });
  }
  async abort(sessionId: string) {
    this.aborts.push(sessionId);
  }
  async report(body: UploadReportBody) {
    this.reports.push(body);
  }
  async put(request: PartRequest): Promise<PartResponse> {
    const [, sessionId = '', part = '0'] = /\/([^/]+)\/(\d+)$/.exec(request.url) ?? [];
    const call = { sessionId, partNumber: Number(part), request };
    this.puts.push(call);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await new Promise<PartResponse>((resolve, reject) => {
        request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        this.respond(call).then(resolve, reject);
      });
    } finally {
      this.inFlight -= 1;
    }
  }
}

function setUp(transport = new FakeTransport(), smallFileMax = SESSION_PATH_ONLY) {
  const engine = new UploadEngine({ transport, smallFileMax, retryDelayMs: () => 0 });
  const snapshots: UploadSnapshot[] = [];
  const events: UploadEvent[] = [];
  engine.subscribe((s) => snapshots.push(s));
  engine.onEvent((e) => events.push(e));
  const idle = () =>
    new Promise<void>((resolve) => {
      engine.onEvent((e) => e.type === 'idle' && resolve());
    });
  return { engine, transport, snapshots, events, idle };
}

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('UploadEngine', () => {
  it('sends each part as a slice, completes with every ETag in order and reports the file', async () => {
    const { engine, transport, events, idle } = setUp();
    const done = idle();
    engine.enqueue([localFile('beach.jpg', 10)], TARGET);
    await done;

    expect(transport.starts).toEqual([
      expect.objectContaining({
        cloud_account_id: TARGET.cloudAccountId,
        bucket_name: 'photos',
        key: 'trips/beach.jpg',
        size: 10,
        content_type: 'image/jpeg',
        acl: 'private',
        fingerprint: '10:1700000000000:beach.jpg:beach.jpg',
      }),
    ]);
    expect(transport.puts.map((p) => [p.partNumber, p.request.body.size])).toEqual([
      [1, 4],
      [2, 4],
      [3, 2],
    ]);
    const lastPart = transport.puts[2]?.request.body ?? new Blob();
    expect(new Uint8Array(await lastPart.arrayBuffer())).toEqual(new Uint8Array([8, 9]));
    expect(transport.completes).toEqual([
      {
        sessionId: 'session-1',
        parts: [1, 2, 3].map((n) => ({ part_number: n, etag: `"etag-${n}"` })),
      },
    ]);
    expect(events).toContainEqual({
      type: 'file-complete',
      file: expect.objectContaining({ name: 'beach.jpg', status: 'complete', percent: 100 }),
    });
    expect(transport.reports).toEqual([
      {
        s3_direct: {
          direction: 'upload',
          s3Acceleration: false,
          files: [
            expect.objectContaining({
              name: 'trips/beach.jpg',
              bucket_name: 'photos',
              cloud_account_id: TARGET.cloudAccountId,
              size: 10,
            }),
          ],
        },
      },
    ]);
    // A completed file leaves the list (spec 001 §4).
    expect(engine.snapshot().files).toEqual([]);
  });

  it('keeps at most 5 parts in flight per file and 2 files in parallel', async () => {
    const transport = new FakeTransport();
    const gate = deferred<void>();
    transport.respond = async (call) => {
      await gate.promise;
      return { status: 200, etag: `"${call.partNumber}"` };
    };
    const { engine, idle } = setUp(transport);
    const done = idle();
    engine.enqueue([localFile('big.bin', 20 * PART)], TARGET);
    await vi.waitFor(() => expect(transport.inFlight).toBe(UPLOAD_CONCURRENT_PARTS));
    gate.resolve();
    await done;
    expect(transport.maxInFlight).toBe(UPLOAD_CONCURRENT_PARTS);
    expect(transport.puts).toHaveLength(20);

    const files = new FakeTransport();
    const hold = deferred<void>();
    files.respond = async (call) => {
      await hold.promise;
      return { status: 200, etag: `"${call.partNumber}"` };
    };
    const second = setUp(files);
    const allDone = second.idle();
    second.engine.enqueue(
      ['a', 'b', 'c', 'd'].map((n) => localFile(`${n}.txt`, 3)),
      TARGET,
    );
    await vi.waitFor(() => expect(files.inFlight).toBe(UPLOAD_PARALLEL_FILES));
    expect(second.engine.snapshot().files.map((f) => f.status)).toEqual([
      'uploading',
      'uploading',
      'queued',
      'queued',
    ]);
    hold.resolve();
    await allDone;
    expect(files.maxInFlight).toBe(UPLOAD_PARALLEL_FILES);
    expect(files.completes).toHaveLength(4);
  });

  it('retries a failing part 3 times, then shows the file as failed', async () => {
    const transport = new FakeTransport();
    transport.respond = async () => ({ status: 500, etag: null });
    const { engine, events, idle } = setUp(transport);
    const done = idle();
    engine.enqueue([localFile('one.txt', 3)], TARGET);
    await done;
    expect(transport.puts).toHaveLength(1 + UPLOAD_RETRIES);
    expect(transport.completes).toEqual([]);
    expect(engine.snapshot().files).toEqual([
      expect.objectContaining({ status: 'exception', error: uploadMessages.failed, corsSuspected: false }),
    ]);
    expect(events.map((e) => e.type)).toContain('file-failed');
  });

  it('skips names starting with a dot, also inside dot-folders, and reports a folder once', async () => {
    const { engine, transport, idle } = setUp();
    const done = idle();
    const ids = engine.enqueue(
      [
        localFile('.DS_Store', 2),
        localFile('album/.git/config', 2),
        localFile('album/.hidden.jpg', 2),
        localFile('album/a.jpg', 3),
        localFile('album/day1/b.jpg', 5),
      ],
      TARGET,
    );
    expect(ids).toHaveLength(2);
    expect(engine.snapshot().directories).toEqual([
      expect.objectContaining({ name: 'trips/album', status: 2, fileCount: 2, size: 8 }),
    ]);
    await done;
    expect(transport.starts.map((s) => s.key).sort()).toEqual([
      'trips/album/a.jpg',
      'trips/album/day1/b.jpg',
    ]);
    expect(transport.reports).toEqual([
      {
        s3_direct: {
          direction: 'upload',
          s3Acceleration: false,
          files: [
            expect.objectContaining({ is_directory: true, name: 'trips/album', file_count: 2, size: 8 }),
          ],
        },
      },
    ]);
  });

  it('refreshes progress at most once a second', async () => {
    vi.useFakeTimers({ now: 0 });
    const transport = new FakeTransport();
    const sent = deferred<void>();
    const finish = deferred<void>();
    transport.respond = async (call) => {
      for (let loaded = 1; loaded <= 4; loaded += 1) call.request.onProgress(loaded);
      sent.resolve();
      await finish.promise;
      return { status: 200, etag: '"x"' };
    };
    const { engine, snapshots } = setUp(transport);
    engine.enqueue([localFile('slow.bin', 8)], TARGET);
    await sent.promise;
    const before = snapshots.length;
    // Eight progress events arrived at the same instant: nothing more is shown until a second has passed.
    await vi.advanceTimersByTimeAsync(999);
    expect(snapshots.length).toBe(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(snapshots.length).toBe(before + 1);
    expect(snapshots.at(-1)?.files[0]).toMatchObject({ status: 'uploading', percent: 99 });
    finish.resolve();
    await vi.runAllTimersAsync();
  });

  it('turns a retry warning lasting more than 10 s into an error', async () => {
    vi.useFakeTimers({ now: 0 });
    const transport = new FakeTransport();
    transport.respond = async (call) =>
      call.partNumber === 1 ? { status: 200, etag: '"1"' } : { status: 503, etag: null };
    const engine = new UploadEngine({
      transport,
      smallFileMax: SESSION_PATH_ONLY,
      retryDelayMs: () => 60_000,
    });
    engine.enqueue([localFile('flaky.bin', 8)], TARGET);
    await vi.advanceTimersByTimeAsync(0);
    expect(engine.snapshot().files[0]).toMatchObject({ status: 'uploading', warning: uploadMessages.failed });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(engine.snapshot().files[0]?.status).toBe('uploading');
    await vi.advanceTimersByTimeAsync(1);
    expect(engine.snapshot().files[0]).toMatchObject({ status: 'exception', error: uploadMessages.failed });
    expect(transport.completes).toEqual([]);
    // The session stays: the same file picked again resumes from part 2.
    expect(transport.aborts).toEqual([]);
  });

  it('cancel aborts the requests in flight and deletes the session', async () => {
    const transport = new FakeTransport();
    transport.respond = () => new Promise(() => undefined);
    const { engine, events, idle } = setUp(transport);
    const done = idle();
    const [id = ''] = engine.enqueue([localFile('movie.mp4', 4 * PART)], TARGET);
    await vi.waitFor(() => expect(transport.inFlight).toBe(4));
    engine.cancel(id);
    await done;
    expect(transport.inFlight).toBe(0);
    expect(transport.aborts).toEqual(['session-1']);
    expect(transport.completes).toEqual([]);
    expect(engine.snapshot().files).toEqual([
      expect.objectContaining({ status: 'exception', error: uploadMessages.cancelled }),
    ]);
    expect(events.map((e) => e.type)).not.toContain('file-failed');
  });

  it('resumes a session from the parts the store already holds', async () => {
    const transport = new FakeTransport();
    transport.finishedParts = [
      { part_number: 1, size: PART, etag: '"old-1"' },
      { part_number: 2, size: PART, etag: '"old-2"' },
    ];
    const hold = deferred<void>();
    transport.respond = async (call) => {
      await hold.promise;
      return { status: 200, etag: `"etag-${call.partNumber}"` };
    };
    const { engine, idle } = setUp(transport);
    const done = idle();
    engine.enqueue([localFile('resume.bin', 4 * PART)], TARGET);
    await vi.waitFor(() => expect(transport.inFlight).toBe(2));
    expect(engine.snapshot().files[0]).toMatchObject({ status: 'uploading', resumed: true, percent: 50 });
    hold.resolve();
    await done;
    expect(transport.puts.map((p) => p.partNumber)).toEqual([3, 4]);
    expect(transport.signs).toEqual([[3, 4]]);
    expect(transport.completes[0]?.parts).toEqual([
      { part_number: 1, etag: '"old-1"' },
      { part_number: 2, etag: '"old-2"' },
      { part_number: 3, etag: '"etag-3"' },
      { part_number: 4, etag: '"etag-4"' },
    ]);
  });

  it('a first part without an answer is a suspected CORS failure: no retries, then the file can be retried', async () => {
    const transport = new FakeTransport();
    transport.respond = async () => ({ status: 0, etag: null });
    const { engine, idle } = setUp(transport);
    let done = idle();
    const [id = ''] = engine.enqueue([localFile('cors.txt', 3)], TARGET);
    await done;
    expect(transport.puts).toHaveLength(1);
    expect(engine.snapshot().files[0]).toMatchObject({
      status: 'exception',
      error: uploadMessages.network,
      corsSuspected: true,
    });
    transport.respond = async () => ({ status: 200, etag: '"ok"' });
    done = idle();
    engine.retry(id);
    await done;
    expect(transport.starts).toHaveLength(2);
    expect(transport.completes).toHaveLength(1);
    expect(engine.snapshot().files).toEqual([]);
  });

  it('uploads Azure blocks without ETags and GCS chunks one at a time', async () => {
    const azure = new FakeTransport();
    azure.mode = 'azure-blocks';
    azure.respond = async () => ({ status: 201, etag: null });
    const first = setUp(azure);
    let done = first.idle();
    first.engine.enqueue([localFile('blob.bin', 3 * PART)], TARGET);
    await done;
    expect(azure.completes[0]?.parts).toEqual([1, 2, 3].map((n) => ({ part_number: n, etag: null })));

    const gcs = new FakeTransport();
    gcs.mode = 'gcs-resumable';
    gcs.respond = async (call) => ({ status: call.partNumber < 3 ? 308 : 200, etag: null });
    const second = setUp(gcs);
    done = second.idle();
    second.engine.enqueue([localFile('chunks.bin', 3 * PART)], TARGET);
    await done;
    expect(gcs.maxInFlight).toBe(1);
    expect(gcs.puts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
    expect(gcs.completes).toHaveLength(1);
  });
});

describe('UploadEngine: folders of many small files (issue 21)', () => {
  const SMALL = 4 * 1024 * 1024;
  const folder = (name: string, count: number) =>
    Array.from({ length: count }, (_, i) => localFile(`${name}/f${i}.txt`, 3));

  it('keeps 24 one-PUT files in flight, opens and completes them 100 per call, and sums up the run', async () => {
    const transport = new FakeTransport();
    // Each PUT answers on a later turn, so the pool fills up.
    transport.respond = () =>
      new Promise((resolve) => setTimeout(() => resolve({ status: 200, etag: '"e"' }), 1));
    const { engine, events, idle } = setUp(transport, SMALL);
    const done = idle();
    engine.enqueue([...folder('album', 250), localFile('album/.DS_Store', 2)], TARGET, 3);
    await done;

    expect(transport.batchStarts.map((b) => b.files.length)).toEqual([100, 100, 50]);
    expect(transport.batchStarts[0]?.files[0]).toMatchObject({
      key: 'trips/album/f0.txt',
      size: 3,
      content_type: 'image/jpeg',
    });
    // No per-file session, signing or completion call.
    expect(transport.starts).toEqual([]);
    expect(transport.signs).toEqual([]);
    expect(transport.completes).toEqual([]);
    expect(transport.puts).toHaveLength(250);
    expect(transport.maxInFlight).toBe(UPLOAD_SMALL_FILES_IN_FLIGHT);
    const completed = transport.batchCompletes.flat();
    expect(new Set(completed).size).toBe(250);
    expect(transport.batchCompletes.every((ids) => ids.length <= UPLOAD_BATCH_MAX)).toBe(true);
    expect(transport.batchCompletes.length).toBeLessThan(250 / 4);

    const snapshot = engine.snapshot();
    expect(snapshot.files).toEqual([]);
    expect(snapshot.done).toHaveLength(250);
    expect(snapshot.summary).toMatchObject({
      total: 250,
      done: 250,
      failed: 0,
      bytesTotal: 750,
      bytesDone: 750,
      hiddenSkipped: 4,
    });
    // The folder is reported once, and one notice says it is done.
    expect(transport.reports.flatMap((r) => r.s3_direct.files)).toEqual([
      expect.objectContaining({ is_directory: true, name: 'trips/album', file_count: 250, size: 750 }),
    ]);
    expect(events.filter((e) => e.type === 'directory-complete')).toHaveLength(1);
  });

  it('sends the files of a signed form as form POSTs with the batch fields, their own policy, key and content type', async () => {
    const transport = new FakeTransport();
    transport.forms = true;
    const { engine, idle } = setUp(transport, SMALL);
    const done = idle();
    engine.enqueue(folder('forms', 120), TARGET);
    await done;
    expect(transport.posts).toHaveLength(120);
    expect(transport.posts[0]).toMatchObject({
      url: 'https://store.test/bucket/',
      fields: { 'x-amz-credential': 'batch', policy: 'signed trips/forms/f0.txt' },
      key: 'trips/forms/f0.txt',
      contentType: 'image/jpeg',
    });
    expect(engine.snapshot().summary).toMatchObject({ total: 120, done: 120, failed: 0 });
  });

  it('reports many loose small files in one call per completion batch, not one call per file', async () => {
    const transport = new FakeTransport();
    const { engine, idle } = setUp(transport, SMALL);
    const done = idle();
    engine.enqueue(
      Array.from({ length: 150 }, (_, i) => localFile(`loose${i}.txt`, 3)),
      TARGET,
    );
    await done;
    const reported = transport.reports.flatMap((r) => r.s3_direct.files);
    expect(reported).toHaveLength(150);
    expect(reported[0]).toMatchObject({ name: 'trips/loose0.txt', size: 3, bucket_name: 'photos' });
    expect(transport.reports.length).toBe(transport.batchCompletes.length);
  });

  it('a large file of the same folder keeps its resumable session in parts', async () => {
    const { engine, transport, idle } = setUp(new FakeTransport(), 3);
    const done = idle();
    engine.enqueue([...folder('mixed', 5), localFile('mixed/big.bin', 3 * PART)], TARGET);
    await done;
    expect(transport.batchStarts.map((b) => b.files.length)).toEqual([5]);
    expect(transport.starts.map((s) => s.key)).toEqual(['trips/mixed/big.bin']);
    expect(transport.completes).toHaveLength(1);
    expect(engine.snapshot().summary).toMatchObject({ total: 6, done: 6 });
  });

  it('a fresh bucket that refuses the first PUT (CORS) fails the waiting files at once; Retry failed sends them', async () => {
    const transport = new FakeTransport();
    transport.respond = async () => ({ status: 0, etag: null });
    const { engine, events, idle } = setUp(transport, SMALL);
    let done = idle();
    engine.enqueue(folder('closed', 300), TARGET);
    await done;
    // No retries, and not 300 refusals: the files not yet sent fail with the first one.
    expect(transport.puts.length).toBeLessThanOrEqual(UPLOAD_SMALL_FILES_IN_FLIGHT);
    const failed = engine.snapshot().files;
    expect(failed).toHaveLength(300);
    expect(failed.every((f) => f.status === 'exception' && f.corsSuspected)).toBe(true);
    expect(engine.snapshot().summary).toMatchObject({ total: 300, done: 0, failed: 300 });
    expect(events.filter((e) => e.type === 'directory-failed')).toEqual([
      expect.objectContaining({ failed: 300 }),
    ]);

    transport.respond = async () => ({ status: 200, etag: '"ok"' });
    done = idle();
    engine.retryFailed();
    await done;
    expect(engine.snapshot().files).toEqual([]);
    expect(engine.snapshot().summary).toMatchObject({ total: 300, done: 300, failed: 0 });
    expect(transport.starts).toEqual([]);
  });

  it('a file the completion check refuses is listed as failed with the reason; the others are done', async () => {
    const transport = new FakeTransport();
    transport.checkOf = (id) =>
      id === 'small-2' ? 'The file did not reach the bucket. Please try again.' : null;
    const { engine, idle } = setUp(transport, SMALL);
    const done = idle();
    engine.enqueue(folder('check', 3), TARGET);
    await done;
    expect(engine.snapshot().files).toEqual([
      expect.objectContaining({
        name: 'check/f1.txt',
        status: 'exception',
        error: 'The file did not reach the bucket. Please try again.',
      }),
    ]);
    expect(engine.snapshot().done.map((d) => d.name)).toEqual(['check/f0.txt', 'check/f2.txt']);
  });

  it('cancelling a folder stops its small files; nothing is completed afterwards', async () => {
    const transport = new FakeTransport();
    transport.respond = () => new Promise(() => undefined);
    const { engine, idle } = setUp(transport, SMALL);
    const done = idle();
    engine.enqueue(folder('stop', 200), TARGET);
    await vi.waitFor(() => expect(transport.inFlight).toBe(UPLOAD_SMALL_FILES_IN_FLIGHT));
    const directory = engine.snapshot().directories[0];
    engine.cancelDirectory(directory?.id ?? '');
    await done;
    expect(transport.inFlight).toBe(0);
    expect(transport.batchCompletes).toEqual([]);
    expect(engine.snapshot().files.every((f) => f.error === uploadMessages.cancelled)).toBe(true);
  });
});
