import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCESS_SERVICE_NAMES,
  BATCH_STATUS,
  ROLE_ID,
  accessMessages,
  messages,
  transferStarted,
  type CreatedApiKey,
  type RoleAcl,
  type RolePermission,
  type TransferBatch,
  type TransferList,
  type UserAcl,
  type UserPermission,
  type UserProfile,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { keysOf, startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * The roles and access-level calls of spec 002 §7 with the rules of §6, and their enforcement on the transfers,
 * uploads and sharing calls, through the real API on embedded PostgreSQL, with s3rver (aws) as the only cloud and
 * the worker role in process (it plans and copies the transfers).
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let server: TestServer;
let s3rver: S3rverServer;
let s3: S3ObjectStore;
let owner: Member;
let admin: Member;
let user: Member;
let stranger: Member;
let awsId: string;

const KiB = 1024;
const call = (method: Method, url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);
const messageOf = (res: { body: unknown }) => (res.body as { message: string }).message;
const newMember = (name: string, roleId: number) =>
  signedInMember(server, name, { principal: owner.principal, roleId });

async function roleAclsOf(member: Member): Promise<RoleAcl[]> {
  const res = await call('GET', '/api/role_access_levels/role_acls', member);
  expect(res.status, res.raw).toBe(200);
  return res.body as RoleAcl[];
}

async function roleAcl(roleId: number, service: string): Promise<RoleAcl> {
  const found = (await roleAclsOf(owner)).find((acl) => acl.role_id === roleId && acl.service === service);
  if (!found) throw new Error(`no ACL of role ${roleId} for ${service}`);
  return found;
}

async function userAcls(of: Member, as: Member = owner): Promise<UserAcl[]> {
  const res = await call('GET', `/api/user_access_levels/user_acls/${of.principal.userId}`, as);
  expect(res.status, res.raw).toBe(200);
  return res.body as UserAcl[];
}

async function userAcl(of: Member, service: string): Promise<UserAcl> {
  const found = (await userAcls(of)).find((acl) => acl.service === service);
  if (!found) throw new Error(`no ACL for ${service}`);
  return found;
}

async function userPermission(
  of: Member,
  service: string,
): Promise<{ acl: UserAcl; permission: UserPermission }> {
  const acl = await userAcl(of, service);
  const res = await call('GET', `/api/user_access_levels/${acl.id}/user_permissions/`, owner);
  expect(res.status, res.raw).toBe(200);
  const [permission] = res.body as UserPermission[];
  if (!permission) throw new Error(`no permission for ${service}`);
  return { acl, permission };
}

/** As the Owner sets it on /users/{id}. */
async function setUserService(of: Member, service: string, enabled: boolean | null) {
  const acl = await userAcl(of, service);
  const res = await call('PUT', `/api/user_access_levels/${acl.id}`, owner, {
    user_access_level: { enabled },
  });
  expect(res.status, res.raw).toBe(200);
}

async function setUserLimit(of: Member, service: string, value: number | null) {
  const { acl, permission } = await userPermission(of, service);
  const res = await call(
    'PUT',
    `/api/user_access_levels/${acl.id}/user_permissions/${permission.id}`,
    owner,
    {
      user_permission: { value },
    },
  );
  expect(res.status, res.raw).toBe(200);
}

async function audits(entity: string) {
  const { rows } = await server.db.pool.query<{ resource: string; changes: unknown; author_user_id: string }>(
    `select resource, changes, author_user_id from audits where organization_id = $1 and entity = $2
      order by id desc`,
    [owner.principal.organizationId, entity],
  );
  return rows;
}

async function fill(bucket: string, keys: string[], size: number) {
  await s3.createBucket(bucket);
  for (const key of keys) await s3.write(bucket, key, randomBytes(size), { size });
}

async function ended(member: Member, id: string): Promise<TransferBatch> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = (await call('GET', '/api/transfer/get_all?type=1&pagesize=200', member))
      .body as TransferList;
    const batch = list.items.find((b) => b.id === id);
    const done: number[] = [BATCH_STATUS.completed, BATCH_STATUS.failed, BATCH_STATUS.canceled];
    if (batch && done.includes(batch.transferStatus)) return batch;
    if (Date.now() > deadline) throw new Error(`batch never ended: ${JSON.stringify(batch)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer(
    { PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) },
    undefined,
    { jobs: true },
  );
  owner = await signedInMember(server, 'owner');
  admin = await newMember('admin', ROLE_ID.Admin);
  user = await newMember('user', ROLE_ID.User);
  stranger = await signedInMember(server, 'stranger');
  // The c2c charge confirmation is PUT /organizations/_me (another module's call); set as that call does.
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  awsId = await connectS3rverAccount(server, owner.token, 'Lab AWS');
  s3 = s3rverStore(s3rver.endpoint);
}, 60_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('roles and per-service permissions (real API, embedded PostgreSQL, s3rver, worker in process)', () => {
  it('answers the three roles to every member, and role ACLs (every service on, unlimited) to Owners and Admins', async () => {
    for (const member of [owner, admin, user]) {
      const res = await call('GET', '/api/roles', member);
      expect(res.body).toEqual([
        { id: 1, title: 'Owner' },
        { id: 2, title: 'Admin' },
        { id: 3, title: 'User' },
      ]);
    }
    const acls = await roleAclsOf(admin);
    expect(acls).toHaveLength(3 * ACCESS_SERVICE_NAMES.length);
    expect(acls.every((acl) => acl.enabled)).toBe(true);
    expect(acls.filter((acl) => acl.has_permissions).map((acl) => `${acl.role_id} ${acl.service}`)).toEqual([
      '1 transfers',
      '1 uploads',
      '2 transfers',
      '2 uploads',
      '3 transfers',
      '3 uploads',
    ]);
    // Reading again creates nothing more: the ids stay those the PUT calls use.
    expect((await roleAclsOf(owner)).map((acl) => acl.id).sort()).toEqual(acls.map((acl) => acl.id).sort());

    const transfers = await roleAcl(ROLE_ID.User, 'transfers');
    const permissions = await call('GET', `/api/role_access_levels/${transfers.id}/role_permissions`, admin);
    expect(permissions.body).toEqual([
      { id: expect.any(String), attribute: 'max_transfer_size', title: 'Maximum transfer size', value: -1 },
    ]);

    const refused = await call('GET', '/api/role_access_levels/role_acls', user);
    expect(refused.status).toBe(403);
    expect((await call('GET', `/api/role_access_levels/${transfers.id}/role_permissions`, user)).status).toBe(
      403,
    );
  });

  it("nobody changes the Owner role's ACLs, only an Owner the Admin role's, a User none; each change is audited", async () => {
    const ownerRole = await roleAcl(ROLE_ID.Owner, 'transfers');
    const adminRole = await roleAcl(ROLE_ID.Admin, 'analytics');
    const userRole = await roleAcl(ROLE_ID.User, 'uploads');
    const off = { role_access_level: { enabled: false } };
    for (const member of [owner, admin]) {
      const res = await call('PUT', `/api/role_access_levels/${ownerRole.id}`, member, off);
      expect(res.status).toBe(403);
      expect(messageOf(res)).toBe(accessMessages.ownerRoleFixed);
    }
    const byAdmin = await call('PUT', `/api/role_access_levels/${adminRole.id}`, admin, off);
    expect(byAdmin.status).toBe(403);
    expect(messageOf(byAdmin)).toBe(accessMessages.adminRoleOwnerOnly);
    for (const acl of [ownerRole, adminRole, userRole]) {
      const res = await call('PUT', `/api/role_access_levels/${acl.id}`, user, off);
      expect(res.status).toBe(403);
    }
    expect((await roleAclsOf(owner)).every((acl) => acl.enabled)).toBe(true);

    const byOwner = await call('PUT', `/api/role_access_levels/${adminRole.id}`, owner, off);
    expect(byOwner.body).toEqual({ message: accessMessages.saved });
    expect((await roleAcl(ROLE_ID.Admin, 'analytics')).enabled).toBe(false);
    expect((await audits('Role permission'))[0]).toMatchObject({
      resource: 'Admin: Analytics',
      author_user_id: owner.principal.userId,
      changes: [{ property: 'enabled', value: 'false', initial: 'true' }],
    });

    // The Admin changes the User role's values: 'Unlimited' is -1, other values are bytes; a value is required.
    const [permission] = (await call('GET', `/api/role_access_levels/${userRole.id}/role_permissions`, admin))
      .body as RolePermission[];
    if (!permission) throw new Error('no upload permission');
    const url = `/api/role_access_levels/${userRole.id}/role_permissions/${permission.id}`;
    for (const value of [-2, 1.5, null]) {
      const res = await call('PUT', url, admin, { role_permission: { value } });
      expect(res.status, `value ${value}`).toBe(400);
    }
    expect((await call('PUT', url, user, { role_permission: { value: 5 } })).status).toBe(403);
    expect((await call('PUT', url, admin, { role_permission: { value: 5 * 1048576 } })).status).toBe(200);
    expect((await audits('Role permission'))[0]).toMatchObject({
      resource: 'User: Uploads',
      changes: [{ property: 'max_upload_size', value: String(5 * 1048576), initial: '-1' }],
    });
    // Members without a value of their own follow the role at once.
    const own = await userPermission(user, 'uploads');
    expect(own.permission).toMatchObject({ value: 5 * 1048576, follows_role: true });
    expect((await call('PUT', url, admin, { role_permission: { value: -1 } })).status).toBe(200);
    await call('PUT', `/api/role_access_levels/${adminRole.id}`, owner, {
      role_access_level: { enabled: true },
    });
  });

  it("a member's ACLs: never one's own, an Owner anyone's but an Owner's, an Admin only Users', a User nobody's", async () => {
    const secondAdmin = await newMember('admin2', ROLE_ID.Admin);
    const secondOwner = await newMember('owner2', ROLE_ID.User);
    await server.db.pool.query('update users set role_id = $1 where id = $2', [
      ROLE_ID.Owner,
      secondOwner.principal.userId,
    ]);
    const put = async (as: Member, of: Member, enabled: boolean) => {
      const acl = await userAcl(of, 'sharing');
      return call('PUT', `/api/user_access_levels/${acl.id}`, as, { user_access_level: { enabled } });
    };
    const refusals: [Member, Member, string][] = [
      [admin, admin, accessMessages.notYourOwn],
      [owner, owner, accessMessages.notYourOwn],
      [owner, secondOwner, accessMessages.ownersFixed],
      [admin, owner, accessMessages.ownersFixed],
      [admin, secondAdmin, accessMessages.adminChangesUsers],
      [user, admin, messages.forbidden],
      [user, user, messages.forbidden],
    ];
    for (const [as, of, message] of refusals) {
      const res = await put(as, of, false);
      expect(res.status).toBe(403);
      expect(messageOf(res)).toBe(message);
    }
    for (const member of [owner, admin, secondAdmin, secondOwner, user]) {
      expect((await userAcls(member)).every((acl) => acl.enabled && acl.follows_role)).toBe(true);
    }

    expect((await put(owner, secondAdmin, false)).status).toBe(200);
    expect((await put(admin, user, false)).status).toBe(200);
    const sharing = (await userAcls(user)).find((acl) => acl.service === 'sharing');
    expect(sharing).toMatchObject({ enabled: false, follows_role: false, title: 'Sharing' });
    expect((await audits('User permission'))[0]).toMatchObject({
      resource: `${user.email}: Sharing`,
      author_user_id: admin.principal.userId,
      changes: [{ property: 'enabled', value: 'false', initial: null }],
    });
    // A member reads their own ACLs (read-only), not another's.
    expect((await userAcls(user, user)).find((acl) => acl.service === 'sharing')?.enabled).toBe(false);
    const othersRead = await call('GET', `/api/user_access_levels/user_acls/${admin.principal.userId}`, user);
    expect(othersRead.status).toBe(403);

    // Sharing off: the member's share calls, reads included, are refused in words.
    const shares = await call('GET', '/api/shares', user);
    expect(shares.status).toBe(403);
    expect(messageOf(shares)).toBe(accessMessages.serviceOff('sharing'));
    const profile = (await call('GET', '/api/users/_me', user)).body as UserProfile;
    expect(profile.acl.services.sharing).toBe(false);
    expect(profile.acl.services.transfers).toBe(true);

    // null hands the setting back to the role.
    const acl = await userAcl(user, 'sharing');
    await call('PUT', `/api/user_access_levels/${acl.id}`, admin, { user_access_level: { enabled: null } });
    expect(await userAcl(user, 'sharing')).toMatchObject({ enabled: true, follows_role: true });
    expect((await call('GET', '/api/shares', user)).status).toBe(200);
  });

  it("a role change resets the member's own settings to the new role's, in the same change", async () => {
    const member = await newMember('promoted', ROLE_ID.User);
    const adminFinance = await roleAcl(ROLE_ID.Admin, 'finance');
    await call('PUT', `/api/role_access_levels/${adminFinance.id}`, owner, {
      role_access_level: { enabled: false },
    });
    await setUserService(member, 'transfers', false);
    await setUserService(member, 'finance', true);
    await setUserLimit(member, 'uploads', 1024);

    const changed = await call('PUT', `/api/users/${member.principal.userId}`, owner, {
      role_id: ROLE_ID.Admin,
    });
    expect(changed.status, changed.raw).toBe(200);
    const acls = await userAcls(member);
    expect(acls.every((acl) => acl.follows_role)).toBe(true);
    expect(acls.find((acl) => acl.service === 'transfers')?.enabled).toBe(true);
    expect(acls.find((acl) => acl.service === 'finance')?.enabled).toBe(false);
    expect((await userPermission(member, 'uploads')).permission).toMatchObject({
      value: -1,
      follows_role: true,
    });
    await call('PUT', `/api/role_access_levels/${adminFinance.id}`, owner, {
      role_access_level: { enabled: true },
    });
  });

  it('answers 404 for every id of another organisation, and changes nothing there', async () => {
    const foreignRole = await roleAcl(ROLE_ID.User, 'transfers');
    const [foreignRolePermission] = (
      await call('GET', `/api/role_access_levels/${foreignRole.id}/role_permissions`, owner)
    ).body as RolePermission[];
    const { acl: foreignUserAcl, permission: foreignUserPermission } = await userPermission(
      user,
      'transfers',
    );
    if (!foreignRolePermission) throw new Error('no permission');
    // The stranger owns an organisation of their own, whose role ACLs are not these.
    const theirs = await roleAclsOf(stranger);
    expect(theirs.map((acl) => acl.id)).not.toContain(foreignRole.id);

    const calls: [Method, string, unknown][] = [
      ['GET', `/api/role_access_levels/${foreignRole.id}/role_permissions`, undefined],
      ['PUT', `/api/role_access_levels/${foreignRole.id}`, { role_access_level: { enabled: false } }],
      [
        'PUT',
        `/api/role_access_levels/${foreignRole.id}/role_permissions/${foreignRolePermission.id}`,
        { role_permission: { value: 1 } },
      ],
      ['GET', `/api/user_access_levels/user_acls/${user.principal.userId}`, undefined],
      ['PUT', `/api/user_access_levels/${foreignUserAcl.id}`, { user_access_level: { enabled: false } }],
      ['GET', `/api/user_access_levels/${foreignUserAcl.id}/user_permissions/`, undefined],
      [
        'PUT',
        `/api/user_access_levels/${foreignUserAcl.id}/user_permissions/${foreignUserPermission.id}`,
        { user_permission: { value: 1 } },
      ],
    ];
    for (const [method, url, body] of calls) {
      const res = await call(method, url, stranger, body);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    // A permission id of one ACL under another ACL of the caller's own organisation is unknown too.
    const ownUploads = await roleAcl(ROLE_ID.User, 'uploads');
    const crossed = await call(
      'PUT',
      `/api/role_access_levels/${ownUploads.id}/role_permissions/${foreignRolePermission.id}`,
      owner,
      { role_permission: { value: 1 } },
    );
    expect(crossed.status).toBe(404);
    expect((await roleAcl(ROLE_ID.User, 'transfers')).enabled).toBe(true);
    expect((await userAcl(user, 'transfers')).follows_role).toBe(true);
  });

  it('a member whose transfers ACL is off gets 403 on every transfer call, with an API key too', async () => {
    await fill('acl-src', ['a.bin'], KiB);
    await s3.createBucket('acl-dst');
    const copy = {
      sourceCloudAccountId: awsId,
      sourceBucket: 'acl-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'acl-dst',
    };
    const started = await call('POST', '/api/transfer/transfer', user, copy);
    expect(started.status, started.raw).toBe(200);
    const batchId = transferStarted.parse(started.body).batch.id;
    await ended(user, batchId);
    const created = await call('POST', '/api/apikey/CreateKey', user);
    expect(created.status, created.raw).toBe(201);
    const key = created.body as CreatedApiKey;

    await setUserService(user, 'transfers', false);
    const off = accessMessages.serviceOff('transfers');
    const batches = (await server.db.pool.query('select count(*)::int as n from transfer_batches')).rows;
    const transferCalls: [Method, string, unknown][] = [
      ['POST', '/api/transfer/transfer', copy],
      [
        'POST',
        '/api/c2c/moveaws',
        {
          files: [{ path: 'a.bin', bucket_name: 'acl-src' }],
          cloud_id: awsId,
          type: 1,
          destination: { cloud_id: awsId, bucket_name: 'acl-dst', path: '' },
        },
      ],
      ['GET', '/api/transfer/get_all?type=1', undefined],
      ['GET', '/api/transfer/ongoing', undefined],
      ['GET', '/api/c2c/history', undefined],
      ['POST', '/api/transfer/cancel_transfer', { Id: batchId }],
      ['POST', `/api/c2c/cancel?migrationId=${batchId}`, undefined],
      ['POST', '/api/transfer/retry_transfer', { Id: batchId }],
    ];
    for (const [method, url, body] of transferCalls) {
      const res = await call(method, url, user, body);
      expect(res.status, `${method} ${url}: ${res.raw}`).toBe(403);
      expect(messageOf(res)).toBe(off);
    }
    expect((await server.db.pool.query('select count(*)::int as n from transfer_batches')).rows).toEqual(
      batches,
    );

    const withKey = await server.app.inject({
      method: 'GET',
      url: '/api/transfer/get_all?type=1',
      headers: {
        authorization: `Basic ${Buffer.from(`${key.access_key}:${key.secret_key}`).toString('base64')}`,
      },
    });
    expect(withKey.statusCode).toBe(403);
    expect((withKey.json() as { message: string }).message).toBe(off);
    // Others of the organisation keep their transfers.
    expect((await call('GET', '/api/transfer/get_all?type=1', admin)).status).toBe(200);

    await setUserService(user, 'transfers', null);
    expect((await call('GET', '/api/transfer/get_all?type=1', user)).status).toBe(200);
  });

  it('a member whose uploads or sync ACL is off gets 403 on those calls, and others of the organisation do not', async () => {
    await s3.createBucket('acl-off-uploads');
    const upload = {
      cloud_account_id: awsId,
      bucket_name: 'acl-off-uploads',
      key: 'file.bin',
      size: 10,
      fingerprint: 'file.bin:10:1',
    };
    await setUserService(user, 'uploads', false);
    await setUserService(user, 'sync', false);
    const refusedUpload = await call('POST', '/api/transfers/uploads', user, upload);
    expect(refusedUpload.status).toBe(403);
    expect(messageOf(refusedUpload)).toBe(accessMessages.serviceOff('uploads'));
    for (const url of ['/api/sync/get_jobs', '/api/sync/ListSyncInfoWasabi']) {
      const res = await call('GET', url, user);
      expect(res.status, url).toBe(403);
      expect(messageOf(res)).toBe(accessMessages.serviceOff('sync'));
    }
    expect((await call('POST', '/api/transfers/uploads', admin, upload)).status).toBe(200);
    expect((await call('GET', '/api/sync/get_jobs', admin)).status).toBe(200);
    await setUserService(user, 'uploads', null);
    await setUserService(user, 'sync', null);
    expect((await call('GET', '/api/sync/get_jobs', user)).status).toBe(200);
  });

  it('refuses an upload larger than the maximum upload size when its session is created', async () => {
    await s3.createBucket('acl-uploads');
    await setUserLimit(user, 'uploads', KiB);
    const start = (key: string, size: number) =>
      call('POST', '/api/transfers/uploads', user, {
        cloud_account_id: awsId,
        bucket_name: 'acl-uploads',
        key,
        size,
        fingerprint: `${key}:${size}:1700000000000`,
      });
    const tooLarge = await start('big.bin', 2 * KiB);
    expect(tooLarge.status).toBe(403);
    expect(messageOf(tooLarge)).toBe(accessMessages.tooLarge('max_upload_size', 2 * KiB, KiB));
    expect(messageOf(tooLarge)).toContain('2 kB');
    expect((await start('small.bin', KiB)).status).toBe(200);
    const batch = await call('POST', '/api/transfers/uploads/batch', user, {
      cloud_account_id: awsId,
      bucket_name: 'acl-uploads',
      files: [
        { key: 'one.bin', size: 10, fingerprint: 'one.bin:10:1' },
        { key: 'two.bin', size: 2 * KiB, fingerprint: 'two.bin:2048:1' },
      ],
    });
    expect(batch.status).toBe(403);
    const { rows } = await server.db.pool.query<{ object_key: string }>(
      `select object_key from upload_sessions where bucket_name = 'acl-uploads' order by object_key`,
    );
    expect(rows.map((row) => row.object_key)).toEqual(['small.bin']);
    await setUserLimit(user, 'uploads', null);
  });

  it('refuses a transfer larger than the maximum transfer size: at the request when known, else at planning', async () => {
    await fill('cap-src', ['big.bin', 'folder/one.bin', 'folder/two.bin', 'folder/three.bin'], 2 * KiB);
    await s3.createBucket('cap-dst');
    await setUserLimit(user, 'transfers', 3 * KiB);
    const body = {
      sourceCloudAccountId: awsId,
      sourceBucket: 'cap-src',
      destinationCloudAccountId: awsId,
      destinationBucket: 'cap-dst',
    };
    const batches = (await server.db.pool.query('select count(*)::int as n from transfer_batches')).rows;
    // A selection's sizes are known at the request: refused before any batch exists.
    const known = await call('POST', '/api/c2c/moveaws', user, {
      files: [
        { path: 'big.bin', bucket_name: 'cap-src' },
        { path: 'folder/one.bin', bucket_name: 'cap-src' },
      ],
      cloud_id: awsId,
      type: 1,
      destination: { cloud_id: awsId, bucket_name: 'cap-dst', path: '' },
    });
    expect(known.status, known.raw).toBe(403);
    expect(messageOf(known)).toBe(accessMessages.tooLarge('max_transfer_size', 4 * KiB, 3 * KiB));
    expect((await server.db.pool.query('select count(*)::int as n from transfer_batches')).rows).toEqual(
      batches,
    );

    // A folder's size is counted by planning: the batch fails in the same words and copies nothing.
    const started = await call('POST', '/api/transfer/transfer', user, { ...body, sourcePath: 'folder/' });
    expect(started.status, started.raw).toBe(200);
    const batch = await ended(user, transferStarted.parse(started.body).batch.id);
    expect(batch.transferStatus).toBe(BATCH_STATUS.failed);
    const { rows } = await server.db.pool.query<{ error: string }>(
      'select error from transfer_batches where id = $1',
      [batch.id],
    );
    expect(rows[0]?.error).toMatch(/more than your maximum transfer size of 3 kB/);
    expect(await keysOf(s3, 'cap-dst')).toEqual([]);

    // Within the cap, the same member's transfer goes through.
    const small = await call('POST', '/api/transfer/transfer', user, { ...body, files: ['big.bin'] });
    expect(small.status, small.raw).toBe(200);
    expect((await ended(user, transferStarted.parse(small.body).batch.id)).transferStatus).toBe(
      BATCH_STATUS.completed,
    );
    expect(await keysOf(s3, 'cap-dst')).toEqual(['big.bin']);
    await setUserLimit(user, 'transfers', null);
  });
});
