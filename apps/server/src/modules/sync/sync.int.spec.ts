import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROLE_ID,
  SYNC_DELETE_GUARD,
  authzMessages,
  syncCycleList,
  syncCycleStarted,
  syncJobList,
  syncJobSaved,
  syncMessages,
  transferMessages,
  type SyncJob,
} from '@cumulo/contract';
import type { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import {
  keysOf,
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
 * The sync job API against real stores — s3rver (aws) and Azurite (azure) — on embedded PostgreSQL, with the
 * cycle engine's pg-boss schedules. No worker role runs here, so a started cycle stays unfinished and the calls
 * that depend on it (409 already running, the live cycle) are deterministic; the engine's own specs run cycles.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
let server: TestServer;
let s3rver: S3rverServer;
let azurite: TestStoreServer;
let owner: Member;
let user: Member;
let stranger: Member;
let awsId: string;
let azureId: string;
let strangerAwsId: string;
let s3: S3ObjectStore;
let blob: AzureObjectStore;
let strangerStores: { s3: S3ObjectStore; blob: AzureObjectStore };

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

const saveSync = (overrides: Record<string, unknown> = {}) => ({
  frequency: 1,
  source_cloud: awsId,
  source_bucket: 'sync-src',
  destination_cloud: azureId,
  destination_bucket: 'sync-dst',
  ...overrides,
});

const saveReplication = (overrides: Record<string, unknown> = {}) => ({
  sourceCloudAccountId: azureId,
  sourceBucket: 'repl-src',
  destinationCloudAccountId: awsId,
  destinationBucket: 'repl-dst',
  ...overrides,
});

async function insert(body: object, token = owner.token, url = '/api/sync/insert'): Promise<SyncJob> {
  const res = await call('POST', url, token, body);
  expect(res.status, res.raw).toBe(200);
  const saved = syncJobSaved.parse(res.body);
  expect(saved.message).toBe(syncMessages.saved);
  return saved.job;
}

async function jobs(url = '/api/sync/get_jobs', token = owner.token): Promise<SyncJob[]> {
  const res = await call('GET', url, token);
  expect(res.status, res.raw).toBe(200);
  return syncJobList.parse(res.body).data;
}

async function listed(id: string): Promise<SyncJob | undefined> {
  return (await jobs()).find((job) => job.info.id === id);
}

async function jobCount(): Promise<number> {
  const { rows } = await server.db.pool.query<{ count: string }>('select count(*) from sync_jobs');
  return Number(rows[0]?.count);
}

/** The pg-boss schedules of a job (the engine keys them by job id on queue sync.trigger). */
async function schedulesOf(jobId: string): Promise<string[]> {
  const { rows } = await server.db.pool.query<{ cron: string }>(
    "select cron from pgboss.schedule where name = 'sync.trigger' and key = $1",
    [jobId],
  );
  return rows.map((row) => row.cron);
}

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'syncer');
  user = await signedInMember(server, 'plainuser', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  const confirmed = await call('PUT', '/api/organizations/_me', owner.token, { confirmed_c2c: true });
  expect(confirmed.status, confirmed.raw).toBe(200);
  const endpoints = { s3rver: s3rver.endpoint, azurite: azurite.endpoint };
  ({ awsId, azureId, s3, blob } = await connectLabAccounts(server, owner.token, endpoints));
  const strangers = await connectLabAccounts(server, stranger.token, endpoints, {
    aws: 'Stranger AWS',
    azure: 'Stranger Blob',
  });
  strangerAwsId = strangers.awsId;
  strangerStores = { s3: strangers.s3, blob: strangers.blob };
  await s3.createBucket('sync-src');
  await blob.createBucket('sync-dst');
  await blob.createBucket('repl-src');
  await s3.createBucket('repl-dst');
  for (const key of ['a.txt', 'docs/b.txt'])
    await s3.write('sync-src', key, Buffer.from(key), { size: key.length });
  await blob.write('sync-dst', 'old.txt', Buffer.from('old'), { size: 3 });
});
afterAll(async () => {
  await s3?.close();
  await blob?.close();
  await strangerStores?.s3.close();
  await strangerStores?.blob.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('sync job API: s3rver (aws) and Azurite (azure), embedded PostgreSQL, pg-boss schedules', () => {
  it('creates a daily sync from the saveSync payload with the defaults, scheduled and listed', async () => {
    const before = Date.now();
    const job = await insert(saveSync());
    expect(job.info).toMatchObject({
      kind: 'sync',
      sourceCloudAccount: { id: awsId, name: 'Lab AWS', provider: 'aws' },
      sourceBucket: 'sync-src',
      sourcePath: '',
      destinationCloudAccount: { id: azureId, name: 'Lab Blob', provider: 'azure' },
      destinationBucket: 'sync-dst',
      destinationPath: '',
      frequency: 1,
      operation: 1,
      allowDelete: false,
      active: true,
      quarantineDays: null,
      deleteThresholdCount: SYNC_DELETE_GUARD.count,
      deleteThresholdPercent: SYNC_DELETE_GUARD.percent,
    });
    expect(Date.parse(job.info.nextRun ?? '')).toBeGreaterThan(before);
    expect(job).toMatchObject({ lastCycle: null, lastError: null, liveCycle: null });
    expect(await schedulesOf(job.info.id)).toHaveLength(1);
    expect(await listed(job.info.id)).toEqual(job);
  });

  it('creates a replication from the saveSyncWasabi payload, from an Azure source, deactivated without a schedule', async () => {
    const job = await insert(
      saveReplication({
        allowDelete: true,
        active: false,
        frequency: 2,
        quarantineDays: 7,
        destinationPath: '/backup',
      }),
      owner.token,
      '/api/sync/AddSyncInfoWasabi',
    );
    expect(job.info).toMatchObject({
      kind: 'replication',
      sourceCloudAccount: { id: azureId, provider: 'azure' },
      destinationCloudAccount: { id: awsId, provider: 'aws' },
      destinationPath: 'backup/',
      frequency: 2,
      operation: 1,
      allowDelete: true,
      active: false,
      quarantineDays: 7,
      nextRun: null,
    });
    expect(await schedulesOf(job.info.id)).toEqual([]);

    const defaults = await insert(saveReplication(), owner.token, '/api/sync/AddSyncInfo');
    expect(defaults.info).toMatchObject({
      kind: 'replication',
      allowDelete: false,
      active: true,
      frequency: 1,
    });
    expect(defaults.info.nextRun).not.toBeNull();
  });

  it('lists newest first, by kind on request, and the legacy lists answer their own screen in the same shape', async () => {
    const all = await jobs();
    const created = all.map((job) => Date.parse(job.info.createDate));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(new Set(all.map((job) => job.info.kind))).toEqual(new Set(['sync', 'replication']));

    const syncs = await jobs('/api/sync/get_jobs?kind=sync');
    expect(syncs.length).toBeGreaterThan(0);
    expect(syncs.every((job) => job.info.kind === 'sync')).toBe(true);
    expect(await jobs('/api/sync/ListSyncInfo')).toEqual(syncs);

    const replications = await jobs('/api/sync/get_jobs?kind=replication');
    expect(replications.every((job) => job.info.kind === 'replication')).toBe(true);
    expect(await jobs('/api/sync/ListSyncInfoWasabi')).toEqual(replications);
    expect(syncs.length + replications.length).toBe(all.length);

    expect(await jobs('/api/sync/get_jobs', stranger.token)).toEqual([]);
  });

  it('deactivates and activates with the spec toasts; nextRun and the schedule follow', async () => {
    const job = await insert(saveSync({ frequency: 3 }));
    const off = await call('POST', '/api/sync/activate', owner.token, { id: job.info.id, active: false });
    expect(off).toMatchObject({ status: 200, body: { message: syncMessages.deactivated } });
    expect((await listed(job.info.id))?.info).toMatchObject({ active: false, nextRun: null });
    expect(await schedulesOf(job.info.id)).toEqual([]);

    const on = await call('POST', '/api/sync/activate', owner.token, { id: job.info.id, active: true });
    expect(on).toMatchObject({ status: 200, body: { message: syncMessages.activated } });
    const info = (await listed(job.info.id))?.info;
    expect(info?.active).toBe(true);
    expect(Date.parse(info?.nextRun ?? '')).toBeGreaterThan(Date.now());
    expect(await schedulesOf(job.info.id)).toHaveLength(1);
  });

  it('refuses bad payloads with a 400 in words and saves nothing', async () => {
    const count = await jobCount();
    const refusals: Array<[object, string]> = [
      [saveSync({ frequency: 4 }), 'Choose a frequency: 1 Every Day, 2 Every Week or 3 Every Month.'],
      [saveReplication({ frequency: 4 }), 'Choose a frequency: 1 Every Day, 2 Every Week or 3 Every Month.'],
      [saveSync({ source_cloud: 'not-a-uuid' }), 'Choose a cloud account.'],
      [saveReplication({ destinationCloudAccountId: 'nope' }), 'Choose a cloud account.'],
      [saveSync({ destination_cloud: awsId, destination_bucket: 'sync-src' }), syncMessages.sameBucket],
      [
        saveSync({ destination_cloud: awsId, destination_bucket: 'sync-src', destinationPath: 'inner' }),
        syncMessages.nestedDestination,
      ],
      [
        saveReplication({
          sourceCloudAccountId: awsId,
          sourceBucket: 'sync-src',
          sourcePath: 'docs/',
          destinationBucket: 'sync-src',
          destinationPath: 'docs/copy',
        }),
        syncMessages.nestedDestination,
      ],
      [
        saveSync({ source_bucket: 'no-such-bucket' }),
        'The source bucket no-such-bucket does not exist in Lab AWS.',
      ],
      [
        saveSync({ destination_bucket: 'no-such-bucket' }),
        'The destination bucket no-such-bucket does not exist in Lab Blob.',
      ],
    ];
    for (const [body, message] of refusals) {
      const res = await call('POST', '/api/sync/insert', owner.token, body);
      expect(res.status, `${JSON.stringify(body)} → ${res.raw}`).toBe(400);
      expect((res.body as { message: string }).message).toBe(message);
    }
    expect(await jobCount()).toBe(count);
  });

  it("refuses an organisation that has not confirmed the transfer charge, and another organisation's accounts", async () => {
    const count = await jobCount();
    await strangerStores.s3.createBucket('stranger-src');
    const unconfirmed = await call(
      'POST',
      '/api/sync/insert',
      stranger.token,
      saveSync({
        source_cloud: strangerAwsId,
        source_bucket: 'stranger-src',
        destination_cloud: strangerAwsId,
      }),
    );
    expect(unconfirmed).toMatchObject({
      status: 403,
      body: { message: transferMessages.chargeNotConfirmed },
    });

    for (const body of [
      saveSync({ source_cloud: strangerAwsId }),
      saveReplication({ destinationCloudAccountId: strangerAwsId }),
    ]) {
      const res = await call('POST', '/api/sync/insert', owner.token, body);
      expect(res.status, res.raw).toBe(404);
    }
    expect(await jobCount()).toBe(count);
  });

  it("answers 404 for unknown and another organisation's jobs and cycles on every call", async () => {
    const job = await insert(saveSync());
    const run = await call('POST', `/api/sync/dry_run?id=${job.info.id}`, owner.token);
    expect(run.status, run.raw).toBe(200);
    const cycleId = syncCycleStarted.parse(run.body).cycle.id;

    for (const [token, id, cycle] of [
      [owner.token, randomUUID(), randomUUID()],
      [stranger.token, job.info.id, cycleId],
    ] as const) {
      const answers = [
        await call('POST', '/api/sync/activate', token, { id, active: false }),
        await call('DELETE', `/api/sync/delete?id=${id}`, token),
        await call('DELETE', `/api/sync/DeleteSyncInfo?id=${id}`, token),
        await call('DELETE', `/api/sync/DeleteSyncInfoWasabi?id=${id}`, token),
        await call('POST', `/api/sync/TriggerWasabiSync?syncInfoId=${id}`, token),
        await call('POST', `/api/sync/dry_run?id=${id}`, token),
        await call('GET', `/api/sync/cycles?id=${id}`, token),
        await call('PUT', '/api/sync/options', token, {
          id,
          quarantineDays: null,
          deleteThresholdCount: 1,
          deleteThresholdPercent: 1,
        }),
        await call('POST', '/api/sync/decide', token, { cycleId: cycle, approve: true }),
      ];
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 404));
    }
    expect(await listed(job.info.id)).toMatchObject({ info: { active: true, deleteThresholdCount: 100 } });
  });

  it('refuses a malformed id with the sync words', async () => {
    const res = await call('DELETE', '/api/sync/delete?id=42', owner.token);
    expect(res).toMatchObject({ status: 400, body: { message: syncMessages.unknownJob } });
    const decide = await call('POST', '/api/sync/decide', owner.token, { cycleId: 'x', approve: true });
    expect(decide).toMatchObject({ status: 400, body: { message: syncMessages.unknownCycle } });
  });

  it('lets a User create, list and toggle, but only an Owner or Admin decide and change the guardrail', async () => {
    const job = await insert(saveSync({ frequency: 2 }), user.token);
    expect(job.info.kind).toBe('sync');
    expect((await jobs('/api/sync/get_jobs', user.token)).some((j) => j.info.id === job.info.id)).toBe(true);
    const off = await call('POST', '/api/sync/activate', user.token, { id: job.info.id, active: false });
    expect(off).toMatchObject({ status: 200, body: { message: syncMessages.deactivated } });

    const decide = await call('POST', '/api/sync/decide', user.token, {
      cycleId: randomUUID(),
      approve: true,
    });
    expect(decide).toMatchObject({ status: 403, body: { message: syncMessages.approvers } });
    const options = {
      id: job.info.id,
      quarantineDays: 30,
      deleteThresholdCount: 5,
      deleteThresholdPercent: 50,
    };
    const refused = await call('PUT', '/api/sync/options', user.token, options);
    expect(refused).toMatchObject({ status: 403, body: { message: authzMessages.guardNeedsApprover } });
    expect((await listed(job.info.id))?.info).toMatchObject({
      quarantineDays: null,
      deleteThresholdCount: 100,
    });

    const admin = await signedInMember(server, 'admin', {
      principal: owner.principal,
      roleId: ROLE_ID.Admin,
    });
    const saved = await call('PUT', '/api/sync/options', admin.token, options);
    expect(saved.status, saved.raw).toBe(200);
    expect(syncJobSaved.parse(saved.body)).toMatchObject({
      message: syncMessages.saved,
      job: {
        info: { id: job.info.id, quarantineDays: 30, deleteThresholdCount: 5, deleteThresholdPercent: 50 },
      },
    });
    const bad = await call('PUT', '/api/sync/options', owner.token, {
      ...options,
      deleteThresholdPercent: 101,
    });
    expect(bad.status).toBe(400);
    expect((await listed(job.info.id))?.info.deleteThresholdPercent).toBe(50);
  });

  it('runs a cycle now once at a time, dry-runs beside it, and refuses a deactivated job', async () => {
    const job = await insert(saveSync());
    const run = await call('POST', `/api/sync/TriggerWasabiSync?syncInfoId=${job.info.id}`, owner.token);
    expect(run.status, run.raw).toBe(200);
    const started = syncCycleStarted.parse(run.body);
    expect(started).toMatchObject({
      message: syncMessages.runStarted,
      cycle: { syncJobId: job.info.id, trigger: 'manual', dryRun: false, finishedAt: null },
    });
    const again = await call('POST', `/api/sync/TriggerWasabiSync?syncInfoId=${job.info.id}`, owner.token);
    expect(again).toMatchObject({ status: 409, body: { message: syncMessages.alreadyRunning } });
    expect((await listed(job.info.id))?.liveCycle?.id).toBe(started.cycle.id);

    const dry = await call('POST', `/api/sync/dry_run?id=${job.info.id}`, user.token);
    expect(dry.status, dry.raw).toBe(200);
    const dryRun = syncCycleStarted.parse(dry.body);
    expect(dryRun).toMatchObject({
      message: syncMessages.dryRunStarted,
      cycle: { syncJobId: job.info.id, dryRun: true },
    });

    const cycles = await call('GET', `/api/sync/cycles?id=${job.info.id}`, owner.token);
    expect(cycles.status, cycles.raw).toBe(200);
    expect(syncCycleList.parse(cycles.body).data.map((cycle) => cycle.id)).toEqual([
      dryRun.cycle.id,
      started.cycle.id,
    ]);

    const notWaiting = await call('POST', '/api/sync/decide', owner.token, {
      cycleId: started.cycle.id,
      approve: true,
    });
    expect(notWaiting).toMatchObject({ status: 409, body: { message: syncMessages.notWaiting } });

    const off = await insert(saveReplication({ active: false }));
    const inactive = await call('POST', `/api/sync/TriggerWasabiSync?syncInfoId=${off.info.id}`, owner.token);
    expect(inactive).toMatchObject({ status: 409, body: { message: syncMessages.inactive } });
  });

  it('documents every sync call, legacy names included, in the OpenAPI description', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys((res.json() as { paths: Record<string, unknown> }).paths);
    for (const name of [
      'get_jobs',
      'ListSyncInfo',
      'ListSyncInfoWasabi',
      'insert',
      'AddSyncInfo',
      'AddSyncInfoWasabi',
      'activate',
      'delete',
      'DeleteSyncInfo',
      'DeleteSyncInfoWasabi',
      'TriggerWasabiSync',
      'dry_run',
      'cycles',
      'decide',
      'options',
    ]) {
      expect(paths).toContain(`/api/sync/${name}`);
    }
  });

  it('deletes a job from the product only: off the list, schedule and cycles gone, every object untouched', async () => {
    const before = {
      source: await keysOf(s3, 'sync-src'),
      destination: await keysOf(blob, 'sync-dst'),
    };
    const deletions: Array<[string, SyncJob]> = [
      ['/api/sync/delete', await insert(saveSync())],
      ['/api/sync/DeleteSyncInfo', await insert(saveSync())],
      ['/api/sync/DeleteSyncInfoWasabi', await insert(saveReplication({ allowDelete: true }))],
    ];
    const [first] = deletions;
    const cycle = await call(
      'POST',
      `/api/sync/TriggerWasabiSync?syncInfoId=${first?.[1].info.id}`,
      owner.token,
    );
    expect(cycle.status, cycle.raw).toBe(200);

    for (const [url, job] of deletions) {
      const res = await call('DELETE', `${url}?id=${job.info.id}`, owner.token);
      expect(res).toMatchObject({ status: 200, body: { message: syncMessages.deleted } });
      expect(await listed(job.info.id)).toBeUndefined();
      expect(await schedulesOf(job.info.id)).toEqual([]);
      const again = await call('DELETE', `${url}?id=${job.info.id}`, owner.token);
      expect(again.status).toBe(404);
    }
    const { rows } = await server.db.pool.query('select id from sync_cycles where sync_job_id = $1', [
      first?.[1].info.id,
    ]);
    expect(rows).toEqual([]);
    expect(await keysOf(s3, 'sync-src')).toEqual(before.source);
    expect(await keysOf(blob, 'sync-dst')).toEqual(before.destination);
  });
});
