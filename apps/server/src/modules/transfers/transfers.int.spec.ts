import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  BATCH_STATUS,
  TRANSFER_EVENTS,
  transferMessages,
  storageIdOf,
  type ListingAnswer,
  type MigrationProgress,
  type TransferBatch,
  type TransferList,
  type TransferStarted,
} from '@cumulo/contract';
import { type ObjectStore } from '@cumulo/storage';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import {
  keysOf,
  readAll,
  setAzuriteTier,
  startAzurite,
  startS3rver,
  type S3rverServer,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import {
  callApi,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * The transfer engine end to end: the API queues a batch, the worker role (pg-boss handlers in this process)
 * plans and copies it between real stores — s3rver (aws) and Azurite (azure) — on embedded PostgreSQL.
 */
const MiB = 1024 * 1024;
let server: TestServer;
let s3rver: S3rverServer;
let azurite: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let azureId: string;
let s3: S3ObjectStore;
let blob: AzureObjectStore;
let wsBase: string;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

async function fill(store: ObjectStore, bucket: string, files: Record<string, Buffer>) {
  for (const [key, body] of Object.entries(files))
    await store.write(bucket, key, body, { size: body.length });
}

async function batchOf(id: string, token = owner.token): Promise<TransferBatch> {
  const list = (await call('GET', '/api/transfer/get_all?type=1&pagesize=200', token)).body as TransferList;
  const batch = list.items.find((b) => b.id === id);
  if (!batch) throw new Error(`batch ${id} not listed`);
  return batch;
}

/** Polls the history until the batch reaches one of `statuses`; fails with the last state seen. */
async function until(id: string, statuses: number[], timeoutMs = 60_000): Promise<TransferBatch> {
  const deadline = Date.now() + timeoutMs;
  let last: TransferBatch | undefined;
  while (Date.now() < deadline) {
    last = await batchOf(id);
    if (statuses.includes(last.transferStatus)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  const items = await itemStatuses(id);
  throw new Error(
    `batch never reached ${statuses.join('/')}: ${JSON.stringify(last)} ${JSON.stringify(items)}`,
  );
}

async function transfer(body: Record<string, unknown>, token = owner.token) {
  return call('POST', '/api/transfer/transfer', token, body);
}

async function started(body: Record<string, unknown>): Promise<TransferBatch> {
  const res = await transfer(body);
  expect(res.status, res.raw).toBe(200);
  expect((res.body as TransferStarted).message).toBe(transferMessages.enqueued);
  return (res.body as TransferStarted).batch;
}

/** Starts a transfer and waits until it ends, Completed or Failed. */
async function finished(body: Record<string, unknown>): Promise<TransferBatch> {
  const batch = await started(body);
  return until(batch.id, [BATCH_STATUS.completed, BATCH_STATUS.failed]);
}

async function itemStatuses(batchId: string) {
  const { rows } = await server.db.pool.query<{ source_key: string; status: string; attempts: number }>(
    'select source_key, status, attempts from transfer_items where batch_id = $1 order by source_key',
    [batchId],
  );
  return rows;
}

/** The confirmation is PUT /organizations/_me (another module's call); here the flag is set as that call does. */
async function confirmCharge(confirmed: boolean) {
  await server.db.pool.query('update organizations set confirmed_c2c = $2 where id = $1', [
    owner.principal.organizationId,
    confirmed,
  ]);
}

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer(
    {
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
      TRANSFER_LEASE_SECONDS: '6',
      TRANSFER_OBJECT_CONCURRENCY: '4',
    },
    undefined,
    { jobs: true },
  );
  wsBase = (await server.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  owner = await signedInMember(server, 'mover');
  stranger = await signedInMember(server, 'stranger');
  await confirmCharge(true);
  ({ awsId, azureId, s3, blob } = await connectLabAccounts(server, owner.token, {
    s3rver: s3rver.endpoint,
    azurite: azurite.endpoint,
  }));
});
afterAll(async () => {
  await s3?.close();
  await blob?.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('transfer engine: s3rver (aws) ⇄ Azurite (azure), worker role in process, embedded PostgreSQL', () => {
  it('refuses a transfer until the organisation confirmed the transfer charge', async () => {
    await confirmCharge(false);
    await s3.createBucket('unconfirmed');
    const res = await transfer({
      sourceCloudAccountId: awsId,
      sourceBucket: 'unconfirmed',
      destinationCloudAccountId: azureId,
      destinationBucket: 'anywhere',
    });
    expect(res.status).toBe(403);
    expect((res.body as { message: string }).message).toBe(transferMessages.chargeNotConfirmed);
    await confirmCharge(true);
  });

  it('refuses a copy onto itself or inside its own source, and an unknown source bucket', async () => {
    await s3.createBucket('self');
    const same = await transfer({
      sourceCloudAccountId: awsId,
      sourceBucket: 'self',
      sourcePath: 'docs/',
      destinationCloudAccountId: awsId,
      destinationBucket: 'self',
      destinationPath: 'docs',
    });
    expect(same.status).toBe(400);
    expect((same.body as { message: string }).message).toBe(transferMessages.sameBucket);
    const nested = await transfer({
      sourceCloudAccountId: awsId,
      sourceBucket: 'self',
      destinationCloudAccountId: awsId,
      destinationBucket: 'self',
      destinationPath: 'copy/',
    });
    expect(nested.status).toBe(400);
    expect((nested.body as { message: string }).message).toBe(transferMessages.nestedDestination);
    const missing = await transfer({
      sourceCloudAccountId: awsId,
      sourceBucket: 'no-such-bucket',
      destinationCloudAccountId: azureId,
      destinationBucket: 'x',
    });
    expect(missing.status).toBe(400);
  });

  it('copies a bucket with nested prefixes to Azurite, byte-identical, counted, listed, with live progress', async () => {
    const files: Record<string, Buffer> = {
      'top.txt': Buffer.from('top level'),
      'docs/readme.md': Buffer.from('# readme'),
      'docs/deep/er/note.txt': randomBytes(3000),
      'media/clip.bin': randomBytes(20 * MiB),
      'empty.dat': Buffer.alloc(0),
    };
    for (let i = 0; i < 30; i++)
      files[`many/file-${String(i).padStart(2, '0')}.bin`] = randomBytes(10_000 + i);
    await s3.createBucket('nested-src');
    await blob.createBucket('nested-dst');
    await fill(s3, 'nested-src', files);

    const socket = new WebSocket(`${wsBase}/rm?access_token=${encodeURIComponent(owner.token)}`);
    const events: Array<{ type: string; data: unknown }> = [];
    socket.on('message', (raw) => events.push(JSON.parse(raw.toString()) as { type: string; data: unknown }));
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));

    const batch = await started({
      sourceCloudAccountId: awsId,
      sourceBucket: 'nested-src',
      destinationCloudAccountId: azureId,
      destinationBucket: 'nested-dst',
    });
    const done = await until(batch.id, [BATCH_STATUS.completed, BATCH_STATUS.failed]);
    const totalSize = Object.values(files).reduce((sum, body) => sum + body.length, 0);
    expect(done).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      phase: 'finished',
      total: Object.keys(files).length,
      totalSize,
      transferred: Object.keys(files).length,
      transferredSize: totalSize,
      failed: 0,
      skipped: 0,
      bytesDone: totalSize,
      sourceCloudAccount: { id: awsId, name: 'Lab AWS' },
      destinationCloudAccount: { id: azureId, name: 'Lab Blob' },
      createdBy: owner.principal.userId,
    });
    expect(done.averageSpeed).toBeGreaterThan(0);
    expect((await keysOf(blob, 'nested-dst')).sort()).toEqual(Object.keys(files).sort());
    for (const [key, body] of Object.entries(files)) {
      expect((await readAll(blob, 'nested-dst', key)).equals(body), key).toBe(true);
    }

    // The batch's end is read from the database above; its events travel by NOTIFY and may land a moment later.
    const delivered = () => ({
      progress: events.some((e) => e.type === TRANSFER_EVENTS.progress),
      completed: events.some(
        (e) =>
          e.type === TRANSFER_EVENTS.batch &&
          (e.data as TransferBatch).transferStatus === BATCH_STATUS.completed,
      ),
    });
    await expect.poll(delivered).toEqual({ progress: true, completed: true });
    const progress = events
      .filter((e) => e.type === TRANSFER_EVENTS.progress)
      .map((e) => e.data as MigrationProgress);
    expect(progress.length).toBeGreaterThan(0);
    expect(
      progress.every(
        (p) => p.id === batch.id && p.size === totalSize && p.createdBy === owner.principal.userId,
      ),
    ).toBe(true);
    const batchEvents = events
      .filter((e) => e.type === TRANSFER_EVENTS.batch)
      .map((e) => e.data as TransferBatch);
    expect(batchEvents.at(-1)).toMatchObject({ id: batch.id, transferStatus: BATCH_STATUS.completed });
    socket.close();

    // The stranger sees none of it, and any call on the batch answers 404.
    const theirs = (await call('GET', '/api/transfer/get_all', stranger.token)).body as TransferList;
    expect(theirs.items).toEqual([]);
    for (const url of ['cancel_transfer', 'retry_transfer', 'download_failed_files']) {
      expect((await call('POST', `/api/transfer/${url}`, stranger.token, { Id: batch.id })).status).toBe(404);
    }
    const foreign = await transfer(
      {
        sourceCloudAccountId: awsId,
        sourceBucket: 'nested-src',
        destinationCloudAccountId: azureId,
        destinationBucket: 'nested-dst',
      },
      stranger.token,
    );
    expect(foreign.status).toBe(404);
  });

  it('takes a prefix as a prefix: lists and copies the keys starting with it, named from its folder', async () => {
    // Issue 21: 'gallery/thumb_01' became the folder 'gallery/thumb_01/' and listed nothing.
    await s3.createBucket('prefix-src');
    await blob.createBucket('prefix-dst');
    await fill(s3, 'prefix-src', {
      'gallery/thumb_01a.jpg': randomBytes(3000),
      'gallery/thumb_01b.jpg': randomBytes(3100),
      'gallery/thumb_01x/c.jpg': randomBytes(3200),
      'gallery/thumb_02.jpg': randomBytes(3300),
      'other/thumb_01.jpg': randomBytes(3400),
    });

    const storage = encodeURIComponent(storageIdOf(awsId, 'prefix-src'));
    const listed = await call(
      'GET',
      `/api/storage/${storage}/content?path=gallery/thumb_01&match=prefix`,
      owner.token,
    );
    expect(listed.status, listed.raw).toBe(200);
    expect((listed.body as ListingAnswer).items.map((item) => item.key)).toEqual([
      'gallery/thumb_01a.jpg',
      'gallery/thumb_01b.jpg',
      'gallery/thumb_01x/',
    ]);

    const batch = await finished({
      sourceCloudAccountId: awsId,
      sourceBucket: 'prefix-src',
      sourcePath: 'gallery/thumb_01',
      destinationCloudAccountId: azureId,
      destinationBucket: 'prefix-dst',
      destinationPath: 'backup',
    });
    expect(batch).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 3 });
    // Keys keep what follows the prefix's last '/', as `aws s3 cp --recursive` of that folder would name them.
    expect((await keysOf(blob, 'prefix-dst')).sort()).toEqual([
      'backup/thumb_01a.jpg',
      'backup/thumb_01b.jpg',
      'backup/thumb_01x/c.jpg',
    ]);
  });

  it('with Skip Existing Files copies only new and changed objects of a prefix', async () => {
    await s3.createBucket('skip-src');
    await blob.createBucket('skip-dst');
    const first: Record<string, Buffer> = {};
    for (let i = 0; i < 12; i++) first[`photos/p-${i}.jpg`] = randomBytes(5000 + i);
    first['other/not-copied.txt'] = Buffer.from('outside the prefix');
    await fill(s3, 'skip-src', first);
    const initial = await started({
      sourceCloudAccountId: awsId,
      sourceBucket: 'skip-src',
      sourcePath: 'photos/',
      destinationCloudAccountId: azureId,
      destinationBucket: 'skip-dst',
      destinationPath: 'backup',
    });
    expect((await until(initial.id, [BATCH_STATUS.completed])).transferred).toBe(12);
    expect((await keysOf(blob, 'skip-dst')).every((key) => key.startsWith('backup/p-'))).toBe(true);

    const changed = randomBytes(5003);
    const added = randomBytes(777);
    await fill(s3, 'skip-src', { 'photos/p-3.jpg': changed, 'photos/new.jpg': added });
    const second = await finished({
      sourceCloudAccountId: awsId,
      sourceBucket: 'skip-src',
      sourcePath: 'photos/',
      destinationCloudAccountId: azureId,
      destinationBucket: 'skip-dst',
      destinationPath: 'backup/',
      allowSkip: true,
    });
    expect(second).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      total: 13,
      transferred: 2,
      skipped: 11,
    });
    const statuses = await itemStatuses(second.id);
    expect(statuses.filter((s) => s.status === 'done').map((s) => s.source_key)).toEqual([
      'photos/new.jpg',
      'photos/p-3.jpg',
    ]);
    expect((await readAll(blob, 'skip-dst', 'backup/p-3.jpg')).equals(changed)).toBe(true);
    expect((await readAll(blob, 'skip-dst', 'backup/new.jpg')).equals(added)).toBe(true);
  });

  it('with Skip Existing Files skips objects copied before though no listing shows their MD5 (S3 asked by HEAD)', async () => {
    await blob.createBucket('bigskip-src');
    await s3.createBucket('bigskip-dst');
    // Streamed in blocks, as other tools write: an Azure ETag is no checksum, and no Content-MD5 was set. (s3rver
    // cannot stand in for such a source: it gives every object, multipart or not, its MD5 as ETag.)
    const files = {
      'v/a.bin': randomBytes(9 * MiB),
      'v/b.bin': randomBytes(9 * MiB),
      'v/c.txt': randomBytes(900),
    };
    const streamed = (key: string, body: Buffer) =>
      blob.write('bigskip-src', key, Readable.from([body]), { size: body.length });
    for (const [key, body] of Object.entries(files)) await streamed(key, body);
    const listed = new Map<string, string | null>();
    for await (const page of blob.list('bigskip-src')) for (const o of page.objects) listed.set(o.key, o.md5);
    expect([...listed.values()]).toEqual([null, null, null]);
    const copy = (allowSkip: boolean) =>
      finished({
        sourceCloudAccountId: azureId,
        sourceBucket: 'bigskip-src',
        destinationCloudAccountId: awsId,
        destinationBucket: 'bigskip-dst',
        allowSkip,
      });

    expect(await copy(false)).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 3 });
    // The S3 listing shows the copies' MD5s and no metadata: the planner's HEAD finds the source version.
    expect(await copy(true)).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      total: 3,
      transferred: 0,
      skipped: 3,
    });

    // Rewritten with other bytes of the same size: a new version, copied again; the others stay skipped.
    const rewritten = randomBytes(9 * MiB);
    await streamed('v/b.bin', rewritten);
    const changed = await copy(true);
    expect(changed).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 1, skipped: 2 });
    expect(
      (await itemStatuses(changed.id)).filter((s) => s.status === 'done').map((s) => s.source_key),
    ).toEqual(['v/b.bin']);
    expect((await readAll(s3, 'bigskip-dst', 'v/b.bin')).equals(rewritten)).toBe(true);
  });

  it('with Skip Existing Files skips blobs without Content-MD5 copied before inside one Azure account', async () => {
    await blob.createBucket('inside-src');
    await blob.createBucket('inside-dst');
    const files = { 'w/a.bin': randomBytes(3 * MiB), 'w/b.txt': randomBytes(700) };
    for (const [key, body] of Object.entries(files))
      await blob.write('inside-src', key, Readable.from([body]), { size: body.length });
    const copy = (allowSkip: boolean) =>
      finished({
        sourceCloudAccountId: azureId,
        sourceBucket: 'inside-src',
        destinationCloudAccountId: azureId,
        destinationBucket: 'inside-dst',
        allowSkip,
      });

    // Copied inside Azure (no byte through the worker): neither side has an MD5 and every copy has its own
    // ETag, so only the source version the copy records lets the next run know it.
    expect(await copy(false)).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 2 });
    expect(await copy(true)).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      transferred: 0,
      skipped: 2,
    });
    for (const [key, body] of Object.entries(files))
      expect((await readAll(blob, 'inside-dst', key)).equals(body)).toBe(true);
  });

  it('moves a prefix: sources deleted once their copies verified', async () => {
    await blob.createBucket('move-src');
    await s3.createBucket('move-dst');
    const files: Record<string, Buffer> = { 'keep/stay.txt': Buffer.from('stays') };
    for (let i = 0; i < 8; i++) files[`go/${i}.bin`] = randomBytes(4000 + i);
    files['go/large.bin'] = randomBytes(18 * MiB);
    // Folder placeholders, as S3 consoles and Azure Storage Explorer write them: the moved folder and an empty
    // folder inside it go with the move; the folder beside it stays.
    const placeholders = { 'go/': Buffer.alloc(0), 'go/empty/': Buffer.alloc(0), 'keep/': Buffer.alloc(0) };
    await fill(blob, 'move-src', { ...files, ...placeholders });
    const batch = await started({
      sourceCloudAccountId: azureId,
      sourceBucket: 'move-src',
      sourcePath: 'go/',
      destinationCloudAccountId: awsId,
      destinationBucket: 'move-dst',
      operation: 'move',
    });
    const done = await until(batch.id, [BATCH_STATUS.completed, BATCH_STATUS.failed]);
    expect(done).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 9, deleted: 9 });
    expect(await keysOf(blob, 'move-src')).toEqual(['keep/', 'keep/stay.txt']);
    // Placeholders carry no content and are not copied: the keys below them make the folder at the destination.
    expect(await keysOf(s3, 'move-dst')).toEqual(
      Object.keys(files)
        .filter((key) => key.startsWith('go/'))
        .map((key) => key.slice(3))
        .sort(),
    );
    for (const [key, body] of Object.entries(files)) {
      if (!key.startsWith('go/')) continue;
      expect((await readAll(s3, 'move-dst', key.slice(3))).equals(body), key).toBe(true);
    }
    expect(await s3rver.openUploads('move-dst')).toEqual([]);
  });

  it('moves with Skip Existing Files: objects already at the destination are not copied, and their sources go too', async () => {
    await s3.createBucket('movesk-src');
    await blob.createBucket('movesk-dst');
    const there = randomBytes(3000);
    const stale = randomBytes(3000);
    const fresh = randomBytes(3000);
    const added = randomBytes(1234);
    await fill(s3, 'movesk-src', { 'm/there.bin': there, 'm/stale.bin': fresh, 'm/added.bin': added });
    // Already at the destination: one identical (as an earlier copy left it), one of equal size but other bytes.
    await fill(blob, 'movesk-dst', { 'there.bin': there, 'stale.bin': stale });
    const done = await finished({
      sourceCloudAccountId: awsId,
      sourceBucket: 'movesk-src',
      sourcePath: 'm/',
      destinationCloudAccountId: azureId,
      destinationBucket: 'movesk-dst',
      operation: 'move',
      allowSkip: true,
    });
    expect(done).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      total: 3,
      transferred: 2,
      skipped: 1,
      skippedSize: there.length,
      deleted: 3,
    });
    // The source is emptied: the object that was already there had its source deleted, not left behind.
    expect(await keysOf(s3, 'movesk-src')).toEqual([]);
    const statuses = await itemStatuses(done.id);
    expect(statuses.map((item) => [item.source_key, item.status])).toEqual([
      ['m/added.bin', 'done'],
      ['m/stale.bin', 'done'],
      ['m/there.bin', 'skipped'],
    ]);
    expect((await readAll(blob, 'movesk-dst', 'there.bin')).equals(there)).toBe(true);
    expect((await readAll(blob, 'movesk-dst', 'stale.bin')).equals(fresh)).toBe(true);
    expect((await readAll(blob, 'movesk-dst', 'added.bin')).equals(added)).toBe(true);
  });

  it('cancels a running transfer: Canceling, then Canceled, nothing copied after, no upload left open', async () => {
    await blob.createBucket('cancel-src');
    await s3.createBucket('cancel-dst');
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 6; i++) files[`big-${i}.bin`] = randomBytes(24 * MiB);
    await fill(blob, 'cancel-src', files);
    const batch = await started({
      sourceCloudAccountId: azureId,
      sourceBucket: 'cancel-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'cancel-dst',
    });
    // Cancel once bytes are moving (a part of some object is written).
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { rows } = await server.db.pool.query(
        `select 1 from transfer_parts p join transfer_items i on i.id = p.item_id where i.batch_id = $1 limit 1`,
        [batch.id],
      );
      if (rows.length) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cancel = await call('POST', '/api/transfer/cancel_transfer', owner.token, { Id: batch.id });
    expect(cancel.status).toBe(200);
    expect((cancel.body as { message: string }).message).toBe(transferMessages.canceled);
    expect([BATCH_STATUS.canceling, BATCH_STATUS.canceled]).toContain(
      (await batchOf(batch.id)).transferStatus,
    );
    const canceled = await until(batch.id, [
      BATCH_STATUS.canceled,
      BATCH_STATUS.completed,
      BATCH_STATUS.failed,
    ]);
    expect(canceled.transferStatus).toBe(BATCH_STATUS.canceled);

    const statuses = await itemStatuses(batch.id);
    const done = statuses.filter((s) => s.status === 'done').map((s) => s.source_key);
    expect(statuses.filter((s) => s.status === 'canceled').length).toBeGreaterThan(0);
    expect(statuses.every((s) => s.status === 'done' || s.status === 'canceled')).toBe(true);
    expect(canceled.transferred).toBe(done.length);
    expect((await keysOf(s3, 'cancel-dst')).sort()).toEqual(done.sort());
    expect(await s3rver.openUploads('cancel-dst')).toEqual([]);
    const { rows } = await server.db.pool.query(
      'select count(*)::int as n from transfer_items where batch_id = $1 and upload_id is not null',
      [batch.id],
    );
    expect(rows[0]).toEqual({ n: 0 });
    // A finished transfer cannot be canceled again.
    const late = await call('POST', '/api/transfer/cancel_transfer', owner.token, { Id: batch.id });
    expect(late.status).toBe(400);
    expect((late.body as { message: string }).message).toBe(transferMessages.notCancelable);
  });

  it('refuses before queueing anything a transfer from or into a missing bucket, or of a prefix naming no object', async () => {
    await s3.createBucket('missing-dst-src');
    await blob.createBucket('missing-dst');
    await fill(s3, 'missing-dst-src', { 'a.txt': randomBytes(1000) });
    const before = await server.db.pool.query<{ n: number }>(
      'select count(*)::int as n from transfer_batches',
    );
    for (const [body, field, message] of [
      [
        { destinationBucket: 'never-made' },
        'destinationBucket',
        transferMessages.missingBucket('destination', 'never-made', 'Lab Blob'),
      ],
      [
        { sourceBucket: 'never-made-either' },
        'sourceBucket',
        transferMessages.missingBucket('source', 'never-made-either', 'Lab AWS'),
      ],
      [
        { sourcePath: 'a.txt.bak' },
        'sourcePath',
        transferMessages.nothingUnderPrefix('a.txt.bak', 'missing-dst-src'),
      ],
    ] as const) {
      const res = await transfer({
        sourceCloudAccountId: awsId,
        sourceBucket: 'missing-dst-src',
        destinationCloudAccountId: azureId,
        destinationBucket: 'missing-dst',
        ...body,
      });
      expect({ status: res.status, body: res.body }).toMatchObject({
        status: 400,
        body: { message, errors: { [field]: [message] } },
      });
    }
    const after = await server.db.pool.query<{ n: number }>(
      'select count(*)::int as n from transfer_batches',
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    // A prefix naming one object is a copy of that object.
    const one = await finished({
      sourceCloudAccountId: awsId,
      sourceBucket: 'missing-dst-src',
      sourcePath: 'a.t',
      destinationCloudAccountId: azureId,
      destinationBucket: 'missing-dst',
    });
    expect(one).toMatchObject({ transferStatus: BATCH_STATUS.completed, transferred: 1 });
  });

  it('fails the items it cannot read, lists them as CSV, and retries only those', async () => {
    await blob.createBucket('retry-src');
    await s3.createBucket('retry-late');
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 5; i++) files[`r-${i}.txt`] = randomBytes(2000 + i);
    const live = { 'live-a.txt': randomBytes(1500), 'live-b.txt': randomBytes(1501) };
    await fill(blob, 'retry-src', { ...files, ...live });
    // Archived blobs cannot be read until they are rehydrated: each of those copies fails with Azure's words.
    for (const key of Object.keys(files)) await setAzuriteTier(azurite.endpoint, 'retry-src', key, 'Archive');
    const batch = await started({
      sourceCloudAccountId: azureId,
      sourceBucket: 'retry-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'retry-late',
    });
    const failed = await until(batch.id, [BATCH_STATUS.failed, BATCH_STATUS.completed]);
    expect(failed).toMatchObject({ transferStatus: BATCH_STATUS.failed, failed: 5, transferred: 2 });

    const early = await call('POST', '/api/transfer/retry_transfer', owner.token, { Id: batch.id });
    expect(early.status).toBe(200);
    const firstRetry = (early.body as TransferStarted).batch;
    expect(firstRetry).toMatchObject({ retryOf: batch.id, total: 5 });
    await until(firstRetry.id, [BATCH_STATUS.failed]);
    expect((await batchOf(batch.id)).Retried).toBe(true);

    const csv = await server.app.inject({
      method: 'POST',
      url: '/api/transfer/download_failed_files',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { Id: firstRetry.id },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('key,size,error');
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[0])
        .sort(),
    ).toEqual(Object.keys(files).sort());
    expect(lines.slice(1).every((line) => line.split(',').slice(2).join(',').length > 0)).toBe(true);

    for (const key of Object.keys(files)) await setAzuriteTier(azurite.endpoint, 'retry-src', key, 'Hot');
    const retry = await call('POST', '/api/transfer/retry_transfer', owner.token, { Id: firstRetry.id });
    expect(retry.status).toBe(200);
    expect((retry.body as TransferStarted).message).toBe(transferMessages.retryStarted);
    const second = (retry.body as TransferStarted).batch;
    const done = await until(second.id, [BATCH_STATUS.completed, BATCH_STATUS.failed]);
    expect(done).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      transferred: 5,
      retryOf: firstRetry.id,
    });
    for (const [key, body] of Object.entries(files)) {
      expect((await readAll(s3, 'retry-late', key)).equals(body)).toBe(true);
    }
    const again = await call('POST', '/api/transfer/retry_transfer', owner.token, { Id: firstRetry.id });
    expect(again.status).toBe(400);
    expect((again.body as { message: string }).message).toBe(transferMessages.nothingToRetry);
  });

  it('refuses Retry Failed Files when the source or destination account was removed, saying which', async () => {
    await blob.createBucket('gone-src');
    await s3.createBucket('gone-dst');
    await fill(blob, 'gone-src', { 'a.txt': randomBytes(1000) });
    await setAzuriteTier(azurite.endpoint, 'gone-src', 'a.txt', 'Archive');
    const batch = await started({
      sourceCloudAccountId: azureId,
      sourceBucket: 'gone-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'gone-dst',
    });
    await until(batch.id, [BATCH_STATUS.failed]);
    // As removing an account does to its batches (on delete set null), without removing one the file still uses:
    // first the destination's, then the source's too.
    for (const [column, message] of [
      ['destination_cloud_account_id', transferMessages.destinationAccountGone],
      ['source_cloud_account_id', transferMessages.sourceAccountGone],
    ] as const) {
      await server.db.pool.query(`update transfer_batches set ${column} = null where id = $1`, [batch.id]);
      const retry = await call('POST', '/api/transfer/retry_transfer', owner.token, { Id: batch.id });
      expect({ status: retry.status, message: (retry.body as { message: string }).message }).toEqual({
        status: 400,
        message,
      });
    }
    expect((await batchOf(batch.id)).Retried).toBe(false);
    // The history names both sides as removed, not as an empty name before the bucket.
    expect(await batchOf(batch.id)).toMatchObject({
      sourceCloudAccount: { id: null, name: transferMessages.removedAccount },
      destinationCloudAccount: { id: null, name: transferMessages.removedAccount },
      sourceBucket: 'gone-src',
    });
  });

  it('fails an archived blob at once with what to do, copies the rest, and copies it on retry once rehydrated', async () => {
    await blob.createBucket('cold-src');
    await s3.createBucket('cold-dst');
    const files = {
      'live-1.txt': randomBytes(3000),
      'live-2.txt': randomBytes(3001),
      'vault.tar': randomBytes(4000),
    };
    await fill(blob, 'cold-src', files);
    await setAzuriteTier(azurite.endpoint, 'cold-src', 'vault.tar', 'Archive');

    const batch = await started({
      sourceCloudAccountId: azureId,
      sourceBucket: 'cold-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'cold-dst',
    });
    const ended = await until(batch.id, [BATCH_STATUS.failed, BATCH_STATUS.completed]);
    expect(ended).toMatchObject({ transferStatus: BATCH_STATUS.failed, failed: 1, transferred: 2 });
    const { rows } = await server.db.pool.query<{ source_key: string; error: string }>(
      `select source_key, error from transfer_items where batch_id = $1 and status = 'failed'`,
      [batch.id],
    );
    expect(rows).toEqual([
      {
        source_key: 'vault.tar',
        error: 'The blob is in the Archive tier: rehydrate it to an online tier before reading or copying it',
      },
    ]);
    expect((await keysOf(s3, 'cold-dst')).sort()).toEqual(['live-1.txt', 'live-2.txt']);

    await setAzuriteTier(azurite.endpoint, 'cold-src', 'vault.tar', 'Hot');
    const retry = await call('POST', '/api/transfer/retry_transfer', owner.token, { Id: batch.id });
    expect(retry.status).toBe(200);
    const second = (retry.body as TransferStarted).batch;
    expect(await until(second.id, [BATCH_STATUS.completed, BATCH_STATUS.failed])).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      transferred: 1,
    });
    expect((await readAll(s3, 'cold-dst', 'vault.tar')).equals(files['vault.tar'])).toBe(true);
  });

  it('counts the buckets a move changed again once it ended: the destination grew, the source shrank', async () => {
    await s3.createBucket('count-src');
    await blob.createBucket('count-dst');
    const files = {
      'stay.txt': randomBytes(1000),
      'go/a.bin': randomBytes(2000),
      'go/b.bin': randomBytes(3000),
    };
    await fill(s3, 'count-src', files);
    const org = owner.principal.organizationId;
    // No inventory of the accounts (queued when they connected) is still to run: only the recount may count.
    const pendingInventories = async () => {
      const { rows } = await server.db.pool.query<{ n: string }>(
        `select count(*) as n from pgboss.job where name = 'inventory.account' and state < 'completed'`,
      );
      return Number(rows[0]?.n);
    };
    await expect.poll(pendingInventories, { timeout: 30_000 }).toBe(0);
    // The dashboard's sizes as the last inventory left them.
    await server.services.inventory.run(org, awsId);
    await server.services.inventory.run(org, azureId);
    const sizeOf = async (accountId: string, bucket: string) => {
      const { rows } = await server.db.pool.query<{ object_count: string; total_bytes: string }>(
        'select object_count, total_bytes from buckets where cloud_account_id = $1 and name = $2',
        [accountId, bucket],
      );
      return rows[0] && { objects: Number(rows[0].object_count), bytes: Number(rows[0].total_bytes) };
    };
    expect(await sizeOf(awsId, 'count-src')).toEqual({ objects: 3, bytes: 6000 });
    expect(await sizeOf(azureId, 'count-dst')).toEqual({ objects: 0, bytes: 0 });

    const batch = await started({
      sourceCloudAccountId: awsId,
      sourceBucket: 'count-src',
      sourcePath: 'go/',
      destinationCloudAccountId: azureId,
      destinationBucket: 'count-dst',
      operation: 'move',
    });
    expect(await until(batch.id, [BATCH_STATUS.completed, BATCH_STATUS.failed])).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      transferred: 2,
      deleted: 2,
    });

    await expect
      .poll(() => sizeOf(azureId, 'count-dst'), { timeout: 30_000 })
      .toEqual({ objects: 2, bytes: 5000 });
    await expect
      .poll(() => sizeOf(awsId, 'count-src'), { timeout: 30_000 })
      .toEqual({ objects: 1, bytes: 1000 });
  }, 90_000);

  it('answers the live batches on GET /transfer/ongoing', async () => {
    const ongoing = await call('GET', '/api/transfer/ongoing', owner.token);
    expect(ongoing.status).toBe(200);
    expect(ongoing.body).toEqual({ items: [] });
  });
});
