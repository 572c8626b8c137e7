import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type TransferList, type TransferStarted } from '@cumulo/contract';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  readAll,
  S3RVER_KEY,
  startAzurite,
  startS3rver,
  type S3rverServer,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import {
  azuriteStore,
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { serverNodeFlags } from '../../../../../scripts/build-server.mjs';

/**
 * THE FAULT TEST: the worker role runs as its own OS process (`dist/main.js worker`, as deployed), is killed with
 * SIGKILL while a 64 MiB object is copied in parts, and a new worker process finishes the batch from the parts
 * the first one recorded. Real s3rver, Azurite and embedded PostgreSQL; the web role serves the API in this process.
 */
const MiB = 1024 * 1024;
/** The built server (test/global-setup.ts builds it from these sources), as `npm start` and a deployment run it. */
const mainJs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/main.js');
const masterKey = randomBytes(32).toString('base64');
let server: TestServer;
let s3rver: S3rverServer;
/** A second S3 endpoint (the `wasabi` provider's): a copy across endpoints streams its parts. */
let s3rverB: S3rverServer;
let azurite: TestStoreServer;
let dataDir: string;
let s3: S3ObjectStore;
let s3b: S3ObjectStore;
let blob: AzureObjectStore;
const workers: ChildProcess[] = [];
const workerLog: string[] = [];

const endpoints = () =>
  JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rverB.endpoint, azure: azurite.endpoint });

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', ...serverNodeFlags, mainJs, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: server.databaseUrl,
      MASTER_KEY: masterKey,
      DATA_DIR: dataDir,
      PROVIDER_ENDPOINTS: endpoints(),
      TRANSFER_LEASE_SECONDS: '3',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => workerLog.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => workerLog.push(chunk.toString()));
  workers.push(child);
  return child;
}

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${what} did not happen; worker said: ${workerLog.join('').slice(-3000)}`);
}

beforeAll(async () => {
  [s3rver, s3rverB, azurite] = await Promise.all([startS3rver(), startS3rver(), startAzurite()]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-fault-'));
  server = await startTestServer({
    MASTER_KEY: masterKey,
    PROVIDER_ENDPOINTS: endpoints(),
  });
  s3 = s3rverStore(s3rver.endpoint);
  s3b = s3rverStore(s3rverB.endpoint);
  blob = azuriteStore(azurite.endpoint);
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await s3?.close();
  await s3b?.close();
  await blob?.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), s3rverB?.stop(), azurite?.stop()]);
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Where the killed copy goes: an account of the destination's provider, and the test's own client of it. */
interface Destination {
  name: string;
  connect: (account: (body: Record<string, unknown>) => Promise<string>) => Promise<string>;
  store: () => S3ObjectStore | AzureObjectStore;
}

/**
 * Copies three objects from s3rver to `destination`, kills the worker with SIGKILL once some parts of the 64 MiB
 * one are recorded, and checks that a new worker finishes the same upload. Answers the big object's bytes.
 */
async function killMidObject(destination: Destination): Promise<{ big: Buffer }> {
  // The worker an earlier test left running would claim this test's objects too.
  await Promise.all(
    workers
      .filter((worker) => worker.exitCode === null && worker.signalCode === null)
      .map(async (worker) => {
        const exited = new Promise((resolve) => worker.once('exit', resolve));
        worker.kill('SIGKILL');
        await exited;
      }),
  );
  const owner = await signedInMember(server, `fault-${destination.name}`);
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  const account = async (body: Record<string, unknown>) =>
    ((await callApi(server, 'POST', '/api/cloudaccount/insert', owner.token, body)).body as { id: string })
      .id;
  const awsId = await account({ cloudType: 1, name: 'Src', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY });
  const destinationId = await destination.connect(account);

  const big = randomBytes(64 * MiB);
  const files: Record<string, Buffer> = {
    'a-small.txt': randomBytes(1000),
    'big/movie.bin': big,
    'z-small.txt': randomBytes(2000),
  };
  const sourceBucket = `fault-src-${destination.name}`;
  await s3.createBucket(sourceBucket);
  await destination.store().createBucket('fault-dst');
  for (const [key, body] of Object.entries(files))
    await s3.write(sourceBucket, key, body, { size: body.length });

  const first = startWorker();
  const started = await callApi(server, 'POST', '/api/transfer/transfer', owner.token, {
    sourceCloudAccountId: awsId,
    sourceBucket,
    destinationCloudAccountId: destinationId,
    destinationBucket: 'fault-dst',
  });
  expect(started.status, started.raw).toBe(200);
  const batchId = (started.body as TransferStarted).batch.id;

  // Kill the worker once some, not all, parts of the big object are recorded.
  const before = await poll(async () => {
    const { rows } = await server.db.pool.query<{
      id: string;
      upload_id: string;
      part_size: string;
      parts: number;
    }>(
      `select i.id, i.upload_id, i.part_size, (select count(*)::int from transfer_parts p where p.item_id = i.id) as parts
         from transfer_items i where i.batch_id = $1 and i.source_key = 'big/movie.bin'`,
      [batchId],
    );
    const row = rows[0];
    return row && row.upload_id && row.parts >= 1 ? row : undefined;
  }, 'a finished part of the big object');
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const totalParts = Math.ceil(big.length / Number(before.part_size));
  const { rows: kept } = await server.db.pool.query<{ part_number: number; etag: string | null }>(
    'select part_number, etag from transfer_parts where item_id = $1 order by part_number',
    [before.id],
  );
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(totalParts);

  startWorker();
  // While the new worker finishes it, the big object keeps the same upload: it resumed, it did not restart.
  const uploadsSeen = new Set<string>();
  const finished = await poll(async () => {
    const { rows } = await server.db.pool.query<{ upload_id: string | null; status: string }>(
      'select upload_id, status from transfer_items where id = $1',
      [before.id],
    );
    if (rows[0]?.upload_id) uploadsSeen.add(rows[0].upload_id);
    const list = (await callApi(server, 'GET', '/api/transfer/get_all', owner.token)).body as TransferList;
    const batch = list.items.find((b) => b.id === batchId);
    return batch && batch.transferStatus !== BATCH_STATUS.ongoing ? batch : undefined;
  }, 'the batch finishing');
  expect(finished).toMatchObject({
    transferStatus: BATCH_STATUS.completed,
    total: 3,
    transferred: 3,
    failed: 0,
  });
  expect([...uploadsSeen]).toEqual([before.upload_id]);

  const { rows: items } = await server.db.pool.query<{
    source_key: string;
    status: string;
    attempts: number;
  }>('select source_key, status, attempts from transfer_items where batch_id = $1 order by source_key', [
    batchId,
  ]);
  expect(items.map((item) => [item.source_key, item.status])).toEqual([
    ['a-small.txt', 'done'],
    ['big/movie.bin', 'done'],
    ['z-small.txt', 'done'],
  ]);
  // Claimed by the killed worker, then once more by its successor.
  expect(items.find((item) => item.source_key === 'big/movie.bin')?.attempts).toBe(2);
  for (const [key, body] of Object.entries(files)) {
    expect((await readAll(destination.store(), 'fault-dst', key)).equals(body), key).toBe(true);
  }
  return { big };
}

describe('transfer engine fault tolerance: worker process SIGKILLed mid-object (s3rver → Azurite)', () => {
  it('resumes the large object from its finished parts in a new worker, and every object verifies once', async () => {
    await killMidObject({
      name: 'azure',
      connect: (account) =>
        account({ cloudType: 4, name: 'Dst', accessKey: AZURITE_ACCOUNT, secretKey: AZURITE_KEY }),
      store: () => blob,
    });
  }, 180_000);
});

describe('transfer engine fault tolerance: worker process SIGKILLed mid-object (s3rver → s3rver, parts streamed)', () => {
  it('resumes the streamed copy from its finished parts in a new worker, in the source’s own parts', async () => {
    await killMidObject({
      name: 's3',
      connect: (account) =>
        account({ cloudType: 2, name: 'Dst', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY }),
      store: () => s3b,
    });
    // Copied in the source's own parts (the streamed path): the copy has the source's parts ETag.
    const source = await s3.stat('fault-src-s3', 'big/movie.bin');
    expect(source?.partsMd5).toBeDefined();
    expect((await s3b.stat('fault-dst', 'big/movie.bin'))?.etag).toBe(source?.etag);
  }, 180_000);
});
