import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertMessages, alertSizeBytes, type AlertView, type NotificationItem } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let accountId: string;
let store: S3ObjectStore;
const BUCKET = 'watched-bucket';
const MiB = 1024 * 1024;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

/** What the worker does after data changes: a fresh inventory, then the alert check. */
async function inventoryAndCheck() {
  await server.services.inventory.run(owner.principal.organizationId, accountId);
  return server.services.alerts.check(owner.principal.organizationId);
}
const bell = async () => (await call('GET', '/api/notifications', owner.token)).body as NotificationItem[];
const alertMails = () => server.mail.received.filter((m) => m.subject.startsWith('Cumulo alert'));

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer();
  owner = await signedInMember(server, 'owner');
  store = s3rverStore(s3rver.endpoint, { provider: 'genericS3' });
  await store.createBucket(BUCKET);
  await store.write(BUCKET, 'small.bin', Buffer.alloc(1024, 1));
  const account = await call('POST', '/api/cloudaccount/insert', owner.token, {
    cloudType: 8,
    name: 'Lab',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    serviceUrl: s3rver.endpoint,
  });
  accountId = (account.body as { id: string }).id;
  await server.services.inventory.run(owner.principal.organizationId, accountId);
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('alerts against s3rver inventories, embedded PostgreSQL and an SMTP sink', () => {
  let sizeAlert: AlertView;

  it('sets a SIZE alert on a bucket: the limit in bytes by the spec formula, nothing fired under it', async () => {
    const res = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: accountId,
      bucket_name: BUCKET,
      size_limit: alertSizeBytes(2, 'MB'),
      cost_limit: null,
    });
    expect(res.status).toBe(201);
    sizeAlert = res.body as AlertView;
    expect(sizeAlert).toMatchObject({
      type: 'SIZE',
      kind: 'SIZE',
      size_limit: 2 * MiB,
      cost_limit: null,
      bucket_name: BUCKET,
      last_notified: null,
    });
    const listed = await call('GET', `/api/cloud_accounts/${accountId}/notifications`, owner.token);
    expect(listed.body).toEqual([sizeAlert]);
    const byStorage = await call(
      'GET',
      `/api/storages/${encodeURIComponent(`${accountId}/${BUCKET}`)}/notifications`,
      owner.token,
    );
    expect(byStorage.body).toEqual([sizeAlert]);
    expect(await bell()).toEqual([]);
  });

  it('fires once when the data passes the limit: one bell notification, one e-mail, last_notified set', async () => {
    await store.write(BUCKET, 'big.bin', Buffer.alloc(3 * MiB, 2));
    expect(await inventoryAndCheck()).toEqual({ checked: 1, fired: 1 });
    const mail = await server.mail.waitFor(owner.email, 'Cumulo alert');
    expect(mail.subject).toContain(BUCKET);
    const items = await bell();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ read: false, status: 'alerts', title: `Size alert: ${BUCKET} (Lab)` });
    expect(items[0]?.description).toContain('above the 2 MB limit');

    // Later checks over the limit say nothing new.
    expect(await inventoryAndCheck()).toEqual({ checked: 1, fired: 0 });
    expect(await server.services.alerts.check(owner.principal.organizationId)).toEqual({
      checked: 1,
      fired: 0,
    });
    expect(await bell()).toHaveLength(1);
    expect(alertMails()).toHaveLength(1);
    const [alert] = (await call('GET', `/api/cloud_accounts/${accountId}/notifications`, owner.token))
      .body as AlertView[];
    expect(alert?.last_notified).not.toBeNull();
  });

  it('re-arms when the data falls back under the limit, and fires again on the next crossing', async () => {
    await store.deleteMany(BUCKET, ['big.bin']);
    expect(await inventoryAndCheck()).toEqual({ checked: 1, fired: 0 });
    await store.write(BUCKET, 'big-again.bin', Buffer.alloc(3 * MiB, 3));
    expect(await inventoryAndCheck()).toEqual({ checked: 1, fired: 1 });
    expect(await bell()).toHaveLength(2);
    expect(alertMails()).toHaveLength(2);
  });

  it('two checks racing on one crossing notify once', async () => {
    await store.deleteMany(BUCKET, ['big-again.bin']);
    await inventoryAndCheck();
    await store.write(BUCKET, 'race.bin', Buffer.alloc(3 * MiB, 4));
    await server.services.inventory.run(owner.principal.organizationId, accountId);
    const results = await Promise.all([
      server.services.alerts.check(owner.principal.organizationId),
      server.services.alerts.check(owner.principal.organizationId),
    ]);
    expect(results.reduce((sum, r) => sum + r.fired, 0)).toBe(1);
    expect(await bell()).toHaveLength(3);
  });

  it('a COST alert on the whole account compares the price-table estimate', async () => {
    const res = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: accountId,
      bucket_name: null,
      size_limit: null,
      cost_limit: 0.00001,
    });
    expect(res.status).toBe(201);
    // The limit is already passed: creating it checks at once.
    expect(res.body).toMatchObject({ type: 'COST', cost_limit: 0.00001, bucket_name: null });
    expect((res.body as AlertView).last_notified).not.toBeNull();
    const [latest] = await bell();
    expect(latest?.title).toBe('Cost alert: Lab');
  });

  it('marks notifications read with repeated ids', async () => {
    const items = await bell();
    const ids = items.slice(0, 2).map((n) => n.id);
    const res = await call('PUT', `/api/notifications/read?ids=${ids[0]}&ids=${ids[1]}`, owner.token);
    expect(res).toMatchObject({ status: 200, body: { message: '2 notifications marked as read' } });
    const after = await bell();
    expect(
      after
        .filter((n) => n.read)
        .map((n) => n.id)
        .sort(),
    ).toEqual([...ids].sort());
    const all = (await call('GET', '/api/notifications/all', owner.token)).body as NotificationItem[];
    expect(all).toHaveLength(after.length);

    // Read state is each member's own: a colleague still sees them unread.
    const colleague = await signedInMember(server, 'colleague', { principal: owner.principal, roleId: 2 });
    const theirs = (await call('GET', '/api/notifications', colleague.token)).body as NotificationItem[];
    expect(theirs.map((n) => n.id)).toEqual(after.map((n) => n.id));
    expect(theirs.filter((n) => n.read)).toEqual([]);
  });

  it('counts and marks read every unread notification, also those past the bell’s latest 50', async () => {
    // An organisation of its own, so the other tests' bell stays as they left it.
    const reader = await signedInMember(server, 'bell-owner');
    const organizationId = reader.principal.organizationId;
    for (let i = 0; i < 55; i++) {
      await server.services.alerts.bell({
        organizationId,
        title: `Notice ${i}`,
        description: '',
        status: 'normal',
      });
    }
    // One only the Owner sees (a member's billing request), not counted for a colleague.
    await server.services.alerts.bell({
      organizationId,
      title: 'For owners',
      description: '',
      status: 'normal',
      audience: 'owners',
    });
    const unread = async (token: string) =>
      ((await call('GET', '/api/notifications/unread_count', token)).body as { count: number }).count;
    const all = (await call('GET', '/api/notifications/all', reader.token)).body as NotificationItem[];
    expect((await call('GET', '/api/notifications', reader.token)).body).toHaveLength(50);
    expect(await unread(reader.token)).toBe(all.filter((n) => !n.read).length);
    expect(await unread(reader.token)).toBe(56);

    const colleague = await signedInMember(server, 'reader', { principal: reader.principal, roleId: 3 });
    const theirs = await unread(colleague.token);
    const res = await call('PUT', '/api/notifications/read_all', reader.token);
    expect(res.status).toBe(200);
    expect(await unread(reader.token)).toBe(0);
    const after = (await call('GET', '/api/notifications/all', reader.token)).body as NotificationItem[];
    expect(after.every((n) => n.read)).toBe(true);
    // Read state is each member's own.
    expect(await unread(colleague.token)).toBe(theirs);
  });

  it('refuses an alert without exactly one limit, or on a bucket the account does not have', async () => {
    const neither = await call('POST', '/api/notifications/', owner.token, { cloud_account_id: accountId });
    expect(neither.status).toBe(400);
    const both = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: accountId,
      size_limit: 10,
      cost_limit: 1,
    });
    expect(both.status).toBe(400);
    // Finer than the 5 decimals a cost limit is stored with: refused, not saved as $0.00000.
    const fine = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: accountId,
      cost_limit: 0.000001,
    });
    expect(fine).toMatchObject({ status: 400, body: { message: alertMessages.costPrecision } });
    const unknown = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: accountId,
      bucket_name: 'no-such-bucket',
      size_limit: 10,
    });
    expect(unknown).toMatchObject({
      status: 400,
      body: { message: 'no-such-bucket is not a bucket of Lab.' },
    });
  });

  it('lets a User see alerts but not set or delete them; another organisation sees nothing', async () => {
    const member = await signedInMember(server, 'member', { principal: owner.principal, roleId: 3 });
    expect((await call('GET', `/api/cloud_accounts/${accountId}/notifications`, member.token)).status).toBe(
      200,
    );
    expect(
      (
        await call('POST', '/api/notifications/', member.token, {
          cloud_account_id: accountId,
          size_limit: 5,
        })
      ).status,
    ).toBe(403);
    expect((await call('DELETE', `/api/notifications/${sizeAlert.id}`, member.token)).status).toBe(403);

    const stranger = await signedInMember(server, 'stranger');
    expect((await call('GET', '/api/notifications', stranger.token)).body).toEqual([]);
    expect((await call('DELETE', `/api/notifications/${sizeAlert.id}`, stranger.token)).status).toBe(404);
    const ids = (await bell()).map((n) => n.id);
    await call('PUT', `/api/notifications/read?ids=${ids[ids.length - 1]}`, stranger.token);
    expect((await bell()).at(-1)?.read).toBe(false);
  });

  it('deletes an alert with the spec message', async () => {
    const res = await call('DELETE', `/api/notifications/${sizeAlert.id}`, owner.token);
    expect(res).toMatchObject({ status: 200, body: { message: alertMessages.deleted } });
    const left = (await call('GET', `/api/cloud_accounts/${accountId}/notifications`, owner.token))
      .body as AlertView[];
    expect(left.map((a) => a.id)).not.toContain(sizeAlert.id);
  });
});
