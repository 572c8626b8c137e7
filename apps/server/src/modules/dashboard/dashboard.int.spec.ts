import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DASHBOARD_WIDGET_IDS,
  ROLE_ID,
  dashboardMessages,
  type DashboardChanged,
  type DashboardLayout,
} from '@cumulo/contract';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';

type Member = Awaited<ReturnType<typeof signedInMember>>;
let server: TestServer;
let owner: Member;
let user: Member;
let stranger: Member;

const call = (method: 'GET' | 'PUT' | 'DELETE', url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);
const idsOf = (layout: unknown) => (layout as DashboardLayout).widgets.map((widget) => widget.id);
const layoutOf = async (member: Member) => {
  const res = await call('GET', '/api/dashboard', member);
  expect(res.status, res.raw).toBe(200);
  return res.body as DashboardLayout;
};

beforeAll(async () => {
  server = await startTestServer();
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
});
afterAll(async () => {
  await server?.stop();
});

describe('dashboard widgets per member, against embedded PostgreSQL', () => {
  it('gives a member without a saved layout every widget in the default order', async () => {
    const layout = await layoutOf(user);
    expect(layout).toEqual({
      customised: false,
      widgets: DASHBOARD_WIDGET_IDS.map((id, position) => ({ id, position })),
    });
  });

  it('lets a User remove, add and reorder their own widgets; the layout persists and is theirs only', async () => {
    const removed = await call('DELETE', '/api/dashboard?id=alerts', user);
    expect(removed.status, removed.raw).toBe(200);
    expect((removed.body as DashboardChanged).message).toBe(dashboardMessages.removed('Alerts'));
    expect(idsOf(removed.body)).toEqual(['accounts', 'usage', 'sync_jobs', 'recent_transfers', 'analytics']);

    const added = await call('PUT', '/api/dashboard/create', user, { id: 'alerts', position: 0 });
    expect(added.status, added.raw).toBe(200);
    expect(idsOf(added.body)).toEqual([
      'alerts',
      'accounts',
      'usage',
      'sync_jobs',
      'recent_transfers',
      'analytics',
    ]);

    const reordered = await call('PUT', '/api/dashboard/createAll', user, {
      widgets: ['recent_transfers', 'accounts', 'alerts'],
    });
    expect(reordered.status, reordered.raw).toBe(200);
    expect(reordered.body).toMatchObject({ message: dashboardMessages.saved, customised: true });

    // A new request, as after a reload: the saved order, with positions.
    expect(await layoutOf(user)).toEqual({
      customised: true,
      widgets: [
        { id: 'recent_transfers', position: 0 },
        { id: 'accounts', position: 1 },
        { id: 'alerts', position: 2 },
      ],
    });
    // The Owner of the same organisation and a member of another keep the default.
    expect(await layoutOf(owner)).toMatchObject({ customised: false });
    expect(idsOf(await layoutOf(stranger))).toEqual(DASHBOARD_WIDGET_IDS);
  });

  it('adds a widget last when no position is given, and keeps an emptied dashboard empty', async () => {
    const added = await call('PUT', '/api/dashboard/create', owner, { id: 'usage' });
    // Already on the default layout: it moves to the end rather than appearing twice.
    expect(idsOf(added.body)).toEqual([
      'accounts',
      'sync_jobs',
      'recent_transfers',
      'alerts',
      'analytics',
      'usage',
    ]);

    const emptied = await call('PUT', '/api/dashboard/createAll', owner, { widgets: [] });
    expect(emptied.status, emptied.raw).toBe(200);
    expect(await layoutOf(owner)).toEqual({ customised: true, widgets: [] });
  });

  it('answers 404 for a widget that is not on the dashboard, and 400 for unknown or repeated widgets', async () => {
    await call('PUT', '/api/dashboard/createAll', stranger, { widgets: ['accounts'] });
    const missing = await call('DELETE', '/api/dashboard?id=usage', stranger);
    expect(missing).toMatchObject({
      status: 404,
      body: { message: dashboardMessages.notOnDashboard('Usage') },
    });

    const unknown = await call('PUT', '/api/dashboard/create', stranger, { id: 'weather' });
    expect(unknown.status).toBe(400);
    expect(unknown.raw).toContain(dashboardMessages.unknownWidget);
    const repeated = await call('PUT', '/api/dashboard/createAll', stranger, {
      widgets: ['accounts', 'accounts'],
    });
    expect(repeated.status).toBe(400);
    expect(repeated.raw).toContain(dashboardMessages.repeatedWidget);
    expect(await call('DELETE', '/api/dashboard?id=..%2Fusers', stranger)).toMatchObject({ status: 400 });
    expect(idsOf(await layoutOf(stranger))).toEqual(['accounts']);
  });

  it('stores each layout under its member and organisation, and refuses callers without a sign-in', async () => {
    const { rows } = await server.db.pool.query<{ user_id: string; organization_id: string }>(
      'select user_id, organization_id from dashboard_layouts where user_id = $1',
      [user.principal.userId],
    );
    expect(rows).toEqual([
      { user_id: user.principal.userId, organization_id: owner.principal.organizationId },
    ]);
    const anonymous = await server.app.inject({ method: 'GET', url: '/api/dashboard' });
    expect(anonymous.statusCode).toBe(401);
  });
});
