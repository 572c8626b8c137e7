import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_ID, billingMessages, memberMessages, messages, type PendingInvitation } from '@cumulo/contract';
import { hashToken, newInviteToken } from '../../crypto/tokens.ts';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';

/**
 * The members calls of spec 002 §7 and the rules of §6, through the real API on embedded PostgreSQL, with the
 * manual payment gateway (the default) and a real SMTP sink for the invitation mails.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let server: TestServer;
let owner: Member;
let admin: Member;
let user: Member;
let stranger: Member;

const PASSWORD = 'Sunny#day7';
const call = (method: Method, url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);
const messageOf = (res: { body: unknown }) => (res.body as { message: string }).message;
const errorsOf = (res: { body: unknown }) => (res.body as { errors: Record<string, string[]> }).errors;
const invitee = (name: string) => `${name}.${Date.now()}@example.com`;
/** A fresh member of the owner's organisation with `roleId`, so each rule acts on its own target. */
const newMember = (name: string, roleId: number) =>
  signedInMember(server, name, { principal: owner.principal, roleId });

async function invitations(where = 'true', params: unknown[] = []) {
  const { rows } = await server.db.pool.query<{ n: number }>(
    `select count(*)::int as n from invitations where ${where}`,
    params,
  );
  return rows[0]?.n ?? 0;
}

async function login(email: string) {
  const request = await server.app.inject({ method: 'POST', url: '/api/authentication/request_token' });
  return server.app.inject({
    method: 'POST',
    url: '/api/authentication/Login',
    payload: {
      requestToken: (request.json() as { token: string }).token,
      username: email,
      password: PASSWORD,
    },
  });
}

/** Adds a card; the same card twice is refused (billing), so each call names its expiry month. */
const addCard = (member: Member, expirationMonth = 12) =>
  call('POST', '/api/billing/payment_profiles', member, {
    credit_card_attributes: {
      full_number: '4242424242424242',
      cvv: '123',
      expiration_month: expirationMonth,
      expiration_year: new Date().getUTCFullYear() + 1,
      first_name: 'Ada',
      last_name: 'Lovelace',
    },
  });

