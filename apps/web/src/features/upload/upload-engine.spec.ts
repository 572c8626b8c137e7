import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  UPLOAD_CONCURRENT_PARTS,
  UPLOAD_PARALLEL_FILES,
  UPLOAD_RETRIES,
  uploadMessages,
  type SignedPart,
  type StartUploadBody,
  type UploadMode,
  type UploadReportBody,
  type UploadSession,
  type UploadedPart,
} from '@cumulo/contract';
import { UploadEngine, type UploadEvent, type UploadSnapshot, type UploadTarget } from './upload-engine.ts';
import type { LocalFile } from './local-files.ts';
import type { PartRequest, PartResponse, UploadTransport } from './upload-transport.ts';

// The network is faked here (a unit test of the engine's scheduling); the real path runs in e2e/upload.e2e.ts.

const PART = 4;
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

function setUp(transport = new FakeTransport()) {
  const engine = new UploadEngine({ transport, retryDelayMs: () => 0 });
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
    const engine = new UploadEngine({ transport, retryDelayMs: () => 60_000 });
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
