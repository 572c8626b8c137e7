import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_ID, transferMessages, type UserProfile } from '@cumulo/contract';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';

let server: TestServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;

const call = (method: 'GET' | 'PUT', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);
const profile = async (token: string) =>
  ((await call('GET', '/api/users/_me', token)).body as UserProfile).organization;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
});
afterAll(async () => {
  await server?.stop();
});

describe('PUT /organizations/_me charge confirmations against embedded PostgreSQL', () => {
  it('refuses a User and an Admin with the spec reason, and leaves the flags as they were', async () => {
    for (const roleId of [ROLE_ID.User, ROLE_ID.Admin]) {
      const member = await signedInMember(server, `member${roleId}`, { principal: owner.principal, roleId });
      const res = await call('PUT', '/api/organizations/_me', member.token, { confirmed_c2c: true });
      expect(res).toMatchObject({ status: 403, body: { message: transferMessages.ownerConfirms } });
    }
    expect(await profile(owner.token)).toMatchObject({ confirmed_c2c: false, confirmed_ftx: false });
  });

  it('answers 400 when there is nothing to confirm or a flag would be withdrawn', async () => {
    const empty = await call('PUT', '/api/organizations/_me', owner.token, {});
    expect(empty).toMatchObject({ status: 400, body: { message: 'Nothing to confirm.' } });
    const withdraw = await call('PUT', '/api/organizations/_me', owner.token, { confirmed_c2c: false });
    expect(withdraw.status).toBe(400);
    expect((withdraw.body as { errors: Record<string, string[]> }).errors).toHaveProperty('confirmed_c2c');
  });

  it("lets the Owner confirm the cloud to cloud charge; the profile shows it and other organisations don't change", async () => {
    const res = await call('PUT', '/api/organizations/_me', owner.token, { confirmed_c2c: true });
    expect(res).toMatchObject({
      status: 200,
      body: { is_cbs: false, confirmed_c2c: true, confirmed_ftx: false, confirmed_wasabi: false },
    });
    expect(await profile(owner.token)).toMatchObject({ confirmed_c2c: true, confirmed_ftx: false });
    expect(await profile(stranger.token)).toMatchObject({ confirmed_c2c: false });
  });

  it('keeps earlier confirmations when the Owner confirms ftX and Wasabi later', async () => {
    const res = await call('PUT', '/api/organizations/_me', owner.token, {
      confirmed_ftx: true,
      confirmed_wasabi: true,
    });
    expect(res.body).toEqual({
      is_cbs: false,
      confirmed_c2c: true,
      confirmed_ftx: true,
      confirmed_wasabi: true,
    });
    expect(await profile(owner.token)).toMatchObject({
      confirmed_c2c: true,
      confirmed_ftx: true,
      confirmed_wasabi: true,
    });
  });

  it("writes the Owner's confirmations to the audit trail, once per flag that changed", async () => {
    const { rows } = await server.db.pool.query(
      `select entity, type, author_user_id, author_name, changes from audits
       where organization_id = $1 and entity = 'Organization' order by id`,
      [owner.principal.organizationId],
    );
    expect(rows).toEqual([
      {
        entity: 'Organization',
        type: 'Modified',
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [{ property: 'confirmed_c2c', initial: 'false', value: 'true' }],
      },
      {
        entity: 'Organization',
        type: 'Modified',
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [
          { property: 'confirmed_ftx', initial: 'false', value: 'true' },
          { property: 'confirmed_wasabi', initial: 'false', value: 'true' },
        ],
      },
    ]);
    await call('PUT', '/api/organizations/_me', owner.token, { confirmed_c2c: true });
    const again = await server.db.pool.query(
      "select count(*)::int as n from audits where entity = 'Organization'",
    );
    expect(again.rows[0]).toEqual({ n: 2 });
  });
});
