import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_ID, type AccessAttribute } from '@cumulo/contract';
import { signedInMember, startTestServer, type TestServer } from '../../test/harness.ts';
import { AccessRepo } from '../modules/access/access.repo.ts';

/**
 * The session bearer check of the auth hook (AccessRepo.sessionCaller) on embedded PostgreSQL: every check it
 * makes, and the caller's ACL it answers with, in one statement per request.
 */
describe('session bearer (embedded PostgreSQL)', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof signedInMember>>;
  let user: Awaited<ReturnType<typeof signedInMember>>;
  const sql = (text: string, values: unknown[]) => server.db.pool.query(text, values);

  beforeAll(async () => {
    server = await startTestServer();
    owner = await signedInMember(server, 'owner');
    user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  });
  afterAll(async () => server?.stop());

  it("answers the session's organisation, role and effective ACL (role rows, then the member's own) in one round trip", async () => {
    const { organizationId, userId } = user.principal;
    const repo = new AccessRepo(server.db.orm);
    await repo.ensureRoleAcls(organizationId);
    await repo.ensureUserAcls(organizationId, userId);
    await sql(
      `update role_access_levels set enabled = false
        where organization_id = $1 and role_id = $2 and service in ('transfers', 'sharing')`,
      [organizationId, ROLE_ID.User],
    );
    await sql(`update user_access_levels set enabled = true where user_id = $1 and service = 'transfers'`, [
      userId,
    ]);
    const attribute: AccessAttribute = 'max_transfer_size';
    await sql(
      `update user_permissions set value = 1048576
        where attribute = $2 and user_access_level_id in (select id from user_access_levels where user_id = $1)`,
      [userId, attribute],
    );

    const statements: unknown[] = [];
    const pool = server.db.pool;
    const query = pool.query;
    // Counts the statements the check sends through the real pool (every drizzle call goes through pool.query).
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      statements.push(args[0]);
      return query.apply(pool, args);
    }) as typeof pool.query;
    let principal;
    try {
      principal = await server.services.auth.verifyBearer(user.token);
    } finally {
      pool.query = query;
    }

    expect(statements).toHaveLength(1);
    expect(principal).toMatchObject({
      userId,
      organizationId,
      sessionId: user.principal.sessionId,
      role: 'User',
    });
    expect(principal?.access).toEqual(await repo.effective(organizationId, userId));
    expect(principal?.access.services.transfers).toBe(true);
    expect(principal?.access.services.sharing).toBe(false);
    expect(principal?.access.permissions[attribute]).toBe(1048576);
  });

  it('refuses a revoked or expired session, a deactivated member and a session of another member', async () => {
    const { sessionId, userId, organizationId } = owner.principal;
    const verify = (token = owner.token) => server.services.auth.verifyBearer(token);
    expect(await verify()).not.toBeNull();

    await sql('update sessions set revoked_at = now() where id = $1', [sessionId]);
    expect(await verify()).toBeNull();
    await sql('update sessions set revoked_at = null where id = $1', [sessionId]);

    await sql("update sessions set expires_at = now() - interval '1 second' where id = $1", [sessionId]);
    expect(await verify()).toBeNull();
    await sql("update sessions set expires_at = now() + interval '1 hour' where id = $1", [sessionId]);

    await sql('update users set active = false where id = $1', [userId]);
    expect(await verify()).toBeNull();
    await sql('update users set active = true where id = $1', [userId]);

    const forged = await server.services.auth.sessionToken(user.principal.userId, sessionId, organizationId);
    expect(await verify(forged)).toBeNull();

    expect(await verify()).toMatchObject({ userId, sessionId, organizationId, role: 'Owner' });
  });
});
