import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type AuditChange, type TransferStarted } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  linkToken,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

type Member = Awaited<ReturnType<typeof signedInMember>>;

interface AuditRow {
  entity: string;
  type: string;
  resource: string;
  resource_id: string | null;
  author_user_id: string | null;
  author_name: string;
  changes: AuditChange[];
}

// s3rver checks only the access key id, so the account can be connected with a secret key that nothing else
// holds: finding it anywhere in the trail would be a leak.
const SECRET_KEY = 'audit-trail-secret-Zq81xW';
const SHARE_PASSWORD = 'audit trail share pw 77';
const WEBHOOK_SECRET = 'hooksecret0042';
const WEBHOOK_URL = `http://127.0.0.1:9/services/T0/B0/${WEBHOOK_SECRET}`;
const WASABI_PASSWORD = 'wasabi-account-pw-5531';
const SRC = 'audit-src';
const DST = 'audit-dst';

let server: TestServer;
let s3rver: TestStoreServer;
let store: S3ObjectStore;
let owner: Member;
let accountId: string;
let wasabiPartner: http.Server;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
  callApi(server, method, url, owner.token, body);

/** The organisation's entries of one entity, oldest first, read straight from the table. */
async function entries(entity: string): Promise<AuditRow[]> {
  const { rows } = await server.db.pool.query<AuditRow>(
    `select entity, type, resource, resource_id, author_user_id, author_name, changes
       from audits where organization_id = $1 and entity = $2 order by id`,
    [owner.principal.organizationId, entity],
  );
  return rows;
}

async function latest(entity: string): Promise<AuditRow> {
  const row = (await entries(entity)).at(-1);
  if (!row) throw new Error(`no ${entity} entry`);
  return row;
}

const change = (row: AuditRow, property: string) => row.changes.find((c) => c.property === property);

/** Who the entries say acted: the signed-in Owner, by id and by name. */
const byOwner = () => ({ author_user_id: owner.principal.userId, author_name: 'Ada Test' });

beforeAll(async () => {
  s3rver = await startS3rver();
  // Wasabi's partner API has no local server: this stand-in answers as it does, with keys s3rver knows.
  wasabiPartner = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ AccessKey: S3RVER_KEY, SecretKey: SECRET_KEY }));
  });
  await new Promise<void>((resolve) => wasabiPartner.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rver.endpoint }),
    WASABI_PARTNER_URL: `http://127.0.0.1:${(wasabiPartner.address() as AddressInfo).port}/`,
    WASABI_PARTNER_API_KEY: 'partner-key-0001',
  });
  owner = await signedInMember(server, 'Ada');
  // Transfers and sync jobs need the organisation's confirmation of charges (PUT /organizations/_me, another
  // module's call); the flag is set as that call sets it.
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  store = s3rverStore(s3rver.endpoint);
  await store.createBucket(SRC);
  await store.createBucket(DST);
  await store.write(SRC, 'docs/report.csv', Buffer.from('a,b\n1,2\n'));
  await store.write(SRC, 'old/one.txt', Buffer.from('one'));
  await store.write(SRC, 'old/two.txt', Buffer.from('two'));
});

afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
  await new Promise((resolve) => wasabiPartner?.close(resolve));
});