beforeAll(async () => {
  server = await startTestServer();
  owner = await signedInMember(server, 'owner');
  admin = await newMember('admin', ROLE_ID.Admin);
  user = await newMember('user', ROLE_ID.User);
  stranger = await signedInMember(server, 'stranger');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('members and invitations (real API, embedded PostgreSQL, SMTP sink)', () => {
  it('lists the organisation members as user cards to every role, and nobody of another organisation', async () => {
    for (const member of [owner, admin, user]) {
      const res = await call('GET', '/api/users', member);
      expect(res.status).toBe(200);
      const cards = res.body as { email: string; role: { title: string }; active: boolean }[];
      expect(cards.map((c) => c.email).sort()).toEqual([owner.email, admin.email, user.email].sort());
      expect(cards.find((c) => c.email === admin.email)).toMatchObject({
        role: { id: ROLE_ID.Admin, title: 'Admin' },
        active: true,
        first_name: 'admin',
        last_name: 'Test',
        pictureUrl: null,
        activation_date: expect.any(String),
        created_at: expect.any(String),
      });
    }
    const theirs = (await call('GET', '/api/users', stranger)).body as { email: string }[];
    expect(theirs.map((c) => c.email)).toEqual([stranger.email]);
  });

  it('answers 404 for a member of another organisation on every members call', async () => {
    const id = user.principal.userId;
    const before = await server.db.pool.query('select role_id, active from users where id = $1', [id]);
    for (const [method, url, body] of [
      ['GET', `/api/users/${id}`, undefined],
      ['PUT', `/api/users/${id}`, { role_id: ROLE_ID.Admin }],
      ['PUT', `/api/users/${id}/activate`, undefined],
      ['PUT', `/api/users/${id}/deactivate`, undefined],
    ] as const) {
      const res = await call(method, url, stranger, body);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect(
      (await server.db.pool.query('select role_id, active from users where id = $1', [id])).rows,
    ).toEqual(before.rows);
  });

  it('refuses invites from a User (403), and from anyone while the organisation has no card', async () => {
    const row = { first_name: 'New', last_name: 'Person', email: invitee('nocard'), role_id: ROLE_ID.User };
    const asUser = await call('POST', '/api/users/invite', user, [row]);
    expect(asUser.status).toBe(403);
    for (const member of [owner, admin]) {
      const res = await call('POST', '/api/users/invite', member, [row]);
      expect(res.status).toBe(403);
      expect(messageOf(res)).toBe(billingMessages.userAddNeedsCard);
      expect((res.body as { code: string }).code).toBe('CARD_REQUIRED');
    }
    expect(await invitations('email = $1', [row.email])).toBe(0);
  });

  it('with a card, invites the complete rows by e-mail; the link signs the invitee up once into the organisation', async () => {
    expect((await addCard(owner)).status).toBe(201);
    const ivy = invitee('Ivy.Mixed').toUpperCase();
    const al = invitee('al');
    const res = await call('POST', '/api/users/invite', admin, [
      { first_name: 'Ivy', last_name: 'Tee', email: ivy, role_id: ROLE_ID.User },
      { first_name: 'Half', last_name: '', email: invitee('half'), role_id: ROLE_ID.User },
      { first_name: 'Al', last_name: 'Bo', email: al, role_id: ROLE_ID.Admin },
    ]);
    expect(res.status, res.raw).toBe(200);
    expect(messageOf(res)).toBe(memberMessages.invitesSent(2));
    expect(await invitations('email like $1', ['half.%'])).toBe(0);

    const mail = await server.mail.waitFor(ivy.toLowerCase(), 'You are invited to Cumulo');
    const link = /\/signup\?invite_token=([^\s"<&]+)/.exec(mail.body)?.[1];
    if (!link) throw new Error(`no invite link in ${mail.body}`);
    const token = decodeURIComponent(link);
    const parts = Buffer.from(token, 'base64').toString('utf8').split('//');
    expect(parts).toHaveLength(5);
    expect(parts.slice(0, 3)).toEqual([ivy.toLowerCase(), 'Ivy', 'Tee']);
    // Only the hash is kept, and the invitation lasts 7 days.
    expect(
      await invitations(
        "token_hash = $1 and expires_at between now() + interval '7 days' - interval '1 minute' and now() + interval '7 days'",
        [hashToken(token)],
      ),
    ).toBe(1);
    expect(await invitations('token_hash = $1', [token])).toBe(0);

    const signup = {
      email: ivy.toLowerCase(),
      password: PASSWORD,
      first_name: 'Ivy',
      last_name: 'Tee',
      invite_token: token,
    };
    expect((await server.app.inject({ method: 'POST', url: '/api/users', payload: signup })).statusCode).toBe(
      201,
    );
    const signedIn = await login(ivy.toLowerCase());
    expect(signedIn.statusCode).toBe(200);
    const me = await server.app.inject({
      method: 'GET',
      url: '/api/users/_me',
      headers: { authorization: `Bearer ${(signedIn.json() as { jwtToken: string }).jwtToken}` },
    });
    expect(me.json()).toMatchObject({
      role: { id: ROLE_ID.User, title: 'User' },
      organization: { id: owner.principal.organizationId },
    });

    const reused = await server.app.inject({ method: 'POST', url: '/api/users', payload: signup });
    expect(reused.statusCode).toBe(400);
    expect((reused.json() as { message: string }).message).toBe(messages.inviteInvalid);

    // A token of the right shape but not issued by the server (the secret part guessed) is refused.
    const forged = newInviteToken(al, 'Al', 'Bo', owner.principal.organizationId);
    const forgedRes = await server.app.inject({
      method: 'POST',
      url: '/api/users',
      payload: { ...signup, email: al, first_name: 'Al', last_name: 'Bo', invite_token: forged },
    });
    expect(forgedRes.statusCode).toBe(400);
    expect((forgedRes.json() as { message: string }).message).toBe(messages.inviteInvalid);
    expect((await login(al)).statusCode).toBe(401);
  });

  it('refuses rows as Owner, for a member, a pending invitation or twice in one list, with field messages', async () => {
    const pending = invitee('pending');
    expect(
      (
        await call('POST', '/api/users/invite', owner, [
          { first_name: 'P', last_name: 'Ending', email: pending, role_id: ROLE_ID.User },
        ])
      ).status,
    ).toBe(200);
    const fresh = invitee('fresh');
    const res = await call('POST', '/api/users/invite', owner, [
      { first_name: 'O', last_name: 'Wner', email: invitee('owner'), role_id: ROLE_ID.Owner },
      { first_name: 'U', last_name: 'Ser', email: user.email.toUpperCase(), role_id: ROLE_ID.User },
      { first_name: 'P', last_name: 'Ending', email: pending, role_id: ROLE_ID.User },
      { first_name: 'F', last_name: 'Resh', email: fresh, role_id: ROLE_ID.User },
      { first_name: 'F', last_name: 'Resh', email: fresh, role_id: ROLE_ID.Admin },
    ]);
    expect(res.status).toBe(400);
    expect(errorsOf(res)).toMatchObject({
      '0.role_id': [memberMessages.inviteAsOwner],
      '1.email': [memberMessages.emailTaken],
      '2.email': [memberMessages.emailTaken],
      '4.email': [memberMessages.emailTwice],
    });
    expect(await invitations('email = $1', [fresh])).toBe(0);

    // A role id past PostgreSQL's smallint is refused with the field named, never a 500.
    const huge = await call('POST', '/api/users/invite', owner, [
      { first_name: 'H', last_name: 'Uge', email: invitee('huge'), role_id: 40_000 },
    ]);
    expect(huge.status).toBe(400);
    expect(Object.keys(errorsOf(huge))).toEqual(['0.role_id']);

    const empty = await call('POST', '/api/users/invite', owner, [{ first_name: 'Only' }]);
    expect(empty.status).toBe(400);
    expect(messageOf(empty)).toBe(memberMessages.noCompleteRow);
  });

  it('lists pending invitations to Owners and Admins; a resend replaces the link, a cancel voids it', async () => {
    const email = invitee('pending');
    const sent = await call('POST', '/api/users/invite', owner, [
      { first_name: 'Pen', last_name: 'Ding', email, role_id: ROLE_ID.User },
    ]);
    expect(sent.status, sent.raw).toBe(200);
    /** The invite token of the `nth` invitation mail to `email`. */
    const tokenOfMail = async (nth: number) => {
      await expect
        .poll(() => server.mail.received.filter((m) => m.to.includes(email)).length)
        .toBeGreaterThan(nth);
      const mail = server.mail.received.filter((m) => m.to.includes(email))[nth];
      const link = /\/signup\?invite_token=([^\s"<&]+)/.exec(mail?.body ?? '')?.[1];
      if (!link) throw new Error('no invite link');
      return decodeURIComponent(link);
    };
    const signUp = (token: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/users',
        payload: { email, password: PASSWORD, first_name: 'Pen', last_name: 'Ding', invite_token: token },
      });
    const firstToken = await tokenOfMail(0);

    const listed = await call('GET', '/api/users/invitations', admin);
    expect(listed.status).toBe(200);
    const pending = (listed.body as PendingInvitation[]).find((row) => row.email === email);
    expect(pending).toMatchObject({
      first_name: 'Pen',
      last_name: 'Ding',
      role: { id: ROLE_ID.User, title: 'User' },
      invited_by: 'owner Test',
      expired: false,
    });
    const id = pending?.id ?? '';
    expect((await call('GET', '/api/users/invitations', user)).status).toBe(403);
    const theirs = (await call('GET', '/api/users/invitations', stranger)).body as PendingInvitation[];
    expect(theirs.map((row) => row.email)).not.toContain(email);
    for (const [method, url] of [
      ['POST', `/api/users/invitations/${id}/resend`],
      ['DELETE', `/api/users/invitations/${id}`],
    ] as const) {
      expect((await call(method, url, stranger)).status).toBe(404);
      expect((await call(method, url, user)).status).toBe(403);
    }

    const resent = await call('POST', `/api/users/invitations/${id}/resend`, admin);
    expect(resent.status, resent.raw).toBe(200);
    expect(messageOf(resent)).toBe(memberMessages.inviteResent);
    const secondToken = await tokenOfMail(1);
    expect(secondToken).not.toBe(firstToken);
    expect((await signUp(firstToken)).statusCode).toBe(400);

    const cancelled = await call('DELETE', `/api/users/invitations/${id}`, owner);
    expect(messageOf(cancelled)).toBe(memberMessages.inviteCancelled);
    const refused = await signUp(secondToken);
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as { message: string }).message).toBe(messages.inviteInvalid);
    expect((await call('DELETE', `/api/users/invitations/${id}`, owner)).status).toBe(404);

    const { rows } = await server.db.pool.query(
      'select entity, type, author_name from audits where resource_id = $1 order by id',
      [id],
    );
    expect(rows).toEqual([
      { entity: 'Invitation', type: 'Added', author_name: 'owner Test' },
      { entity: 'Invitation', type: 'Modified', author_name: 'admin Test' },
      { entity: 'Invitation', type: 'Deleted', author_name: 'owner Test' },
    ]);
  });

  it('the Active toggle: never oneself; the Owner anyone else; an Admin only Users; a User nobody', async () => {
    const target = await newMember('target', ROLE_ID.User);
    const otherAdmin = await newMember('admin2', ROLE_ID.Admin);
    const put = (by: Member, who: Member, state: 'activate' | 'deactivate') =>
      call('PUT', `/api/users/${who.principal.userId}/${state}`, by);

    for (const self of [owner, admin]) {
      const res = await put(self, self, 'deactivate');
      expect(res.status).toBe(403);
      expect(messageOf(res)).toBe(memberMessages.notYourself);
    }
    for (const who of [owner, otherAdmin]) {
      const res = await put(admin, who, 'deactivate');
      expect(res.status).toBe(403);
      expect(messageOf(res)).toBe(memberMessages.adminActivatesUsers);
    }
    expect((await put(user, target, 'deactivate')).status).toBe(403);
    const active = await server.db.pool.query<{ n: number }>(
      'select count(*)::int as n from users where organization_id = $1 and not active',
      [owner.principal.organizationId],
    );
    expect(active.rows[0]?.n).toBe(0);

    // An Admin deactivates a User: that user's bearer is refused at once, and signing in is refused.
    const off = await put(admin, target, 'deactivate');
    expect(off.status).toBe(200);
    expect(messageOf(off)).toBe(memberMessages.deactivated);
    expect((await call('GET', '/api/users/_me', target)).status).toBe(401);
    expect((await login(target.email)).statusCode).toBe(403);
    const on = await put(admin, target, 'activate');
    expect(messageOf(on)).toBe(memberMessages.activated);
    expect((await login(target.email)).statusCode).toBe(200);
    // The sessions ended by the deactivation stay ended.
    expect((await call('GET', '/api/users/_me', target)).status).toBe(401);

    // The Owner may (de)activate an Admin.
    expect(messageOf(await put(owner, otherAdmin, 'deactivate'))).toBe(memberMessages.deactivated);
    expect((await call('GET', '/api/users/_me', otherAdmin)).status).toBe(401);
    expect(messageOf(await put(owner, otherAdmin, 'activate'))).toBe(memberMessages.activated);
  });

  it('role change: nobody their own or an Owner’s; an Admin only a User’s and never makes Owners; a User nobody', async () => {
    const target = await newMember('promoted', ROLE_ID.User);
    const otherAdmin = await newMember('other-admin', ROLE_ID.Admin);
    const roleOf = async (member: Member) =>
      (
        await server.db.pool.query<{ role_id: number }>('select role_id from users where id = $1', [
          member.principal.userId,
        ])
      ).rows[0]?.role_id;
    const put = (by: Member, who: Member, roleId: number) =>
      call('PUT', `/api/users/${who.principal.userId}`, by, { role_id: roleId });

    for (const [by, who, roleId, message] of [
      [owner, owner, ROLE_ID.Admin, memberMessages.notYourself],
      [admin, admin, ROLE_ID.User, memberMessages.notYourself],
      [admin, owner, ROLE_ID.User, memberMessages.ownerRoleFixed],
      [admin, target, ROLE_ID.Owner, memberMessages.ownerMakesOwners],
      // Demoting another Admin would let an Admin then deactivate them or change their permissions.
      [admin, otherAdmin, ROLE_ID.User, memberMessages.adminChangesUsersRoles],
      [user, target, ROLE_ID.Admin, messages.forbidden],
    ] as const) {
      const res = await put(by, who, roleId);
      expect(res.status, `${by.email} → ${who.email}`).toBe(403);
      expect(messageOf(res)).toBe(message);
    }
    expect(await roleOf(target)).toBe(ROLE_ID.User);
    expect(await roleOf(owner)).toBe(ROLE_ID.Owner);
    expect(await roleOf(otherAdmin)).toBe(ROLE_ID.Admin);
    // A role id past any role (and past PostgreSQL's smallint) is a refusal, never a 500.
    for (const roleId of [40_000, 2_147_483_648]) {
      expect((await put(owner, target, roleId)).status).toBe(400);
    }

    const raised = await put(admin, target, ROLE_ID.Admin);
    expect(raised.status).toBe(200);
    expect(messageOf(raised)).toBe(memberMessages.roleUpdated);
    // The new role holds on the member's very next call.
    expect((await call('GET', '/api/users/_me', target)).body).toMatchObject({ role: { title: 'Admin' } });
    expect(messageOf(await put(owner, target, ROLE_ID.User))).toBe(memberMessages.roleUpdated);
    expect(await roleOf(target)).toBe(ROLE_ID.User);

    // The Owner may make someone Owner; from then on their role is no longer changed by this call.
    const heir = await newMember('heir', ROLE_ID.Admin);
    expect(messageOf(await put(owner, heir, ROLE_ID.Owner))).toBe(memberMessages.roleUpdated);
    const back = await put(owner, heir, ROLE_ID.Admin);
    expect(back.status).toBe(403);
    expect(messageOf(back)).toBe(memberMessages.ownerRoleFixed);
    expect(await roleOf(heir)).toBe(ROLE_ID.Owner);
  });

  it('writes who invited, joined, (de)activated and changed the role of whom to the audit trail', async () => {
    const entries = async (resource: string) =>
      (
        await server.db.pool.query<{
          entity: string;
          type: string;
          author_user_id: string;
          author_name: string;
          changes: { property: string; initial: string | null; value: string | null }[];
        }>(
          'select entity, type, author_user_id, author_name, changes from audits where organization_id = $1 and resource = $2 order by id',
          [owner.principal.organizationId, resource],
        )
      ).rows;
    const email = invitee('audited');
    expect((await addCard(owner, 11)).status).toBe(201);
    const invited = await call('POST', '/api/users/invite', admin, [
      { first_name: 'Aud', last_name: 'Ited', email, role_id: ROLE_ID.User },
    ]);
    expect(invited.status, invited.raw).toBe(200);
    const mail = await server.mail.waitFor(email, 'You are invited to Cumulo');
    const token = decodeURIComponent(/\/signup\?invite_token=([^\s"<&]+)/.exec(mail.body)?.[1] ?? '');
    const joined = await server.app.inject({
      method: 'POST',
      url: '/api/users',
      payload: { email, password: PASSWORD, first_name: 'Aud', last_name: 'Ited', invite_token: token },
    });
    expect(joined.statusCode).toBe(201);
    const id = (await server.db.pool.query<{ id: string }>('select id from users where email = $1', [email]))
      .rows[0]?.id;
    expect((await call('PUT', `/api/users/${id}/deactivate`, owner)).status).toBe(200);
    expect((await call('PUT', `/api/users/${id}`, admin, { role_id: ROLE_ID.Admin })).status).toBe(200);

    const trail = await entries(email);
    expect(trail).toEqual([
      {
        entity: 'Invitation',
        type: 'Added',
        author_user_id: admin.principal.userId,
        author_name: 'admin Test',
        changes: [
          { property: 'email', initial: null, value: email },
          { property: 'first_name', initial: null, value: 'Aud' },
          { property: 'last_name', initial: null, value: 'Ited' },
          { property: 'role', initial: null, value: 'User' },
        ],
      },
      {
        entity: 'User',
        type: 'Added',
        author_user_id: id,
        author_name: 'Aud Ited',
        changes: expect.arrayContaining([{ property: 'role', initial: null, value: 'User' }]),
      },
      {
        entity: 'User',
        type: 'Modified',
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [{ property: 'active', initial: 'true', value: 'false' }],
      },
      {
        entity: 'User',
        type: 'Modified',
        author_user_id: admin.principal.userId,
        author_name: 'admin Test',
        changes: [{ property: 'role', initial: 'User', value: 'Admin' }],
      },
    ]);
    // Neither the password nor the invitation token is ever in the trail.
    expect(JSON.stringify(trail)).not.toContain(PASSWORD);
    expect(JSON.stringify(trail)).not.toContain(token);
  });
});
