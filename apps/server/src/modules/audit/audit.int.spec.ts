import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_PAGE_SIZE,
  AUDIT_SECRET_MASK,
  ROLE_ID,
  auditMessages,
  type AuditEntry,
  type AuditFilters,
  type AuditPage,
} from '@cumulo/contract';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { changesOf, recordAudit, type AuditActor } from './audit.writer.ts';

/**
 * The audit trail on a real embedded PostgreSQL: its writer (same transaction as the change, append-only table)
 * and its reads through the real API (GET /audits/filters, /audits, /audits/export).
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
let server: TestServer;
let owner: Member;
let admin: Member;
let user: Member;
let stranger: Member;

const get = (url: string, member: Member) => callApi(server, 'GET', url, member.token);
const actorOf = (member: Member): AuditActor => ({
  organizationId: member.principal.organizationId,
  userId: member.principal.userId,
});
const count = async (where: string, params: unknown[]) =>
  (await server.db.pool.query<{ n: number }>(`select count(*)::int as n from audits where ${where}`, params))
    .rows[0]?.n ?? 0;

/** An entry written straight into the table at a chosen time, to arrange the trail the reads are tested on. */
async function entryAt(
  member: Member | null,
  organizationId: string,
  at: string,
  entity: string,
  resource: string,
) {
  await server.db.pool.query(
    `insert into audits (organization_id, author_user_id, author_name, entity, type, resource, changes, created_at)
     values ($1, $2, $3, $4, 'Modified', $5, $6, $7)`,
    [
      organizationId,
      member?.principal.userId ?? null,
      member ? member.email : 'Cumulo',
      entity,
      resource,
      JSON.stringify([{ property: 'name', initial: 'old', value: resource }]),
      at,
    ],
  );
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await signedInMember(server, 'owner');
  admin = await signedInMember(server, 'admin', { principal: owner.principal, roleId: ROLE_ID.Admin });
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('audit writer (embedded PostgreSQL)', () => {
  it('writes the entry with the change in one transaction: a rolled-back change leaves no entry', async () => {
    await server.db.orm.transaction(async (tx) => {
      await tx.execute(
        `update organizations set name = 'Renamed' where id = '${owner.principal.organizationId}'`,
      );
      await recordAudit(tx, actorOf(owner), {
        entity: 'Organization',
        type: 'Modified',
        resource: 'Renamed',
        resourceId: owner.principal.organizationId,
        changes: [{ property: 'name', initial: 'Before', value: 'Renamed' }],
      });
    });
    expect(await count("resource = 'Renamed'", [])).toBe(1);

    await expect(
      server.db.orm.transaction(async (tx) => {
        await tx.execute(
          `update organizations set name = 'Undone' where id = '${owner.principal.organizationId}'`,
        );
        await recordAudit(tx, actorOf(owner), {
          entity: 'Organization',
          type: 'Modified',
          resource: 'Undone',
        });
        throw new Error('the change fails after its entry was written');
      }),
    ).rejects.toThrow('the change fails');
    expect(await count("resource = 'Undone'", [])).toBe(0);
  });

  it('refuses UPDATE and DELETE of entries from SQL, while removing an organisation still removes its trail', async () => {
    await recordAudit(server.db.orm, actorOf(owner), { entity: 'Budget', type: 'Added', resource: 'Kept' });
    await expect(
      server.db.pool.query("update audits set resource = 'Forged' where resource = 'Kept'"),
    ).rejects.toThrow('append-only');
    await expect(server.db.pool.query("delete from audits where resource = 'Kept'")).rejects.toThrow(
      'append-only',
    );
    expect(await count("resource = 'Kept'", [])).toBe(1);

    const doomed = await signedInMember(server, 'doomed');
    await recordAudit(server.db.orm, actorOf(doomed), {
      entity: 'Budget',
      type: 'Added',
      resource: 'Doomed',
    });
    expect(await count("resource = 'Doomed'", [])).toBe(1);
    await server.db.pool.query('delete from organizations where id = $1', [doomed.principal.organizationId]);
    expect(await count('organization_id = $1', [doomed.principal.organizationId])).toBe(0);
  });

  it('changesOf masks secrets and leaves out unchanged properties', () => {
    expect(
      changesOf(
        { name: 'a', secret: 'old-secret', size: 1, same: 'x' },
        { name: 'b', secret: 'new-secret', size: 1, same: 'x' },
        { secrets: ['secret'] },
      ),
    ).toEqual([
      { property: 'name', initial: 'a', value: 'b' },
      { property: 'secret', initial: AUDIT_SECRET_MASK, value: AUDIT_SECRET_MASK },
    ]);
    expect(
      changesOf(null, { key: 'AKIA', password: 'hunter2', empty: null }, { secrets: ['password'] }),
    ).toEqual([
      { property: 'key', initial: null, value: 'AKIA' },
      { property: 'password', initial: null, value: AUDIT_SECRET_MASK },
    ]);
  });

  it('keeps the author’s name as it was when they acted, and Cumulo for what nobody did', async () => {
    const leaver = await signedInMember(server, 'leaver', {
      principal: owner.principal,
      roleId: ROLE_ID.Admin,
    });
    await recordAudit(server.db.orm, actorOf(leaver), {
      entity: 'Budget',
      type: 'Added',
      resource: 'By leaver',
    });
    await recordAudit(
      server.db.orm,
      { organizationId: owner.principal.organizationId, userId: null },
      { entity: 'Subscription', type: 'Modified', resource: 'By Cumulo' },
    );
    await server.db.pool.query("update users set first_name = 'Someone', last_name = 'Else' where id = $1", [
      leaver.principal.userId,
    ]);
    const { rows } = await server.db.pool.query<{
      resource: string;
      author_name: string;
      author_user_id: string;
    }>(
      "select resource, author_name, author_user_id from audits where resource in ('By leaver', 'By Cumulo') order by id",
    );
    expect(rows).toEqual([
      { resource: 'By leaver', author_name: 'leaver Test', author_user_id: leaver.principal.userId },
      { resource: 'By Cumulo', author_name: 'Cumulo', author_user_id: null },
    ]);
  });
});

describe('audit reads (real API, embedded PostgreSQL)', () => {
  let organizationId: string;
  beforeAll(async () => {
    organizationId = owner.principal.organizationId;
    // A trail of its own for the reads: the writer tests above left entries in the owner's organisation too.
    await entryAt(owner, organizationId, '2030-01-01T10:00:00Z', 'Bucket', 'jan-bucket');
    await entryAt(admin, organizationId, '2030-01-15T10:00:00Z', 'Cloud account', 'jan-account');
    await entryAt(user, organizationId, '2030-02-01T10:00:00Z', 'Transfer', 'feb-transfer');
    await entryAt(user, organizationId, '2030-02-02T10:00:00Z', 'Share', '=HYPERLINK("http://evil")');
    for (let i = 0; i < 45; i += 1) {
      await entryAt(
        owner,
        organizationId,
        `2031-03-01T10:00:${String(i).padStart(2, '0')}Z`,
        'Alert',
        `alert-${i}`,
      );
    }
    await entryAt(
      stranger,
      stranger.principal.organizationId,
      '2030-01-20T10:00:00Z',
      'Bucket',
      'their-bucket',
    );
  });

  const pageOf = async (query: string, member: Member = owner) => {
    const res = await get(`/api/audits?${query}`, member);
    expect(res.status, res.raw).toBe(200);
    return res.body as AuditPage;
  };

  it('pages newest first by 20 until the total', async () => {
    const query = 'entities=Alert';
    const first = await pageOf(query);
    expect(first.total).toBe(45);
    expect(first.limit).toBe(AUDIT_PAGE_SIZE);
    expect(first.audits).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.audits[0]).toMatchObject({
      resource: 'alert-44',
      entity: 'Alert',
      type: 'Modified',
      author: owner.principal.userId,
      username: owner.email,
      changes: [{ property: 'name', initial: 'old', value: 'alert-44' }],
      api_key: null,
    });
    const second = await pageOf(`${query}&offset=20`);
    const third = await pageOf(`${query}&offset=40`);
    expect(third.audits).toHaveLength(5);
    const resources = [...first.audits, ...second.audits, ...third.audits].map((entry) => entry.resource);
    expect(resources).toEqual(Array.from({ length: 45 }, (_, i) => `alert-${44 - i}`));
  });

  it('filters by from/to, entities and users; another organisation’s entries never appear', async () => {
    const resources = (page: AuditPage) => page.audits.map((entry: AuditEntry) => entry.resource);
    expect(resources(await pageOf('from=2030-01-01&to=2030-01-31'))).toEqual(['jan-account', 'jan-bucket']);
    expect(resources(await pageOf('from=2030-01-10T00:00:00Z&to=2030-02-01T10:00:00Z'))).toEqual([
      'jan-account',
    ]);
    expect(resources(await pageOf('entities=Bucket,Transfer&to=2030-12-31'))).toEqual([
      'feb-transfer',
      'jan-bucket',
    ]);
    expect(
      resources(
        await pageOf(
          `users=${admin.principal.userId}&users=${user.principal.userId}&from=2030-01-01&to=2030-12-31`,
        ),
      ),
    ).toEqual(['=HYPERLINK("http://evil")', 'feb-transfer', 'jan-account']);
    expect(resources(await pageOf(`users=${stranger.principal.userId}`))).toEqual([]);
    expect(resources(await pageOf('entities=Bucket'))).toEqual(['jan-bucket']);
    expect(resources(await pageOf('entities=Bucket', stranger))).toEqual(['their-bucket']);

    const filters = (await get('/api/audits/filters', admin)).body as AuditFilters;
    expect(filters.entities).toEqual(
      expect.arrayContaining(['Alert', 'Bucket', 'Cloud account', 'Share', 'Transfer']),
    );
    expect(filters.users.map((u) => u.id).sort()).toEqual(
      expect.arrayContaining([owner.principal.userId, admin.principal.userId, user.principal.userId]),
    );
    expect(filters.users.map((u) => u.id)).not.toContain(stranger.principal.userId);
    const theirs = (await get('/api/audits/filters', stranger)).body as AuditFilters;
    expect(theirs).toEqual({
      entities: ['Bucket'],
      users: [{ id: stranger.principal.userId, name: stranger.email }],
    });
  });

  it('shows a User only their own entries, and only themselves in the users filter', async () => {
    const page = await pageOf('', user);
    // Their joining through the invitation, and the two arranged above.
    expect(page.audits.map((entry) => entry.resource)).toEqual([
      '=HYPERLINK("http://evil")',
      'feb-transfer',
      user.email,
    ]);
    expect(page.audits.every((entry) => entry.author === user.principal.userId)).toBe(true);
    expect((await pageOf(`users=${owner.principal.userId}`, user)).total).toBe(0);
    const filters = (await get('/api/audits/filters', user)).body as AuditFilters;
    expect(filters).toEqual({
      entities: ['Share', 'Transfer', 'User'],
      users: [{ id: user.principal.userId, name: user.email }],
    });
  });

  it('exports the filtered entries as CSV, one line per change, formulas defused', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/audits/export?entities=Share,Transfer&to=2030-12-31',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="audits.csv"');
    expect(res.body.split('\r\n')).toEqual([
      '\uFEFFtime,author,entity,resource,type,property,initial,value',
      `2030-02-02T10:00:00.000Z,${user.email},Share,"'=HYPERLINK(""http://evil"")",Modified,name,old,"'=HYPERLINK(""http://evil"")"`,
      `2030-02-01T10:00:00.000Z,${user.email},Transfer,feb-transfer,Modified,name,old,feb-transfer`,
      '',
    ]);
    const mine = await server.app.inject({
      method: 'GET',
      url: '/api/audits/export?entities=Bucket',
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(mine.body).toContain('their-bucket');
    expect(mine.body).not.toContain('jan-bucket');
  });

  it('reads the whole trail in pages for the export and cuts it with the contract’s line', async () => {
    const lines: string[] = [];
    for await (const line of server.services.audit.exportCsv(owner.principal, { entities: ['Alert'] }, 7)) {
      lines.push(line);
    }
    expect(lines).toHaveLength(46);
    expect(lines[1]).toContain('alert-44');
    expect(lines[45]).toContain('alert-0');

    const cut: string[] = [];
    for await (const line of server.services.audit.exportCsv(
      owner.principal,
      { entities: ['Alert'] },
      7,
      10,
    )) {
      cut.push(line);
    }
    expect(cut).toHaveLength(12);
    expect(cut[10]).toContain('alert-35');
    expect(cut[11]).toBe(`${auditMessages.exportCut(10)}\r\n`);
  });

  it('answers odd query values with 400, never 5xx', async () => {
    for (const query of [
      'offset=-1',
      'limit=0',
      'limit=1000',
      'offset=abc',
      'from=yesterday',
      'to=2030-02-31',
      'entities=Nothing',
      'users=not-a-uuid',
      'from=2030-01-01T25:00:00Z',
      `users=${'a'.repeat(5000)}`,
    ]) {
      const res = await get(`/api/audits?${query}`, owner);
      expect(res.status, query).toBe(400);
      // The export takes no paging, so only the filters' odd values concern it.
      if (/^(offset|limit)=/.test(query)) continue;
      const csv = await server.app.inject({
        method: 'GET',
        url: `/api/audits/export?${query}`,
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(csv.statusCode, `export ${query}`).toBe(400);
    }
    expect((await server.app.inject({ method: 'GET', url: '/api/audits' })).statusCode).toBe(401);
    for (const method of ['PUT', 'DELETE', 'POST'] as const) {
      expect((await callApi(server, method, '/api/audits', owner.token)).status).toBe(404);
    }
  });
});
