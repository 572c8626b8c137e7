import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_STATUS,
  ROLE_ID,
  SYNC_CYCLE_STATUS,
  SYNC_EVENTS,
  SYNC_QUARANTINE_PREFIX,
  formatBytes,
  syncMessages,
  type NotificationItem,
  type SyncCycle,
  type TransferList,
} from '@cumulo/contract';
import type { ObjectStore } from '@cumulo/storage';
import {
  keysOf,
  readAll,
  startAzurite,
  startRestartableS3rver,
  type RestartableS3rver,
  type S3rverRequest,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import { AppError } from '../../errors.ts';
import { eq } from 'drizzle-orm';
import { syncCycles, syncJobs } from '../../db/schema/index.ts';
import {
  callApi,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { quarantineKey } from './engine/deletions.ts';
import type { SyncCycleRow, SyncJobRow } from './sync.views.ts';

/**
 * The cycle engine against real stores — s3rver (aws, every request seen by a hold hook that only counts) and
 * Azurite (azure) — on embedded PostgreSQL with an SMTP sink. No worker role runs here: the test advances each
 * cycle (`syncCycles.advance`) and runs its batch (`transferExecutor.run`) itself, exactly what the `sync.cycle`
 * and `transfers.batch` jobs do, so each phase's requests can be counted on their own.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
let server: TestServer;
let s3rver: RestartableS3rver;
let azurite: TestStoreServer;
let owner: Member;
let user: Member;
let lab: Awaited<ReturnType<typeof connectLabAccounts>>;
let listener: pg.Client;
const requests: S3rverRequest[] = [];
const events: SyncCycle[] = [];

const body = (text: string) => Buffer.from(text);

async function job(values: Partial<typeof syncJobs.$inferInsert>): Promise<SyncJobRow> {
  const [row] = await server.db.orm
    .insert(syncJobs)
    .values({
      organizationId: owner.principal.organizationId,
      createdBy: owner.principal.userId,
      kind: 'replication',
      sourceCloudAccountId: lab.awsId,
      sourceBucket: 'unset',
      destinationCloudAccountId: lab.awsId,
      destinationBucket: 'unset',
      ...values,
    })
    .returning();
  if (!row) throw new Error('no job row');
  return row;
}

async function cycleRow(id: string): Promise<SyncCycleRow> {
  const [cycle] = await server.db.orm.select().from(syncCycles).where(eq(syncCycles.id, id));
  if (!cycle) throw new Error('cycle gone');
  return cycle;
}

/**
 * What the `sync.cycle` and `transfers.batch` jobs would do, one after the other, until the cycle waits or ends.
 * `seen` gets the s3rver requests of the diff and of the whole cycle.
 */
async function runCycle(syncJob: SyncJobRow, seen?: { diff: S3rverRequest[]; cycle: S3rverRequest[] }) {
  const started = await server.services.syncCycles.runNow(syncJob, { dryRun: false });
  const before = requests.length;
  await server.services.syncCycles.advance(started.id);
  if (seen) seen.diff = requests.slice(before);
  let cycle = await cycleRow(started.id);
  if (cycle.phase === 'copying' && cycle.batchId) {
    await server.services.transferExecutor.run(cycle.batchId);
    await server.services.syncCycles.advance(started.id);
    cycle = await cycleRow(started.id);
  }
  if (seen) seen.cycle = requests.slice(before);
  return cycle;
}

/** HEAD requests on objects (a bucket HEAD is `/bucket`, an object's `/bucket/key`). */
const heads = (seen: S3rverRequest[]) =>
  seen.filter((r) => r.method === 'HEAD' && r.path.split('/').filter(Boolean).length > 1);
/** Requests that write an object of `bucket` (PUT of a body or a server-side copy). */
const writesTo = (seen: S3rverRequest[], bucket: string) =>
  seen
    .filter((r) => r.method === 'PUT' && r.path.startsWith(`/${bucket}/`))
    .map((r) => decodeURIComponent(r.path.slice(bucket.length + 2)));

/** The job's state (`sync_objects`) in key order: relative key, size, source ETag. */
async function stateOf(syncJobId: string) {
  const { rows } = await server.db.pool.query<{ key: string; size: string; source_etag: string | null }>(
    'select key, size, source_etag from sync_objects where sync_job_id = $1 order by key',
    [syncJobId],
  );
  return rows.map((row) => ({ key: row.key, size: Number(row.size), etag: row.source_etag }));
}

/** What the state must read after a cycle that left the destination equal to the source: the source's listing. */
async function listingOf(store: ObjectStore, bucket: string) {
  const objects: Array<{ key: string; size: number; etag: string | null }> = [];
  for await (const page of store.list(bucket))
    objects.push(...page.objects.map((o) => ({ key: o.key, size: o.size, etag: o.etag })));
  return objects;
}

/** Requests that name `bucket` (its own path or an object's under it). */
const toBucket = (seen: S3rverRequest[], bucket: string) =>
  seen.filter((r) => r.path === `/${bucket}` || r.path.startsWith(`/${bucket}/`));

async function checkedAt(syncJobId: string): Promise<Date | null> {
  const [row] = await server.db.orm
    .select({ at: syncJobs.destinationCheckedAt })
    .from(syncJobs)
    .where(eq(syncJobs.id, syncJobId));
  return row?.at ?? null;
}

async function batchItems(batchId: string) {
  const { rows } = await server.db.pool.query<{ source_key: string; status: string }>(
    'select source_key, status from transfer_items where batch_id = $1 order by source_key',
    [batchId],
  );
  return rows;
}

/** One request the test keeps unanswered until it releases it (`seen` settles when it arrived). */
let trap: { matches: (request: S3rverRequest) => boolean; seen: () => void; gate: Promise<void> } | null =
  null;
function setTrap(matches: (request: S3rverRequest) => boolean) {
  let seen = () => undefined as void;
  let release = () => undefined as void;
  const arrived = new Promise<void>((resolve) => (seen = resolve));
  trap = { matches, seen, gate: new Promise<void>((resolve) => (release = resolve)) };
  return { arrived, release };
}

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
}

beforeAll(async () => {
  s3rver = await startRestartableS3rver({
    hold: (request) => {
      requests.push(request);
      const armed = trap;
      if (!armed?.matches(request)) return undefined;
      trap = null;
      armed.seen();
      return armed.gate;
    },
  });
  azurite = await startAzurite();
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  lab = await connectLabAccounts(server, owner.token, { s3rver: s3rver.endpoint, azurite: azurite.endpoint });
  listener = new pg.Client({ connectionString: server.databaseUrl });
  await listener.connect();
  listener.on('notification', (message) => {
    const event = JSON.parse(message.payload ?? '{}') as { type?: string; data?: SyncCycle };
    if (event.type === SYNC_EVENTS.cycle && event.data) events.push(event.data);
  });
  await listener.query('listen cumulo_events');
});
afterAll(async () => {
  await listener?.end();
  await lab?.s3.close();
  await lab?.blob.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('sync cycles: s3rver and Azurite, embedded PostgreSQL, SMTP sink', () => {
  it.each([
    ['s3rver → s3rver', 'aws'],
    ['s3rver → Azurite', 'azure'],
  ] as const)(
    '%s: a full check first, then a cycle that lists only the source copies exactly the 3 changed and 2 new objects',
    async (_name, destinationKind) => {
      const source = `inc-src-${destinationKind}`;
      const destination = `inc-dst-${destinationKind}`;
      const destinationStore = destinationKind === 'aws' ? lab.s3 : lab.blob;
      await lab.s3.createBucket(source);
      await destinationStore.createBucket(destination);
      const keys = Array.from({ length: 20 }, (_, i) => `docs/file-${String(i).padStart(2, '0')}.txt`);
      for (const key of keys) await lab.s3.write(source, key, body(`first ${key}`));
      const syncJob = await job({
        kind: 'sync',
        sourceBucket: source,
        destinationCloudAccountId: destinationKind === 'aws' ? lab.awsId : lab.azureId,
        destinationBucket: destination,
      });

      const firstSeen = { diff: [] as S3rverRequest[], cycle: [] as S3rverRequest[] };
      const first = await runCycle(syncJob, firstSeen);
      expect(first).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        copyCount: 20,
        unchangedCount: 0,
        destinationListed: true,
      });
      if (destinationKind === 'aws') {
        // The full check listed the destination (a ListObjectsV2 on its bucket).
        expect(
          toBucket(firstSeen.diff, destination).some((r) => r.method === 'GET' && 'list-type' in r.query),
        ).toBe(true);
      }
      // The state holds every key, as the source lists it, and the job remembers its full check.
      expect(await stateOf(syncJob.id)).toEqual(await listingOf(lab.s3, source));
      expect(await checkedAt(syncJob.id)).toEqual(first.startedAt);

      const changed = [keys[2], keys[7], keys[13]] as string[];
      // Same size, different content: only a checksum tells them apart.
      for (const key of changed) await lab.s3.write(source, key, body(`FIRST ${key}`));
      const added = ['docs/new-a.txt', 'docs/new-b.txt'];
      for (const key of added) await lab.s3.write(source, key, body(`new ${key}`));

      const before = requests.length;
      const seen = { diff: [] as S3rverRequest[], cycle: [] as S3rverRequest[] };
      const second = await runCycle(syncJob, seen);
      // The diff read the state instead of the destination: no request to the destination bucket at all, and
      // no HEAD anywhere.
      expect(heads(seen.diff)).toEqual([]);
      expect(toBucket(seen.diff, destination)).toEqual([]);
      expect(second).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        phase: 'finished',
        destinationListed: false,
        sourceCount: 22,
        destinationCount: 20,
        copyCount: 5,
        unchangedCount: 17,
        deleteCount: 0,
      });
      const expected = [...changed, ...added].sort();
      const items = await batchItems(second.batchId ?? '');
      expect(items).toEqual(expected.map((key) => ({ source_key: key, status: 'done' })));
      if (destinationKind === 'aws') {
        // The unchanged 17 were neither copied nor rewritten. Same endpoint here: each of the 5 is one
        // server-side CopyObject (a PUT), conditional on the listed ETag and verified by the MD5 it answers.
        expect(writesTo(requests.slice(before), destination).sort()).toEqual(expected);
        expect(toBucket(seen.cycle, destination).filter((r) => r.method !== 'PUT')).toEqual([]);
      }
      // Across endpoints the copier reads each source object once (its GET answers the source's info); within
      // one, it copies without asking first: not one HEAD in the whole cycle on s3rver either way.
      expect(heads(seen.cycle)).toEqual([]);
      // The state follows what the cycle wrote: the 5 rows carry the source's new ETags.
      expect(await stateOf(syncJob.id)).toEqual(await listingOf(lab.s3, source));
      expect(await checkedAt(syncJob.id)).toEqual(first.startedAt);
      for (const key of [...changed, ...added]) {
        expect(await readAll(destinationStore, destination, key)).toEqual(await readAll(lab.s3, source, key));
      }
      const [batch] = (
        await server.db.pool.query<{ transfer_type: number; status: number; sync_job_id: string }>(
          'select transfer_type, status, sync_job_id from transfer_batches where id = $1',
          [second.batchId],
        )
      ).rows;
      expect(batch).toEqual({ transfer_type: 2, status: BATCH_STATUS.completed, sync_job_id: syncJob.id });

      const third = await runCycle(syncJob);
      expect(third).toMatchObject({
        status: SYNC_CYCLE_STATUS.noChange,
        copyCount: 0,
        batchId: null,
        destinationListed: false,
        destinationCount: 22,
      });
      expect(events.filter((e) => e.id === second.id).map((e) => e.phase)).toEqual(
        expect.arrayContaining(['diffing', 'copying', 'finished']),
      );
    },
    120_000,
  );

  describe('replication with "Sync Deleted objects!"', () => {
    const source = 'repl-src';
    const destination = 'repl-dst';
    const all = Array.from({ length: 1000 }, (_, i) => `objects/${String(i).padStart(4, '0')}.bin`);
    let replication: SyncJobRow;
    /** The dry run's counts, which the real cycle after it must report too. */
    let predicted: Partial<SyncCycleRow> = {};

    beforeAll(async () => {
      await lab.s3.createBucket(source);
      await lab.s3.createBucket(destination);
      // Arranged behind the product's back: both sides hold the same 1000 objects.
      for (let at = 0; at < all.length; at += 50) {
        await Promise.all(
          all
            .slice(at, at + 50)
            .flatMap((key) => [
              lab.s3.write(source, key, body(`${key}!`)),
              lab.s3.write(destination, key, body(`${key}!`)),
            ]),
        );
      }
      replication = await job({ sourceBucket: source, destinationBucket: destination, allowDelete: true });
      // Its first cycle lists both sides and finds them equal: the state now holds the 1000 keys.
      const initial = await runCycle(replication);
      expect(initial).toMatchObject({
        status: SYNC_CYCLE_STATUS.noChange,
        destinationListed: true,
        unchangedCount: 1000,
      });
      expect(await stateOf(replication.id)).toHaveLength(1000);
    }, 120_000);

    it('waits for approval above the threshold, tells the approvers only, and approval deletes exactly those', async () => {
      const gone = all.filter((_, i) => i % 2 === 0);
      await lab.s3.deleteMany(source, gone);
      const seen = { diff: [] as S3rverRequest[], cycle: [] as S3rverRequest[] };
      const waiting = await runCycle(replication, seen);
      // Found from the state, the destination unlisted; its object count for the guardrail is the state's rows.
      expect(toBucket(seen.cycle, destination)).toEqual([]);
      expect(waiting).toMatchObject({
        phase: 'awaiting_approval',
        approval: 'waiting',
        destinationListed: false,
        deleteCount: 500,
        deleteBytes: 500 * `${all[0]}!`.length,
        copyCount: 0,
        destinationCount: 1000,
      });
      expect(await keysOf(lab.s3, destination)).toHaveLength(1000);

      const description = syncMessages.waitingApproval(500, formatBytes(500 * `${all[0]}!`.length));
      const ownerBell = (await callApi(server, 'GET', '/api/notifications', owner.token))
        .body as NotificationItem[];
      expect(ownerBell).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ description, link: `/replication?cycle=${waiting.id}` }),
        ]),
      );
      const userBell = (await callApi(server, 'GET', '/api/notifications', user.token))
        .body as NotificationItem[];
      expect(userBell.some((n) => n.description === description)).toBe(false);
      const mail = await server.mail.waitFor(
        owner.email,
        syncMessages.approvalSubject(`${source} to ${destination}`),
      );
      expect(mail.body).toContain(description);
      expect(server.mail.received.some((m) => m.to.includes(user.email) && m.subject === mail.subject)).toBe(
        false,
      );

      await expect(server.services.syncCycles.runNow(replication, { dryRun: false })).rejects.toMatchObject({
        statusCode: 409,
        message: syncMessages.alreadyRunning,
      });

      // A worker that paused the cycle and stopped before telling anyone: the sweep announces it a minute later.
      const mails = () => server.mail.received.filter((m) => m.subject === mail.subject).length;
      const sentBefore = mails();
      await server.db.pool.query('delete from notifications where link = $1', [
        `/replication?cycle=${waiting.id}`,
      ]);
      await server.services.syncCycles.sweep();
      expect(mails()).toBe(sentBefore);
      await server.db.pool.query(
        "update sync_cycles set updated_at = now() - interval '2 minutes' where id = $1",
        [waiting.id],
      );
      await server.services.syncCycles.sweep();
      await expect.poll(mails).toBe(sentBefore + 1);
      const announced = (await callApi(server, 'GET', '/api/notifications', owner.token))
        .body as NotificationItem[];
      expect(announced.filter((n) => n.link === `/replication?cycle=${waiting.id}`)).toHaveLength(1);
      await server.services.syncCycles.sweep();
      expect(mails()).toBe(sentBefore + 1);

      const approved = await server.services.syncCycles.decide(waiting, owner.principal.userId, true);
      expect(approved).toMatchObject({
        phase: 'deleting',
        approval: 'approved',
        decidedBy: owner.principal.userId,
      });
      await server.services.syncCycles.advance(waiting.id);
      expect(await cycleRow(waiting.id)).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        deletedCount: 500,
        approval: 'approved',
      });
      expect((await keysOf(lab.s3, destination)).sort()).toEqual(all.filter((_, i) => i % 2 === 1));
      // The deleted keys left the state with their chunk.
      expect((await stateOf(replication.id)).map((row) => row.key)).toEqual(
        all.filter((_, i) => i % 2 === 1),
      );
      await expect(
        server.services.syncCycles.decide(waiting, owner.principal.userId, true),
      ).rejects.toMatchObject({ statusCode: 409, message: syncMessages.notWaiting });
    }, 120_000);

    it('rejection deletes nothing and completes the cycle as rejected', async () => {
      const remaining = await keysOf(lab.s3, destination);
      await lab.s3.deleteMany(source, remaining.slice(0, 200));
      const waiting = await runCycle(replication);
      expect(waiting).toMatchObject({ phase: 'awaiting_approval', deleteCount: 200 });
      const rejected = await server.services.syncCycles.decide(waiting, owner.principal.userId, false);
      expect(rejected).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        phase: 'finished',
        approval: 'rejected',
        deletedCount: 0,
      });
      expect((await keysOf(lab.s3, destination)).sort()).toEqual(remaining.sort());
      const { rows } = await server.db.pool.query<{ status: string; n: string }>(
        'select status, count(*) as n from sync_deletions where cycle_id = $1 group by status',
        [waiting.id],
      );
      expect(rows).toEqual([{ status: 'kept', n: '200' }]);
      // Kept candidates keep their state rows: the next cycle finds them again.
      expect(await stateOf(replication.id)).toHaveLength(500);
    }, 120_000);

    it('deletes at once under the threshold', async () => {
      const remaining = (await keysOf(lab.s3, source)).sort();
      const destinationBefore = (await keysOf(lab.s3, destination)).sort();
      // The 200 kept by the rejection are deleted too now: 205 is above 100, so lift the guard for this job.
      await server.db.pool.query(
        'update sync_jobs set delete_threshold_count = 300, delete_threshold_percent = 50 where id = $1',
        [replication.id],
      );
      await lab.s3.deleteMany(source, remaining.slice(0, 5));
      const cycle = await runCycle({ ...replication, deleteThresholdCount: 300, deleteThresholdPercent: 50 });
      expect(cycle).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        approval: null,
        deleteCount: 205,
        deletedCount: 205,
      });
      expect((await keysOf(lab.s3, destination)).sort()).toEqual(remaining.slice(5));
      expect(destinationBefore).toHaveLength(500);
      expect(cycle.destinationListed).toBe(false);
      expect(await stateOf(replication.id)).toEqual(await listingOf(lab.s3, source));
    }, 120_000);

    it('a dry run counts and samples, and changes nothing', async () => {
      const remaining = (await keysOf(lab.s3, source)).sort();
      await lab.s3.deleteMany(source, remaining.slice(0, 3));
      await lab.s3.write(source, 'objects/zz-new.bin', body('new'));
      const dry = await server.services.syncCycles.runNow(replication, { dryRun: true });
      expect(dry.batchId).toBeNull();
      await server.services.syncCycles.advance(dry.id);
      const done = await cycleRow(dry.id);
      predicted = {
        destinationListed: false,
        sourceCount: done.sourceCount,
        destinationCount: done.destinationCount,
        unchangedCount: done.unchangedCount,
        copyCount: done.copyCount,
        copyBytes: done.copyBytes,
        deleteCount: done.deleteCount,
        deleteBytes: done.deleteBytes,
      };
      expect(done).toMatchObject({
        dryRun: true,
        destinationListed: false,
        status: SYNC_CYCLE_STATUS.completed,
        copyCount: 1,
        deleteCount: 3,
        sample: {
          copy: [{ key: 'objects/zz-new.bin', size: 3 }],
          delete: remaining.slice(0, 3).map((key) => ({ key, size: `${key}!`.length })),
        },
      });
      const { rows } = await server.db.pool.query<{ n: string }>(
        'select count(*) as n from sync_deletions where cycle_id = $1',
        [dry.id],
      );
      expect(rows[0]?.n).toBe('0');
      expect(await keysOf(lab.s3, destination)).toContain(remaining[0]);
      expect(await keysOf(lab.s3, destination)).not.toContain('objects/zz-new.bin');
    }, 60_000);

    it('quarantines instead of deleting, and purges the quarantine after its days', async () => {
      await server.db.pool.query('update sync_jobs set quarantine_days = 7 where id = $1', [replication.id]);
      const quarantined = {
        ...replication,
        quarantineDays: 7,
        deleteThresholdCount: 300,
        deleteThresholdPercent: 50,
      };
      const cycle = await runCycle(quarantined);
      // The dry run before it, reading the same state, predicted exactly this cycle.
      expect(predicted.sourceCount).toBeGreaterThan(0);
      expect(cycle).toMatchObject(predicted);
      const gone = cycle.deleteCount;
      expect(cycle).toMatchObject({
        status: SYNC_CYCLE_STATUS.completed,
        deleteCount: 3,
        deletedCount: 3,
        copyCount: 1,
      });
      // The replication history (/rboard?sync=true) lists the cycle's batch, a copy: it shows the cycle's deletes.
      const history = (await callApi(server, 'GET', '/api/transfer/get_all?type=2&pagesize=200', owner.token))
        .body as TransferList;
      expect(history.items.find((batch) => batch.syncCycleId === cycle.id)).toMatchObject({
        operation: 'copy',
        transferred: 1,
        deleted: 3,
      });
      const { rows } = await server.db.pool.query<{ key: string; status: string }>(
        'select key, status from sync_deletions where cycle_id = $1 order by key',
        [cycle.id],
      );
      expect(rows.map((row) => row.status)).toEqual(['quarantined', 'quarantined', 'quarantined']);
      const inQuarantine = await keysOf(lab.s3, destination, SYNC_QUARANTINE_PREFIX);
      expect(inQuarantine.sort()).toEqual(rows.map((row) => quarantineKey(cycle, row.key)).sort());
      expect(inQuarantine[0]).toMatch(
        new RegExp(`^\\.cumulo-quarantine/\\d{4}-\\d{2}-\\d{2}/${cycle.id}/objects/`),
      );
      const left = await keysOf(lab.s3, destination);
      for (const row of rows) expect(left).not.toContain(row.key);
      // Quarantined keys left the state too; the new object joined it.
      expect(await stateOf(replication.id)).toEqual(await listingOf(lab.s3, source));
      expect(gone).toBe(3);

      // The next cycle neither copies its own quarantine back nor counts it as a destination object to delete.
      const next = await runCycle(quarantined);
      expect(next).toMatchObject({ status: SYNC_CYCLE_STATUS.noChange, deleteCount: 0, copyCount: 0 });

      const finishedAt = (await cycleRow(cycle.id)).finishedAt ?? new Date();
      const day = 24 * 3600 * 1000;
      expect(await server.services.syncCycles.purgeQuarantine(new Date(finishedAt.getTime() + 6 * day))).toBe(
        0,
      );
      expect(await keysOf(lab.s3, destination, SYNC_QUARANTINE_PREFIX)).toHaveLength(3);
      expect(
        await server.services.syncCycles.purgeQuarantine(new Date(finishedAt.getTime() + 7 * day + 1000)),
      ).toBe(3);
      expect(await keysOf(lab.s3, destination, SYNC_QUARANTINE_PREFIX)).toEqual([]);
    }, 120_000);

    it('a sync job and a replication without allowDelete never delete', async () => {
      const destinationKeys = await keysOf(lab.s3, destination);
      for (const values of [
        { kind: 'sync' as const, allowDelete: true },
        { kind: 'replication' as const, allowDelete: false },
      ]) {
        const other = await job({
          ...values,
          sourceBucket: source,
          destinationBucket: destination,
          deleteThresholdCount: 0,
        });
        await lab.s3.deleteMany(source, [(await keysOf(lab.s3, source))[0] ?? '']);
        const cycle = await runCycle(other);
        expect(cycle).toMatchObject({ deleteCount: 0, deletedCount: 0, approval: null });
        expect(cycle.status).toBe(SYNC_CYCLE_STATUS.noChange);
      }
      expect((await keysOf(lab.s3, destination)).sort()).toEqual(destinationKeys.sort());
    }, 60_000);
  });

  it('a full check every SYNC_FULL_CHECK_DAYS repairs what others changed at the destination', async () => {
    await lab.s3.createBucket('check-src');
    await lab.s3.createBucket('check-dst');
    const keys = Array.from({ length: 10 }, (_, i) => `k/${i}.txt`);
    for (const key of keys) await lab.s3.write('check-src', key, body(`one ${key}`));
    const syncJob = await job({ kind: 'sync', sourceBucket: 'check-src', destinationBucket: 'check-dst' });
    expect(await runCycle(syncJob)).toMatchObject({ copyCount: 10, destinationListed: true });
    // Gone from the source: a sync never deletes, so the destination and the state keep it.
    await lab.s3.deleteMany('check-src', ['k/9.txt']);
    expect(await runCycle(syncJob)).toMatchObject({
      status: SYNC_CYCLE_STATUS.noChange,
      destinationListed: false,
    });
    expect(await stateOf(syncJob.id)).toHaveLength(10);

    // Someone else, behind the product's back: one object deleted, one overwritten (same size), and the key
    // only the destination had is deleted too.
    await lab.s3.deleteMany('check-dst', ['k/0.txt', 'k/9.txt']);
    await lab.s3.write('check-dst', 'k/1.txt', body(`ONE k/1.txt`));
    // Until the next full check, a cycle trusts the state and notices nothing: the trade-off.
    const blind = await server.services.syncCycles.runNow(syncJob, { dryRun: true });
    await server.services.syncCycles.advance(blind.id);
    expect(await cycleRow(blind.id)).toMatchObject({ destinationListed: false, copyCount: 0 });

    await server.db.pool.query(
      `update sync_jobs set destination_checked_at = destination_checked_at - interval '8 days' where id = $1`,
      [syncJob.id],
    );
    const seen = { diff: [] as S3rverRequest[], cycle: [] as S3rverRequest[] };
    const check = await runCycle(syncJob, seen);
    expect(check).toMatchObject({
      status: SYNC_CYCLE_STATUS.completed,
      destinationListed: true,
      sourceCount: 9,
      destinationCount: 8,
      copyCount: 2,
      unchangedCount: 7,
    });
    // Listings, and one HEAD: the object of equal size whose MD5 differs, which might still be a copy of this
    // very source (an SSE-KMS source's listed ETag is no MD5); its metadata names no source version.
    expect(heads(seen.diff).map((r) => r.path)).toEqual(['/check-dst/k/1.txt']);
    expect((await batchItems(check.batchId ?? '')).map((item) => item.source_key)).toEqual([
      'k/0.txt',
      'k/1.txt',
    ]);
    expect((await readAll(lab.s3, 'check-dst', 'k/1.txt')).toString()).toBe('one k/1.txt');
    expect((await keysOf(lab.s3, 'check-dst')).sort()).toEqual(keys.slice(0, 9));
    // The state is the destination again: k/9.txt, which it lost, has no row any more.
    expect(await stateOf(syncJob.id)).toEqual(await listingOf(lab.s3, 'check-src'));
    expect(await checkedAt(syncJob.id)).toEqual(check.startedAt);
    // And the next cycle trusts it again.
    expect(await runCycle(syncJob)).toMatchObject({
      status: SYNC_CYCLE_STATUS.noChange,
      destinationListed: false,
      destinationCount: 9,
    });
  }, 60_000);

  it("copies a cycle's items while its diff still lists the source, and finalizes only after the release", async () => {
    const source = 'early-src';
    const destination = 'early-dst';
    await lab.s3.createBucket(source);
    await lab.s3.createBucket(destination);
    // Two listing pages at the source: the diff's first chunk (1000 entries) is written before the second page.
    // The destination already holds the first page but its first 10 keys (arranged behind the product's back), so
    // the first chunk copies 10 and the second page 5.
    const keys = Array.from({ length: 1005 }, (_, i) => `e/${String(i).padStart(4, '0')}.txt`);
    const firstTen = keys.slice(0, 10);
    const lastFive = keys.slice(1000);
    for (let at = 0; at < keys.length; at += 50)
      await Promise.all(
        keys.slice(at, at + 50).flatMap((key) => {
          const write = lab.s3.write(source, key, body(`early ${key}`));
          if (firstTen.includes(key) || lastFive.includes(key)) return [write];
          return [write, lab.s3.write(destination, key, body(`early ${key}`))];
        }),
      );
    const syncJob = await job({ kind: 'sync', sourceBucket: source, destinationBucket: destination });

    const page2 = setTrap(
      (r) => r.method === 'GET' && r.path.startsWith(`/${source}`) && 'continuation-token' in r.query,
    );
    const before = requests.length;
    const started = await server.services.syncCycles.runNow(syncJob, { dryRun: false });
    const batchId = started.batchId ?? '';
    const diffing = server.services.syncCycles.advance(started.id);
    await page2.arrived;
    // What the `transfers.batch` job queued by the first chunk does: copy the held batch's items now.
    const copying = server.services.transferExecutor.run(batchId);
    const batchRow = async () =>
      (
        await server.db.pool.query<{ phase: string; status: number; total_number: number; done: string }>(
          `select phase, status, total_number,
             (select count(*) from transfer_items i where i.batch_id = b.id and i.status = 'done') as done
           from transfer_batches b where id = $1`,
          [batchId],
        )
      ).rows[0];
    const midDiff = await poll(async () => {
      const row = await batchRow();
      return row?.done === '10' ? row : undefined;
    }, "the first chunk's items copied");
    // The diff still waits for its second page: the batch is held, its totals count the first chunk, and the job
    // that copied everything claimable waits instead of finalizing.
    expect(midDiff).toEqual({ phase: 'held', status: BATCH_STATUS.ongoing, total_number: 10, done: '10' });
    expect(await cycleRow(started.id)).toMatchObject({
      phase: 'diffing',
      copyCount: 10,
      unchangedCount: 990,
    });
    expect(writesTo(requests.slice(before), destination).sort()).toEqual(firstTen);

    page2.release();
    await diffing;
    // The release let the waiting job copy the last 5 and finalize the batch.
    expect(await copying).toEqual({ copied: 15, failed: 0 });
    expect(await batchRow()).toEqual({
      phase: 'finished',
      status: BATCH_STATUS.completed,
      total_number: 15,
      done: '15',
    });
    await server.services.syncCycles.advance(started.id);
    expect(await cycleRow(started.id)).toMatchObject({
      status: SYNC_CYCLE_STATUS.completed,
      copyCount: 15,
      unchangedCount: 990,
    });
    // Each object written once.
    expect(writesTo(requests.slice(before), destination).sort()).toEqual([...firstTen, ...lastFive]);
    for (const key of lastFive)
      expect((await readAll(lab.s3, destination, key)).toString()).toBe(`early ${key}`);
  }, 120_000);

  it("never overlaps a job's cycles; an inactive job runs none", async () => {
    await lab.s3.createBucket('overlap-src');
    await lab.s3.createBucket('overlap-dst');
    const overlap = await job({ sourceBucket: 'overlap-src', destinationBucket: 'overlap-dst' });
    const first = await server.services.syncCycles.runNow(overlap, { dryRun: false });
    // Its batch is held while the diff has not run: with nothing to claim, the sweep queues no job for it, and a
    // job that runs it anyway waits (below, until the diff drops the empty batch) instead of finalizing it.
    const heldId = first.batchId ?? '';
    expect((await server.services.transferQueueRepo.batchesToResume()).map((b) => b.id)).not.toContain(
      heldId,
    );
    const waiting = server.services.transferExecutor.run(heldId);
    const { rows: held } = await server.db.pool.query<{ phase: string; status: number }>(
      'select phase, status from transfer_batches where id = $1',
      [heldId],
    );
    expect(held).toEqual([{ phase: 'held', status: BATCH_STATUS.ongoing }]);
    const refused = await server.services.syncCycles
      .runNow(overlap, { dryRun: false })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ statusCode: 409, message: syncMessages.alreadyRunning });
    expect(await server.services.syncCycles.trigger(overlap.id)).toBeNull();
    // A dry run does not count against the rule.
    const dry = await server.services.syncCycles.runNow(overlap, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    await server.services.syncCycles.advance(first.id);
    expect((await cycleRow(first.id)).status).toBe(SYNC_CYCLE_STATUS.noChange);
    // Nothing to copy: the empty batch is dropped, and the job waiting on it ends without a copy.
    expect(await waiting).toEqual({ copied: 0, failed: 0 });
    expect(
      (await server.db.pool.query('select 1 from transfer_batches where id = $1', [heldId])).rows,
    ).toEqual([]);

    const inactive = await job({
      sourceBucket: 'overlap-src',
      destinationBucket: 'overlap-dst',
      active: false,
    });
    expect(await server.services.syncCycles.trigger(inactive.id)).toBeNull();
    await expect(server.services.syncCycles.runNow(inactive, { dryRun: false })).rejects.toMatchObject({
      statusCode: 409,
      message: syncMessages.inactive,
    });
    const { rows } = await server.db.pool.query<{ n: string }>(
      'select count(*) as n from sync_cycles where sync_job_id = $1 and not dry_run',
      [inactive.id],
    );
    expect(rows[0]?.n).toBe('0');
    // The schedule follows the row: cronOf(job) while active, none once deactivated or deleted.
    await server.services.syncCycles.scheduleJob(overlap);
    const { rows: scheduled } = await server.db.pool.query<{ key: string; cron: string }>(
      "select key, cron from pgboss.schedule where name = 'sync.trigger' and key = $1",
      [overlap.id],
    );
    expect(scheduled).toHaveLength(1);
    await server.services.syncCycles.scheduleJob({ ...overlap, active: false });
    const { rows: after } = await server.db.pool.query(
      "select key from pgboss.schedule where name = 'sync.trigger' and key = $1",
      [overlap.id],
    );
    expect(after).toHaveLength(0);
    expect(await server.services.syncCycles.trigger(randomUUID())).toBeNull();
  }, 60_000);

  it("faults with the provider's words: a missing source bucket, an unreachable store", async () => {
    // Counted for Prometheus too (cumulo_sync_cycles_total{outcome="faulted"}).
    const faultedCount = async () =>
      (await server.services.metrics.syncCycles.get()).values.find((v) => v.labels.outcome === 'faulted')
        ?.value ?? 0;
    const faultedBefore = await faultedCount();
    await lab.s3.createBucket('fault-dst');
    const missing = await job({ sourceBucket: 'no-such-bucket', destinationBucket: 'fault-dst' });
    const faulted = await runCycle(missing);
    expect(faulted).toMatchObject({
      status: SYNC_CYCLE_STATUS.faulted,
      error: 'The source bucket no-such-bucket does not exist in Lab AWS.',
      batchId: null,
    });

    const unreachable = await job({ sourceBucket: 'fault-dst', destinationBucket: 'fault-dst-2' });
    await s3rver.halt();
    try {
      const cycle = await runCycle(unreachable);
      expect(cycle.status).toBe(SYNC_CYCLE_STATUS.faulted);
      expect(cycle.error).toMatch(
        /^The source bucket fault-dst in Lab AWS could not be read: The provider could not be reached/,
      );
      expect(cycle.error).not.toMatch(/ECONNREFUSED|\n\s+at /);
    } finally {
      await s3rver.resume();
    }
    expect((await faultedCount()) - faultedBefore).toBe(2);
  }, 120_000);
});
