import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_CYCLE_STATUS } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import {
  keysOf,
  S3RVER_KEY,
  startRestartableS3rver,
  type RestartableS3rver,
  type S3rverRequest,
} from '@cumulo/storage/testing';
import { syncJobs } from '../../db/schema/index.ts';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { serverNodeFlags } from '../../../../../scripts/build-server.mjs';

/**
 * THE SYNC FAULT TEST: the worker role runs as its own OS process (`dist/main.js worker`, as deployed) and is killed
 * with SIGKILL twice in one replication cycle — mid-diff (while the second page of the source listing is held
 * unanswered, after the first chunk was written) and mid-delete (while its DeleteObjects request is held). A new
 * worker process each time finishes the cycle: every changed object is written once at the destination (the
 * destination s3rver's hold hook counts its PUTs) and exactly the candidates are deleted. Two real s3rvers and
 * embedded PostgreSQL; the web role runs in this process.
 */
/** The built server (test/global-setup.ts builds it from these sources), as `npm start` and a deployment run it. */
const mainJs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/main.js');
const masterKey = randomBytes(32).toString('base64');
let server: TestServer;
let source: RestartableS3rver;
let destination: RestartableS3rver;
let dataDir: string;
let sourceStore: S3ObjectStore;
let destinationStore: S3ObjectStore;
const workers: ChildProcess[] = [];
const workerLog: string[] = [];
const destinationRequests: S3rverRequest[] = [];

/** A request the test keeps unanswered until it has killed the worker that sent it. */
interface Trap {
  matches(request: S3rverRequest): boolean;
  /** Settles when the request arrived. */
  seen: Promise<void>;
  markSeen(): void;
  gate: Promise<void>;
  release(): void;
}
let trap: Trap | null = null;
function setTrap(matches: (request: S3rverRequest) => boolean): Trap {
  let markSeen = () => undefined as void;
  let release = () => undefined as void;
  const seen = new Promise<void>((resolve) => (markSeen = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  trap = { matches, seen, markSeen, gate, release };
  return trap;
}
function hold(request: S3rverRequest): Promise<void> | undefined {
  const armed = trap;
  if (!armed?.matches(request)) return undefined;
  trap = null;
  armed.markSeen();
  return armed.gate;
}

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', ...serverNodeFlags, mainJs, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: server.databaseUrl,
      MASTER_KEY: masterKey,
      DATA_DIR: dataDir,
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: source.endpoint }),
      // The destination is a generic S3 account on 127.0.0.1, as in the harness's web role.
      ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
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