describe('the audit trail of storage changes, against PostgreSQL and s3rver', () => {
  it('records a connected account with its access key masked and no secret key, then its rename', async () => {
    const res = await call('POST', '/api/cloudaccount/insert', {
      cloudType: 1,
      name: 'Audit AWS',
      accessKey: S3RVER_KEY,
      secretKey: SECRET_KEY,
    });
    expect(res.status, res.raw).toBe(201);
    accountId = (res.body as { id: string }).id;
    const added = await latest('Cloud account');
    expect(added).toMatchObject({
      type: 'Added',
      resource: 'Audit AWS',
      resource_id: accountId,
      ...byOwner(),
    });
    expect(change(added, 'provider')).toEqual({ property: 'provider', value: 'aws', initial: null });
    expect(change(added, 'accessKey')?.value).toBe('••••RVER');
    expect(change(added, 'secretKey')?.value).toBe('••••');

    const renamed = await call('PUT', `/api/cloud_accounts/${accountId}`, {
      cloud_account: { project_name: 'Audit AWS main', billing_bucket: null },
    });
    expect(renamed.status, renamed.raw).toBe(200);
    const modified = await latest('Cloud account');
    expect(modified).toMatchObject({ type: 'Modified', resource: 'Audit AWS main', ...byOwner() });
    expect(modified.changes).toEqual([{ property: 'name', value: 'Audit AWS main', initial: 'Audit AWS' }]);
  });

  it('records a Wasabi sub-account created through the partner API, without its password or keys', async () => {
    const res = await call('POST', '/api/wasabi_sub_accounts', {
      acct_name: 'media@example.com',
      password: WASABI_PASSWORD,
      project_name: 'Audit Wasabi',
    });
    expect(res.status, res.raw).toBe(201);
    const added = await latest('Cloud account');
    expect(added).toMatchObject({ type: 'Added', resource: 'Audit Wasabi', ...byOwner() });
    expect(change(added, 'provider')?.value).toBe('wasabi');
    expect(change(added, 'wasabiSubAccount')?.value).toBe('media@example.com');
  });

  it('records a bucket created and its upload settings changed', async () => {
    const created = await call('POST', `/api/cloud_accounts/${accountId}/storages`, {
      bucket_name: 'audit-made',
      region: 'us-east-1',
      account_type: 'aws',
    });
    expect(created.status, created.raw).toBe(201);
    const added = await latest('Bucket');
    expect(added).toMatchObject({ type: 'Added', resource: 'audit-made', ...byOwner() });
    expect(change(added, 'account')?.value).toBe('Audit AWS main');
    expect(change(added, 'region')?.value).toBe('us-east-1');

    const configured = await call('PUT', '/api/transfers/update_bucket_config/', {
      cloud_account_id: accountId,
      bucket_name: 'audit-made',
      cors: true,
    });
    expect(configured.status, configured.raw).toBe(200);
    const modified = await latest('Bucket');
    expect(modified).toMatchObject({ type: 'Modified', resource: 'audit-made', ...byOwner() });
    expect(modified.changes).toEqual([
      { property: 'uploadCorsRule', value: 'http://cumulo.test', initial: null },
    ]);
  });

  it('records a folder created, and one entry for a delete of several objects', async () => {
    const folder = await call('PUT', '/api/transfers/create_folder', {
      cloud_account_id: accountId,
      bucket_name: DST,
      path: 'incoming/',
    });
    expect(folder.status, folder.raw).toBe(200);
    expect(await latest('Object')).toMatchObject({
      type: 'Added',
      resource: `${DST}/incoming/`,
      ...byOwner(),
    });

    const removed = await call('DELETE', '/api/transfers/delete_object', {
      cloud_account_id: accountId,
      bucket_name: SRC,
      paths: ['old/'],
    });
    expect(removed.status, removed.raw).toBe(200);
    const objects = await entries('Object');
    expect(objects).toHaveLength(2);
    const deleted = await latest('Object');
    expect(deleted).toMatchObject({ type: 'Deleted', resource: `${SRC}/old/`, ...byOwner() });
    expect(change(deleted, 'objects')).toEqual({ property: 'objects', value: null, initial: '2' });
  });

  it('records an alert created and deleted', async () => {
    // The inventory knows the bucket created through Cumulo above (this server runs no inventory jobs).
    const created = await call('POST', '/api/notifications/', {
      cloud_account_id: accountId,
      bucket_name: 'audit-made',
      size_limit: 5_000_000,
      cost_limit: null,
    });
    expect(created.status, created.raw).toBe(201);
    const alertId = (created.body as { id: string }).id;
    const added = await latest('Alert');
    expect(added).toMatchObject({
      type: 'Added',
      resource: 'Size alert on audit-made',
      resource_id: alertId,
      ...byOwner(),
    });
    expect(change(added, 'sizeLimit')?.value).toBe('5000000');

    expect((await call('DELETE', `/api/notifications/${alertId}`)).status).toBe(200);
    const deleted = await latest('Alert');
    expect(deleted).toMatchObject({ type: 'Deleted', resource_id: alertId, ...byOwner() });
    expect(change(deleted, 'sizeLimit')).toEqual({ property: 'sizeLimit', value: null, initial: '5000000' });
  });

  it('records a share (never its link or password) and its revocation, and the chat webhook masked', async () => {
    const shared = await call('POST', '/api/transfers/share_files_by_email', {
      files: [
        { name: 'docs/report.csv', size: 1, acl: 'private', bucket_name: SRC, cloud_account_id: accountId },
      ],
      recipients: ['carol@example.com', 'dan@example.com'],
      password: SHARE_PASSWORD,
      expiration: 86_400,
    });
    expect(shared.status, shared.raw).toBe(200);
    const mail = await server.mail.waitFor('carol@example.com', 'shared');
    const token = linkToken(mail, /http:\/\/cumulo\.test\/sharing\/([\w-]{43})/);
    const added = await latest('Share');
    expect(added).toMatchObject({ type: 'Added', resource: `${SRC}/docs/report.csv`, ...byOwner() });
    expect(change(added, 'recipients')?.value).toBe('2');
    expect(change(added, 'passwordProtected')?.value).toBe('Yes');
    expect(change(added, 'expiresAt')?.value).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(JSON.stringify(await entries('Share'))).not.toContain(token);

    const shareId = added.resource_id ?? '';
    expect((await call('DELETE', `/api/shares/${shareId}`)).status).toBe(200);
    expect(await latest('Share')).toMatchObject({ type: 'Deleted', resource_id: shareId, ...byOwner() });

    const saved = await call('PUT', '/api/organizations/_me/chat_webhook', {
      url: WEBHOOK_URL,
      channel_name: '#media',
    });
    expect(saved.status, saved.raw).toBe(200);
    const hook = await latest('Chat webhook');
    expect(hook).toMatchObject({ type: 'Added', resource: '#media', ...byOwner() });
    expect(change(hook, 'url')).toEqual({ property: 'url', value: '••••', initial: null });
    expect((await call('DELETE', '/api/organizations/_me/chat_webhook')).status).toBe(200);
    expect(await latest('Chat webhook')).toMatchObject({ type: 'Deleted', resource: '#media' });
  });

  it('records a transfer started, cancelled, and retried naming the one it retries', async () => {
    const res = await call('POST', '/api/transfer/transfer', {
      sourceCloudAccountId: accountId,
      sourceBucket: SRC,
      sourcePath: 'docs/',
      destinationCloudAccountId: accountId,
      destinationBucket: DST,
      files: ['docs/report.csv'],
    });
    expect(res.status, res.raw).toBe(200);
    const batchId = (res.body as TransferStarted).batch.id;
    const added = await latest('Transfer');
    expect(added).toMatchObject({ type: 'Added', resource_id: batchId, ...byOwner() });
    expect(change(added, 'source')?.value).toBe(`Audit AWS main: ${SRC}/docs/`);
    expect(change(added, 'destination')?.value).toBe(`Audit AWS main: ${DST}/`);
    expect(change(added, 'operation')?.value).toBe('copy');
    expect(change(added, 'files')?.value).toBe('1');

    // This server runs no transfer workers, so the batch is still Ongoing when it is cancelled.
    const canceled = await call('POST', '/api/transfer/cancel_transfer', { Id: batchId });
    expect(canceled.status, canceled.raw).toBe(200);
    expect(await latest('Transfer')).toMatchObject({
      type: 'Modified',
      resource_id: batchId,
      changes: [{ property: 'status', value: 'Canceling', initial: 'Ongoing' }],
    });

    // A retry needs a failed file; with no workers none fails, so the failure is written as the engine writes it.
    await server.db.pool.query(
      `insert into transfer_items (batch_id, source_key, destination_key, size, status)
         values ($1, 'docs/report.csv', 'report.csv', 8, 'failed')`,
      [batchId],
    );
    await server.db.pool.query(`update transfer_batches set failed_number = 1, status = $2 where id = $1`, [
      batchId,
      BATCH_STATUS.failed,
    ]);
    const retried = await call('POST', '/api/transfer/retry_transfer', { Id: batchId });
    expect(retried.status, retried.raw).toBe(200);
    const retry = await latest('Transfer');
    expect(retry).toMatchObject({ type: 'Added', resource_id: (retried.body as TransferStarted).batch.id });
    expect(change(retry, 'retryOf')?.value).toBe(batchId);
  });

  it('records a sync job created, its options, deactivated, run now, deletes rejected, and deleted', async () => {
    const created = await call('POST', '/api/sync/AddSyncInfoWasabi', {
      sourceCloudAccountId: accountId,
      sourceBucket: SRC,
      destinationCloudAccountId: accountId,
      destinationBucket: DST,
      allowDelete: true,
      frequency: 2,
    });
    expect(created.status, created.raw).toBe(200);
    const jobId = (created.body as { job: { info: { id: string } } }).job.info.id;
    const added = await latest('Sync job');
    expect(added).toMatchObject({
      type: 'Added',
      resource_id: jobId,
      resource: `${SRC}/ → ${DST}/`,
      ...byOwner(),
    });
    expect(change(added, 'schedule')?.value).toBe('Every Week');
    expect(change(added, 'allowDelete')?.value).toBe('true');
    expect(change(added, 'deleteThresholdCount')?.value).toBe('100');

    const options = await call('PUT', '/api/sync/options', {
      id: jobId,
      quarantineDays: 7,
      deleteThresholdCount: 10,
      deleteThresholdPercent: 5,
    });
    expect(options.status, options.raw).toBe(200);
    expect((await latest('Sync job')).changes).toEqual([
      { property: 'quarantineDays', value: '7', initial: null },
      { property: 'deleteThresholdCount', value: '10', initial: '100' },
      { property: 'deleteThresholdPercent', value: '5', initial: '10' },
    ]);

    expect((await call('POST', '/api/sync/activate', { id: jobId, active: false })).status).toBe(200);
    expect((await latest('Sync job')).changes).toEqual([
      { property: 'active', value: 'false', initial: 'true' },
    ]);
    expect((await call('POST', '/api/sync/activate', { id: jobId, active: true })).status).toBe(200);

    const run = await call('POST', `/api/sync/TriggerWasabiSync?syncInfoId=${jobId}`);
    expect(run.status, run.raw).toBe(200);
    const cycleId = (run.body as { cycle: { id: string } }).cycle.id;
    expect(change(await latest('Sync job'), 'run')?.value).toBe(`Run now (cycle ${cycleId})`);

    // The diff that asks for an approval is the engine's (no worker here): the cycle is put where it waits.
    await server.db.pool.query(
      `update sync_cycles set phase = 'awaiting_approval', delete_count = 3 where id = $1`,
      [cycleId],
    );
    const decided = await call('POST', '/api/sync/decide', { cycleId, approve: false });
    expect(decided.status, decided.raw).toBe(200);
    expect((await latest('Sync job')).changes).toEqual([
      { property: 'deletes', value: `Rejected (3 of cycle ${cycleId})`, initial: 'Awaiting approval' },
    ]);

    expect((await call('DELETE', `/api/sync/delete?id=${jobId}`)).status).toBe(200);
    expect(await latest('Sync job')).toMatchObject({ type: 'Deleted', resource_id: jobId, ...byOwner() });
    expect((await entries('Sync job')).map((row) => row.type)).toEqual([
      'Added',
      'Modified',
      'Modified',
      'Modified',
      'Modified',
      'Modified',
      'Deleted',
    ]);
  });

  it('keeps no entry of a change that fails, and no change whose entry fails', async () => {
    const before = (await entries('Cloud account')).length;
    const refused = await call('POST', '/api/cloudaccount/insert', {
      cloudType: 1,
      name: 'Wrong keys',
      accessKey: 'NOT-A-KEY-S3RVER-KNOWS',
      secretKey: SECRET_KEY,
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await entries('Cloud account')).toHaveLength(before);

    // Both land or neither: an entry the database refuses takes the rename down with it.
    await server.db.pool.query(`
      create function refuse_audit() returns trigger language plpgsql as $$
      begin raise exception 'audit refused'; end $$;
      create trigger refuse_audit before insert on audits for each row
        when (new.resource = 'Refused name') execute function refuse_audit();`);
    const renamed = await call('PUT', `/api/cloud_accounts/${accountId}`, {
      cloud_account: { project_name: 'Refused name', billing_bucket: null },
    });
    await server.db.pool.query('drop trigger refuse_audit on audits; drop function refuse_audit()');
    expect(renamed.status).toBe(500);
    const { rows } = await server.db.pool.query<{ name: string }>(
      'select name from cloud_accounts where id = $1',
      [accountId],
    );
    expect(rows[0]?.name).toBe('Audit AWS main');
    expect(await entries('Cloud account')).toHaveLength(before);
  });

  it('holds no secret anywhere in the table: secret keys, passwords, webhook URL', async () => {
    const { rows } = await server.db.pool.query<{ text: string }>(
      `select coalesce(string_agg(a::text, ' '), '') as text from audits a`,
    );
    const text = rows[0]?.text ?? '';
    expect(text).toContain('Audit AWS main');
    for (const secret of [SECRET_KEY, SHARE_PASSWORD, WEBHOOK_SECRET, '127.0.0.1:9', WASABI_PASSWORD]) {
      expect(text).not.toContain(secret);
    }
  });
});
