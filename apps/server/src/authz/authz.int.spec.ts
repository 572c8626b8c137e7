import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIONS,
  FINANCE_SETTINGS_DEFAULTS,
  ROLE_ID,
  accessMessages,
  SYNC_DELETE_GUARD,
  syncCycleStarted,
  syncJobSaved,
  transferMessages,
  transferStarted,
  type Action,
  type RoleAcl,
  type RoleTitle,
  type SyncCycle,
  type UserAcl,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { keysOf, S3RVER_KEY, startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import { AppError } from '../errors.ts';
import {
  callApi,
  putCardOnFile,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../test/harness.ts';

/**
 * Every row of the authorization table (README "Authorization") replayed through the API on the real web role,
 * against s3rver (aws) on embedded PostgreSQL: as a User (refused with 403, nothing changed) and as an Admin
 * (allowed). No worker role runs, so started transfers and cycles stay where the API left them; the sync replay
 * advances its cycle itself, as the `sync.cycle` job does.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let server: TestServer;
let s3rver: S3rverServer;
let owner: Member;
let admin: Member;
let user: Member;
let awsId: string;
let s3: S3ObjectStore;

const asRole: Record<RoleTitle, () => Member> = { Owner: () => owner, Admin: () => admin, User: () => user };
/** Which role saw which outcome of which action; the last test checks every row was replayed both ways. */
const replayed = new Set<string>();

const call = (method: Method, url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);

async function refused(action: Action, role: RoleTitle, method: Method, url: string, body?: unknown) {
  const res = await call(method, url, asRole[role](), body);
  expect(res.status, `${role} ${method} ${url}: ${res.raw}`).toBe(403);
  expect((res.body as { message: string }).message).toBe(
    ACTIONS[action].refusal ?? 'You do not have permission to do this.',
  );
  replayed.add(`${action} ${role} refused`);
  return res;
}

async function allowed(action: Action, role: RoleTitle, method: Method, url: string, body?: unknown) {
  const res = await call(method, url, asRole[role](), body);
  expect(res.status, `${role} ${method} ${url}: ${res.raw}`).toBeLessThan(300);
  replayed.add(`${action} ${role} allowed`);
  return res;
}

async function seed(bucket: string, keys: string[]) {
  await s3.createBucket(bucket);
  for (const key of keys) await s3.write(bucket, key, Buffer.from(`content of ${key}`));
}

async function count(table: string, where = 'true', params: unknown[] = []): Promise<number> {
  const { rows } = await server.db.pool.query<{ count: string }>(
    `select count(*) from ${table} where ${where}`,
    params,
  );
  return Number(rows[0]?.count);
}

const connectAws = (name: string) => ({ cloudType: 1, name, accessKey: S3RVER_KEY, secretKey: S3RVER_KEY });

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  admin = await signedInMember(server, 'admin', { principal: owner.principal, roleId: ROLE_ID.Admin });
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  expect((await call('PUT', '/api/organizations/_me', owner, { confirmed_c2c: true })).status).toBe(200);
  const connected = await call('POST', '/api/cloudaccount/insert', owner, connectAws('Owner AWS'));
  expect(connected.status, connected.raw).toBe(201);
  awsId = (connected.body as { id: string }).id;
  s3 = s3rverStore(s3rver.endpoint);
}, 60_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('authorization of every changing call, as User and as Admin (real API, s3rver, PostgreSQL)', () => {
  it("a User's job cannot loosen the delete guardrail, on every insert path; its deletes wait for an approval", async () => {
    await seed('owner-data', ['a.txt', 'b.txt', 'c.txt']);
    await s3.createBucket('empty-src');
    const replication = (overrides: object = {}) => ({
      sourceCloudAccountId: awsId,
      sourceBucket: 'empty-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'owner-data',
      allowDelete: true,
      ...overrides,
    });
    const loose = { deleteThresholdCount: 1_000_000_000, deleteThresholdPercent: 100 };
    const jobs = await count('sync_jobs');
    for (const url of ['/api/sync/insert', '/api/sync/AddSyncInfo', '/api/sync/AddSyncInfoWasabi']) {
      await refused('sync.guard', 'User', 'POST', url, replication(loose));
      await refused('sync.guard', 'User', 'POST', url, replication({ deleteThresholdPercent: 11 }));
    }
    // The /Sync screen's payload carries the same guardrail fields.
    await refused('sync.guard', 'User', 'POST', '/api/sync/insert', {
      frequency: 1,
      source_cloud: awsId,
      source_bucket: 'empty-src',
      destination_cloud: awsId,
      destination_bucket: 'owner-data',
      deleteThresholdCount: SYNC_DELETE_GUARD.count + 1,
    });
    expect(await count('sync_jobs')).toBe(jobs);
    const adminJob = await allowed('sync.guard', 'Admin', 'POST', '/api/sync/insert', replication(loose));
    expect(syncJobSaved.parse(adminJob.body).job.info).toMatchObject(loose);

    // The default guardrail, or a stricter one, with allowDelete: a User may.
    await allowed(
      'sync.create',
      'User',
      'POST',
      '/api/sync/insert',
      replication({ deleteThresholdCount: 5 }),
    );
    await allowed('sync.create', 'Admin', 'POST', '/api/sync/AddSyncInfo', replication());
    const created = await allowed(
      'sync.create',
      'User',
      'POST',
      '/api/sync/AddSyncInfoWasabi',
      replication(),
    );
    const job = syncJobSaved.parse(created.body).job;
    expect(job.info).toMatchObject({
      createdBy: user.principal.userId,
      allowDelete: true,
      deleteThresholdCount: SYNC_DELETE_GUARD.count,
      deleteThresholdPercent: SYNC_DELETE_GUARD.percent,
    });

    // Run it as its creator: the whole destination is gone from the (empty) source, so the cycle waits.
    const run = await allowed(
      'sync.manage',
      'User',
      'POST',
      `/api/sync/TriggerWasabiSync?syncInfoId=${job.info.id}`,
    );
    let cycle: SyncCycle = syncCycleStarted.parse(run.body).cycle;
    for (
      let step = 0;
      step < 5 && cycle.phase !== 'awaiting_approval' && cycle.phase !== 'finished';
      step++
    ) {
      cycle = await server.services.syncCycles.advance(cycle.id).then(async () => {
        const res = await call('GET', `/api/sync/cycles?id=${job.info.id}`, owner);
        const found = (res.body as { data: SyncCycle[] }).data.find((c) => c.id === cycle.id);
        if (!found) throw new Error('cycle gone');
        return found;
      });
    }
    expect(cycle).toMatchObject({ phase: 'awaiting_approval', approval: 'waiting', deleteCount: 3 });
    expect(await keysOf(s3, 'owner-data')).toEqual(['a.txt', 'b.txt', 'c.txt']);

    await refused('sync.decide', 'User', 'POST', '/api/sync/decide', { cycleId: cycle.id, approve: true });
    expect(await keysOf(s3, 'owner-data')).toEqual(['a.txt', 'b.txt', 'c.txt']);
    const rejected = await allowed('sync.decide', 'Admin', 'POST', '/api/sync/decide', {
      cycleId: cycle.id,
      approve: false,
    });
    expect(syncCycleStarted.parse(rejected.body).cycle.approval).toBe('rejected');
    expect(await keysOf(s3, 'owner-data')).toEqual(['a.txt', 'b.txt', 'c.txt']);

    // Changing a job's guardrail or quarantine later is an Owner's or Admin's call too.
    const options = {
      id: job.info.id,
      quarantineDays: null,
      deleteThresholdCount: 0,
      deleteThresholdPercent: 0,
    };
    await refused('sync.guard', 'User', 'PUT', '/api/sync/options', options);
    await allowed('sync.guard', 'Admin', 'PUT', '/api/sync/options', options);
  });

  it('a User acts only on the sync jobs they created; an Admin on any job of the organisation', async () => {
    await s3.createBucket('sync-src');
    await s3.createBucket('sync-dst');
    const saveSync = {
      frequency: 1,
      source_cloud: awsId,
      source_bucket: 'sync-src',
      destination_cloud: awsId,
      destination_bucket: 'sync-dst',
    };
    const ownersJob = syncJobSaved.parse((await call('POST', '/api/sync/insert', owner, saveSync)).body).job;
    const id = ownersJob.info.id;
    await refused('sync.manage', 'User', 'POST', '/api/sync/activate', { id, active: false });
    await refused('sync.manage', 'User', 'POST', `/api/sync/TriggerWasabiSync?syncInfoId=${id}`);
    for (const url of ['/api/sync/delete', '/api/sync/DeleteSyncInfo', '/api/sync/DeleteSyncInfoWasabi']) {
      await refused('sync.manage', 'User', 'DELETE', `${url}?id=${id}`);
    }
    const [row] = (await server.db.pool.query('select active from sync_jobs where id = $1', [id])).rows;
    expect(row).toEqual({ active: true });
    expect(await count('sync_cycles', 'sync_job_id = $1', [id])).toBe(0);

    // A dry run changes nothing: every member may preview any job.
    await allowed('sync.dryRun', 'User', 'POST', `/api/sync/dry_run?id=${id}`);
    await allowed('sync.dryRun', 'Admin', 'POST', `/api/sync/dry_run?id=${id}`);

    await allowed('sync.manage', 'Admin', 'POST', '/api/sync/activate', { id, active: false });
    await allowed('sync.manage', 'Admin', 'DELETE', `/api/sync/DeleteSyncInfo?id=${id}`);
    expect(await count('sync_jobs', 'id = $1', [id])).toBe(0);

    const usersJob = syncJobSaved.parse((await call('POST', '/api/sync/insert', user, saveSync)).body).job;
    await allowed('sync.manage', 'User', 'POST', '/api/sync/activate', {
      id: usersJob.info.id,
      active: false,
    });
    await allowed('sync.manage', 'User', 'DELETE', `/api/sync/delete?id=${usersJob.info.id}`);
    expect(await count('sync_jobs', 'id = $1', [usersJob.info.id])).toBe(0);
  });

  it('a User copies but does not move (transfer and both c2c calls); an Admin moves', async () => {
    await seed('move-src', ['one.txt', 'two.txt']);
    await s3.createBucket('move-dst');
    const transfer = (operation: 'copy' | 'move') => ({
      sourceCloudAccountId: awsId,
      sourceBucket: 'move-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'move-dst',
      operation,
    });
    const c2c = (type: 0 | 1 | 'move' | 'copy') => ({
      files: [{ path: 'one.txt', bucket_name: 'move-src' }],
      cloud_id: awsId,
      type,
      destination: { cloud_id: awsId, bucket_name: 'move-dst', path: '' },
    });
    const batches = await count('transfer_batches');
    await refused('transfer.move', 'User', 'POST', '/api/transfer/transfer', transfer('move'));
    await refused('transfer.move', 'User', 'POST', '/api/c2c/moveaws', c2c(0));
    await refused('transfer.move', 'User', 'POST', '/api/c2c/moveWasabi', c2c('move'));
    expect(await count('transfer_batches')).toBe(batches);
    expect(await keysOf(s3, 'move-src')).toEqual(['one.txt', 'two.txt']);

    await allowed('transfer.copy', 'User', 'POST', '/api/transfer/transfer', transfer('copy'));
    await allowed('transfer.copy', 'User', 'POST', '/api/c2c/moveaws', c2c(1));
    await allowed('transfer.copy', 'Admin', 'POST', '/api/c2c/moveWasabi', c2c('copy'));
    const moved = await allowed('transfer.move', 'Admin', 'POST', '/api/c2c/moveaws', c2c(0));
    const batchId = transferStarted.parse(moved.body).batch.id;
    expect(
      (await server.db.pool.query('select operation from transfer_batches where id = $1', [batchId])).rows,
    ).toEqual([{ operation: 'move' }]);
  });

  it("a User cancels and retries only their own transfers; an Admin anyone's", async () => {
    await seed('manage-src', ['x.txt']);
    await s3.createBucket('manage-dst');
    const body = {
      sourceCloudAccountId: awsId,
      sourceBucket: 'manage-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'manage-dst',
    };
    const start = async (member: Member) =>
      transferStarted.parse((await call('POST', '/api/transfer/transfer', member, body)).body).batch.id;
    const statusOf = async (id: string) =>
      (await server.db.pool.query('select status from transfer_batches where id = $1', [id])).rows[0];

    const ownersBatch = await start(owner);
    const before = await statusOf(ownersBatch);
    await refused('transfer.manage', 'User', 'POST', '/api/transfer/cancel_transfer', { Id: ownersBatch });
    await refused('transfer.manage', 'User', 'POST', `/api/c2c/cancel?migrationId=${ownersBatch}`);
    await refused('transfer.manage', 'User', 'POST', '/api/transfer/retry_transfer', { Id: ownersBatch });
    expect(await statusOf(ownersBatch)).toEqual(before);
    const canceled = await allowed('transfer.manage', 'Admin', 'POST', '/api/transfer/cancel_transfer', {
      Id: ownersBatch,
    });
    expect(canceled.body).toEqual({ message: transferMessages.canceled });

    const usersBatch = await start(user);
    await allowed('transfer.manage', 'User', 'POST', `/api/c2c/cancel?migrationId=${usersBatch}`);
  });

  it("a User cannot change a bucket's CORS, acceleration or lifecycle; an Admin can", async () => {
    await s3.createBucket('configured');
    const cors = s3.capabilities.cors;
    if (!cors) throw new Error('the aws adapter declares CORS');
    const before = await cors.getCors('configured');
    const config = { cloud_account_id: awsId, bucket_name: 'configured', cors: true };
    await refused('bucket.configure', 'User', 'PUT', '/api/transfers/update_bucket_config/', config);
    await refused('bucket.configure', 'User', 'PUT', '/api/transfers/update_bucket_config/', {
      ...config,
      cors: false,
      cleanup_incomplete_multipart: true,
    });
    expect(await cors.getCors('configured')).toEqual(before);
    await allowed('bucket.configure', 'Admin', 'PUT', '/api/transfers/update_bucket_config/', config);
    expect((await cors.getCors('configured')).map((rule) => rule.allowedOrigins)).toEqual([
      ['http://cumulo.test'],
    ]);
  });

  it('a User creates folders but deletes no object; an Admin deletes', async () => {
    await seed('objects', ['keep.txt']);
    const target = { cloud_account_id: awsId, bucket_name: 'objects' };
    await allowed('object.createFolder', 'User', 'PUT', '/api/transfers/create_folder', {
      ...target,
      path: 'u',
    });
    await allowed('object.createFolder', 'Admin', 'PUT', '/api/transfers/create_folder', {
      ...target,
      path: 'a',
    });
    await refused('object.delete', 'User', 'DELETE', '/api/transfers/delete_object', {
      ...target,
      paths: ['keep.txt', 'u/'],
    });
    expect(await keysOf(s3, 'objects')).toEqual(['a/', 'keep.txt', 'u/']);
    await allowed('object.delete', 'Admin', 'DELETE', '/api/transfers/delete_object', {
      ...target,
      paths: ['keep.txt'],
    });
    expect(await keysOf(s3, 'objects')).toEqual(['a/', 'u/']);
  });

  it("every member adds and deletes a file's custom metadata", async () => {
    await seed('described', ['clip.mp4']);
    const target = { cloud_account_id: awsId, bucket_name: 'described', path: 'clip.mp4' };
    const add = async (role: 'User' | 'Admin', name: string) =>
      (await allowed('metadata.manage', role, 'POST', '/api/metadata/add', { ...target, name, value: 'v' }))
        .body as { id: string };
    const users = await add('User', 'By user');
    const admins = await add('Admin', 'By admin');
    await allowed('metadata.manage', 'User', 'DELETE', `/api/metadata/${admins.id}`);
    await allowed('metadata.manage', 'Admin', 'DELETE', `/api/metadata/${users.id}`);
    expect(await count('media_metadata')).toBe(0);
  });

  it("a User uploads but aborts only their own upload sessions; an Admin anyone's", async () => {
    await s3.createBucket('uploads');
    const begin = async (member: Member, key: string) => {
      const res = await call('POST', '/api/transfers/uploads', member, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        key,
        size: 5,
        fingerprint: `${key}:5:1700000000000`,
      });
      replayed.add(`upload.start ${member === user ? 'User' : member === admin ? 'Admin' : 'Owner'} allowed`);
      expect(res.status, res.raw).toBe(200);
      return (res.body as { session_id: string }).session_id;
    };
    const statusOf = async (id: string) =>
      (await server.db.pool.query('select status from upload_sessions where id = $1', [id])).rows[0];
    const ownersSession = await begin(owner, 'owner.bin');
    await begin(admin, 'admin.bin');
    await refused('upload.abort', 'User', 'DELETE', `/api/transfers/uploads/${ownersSession}`);
    expect(await statusOf(ownersSession)).toEqual({ status: 'active' });
    await allowed('upload.abort', 'Admin', 'DELETE', `/api/transfers/uploads/${ownersSession}`);
    expect(await statusOf(ownersSession)).toEqual({ status: 'aborted' });
    const usersSession = await begin(user, 'user.bin');
    await allowed('upload.abort', 'User', 'DELETE', `/api/transfers/uploads/${usersSession}`);
  });

  it('every member encodes; a User cancels and removes only their own encoding jobs', async () => {
    await seed('films', ['clip.mp4']);
    const item = {
      source: { cloud_account_id: awsId, bucket_name: 'films', path: 'clip.mp4' },
      presets: [
        {
          category: 'Images',
          preset: 'Thumbnail',
          destination: { cloud_account_id: awsId, bucket_name: 'films', path: 'thumbs/' },
        },
      ],
    };
    const start = async (role: RoleTitle) => {
      const res = await allowed('encoding.start', role, 'POST', '/api/encoding/encode', [item]);
      return (res.body as { jobs: Array<{ id: string }> }).jobs[0]?.id ?? '';
    };
    const statusOf = async (id: string) =>
      (await server.db.pool.query('select status from encoding_jobs where id = $1', [id])).rows[0];
    const adminsJob = await start('Admin');
    const usersJob = await start('User');
    await refused('encoding.manage', 'User', 'POST', `/api/encoding/cancel/${adminsJob}`);
    expect(await statusOf(adminsJob)).toEqual({ status: 'New' });
    await allowed('encoding.manage', 'User', 'POST', `/api/encoding/cancel/${usersJob}`);
    await allowed('encoding.manage', 'Admin', 'POST', `/api/encoding/cancel/${adminsJob}`);
    expect(await statusOf(adminsJob)).toEqual({ status: 'Stopped' });
    await refused('encoding.manage', 'User', 'DELETE', `/api/encoding/jobs/${adminsJob}`);
    await allowed('encoding.manage', 'User', 'DELETE', `/api/encoding/jobs/${usersJob}`);
    expect(await statusOf(usersJob)).toBeUndefined();
  });

  it("a User shares and revokes only their own links; the chat webhook is an Owner's or Admin's", async () => {
    await seed('shared', ['report.csv']);
    const share = {
      files: [{ name: 'report.csv', bucket_name: 'shared', cloud_account_id: awsId }],
      recipients: ['friend@example.com'],
    };
    await allowed('share.create', 'Admin', 'POST', '/api/transfers/share_files_by_email', share);
    await allowed('share.create', 'User', 'POST', '/api/transfers/share_files_by_email', share);
    const { rows } = await server.db.pool.query<{ id: string; created_by: string }>(
      'select id, created_by from shares',
    );
    const adminsShare = rows.find((row) => row.created_by === admin.principal.userId)?.id;
    const usersShare = rows.find((row) => row.created_by === user.principal.userId)?.id;
    await refused('share.revoke', 'User', 'DELETE', `/api/shares/${adminsShare}`);
    expect(await count('shares', 'id = $1 and revoked_at is null', [adminsShare])).toBe(1);
    await allowed('share.revoke', 'User', 'DELETE', `/api/shares/${usersShare}`);
    await allowed('share.revoke', 'Admin', 'DELETE', `/api/shares/${adminsShare}`);

    const webhook = {
      url: 'https://hooks.slack.com/services/T000/B000/placeholder',
      channel_name: 'general',
    };
    await refused('chat.configure', 'User', 'PUT', '/api/organizations/_me/chat_webhook', webhook);
    await refused('chat.configure', 'User', 'DELETE', '/api/organizations/_me/chat_webhook');
    expect(await count('chat_webhooks')).toBe(0);
    await allowed('chat.configure', 'Admin', 'DELETE', '/api/organizations/_me/chat_webhook');
  });

  it('a User neither sets nor removes alerts; an Admin does both', async () => {
    const body = { cloud_account_id: awsId, size_limit: 1_000_000 };
    await refused('alert.manage', 'User', 'POST', '/api/notifications/', body);
    expect(await count('alerts')).toBe(0);
    const created = await allowed('alert.manage', 'Admin', 'POST', '/api/notifications/', body);
    const id = (created.body as { id: string }).id;
    await refused('alert.manage', 'User', 'DELETE', `/api/notifications/${id}`);
    expect(await count('alerts')).toBe(1);
    await allowed('alert.manage', 'Admin', 'DELETE', `/api/notifications/${id}`);
    expect(await count('alerts')).toBe(0);
  });

  it('a User neither sets nor deletes budget alerts nor changes the finance settings; an Admin does', async () => {
    // The Finance package granted in SQL: this replays who may act, not how a package is bought.
    await server.db.pool.query(
      `insert into subscriptions (organization_id, kind, product_handle, period, state, price_cents, gateway,
         current_period_start, current_period_end)
       values ($1, 'package', 'finance', 'monthly', 'active', 0, 'manual', now(), now() + interval '30 days')
       on conflict do nothing`,
      [owner.principal.organizationId],
    );
    const year = new Date().getUTCFullYear();
    const alert = {
      cloud: awsId,
      product: 'Total',
      actual_alert_percent: 80,
      forecast_alert_percent: null,
      start: `${year}-12-01`,
      end: `${year}-12-01`,
    };
    await refused('finance.manage', 'User', 'POST', '/api/finance/alerts', alert);
    expect(await count('finance_alerts')).toBe(0);
    const saved = await allowed('finance.manage', 'Admin', 'POST', '/api/finance/alerts', alert);
    const id = (saved.body as { alert: { id: string } }).alert.id;
    await refused('finance.manage', 'User', 'DELETE', `/api/finance/alerts/${id}`);
    expect(await count('finance_alerts')).toBe(1);
    await allowed('finance.manage', 'Admin', 'DELETE', `/api/finance/alerts/${id}`);
    expect(await count('finance_alerts')).toBe(0);
    const settings = { ...FINANCE_SETTINGS_DEFAULTS, alert_emails: ['budget@example.com'] };
    await refused('finance.manage', 'User', 'PUT', '/api/finance/settings', settings);
    expect(await count('finance_settings')).toBe(0);
    await allowed('finance.manage', 'Admin', 'PUT', '/api/finance/settings', settings);
    expect(await count('finance_settings')).toBe(1);
  });

  it('a User neither connects, changes nor removes accounts, nor creates buckets; an Admin does', async () => {
    await refused('account.connect', 'User', 'POST', '/api/cloudaccount/insert', connectAws('User AWS'));
    const connected = await allowed(
      'account.connect',
      'Admin',
      'POST',
      '/api/cloudaccount/insert',
      connectAws('Spare'),
    );
    const spare = (connected.body as { id: string }).id;
    const rename = { cloud_account: { project_name: 'Renamed' } };
    await refused('account.update', 'User', 'PUT', `/api/cloud_accounts/${spare}`, rename);
    await refused('account.remove', 'User', 'DELETE', `/api/cloudaccount/delete?id=${spare}`);
    expect(
      (await server.db.pool.query('select name from cloud_accounts where id = $1', [spare])).rows,
    ).toEqual([{ name: 'Spare' }]);
    await allowed('account.refresh', 'User', 'POST', `/api/cloud_accounts/${spare}/inventory`);
    await allowed('account.refresh', 'Admin', 'POST', `/api/cloud_accounts/${spare}/inventory`);
    await allowed('account.update', 'Admin', 'PUT', `/api/cloud_accounts/${spare}`, rename);
    const billing = { billing_bucket: 'cur-reports' };
    await allowed(
      'account.update',
      'Admin',
      'PUT',
      `/api/cloud_accounts/${spare}/update_billing_report_bucket`,
      billing,
    );
    await refused('analytics.refresh', 'User', 'POST', '/api/analytics/refresh', { cloudId: spare });
    await allowed('analytics.refresh', 'Admin', 'POST', '/api/analytics/refresh', { cloudId: spare });
    await allowed('account.remove', 'Admin', 'DELETE', `/api/cloudaccount/delete?id=${spare}`);
    expect(await count('cloud_accounts', 'id = $1', [spare])).toBe(0);

    const bucket = { bucket_name: 'made-by-someone', region: 'us-east-1' };
    await refused('bucket.create', 'User', 'POST', `/api/cloud_accounts/${awsId}/storages`, bucket);
    expect(await s3.headBucket('made-by-someone')).toBeNull();
    await allowed('bucket.create', 'Admin', 'POST', `/api/cloud_accounts/${awsId}/storages`, bucket);
    expect(await s3.headBucket('made-by-someone')).not.toBeNull();
  });

  it('only the Owner confirms charges; Owners and Admins invite members', async () => {
    for (const role of ['User', 'Admin'] as const) {
      await refused('organization.confirmCharges', role, 'PUT', '/api/organizations/_me', {
        confirmed_ftx: true,
      });
    }
    expect((await server.db.pool.query('select confirmed_ftx from organizations')).rows).toEqual([
      { confirmed_ftx: false },
    ]);
    await allowed('organization.confirmCharges', 'Owner', 'PUT', '/api/organizations/_me', {
      confirmed_ftx: true,
    });

    // The role rule alone, through the service: POST /users/invite also needs a card (members.int.spec.ts).
    const invite = (member: Member, email: string) =>
      server.services.identity.invite(member.principal, {
        email,
        firstName: 'New',
        lastName: 'Member',
        roleId: ROLE_ID.User,
      });
    const invitations = await count('invitations');
    const refusal = await invite(user, 'by-user@example.com').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ statusCode: 403 });
    replayed.add('member.invite User refused');
    expect(await count('invitations')).toBe(invitations);
    await expect(invite(admin, 'by-admin@example.com')).resolves.toEqual(expect.any(String));
    replayed.add('member.invite Admin allowed');
  });

  it('only the Owner adds a card (billing.change); the others get 403 and no card is kept', async () => {
    const card = {
      credit_card_attributes: {
        full_number: '4242424242424242',
        cvv: '123',
        expiration_month: 12,
        expiration_year: new Date().getUTCFullYear() + 1,
        first_name: 'Ada',
      },
    };
    for (const role of ['User', 'Admin'] as const) {
      await refused('billing.change', role, 'POST', '/api/billing/payment_profiles', card);
    }
    expect(await count('payment_profiles')).toBe(0);
    await allowed('billing.change', 'Owner', 'POST', '/api/billing/payment_profiles', card);
    expect(await count('payment_profiles')).toBe(1);
  });

  it("only Owners and Admins (de)activate a member or change their role; a User's try changes nothing", async () => {
    const target = await signedInMember(server, 'target', {
      principal: owner.principal,
      roleId: ROLE_ID.User,
    });
    const id = target.principal.userId;
    const state = async () =>
      (await server.db.pool.query('select role_id, active from users where id = $1', [id])).rows;
    const before = await state();
    await refused('member.activate', 'User', 'PUT', `/api/users/${id}/deactivate`);
    await refused('member.role', 'User', 'PUT', `/api/users/${id}`, { role_id: ROLE_ID.Admin });
    expect(await state()).toEqual(before);
    await allowed('member.activate', 'Admin', 'PUT', `/api/users/${id}/deactivate`);
    await allowed('member.activate', 'Admin', 'PUT', `/api/users/${id}/activate`);
    await allowed('member.role', 'Admin', 'PUT', `/api/users/${id}`, { role_id: ROLE_ID.Admin });
    expect(await state()).toEqual([{ role_id: ROLE_ID.Admin, active: true }]);
  });

  it("only Owners and Admins change role and member ACLs; a User's try changes nothing", async () => {
    const target = await signedInMember(server, 'limited', {
      principal: owner.principal,
      roleId: ROLE_ID.User,
    });
    const roleAcls = (await call('GET', '/api/role_access_levels/role_acls', admin)).body as RoleAcl[];
    const userRoleSharing = roleAcls.find((acl) => acl.role_id === ROLE_ID.User && acl.service === 'sharing');
    const memberAcls = (
      await call('GET', `/api/user_access_levels/user_acls/${target.principal.userId}`, admin)
    ).body as UserAcl[];
    const memberSharing = memberAcls.find((acl) => acl.service === 'sharing');
    if (!userRoleSharing || !memberSharing) throw new Error('no sharing ACLs');
    const roleUrl = `/api/role_access_levels/${userRoleSharing.id}`;
    const memberUrl = `/api/user_access_levels/${memberSharing.id}`;
    await refused('access.role', 'User', 'PUT', roleUrl, { role_access_level: { enabled: false } });
    await refused('access.user', 'User', 'PUT', memberUrl, { user_access_level: { enabled: false } });
    expect(await count('role_access_levels', 'enabled = false')).toBe(0);
    expect(await count('user_access_levels', 'enabled is not null')).toBe(0);
    await allowed('access.role', 'Admin', 'PUT', roleUrl, { role_access_level: { enabled: true } });
    await allowed('access.user', 'Admin', 'PUT', memberUrl, { user_access_level: { enabled: true } });
  });

  it('every member with the finance ACL sets budgets and adds products; one whose finance ACL is off is refused', async () => {
    // The Finance package as a customer buys it: the Owner's card (the billing.change replay may have added it).
    if ((await count('payment_profiles')) === 0) await putCardOnFile(server, owner.principal.organizationId);
    // The finance.manage replay may have granted the package already.
    const bought = await call('POST', '/api/billing/subscriptions/', owner, { product_handle: 'finance' });
    if (bought.status !== 201) expect(bought.raw).toContain('already holds this package');
    const budget = { cloud: awsId, label: 'Total', amount: 1200, flag: 'yearly' };
    await allowed('finance.budget', 'User', 'PUT', '/api/finance/budget', budget);
    await allowed('finance.budget', 'Admin', 'PUT', '/api/finance/budget', { ...budget, amount: 2400 });
    await allowed('finance.budget', 'User', 'POST', '/api/finance/products', { name: 'Backups' });
    const budgets = async () =>
      (await server.db.pool.query('select sum(amount_cents)::int as cents from finance_budgets')).rows;
    expect(await budgets()).toEqual([{ cents: 240_000 }]);

    const acls = (await call('GET', `/api/user_access_levels/user_acls/${user.principal.userId}`, admin))
      .body as UserAcl[];
    const finance = acls.find((acl) => acl.service === 'finance');
    if (!finance) throw new Error('no finance ACL');
    const aclUrl = `/api/user_access_levels/${finance.id}`;
    expect((await call('PUT', aclUrl, admin, { user_access_level: { enabled: false } })).status).toBe(200);
    for (const [method, url, body] of [
      ['PUT', '/api/finance/budget', budget],
      ['POST', '/api/finance/products', { name: 'Archive' }],
    ] as const) {
      const res = await call(method, url, user, body);
      expect(res.status, `${method} ${url}: ${res.raw}`).toBe(403);
      expect(res.body).toMatchObject({ code: 'SERVICE_OFF', message: accessMessages.serviceOff('finance') });
    }
    expect(await budgets()).toEqual([{ cents: 240_000 }]);
    expect(await count('finance_products')).toBe(1);
    expect((await call('PUT', aclUrl, admin, { user_access_level: { enabled: null } })).status).toBe(200);
  });

  it('every member runs a Hybrik profile; only an Owner or Admin sets its bucket, uploads or deletes profiles', async () => {
    // The Hybrik package as a customer buys it: the Owner's card (earlier replays may have added it).
    if ((await count('payment_profiles')) === 0) await putCardOnFile(server, owner.principal.organizationId);
    expect(
      (await call('POST', '/api/billing/subscriptions/', owner, { product_handle: 'hybrik' })).status,
    ).toBe(201);
    await seed('hybrik-out', ['in.mp4']);
    const settings = {
      hybrik_profiles_bucket: { cloud_account_id: awsId, bucket_name: 'hybrik-out', path: '' },
    };
    await refused('hybrik.manage', 'User', 'PUT', '/api/hybrik/settings', settings);
    expect(await count('hybrik_settings')).toBe(0);
    await allowed('hybrik.manage', 'Admin', 'PUT', '/api/hybrik/settings', settings);
    const upload = async (role: RoleTitle) => {
      const form = new FormData();
      const job = {
        name: 'Copy only',
        payload: {
          elements: [
            { uid: 's', kind: 'source', payload: { kind: 'asset_url', payload: { url: '{{source}}' } } },
            { uid: 'c', kind: 'copy', payload: { target: { path: '{{destination}}copies' } } },
          ],
          connections: [{ from: [{ element: 's' }], to: { success: [{ element: 'c' }] } }],
        },
      };
      form.set('json_file', new File([JSON.stringify(job)], 'copy.json', { type: 'application/json' }));
      const request = new Request('http://cumulo.test/', { method: 'POST', body: form });
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/hybrik/profiles',
        payload: Buffer.from(await request.arrayBuffer()),
        headers: {
          authorization: `Bearer ${asRole[role]().token}`,
          'content-type': request.headers.get('content-type') ?? '',
        },
      });
      return { status: res.statusCode, body: res.json<{ message: string; profile?: { id: string } }>() };
    };
    const byUser = await upload('User');
    expect(byUser.status).toBe(403);
    expect(byUser.body.message).toBe(
      ACTIONS['hybrik.manage'].refusal ?? 'You do not have permission to do this.',
    );
    replayed.add('hybrik.manage User refused');
    const byAdmin = await upload('Admin');
    expect(byAdmin.status).toBe(200);
    const profileId = byAdmin.body.profile?.id ?? '';
    const job = {
      profile_id: profileId,
      cloud_account_id: awsId,
      definitions: { source: 's3://hybrik-out/in.mp4' },
    };
    const usersJob = (await allowed('hybrik.run', 'User', 'POST', '/api/hybrik/jobs', job)).body as {
      job: { id: string };
    };
    const adminsJob = (await allowed('hybrik.run', 'Admin', 'POST', '/api/hybrik/jobs', job)).body as {
      job: { id: string };
    };
    expect(await count('hybrik_jobs')).toBe(2);
    await refused('hybrik.cancel', 'User', 'POST', `/api/hybrik/jobs/${adminsJob.job.id}/cancel`);
    expect(await count('hybrik_jobs', "status = 'queued'")).toBe(2);
    await allowed('hybrik.cancel', 'User', 'POST', `/api/hybrik/jobs/${usersJob.job.id}/cancel`);
    await allowed('hybrik.cancel', 'Admin', 'POST', `/api/hybrik/jobs/${adminsJob.job.id}/cancel`);
    expect(await count('hybrik_jobs', "status = 'failed'")).toBe(2);
    await refused('hybrik.manage', 'User', 'DELETE', `/api/hybrik/profiles/${profileId}`);
    expect(await count('hybrik_profiles')).toBe(1);
    await allowed('hybrik.manage', 'Admin', 'DELETE', `/api/hybrik/profiles/${profileId}`);
    expect(await count('hybrik_profiles')).toBe(0);
  });

  it('every member pairs a transfer agent and transfers through it; a User revokes only their own', async () => {
    const pair = async (member: Member, role: RoleTitle) => {
      const code = await allowed('agent.pair', role, 'POST', '/api/agent/pairing-codes');
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/agent/devices',
        payload: { code: (code.body as { code: string }).code, name: role, platform: 'linux', version: '1' },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ device_id: string; token: string }>();
    };
    const usersDevice = await pair(user, 'User');
    const adminsDevice = await pair(admin, 'Admin');
    // agent.transfer is a device's call: the Agent token, not the session, so the helpers' bearer is not used.
    await server.db.pool.query('update organizations set confirmed_ftx = true');
    for (const [role, device] of [
      ['User', usersDevice],
      ['Admin', adminsDevice],
    ] as const) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/agent/history',
        headers: { authorization: `Agent ${device.token}` },
        payload: {
          transfer_id: crypto.randomUUID(),
          direction: 'upload',
          cloud_account_id: awsId,
          bucket_name: 'owner-data',
          files: ['a.txt'],
          files_count: 1,
          size: 10,
          is_directory: false,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      replayed.add(`agent.transfer ${role} allowed`);
    }
    const live = () => count('agent_devices', 'revoked_at is null');
    await refused('agent.revoke', 'User', 'DELETE', `/api/agent/devices/${adminsDevice.device_id}`);
    expect(await live()).toBe(2);
    await allowed('agent.revoke', 'User', 'DELETE', `/api/agent/devices/${usersDevice.device_id}`);
    await allowed('agent.revoke', 'Admin', 'DELETE', `/api/agent/devices/${adminsDevice.device_id}`);
    expect(await live()).toBe(0);
  });

  it('replayed every action of the table as a User and as an Admin', () => {
    const missing: string[] = [];
    for (const [action, rule] of Object.entries(ACTIONS)) {
      for (const role of ['User', 'Admin'] as const) {
        const outcome = rule.roles.includes(role) ? 'allowed' : 'refused';
        if (!replayed.has(`${action} ${role} ${outcome}`)) missing.push(`${action} ${role} ${outcome}`);
      }
      if (rule.creatorMay && !replayed.has(`${action} User allowed`)) missing.push(`${action} User own`);
      if (!rule.roles.some((role) => replayed.has(`${action} ${role} allowed`)))
        missing.push(`${action} allowed`);
    }
    expect(missing).toEqual([]);
  });
});