async function kill(worker: ChildProcess) {
  worker.kill('SIGKILL');
  if (worker.exitCode === null && worker.signalCode === null) {
    await new Promise((resolve) => worker.once('exit', resolve));
  }
}

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not happen; worker said: ${workerLog.join('').slice(-3000)}`);
}

beforeAll(async () => {
  source = await startRestartableS3rver({ hold });
  destination = await startRestartableS3rver({
    hold: (request) => {
      destinationRequests.push(request);
      return hold(request);
    },
  });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-sync-fault-'));
  server = await startTestServer({
    MASTER_KEY: masterKey,
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: source.endpoint }),
  });
  sourceStore = s3rverStore(source.endpoint);
  destinationStore = s3rverStore(destination.endpoint);
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  trap?.release();
  await sourceStore?.close();
  await destinationStore?.close();
  await server?.stop();
  await Promise.all([source?.stop(), destination?.stop()]);
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('sync cycle fault tolerance: worker process SIGKILLed mid-diff and mid-delete (s3rver → s3rver)', () => {
  it('resumes the diff after its cursor and the deletes from their pending rows: each change copied once, exactly the candidates deleted', async () => {
    const owner = await signedInMember(server, 'fault');
    const account = async (body: Record<string, unknown>) => {
      const res = await callApi(server, 'POST', '/api/cloudaccount/insert', owner.token, body);
      if (res.status !== 201) throw new Error(res.raw);
      return (res.body as { id: string }).id;
    };
    const sourceId = await account({
      cloudType: 1,
      name: 'Src',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    const destinationId = await account({
      cloudType: 8,
      name: 'Dst',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      serviceUrl: destination.endpoint,
    });

    // 1500 objects on both sides (two listing pages each); then 3 changed at the same size (one on the first
    // page, two on the second), 2 added, 300 deleted at the source.
    const all = Array.from({ length: 1500 }, (_, i) => `k/${String(i).padStart(4, '0')}`);
    await sourceStore.createBucket('src');
    await destinationStore.createBucket('dst');
    for (let at = 0; at < all.length; at += 50) {
      await Promise.all(
        all
          .slice(at, at + 50)
          .flatMap((key) => [
            sourceStore.write('src', key, Buffer.from(`v1 ${key}`)),
            destinationStore.write('dst', key, Buffer.from(`v1 ${key}`)),
          ]),
      );
    }
    const changed = ['k/0100', 'k/1300', 'k/1450'];
    for (const key of changed) await sourceStore.write('src', key, Buffer.from(`V1 ${key}`));
    const added = ['k/0100a', 'k/9999'];
    for (const key of added) await sourceStore.write('src', key, Buffer.from(`new ${key}`));
    const gone = all.filter((_, i) => i % 5 === 1);
    await sourceStore.deleteMany('src', gone);
    expect(gone).toHaveLength(300);

    const [job] = await server.db.orm
      .insert(syncJobs)
      .values({
        organizationId: owner.principal.organizationId,
        createdBy: owner.principal.userId,
        kind: 'replication',
        sourceCloudAccountId: sourceId,
        sourceBucket: 'src',
        destinationCloudAccountId: destinationId,
        destinationBucket: 'dst',
        allowDelete: true,
        deleteThresholdCount: 1000,
        deleteThresholdPercent: 100,
      })
      .returning();
    if (!job) throw new Error('no job');
    destinationRequests.length = 0;

    const cycleState = async (id: string) =>
      (
        await server.db.pool.query<{
          phase: string;
          status: number;
          diff_cursor: string | null;
          source_count: number;
          destination_count: number;
          unchanged_count: number;
          copy_count: number;
          delete_count: number;
          deleted_count: number;
          destination_listed: boolean;
          error: string | null;
        }>('select * from sync_cycles where id = $1', [id])
      ).rows[0];

    // Kill 1: while the second page of the source listing is held, after the diff's first chunk was written.
    const first = startWorker();
    // The accounts' inventory walks list 'src' too (two pages): they run first, so that the trap holds the diff's
    // second page and not theirs.
    await poll(async () => {
      const { rows } = await server.db.pool.query<{ pending: number }>(
        `select count(*)::int as pending from pgboss.job where name = 'inventory.account'
           and state in ('created', 'retry', 'active')`,
      );
      return rows[0]?.pending === 0 ? true : undefined;
    }, "the accounts' inventory walks");
    const diffTrap = setTrap((r) => r.method === 'GET' && 'continuation-token' in r.query);
    const cycle = await server.services.syncCycles.runNow(job, { dryRun: false });
    await diffTrap.seen;
    // The first chunk's copies (k/0100, k/0100a) start at once while the diff waits for its second page: the
    // kill comes once they are done, so that no PUT of theirs is cut off mid-way (a copy killed in flight is
    // written again by design; this test counts writes).
    const midDiff = await poll(async () => {
      const state = await cycleState(cycle.id);
      if (!state?.diff_cursor) return undefined;
      const { rows } = await server.db.pool.query<{ done: string }>(
        `select count(*) as done from transfer_items i join sync_cycles c on c.batch_id = i.batch_id
         where c.id = $1 and i.status = 'done'`,
        [cycle.id],
      );
      return rows[0]?.done === '2' ? state : undefined;
    }, 'a diff chunk written and its copies done');
    await kill(first);
    diffTrap.release();
    expect(midDiff.phase).toBe('diffing');

    // Kill 2: while the DeleteObjects request of the deletes is held at the destination.
    const deleteTrap = setTrap((r) => r.method === 'POST' && 'delete' in r.query);
    const second = startWorker();
    await deleteTrap.seen;
    const midDelete = await cycleState(cycle.id);
    expect(midDelete?.phase).toBe('deleting');
    await kill(second);
    // The request reaches s3rver after its sender died: the objects go, their rows stay pending.
    deleteTrap.release();

    startWorker();
    const finished = await poll(async () => {
      const state = await cycleState(cycle.id);
      return state?.phase === 'finished' ? state : undefined;
    }, 'the cycle finishing');
    expect(finished).toMatchObject({
      status: SYNC_CYCLE_STATUS.completed,
      source_count: 1202,
      destination_count: 1500,
      unchanged_count: 1197,
      copy_count: 5,
      delete_count: 300,
      deleted_count: 300,
      error: null,
    });

    const { rows: items } = await server.db.pool.query<{ source_key: string; status: string }>(
      `select i.source_key, i.status from transfer_items i join sync_cycles c on c.batch_id = i.batch_id
       where c.id = $1 order by i.source_key`,
      [cycle.id],
    );
    const copies = [...changed, ...added].sort();
    expect(items).toEqual(copies.map((key) => ({ source_key: key, status: 'done' })));
    const puts = destinationRequests
      .filter((r) => r.method === 'PUT' && r.path.startsWith('/dst/'))
      .map((r) => decodeURIComponent(r.path.slice('/dst/'.length)))
      .sort();
    expect(puts).toEqual(copies);

    const expected = [...all.filter((key) => !gone.includes(key)), ...added].sort();
    expect(await keysOf(destinationStore, 'dst')).toEqual(expected);
    const { rows: deletions } = await server.db.pool.query<{ status: string; n: string }>(
      'select status, count(*) as n from sync_deletions where cycle_id = $1 group by status',
      [cycle.id],
    );
    expect(deletions).toEqual([{ status: 'deleted', n: '300' }]);

    // The job's state after the resumed cycle is what an uninterrupted one leaves: the destination equals the
    // source, so every row is a source object's key, size and ETag (rows written twice by a re-run chunk are
    // upserts; deleted keys are gone).
    const { rows: state } = await server.db.pool.query<{ key: string; size: string; source_etag: string }>(
      'select key, size, source_etag from sync_objects where sync_job_id = $1 order by key',
      [job.id],
    );
    const sourceObjects: Array<{ key: string; size: number; etag: string | null }> = [];
    for await (const page of sourceStore.list('src'))
      sourceObjects.push(...page.objects.map((o) => ({ key: o.key, size: o.size, etag: o.etag })));
    expect(state.map((row) => ({ key: row.key, size: Number(row.size), etag: row.source_etag }))).toEqual(
      sourceObjects,
    );

    // The next cycle reads that state instead of listing the destination: nothing to do, not one request there.
    destinationRequests.length = 0;
    const next = await server.services.syncCycles.runNow(job, { dryRun: false });
    const after = await poll(async () => {
      const row = await cycleState(next.id);
      return row?.phase === 'finished' ? row : undefined;
    }, 'the next cycle finishing');
    expect(after).toMatchObject({
      status: SYNC_CYCLE_STATUS.noChange,
      destination_listed: false,
      source_count: 1202,
      destination_count: 1202,
      copy_count: 0,
      delete_count: 0,
    });
    expect(destinationRequests).toEqual([]);
  }, 600_000);
});
