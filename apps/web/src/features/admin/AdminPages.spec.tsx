import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  ACCOUNT_COLUMNS,
  ADMIN_SEARCH_MAX,
  AUTH_STORAGE_KEY,
  TRANSFER_COST_COLUMNS,
  TRANSFER_HISTORY_COLUMNS,
  USAGE_TOTAL_COLUMNS,
  USER_COLUMNS,
  adminMessages,
  directionOf,
  memberMessages,
  type AdminAccountRow,
  type AdminAccountsAnswer,
  type AdminTransferCostsAnswer,
  type AdminTransferRow,
  type AdminUsageFiltersAnswer,
  type AdminUsageTotalRow,
  type AdminUserRow,
  type AdminUsersAnswer,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

/*
 * The admin routes' answers here are stand-ins for the server (its routes live on another branch and are tested
 * there against PostgreSQL): each is built from the contract's own schemas' types, so a shape change fails here.
 */

const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
const operator = buildProfile({ id: 'op-1', operator: true });
const owner = buildProfile({ id: 'owner-1', operator: false });

const accountRow = (n: number): AdminAccountRow => ({
  id: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
  accountName: `Org ${n}`,
  description: null,
  totalUsage: 1536 * n,
  totalCost: 1.25 * n,
  creationDate: '2026-10-03T22:30:00.000Z',
  status: n % 2 ? 'Active' : 'Deactivate',
  users: n,
});
const accountsPage = (page: number): AdminAccountsAnswer => ({
  month: '2026-10',
  total: 12,
  page,
  pagesize: 10,
  accounts: page === 1 ? [1, 2, 3].map(accountRow) : [accountRow(11), accountRow(12)],
});

const userRow = (id: string, name: string, active: boolean): AdminUserRow => ({
  id,
  userName: name,
  email: `${name.toLowerCase()}@example.com`,
  totalUsage: 2048,
  accountId: '00000000-0000-4000-8000-000000000001',
  accountName: 'Org 1',
  registrationDate: '2026-11-01T10:00:00.000Z',
  active,
  operator: id === 'op-1',
});

const awsWasabi = directionOf('aws', 'wasabi');
const azureWasabi = directionOf('azure', 'wasabi');
const usageFilters: AdminUsageFiltersAnswer = {
  account: { id: '00000000-0000-4000-8000-000000000001', name: 'Org 1' },
  users: [{ id: '00000000-0000-4000-8000-0000000000a1', name: 'Ursula Test', email: 'ursula@example.com' }],
  directions: [awsWasabi, azureWasabi],
};
const totals: AdminUsageTotalRow[] = [
  { direction: awsWasabi.key, label: awsWasabi.label, totalTransfer: 5 * 1024 ** 2, totalCost: 0.75 },
  { direction: azureWasabi.key, label: azureWasabi.label, totalTransfer: 1024, totalCost: 0.01 },
  // The transfers of an account since removed: no direction to open a detail by.
  { direction: 'unknown:wasabi', label: 'Unknown to Wasabi', totalTransfer: 2048, totalCost: 0.02 },
];
const historyRow: AdminTransferRow = {
  id: 'b-1',
  user: 'Ursula Test',
  direction: awsWasabi.key,
  label: awsWasabi.label,
  sourceBucket: 'src-bucket',
  destinationBucket: 'dst-bucket',
  transferSize: 5 * 1024 ** 2,
  totalObject: 3,
  initiationDate: '2026-11-20T08:05:00.000Z',
  completionDate: '2026-11-20T08:07:00.000Z',
};

const queryOf = (call: RecordedCall | undefined) => new URLSearchParams(call?.search);
const lastCall = (calls: RecordedCall[], path: string) => calls.filter((c) => c.path === path).at(-1);
const headerTexts = (table: HTMLElement) =>
  within(table)
    .getAllByRole('columnheader')
    .map((cell) => cell.textContent);

describe('operator console screens (admin routes stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('someone who is not an operator gets the operators-only page, no admin call and no Admin menu', async () => {
    const calls = stubApi({ 'GET /api/users/_me': { status: 200, body: owner } });
    renderAt('/admindaccount');
    expect(await screen.findByText(adminMessages.operatorsOnly)).toBeInTheDocument();
    expect(calls.some((call) => call.path.startsWith('/api/admin/'))).toBe(false);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).queryByText('Admin')).not.toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Usage Detail' })).not.toBeInTheDocument();
  });

  it('/admindaccount: the contract columns and cells, the month, Detail links, page 2 and the CSV', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/accounts': (call) => {
        const query = new URLSearchParams(call.search);
        if (query.get('format') === 'csv') return { status: 200, body: 'Account Name\r\nOrg 1\r\n' };
        return { status: 200, body: accountsPage(Number(query.get('page'))) };
      },
    });
    const saved: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: vi.fn((blob: Blob) => {
          saved.push(blob);
          return 'blob:accounts';
        }),
        revokeObjectURL: vi.fn(),
      }),
    );
    const { user } = renderAt('/admindaccount');
    const table = await screen.findByRole('table');
    await within(table).findByText('Org 3');
    expect(screen.getByRole('heading', { name: 'Account', level: 2 })).toBeInTheDocument();
    expect(screen.getByText('Add New Account').closest('a')).toHaveAttribute('href', '/addNewAccount');
    expect(headerTexts(table)).toEqual([...ACCOUNT_COLUMNS.map((c) => c.title), 'Detail']);
    const row = within(table).getByText('Org 2').closest('tr') as HTMLElement;
    const cells = within(row)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual([...ACCOUNT_COLUMNS.map((c) => c.cell(accountRow(2), tz)), 'Detail']);
    expect(screen.getByText(/previous month: October 2026/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Detail of Org 2' })).toHaveAttribute(
      'href',
      `/usageDetail?account=${accountRow(2).id}`,
    );
    const first = lastCall(calls, '/api/admin/accounts');
    expect(queryOf(first).get('page')).toBe('1');
    expect(queryOf(first).get('tz')).toBe(tz);

    await user.click(screen.getByTitle('2'));
    expect(await within(table).findByText('Org 12')).toBeInTheDocument();
    expect(queryOf(lastCall(calls, '/api/admin/accounts')).get('page')).toBe('2');

    await user.click(screen.getByRole('button', { name: /Download Report/ }));
    await waitFor(() => expect(saved).toHaveLength(1));
    const csvCall = calls.find((call) => queryOf(call).get('format') === 'csv');
    expect(csvCall?.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(queryOf(csvCall).get('tz')).toBe(tz);
    expect(await saved[0]?.text()).toContain('Org 1');
  });

  it('/userList: the Active switch calls PUT /admin/users/{id}/active and says so; one cannot switch oneself', async () => {
    let users = [userRow('op-1', 'Opal', true), userRow('u-2', 'Ursula', true)];
    const answer = (): AdminUsersAnswer => ({ total: users.length, page: 1, pagesize: 10, users });
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/users': () => ({ status: 200, body: answer() }),
      'PUT /api/admin/users/u-2/active': (call) => {
        const { active } = call.body as { active: boolean };
        users = users.map((u) => (u.id === 'u-2' ? { ...u, active } : u));
        return {
          status: 200,
          body: { message: active ? memberMessages.activated : memberMessages.deactivated },
        };
      },
    });
    const { user } = renderAt('/userList');
    const table = await screen.findByRole('table');
    await within(table).findByText('Ursula');
    expect(headerTexts(table)).toEqual([...USER_COLUMNS.map((c) => c.title), 'Detail']);
    const row = within(table).getByText('Ursula').closest('tr') as HTMLElement;
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual([...USER_COLUMNS.map((c) => c.cell(users[1] as AdminUserRow, tz)), 'Detail']);
    expect(screen.getByRole('switch', { name: 'Active: Opal' })).toBeDisabled();

    await user.click(screen.getByRole('switch', { name: 'Active: Ursula' }));
    expect(await screen.findByText(memberMessages.deactivated)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ active: false });
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Active: Ursula' })).not.toBeChecked());
    expect(within(row).getByText('Deactivate')).toBeInTheDocument();
  });

  it('/usageDetail: the URL filter goes to every call with tz; Filter sends the checked directions', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/usage/filters': { status: 200, body: usageFilters },
      'GET /api/admin/usage/totals': { status: 200, body: { totals } },
      'GET /api/admin/usage/history': {
        status: 200,
        body: { total: 1, page: 1, pagesize: 10, rows: [historyRow] },
      },
    });
    const account = usageFilters.account?.id ?? '';
    const { user, location } = renderAt(`/usageDetail?account=${account}&start=2026-11-01&end=2026-11-30`);
    expect(await screen.findByRole('heading', { name: 'Org 1' })).toBeInTheDocument();
    const totalsTable = await screen.findByRole('table', { name: 'Total Transfer/Cost Report' });
    await within(totalsTable).findByText('AWS to Wasabi');
    expect(headerTexts(totalsTable)).toEqual([...USAGE_TOTAL_COLUMNS.map((c) => c.title), 'Detail']);
    const history = screen.getByRole('table', { name: 'Transfer History' });
    await within(history).findByText('src-bucket');
    expect(headerTexts(history)).toEqual(TRANSFER_HISTORY_COLUMNS.map((c) => c.title));
    expect(
      within(history).getByText(TRANSFER_HISTORY_COLUMNS[6]?.cell(historyRow, tz) ?? ''),
    ).toHaveTextContent(/^\d\d\/\d\d\/\d{4} - \d\d:\d\d$/);
    for (const path of ['/api/admin/usage/totals', '/api/admin/usage/history']) {
      const query = queryOf(lastCall(calls, path));
      expect([query.get('account'), query.get('start'), query.get('end'), query.get('tz')]).toEqual([
        account,
        '2026-11-01',
        '2026-11-30',
        tz,
      ]);
      expect(query.has('directions')).toBe(false);
    }
    expect(screen.getByRole('link', { name: 'Detail of AWS to Wasabi' })).toHaveAttribute(
      'href',
      `/transferCostDetail?account=${account}&start=2026-11-01&end=2026-11-30&directions=aws%3Awasabi`,
    );
    const unknownRow = within(totalsTable).getByText('Unknown to Wasabi').closest('tr') as HTMLElement;
    expect(within(unknownRow).queryByRole('link')).toBeNull();
    expect(unknownRow).toHaveTextContent(adminMessages.removedAccountNoDetail);

    await user.click(screen.getByRole('checkbox', { name: 'Azure to Wasabi' }));
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    await waitFor(() =>
      expect(queryOf(lastCall(calls, '/api/admin/usage/history')).get('directions')).toBe('aws:wasabi'),
    );
    expect(queryOf(lastCall(calls, '/api/admin/usage/totals')).get('directions')).toBe('aws:wasabi');
    expect(queryOf(lastCall(calls, '/api/admin/usage/totals')).get('start')).toBe('2026-11-01');
    expect(new URLSearchParams(location().split('?')[1]).get('directions')).toBe('aws:wasabi');
    // The chart of the totals is drawn too.
    expect(screen.getByRole('figure', { name: 'Total Transfer per direction' })).toBeInTheDocument();
  });

  it('/userList: a refusal of the server is shown instead of the table', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/users': { status: 403, body: { message: adminMessages.operatorsOnly } },
    });
    renderAt('/userList');
    expect(await screen.findByRole('alert')).toHaveTextContent(adminMessages.operatorsOnly);
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('/usageDetail: a period ending before it starts is refused before any Filter', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/usage/filters': { status: 200, body: usageFilters },
      'GET /api/admin/usage/totals': { status: 200, body: { totals } },
      'GET /api/admin/usage/history': { status: 200, body: { total: 0, page: 1, pagesize: 10, rows: [] } },
    });
    renderAt('/usageDetail?start=2026-11-10&end=2026-11-05');
    expect(await screen.findByText(adminMessages.badPeriod)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Filter' })).toBeDisabled();
    expect(screen.getByLabelText('Period start')).toHaveValue('11/10/2026');
  });

  it('/usageDetail: no transfers reads "No data"', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/usage/filters': { status: 200, body: { account: null, users: [], directions: [] } },
      'GET /api/admin/usage/totals': { status: 200, body: { totals: [] } },
      'GET /api/admin/usage/history': { status: 200, body: { total: 0, page: 1, pagesize: 10, rows: [] } },
    });
    renderAt('/usageDetail');
    expect(await screen.findByRole('heading', { name: 'All accounts' })).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getAllByText('No data', { ignore: 'title, script, style' })).toHaveLength(2),
    );
  });

  it('/transferCostDetail: the search is cut to 20 characters and sent with the URL filter', async () => {
    const answer: AdminTransferCostsAnswer = {
      total: 1,
      page: 1,
      pagesize: 10,
      rows: [
        {
          direction: awsWasabi.key,
          label: awsWasabi.label,
          source: 'My AWS',
          destination: 'My Wasabi',
          transferSize: 1024 ** 3,
          gbCost: 0.09,
          totalCost: 0.09,
        },
      ],
    };
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/transfer-costs': { status: 200, body: answer },
    });
    const { user } = renderAt('/transferCostDetail?directions=aws%3Awasabi');
    const table = await screen.findByRole('table');
    await within(table).findByText('My AWS');
    expect(screen.getByRole('heading', { name: 'Transfer and Cost Report' })).toBeInTheDocument();
    expect(headerTexts(table)).toEqual(TRANSFER_COST_COLUMNS.map((c) => c.title));
    const row = within(table).getByText('My AWS').closest('tr') as HTMLElement;
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(TRANSFER_COST_COLUMNS.map((c) => c.cell(answer.rows[0] as never, tz)));

    const search = screen.getByRole('searchbox', { name: 'Search directions' });
    expect(search).toHaveAttribute('maxLength', String(ADMIN_SEARCH_MAX));
    // A paste longer than the limit: the browser's maxLength does not cut a programmatic value, the screen does.
    fireEvent.change(search, { target: { value: 'aws to wasabi and more than twenty' } });
    await user.type(search, '{Enter}');
    await waitFor(() =>
      expect(queryOf(lastCall(calls, '/api/admin/transfer-costs')).get('search')).toBe(
        'aws to wasabi and more than twenty'.slice(0, ADMIN_SEARCH_MAX),
      ),
    );
    const query = queryOf(lastCall(calls, '/api/admin/transfer-costs'));
    expect([query.get('directions'), query.get('tz'), query.get('page')]).toEqual(['aws:wasabi', tz, '1']);
  });

  it('/addNewAccount: a server refusal shows under its field; success toasts and goes back to the list', async () => {
    let exists = true;
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'POST /api/admin/accounts': () =>
        exists
          ? {
              status: 400,
              body: {
                message: adminMessages.accountExists,
                code: 'VALIDATION',
                errors: { account_name: [adminMessages.accountExists] },
              },
            }
          : {
              status: 200,
              body: { message: adminMessages.accountCreated, account: { id: 'a-9', name: 'Acme' } },
            },
      'GET /api/admin/accounts': { status: 200, body: accountsPage(1) },
    });
    const { user, location } = renderAt('/addNewAccount');
    await user.type(await screen.findByLabelText('Account Name'), 'Acme');
    await user.type(screen.getByLabelText('Description'), 'Rockets');
    await user.click(screen.getByRole('button', { name: 'Add New Account' }));
    expect(await screen.findByText(adminMessages.accountExists)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      account_name: 'Acme',
      description: 'Rockets',
    });

    exists = false;
    await user.click(screen.getByRole('button', { name: 'Add New Account' }));
    expect(await screen.findByText(adminMessages.accountCreated)).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/admindaccount'));
  });

  it('/addNewUser: Select Account is required; the invitation is posted and a server field error shows', async () => {
    let refuse = true;
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/accounts/options': {
        status: 200,
        body: [
          { id: '00000000-0000-4000-8000-000000000001', name: 'Org 1' },
          { id: '00000000-0000-4000-8000-000000000002', name: 'Org 2' },
        ],
      },
      'POST /api/admin/users': () =>
        refuse
          ? {
              status: 400,
              body: { message: 'Taken.', errors: { email: ['This email is already a member.'] } },
            }
          : { status: 200, body: { message: adminMessages.userInvited('new@example.com') } },
      'GET /api/admin/users': { status: 200, body: { total: 0, page: 1, pagesize: 10, users: [] } },
    });
    const { user, location } = renderAt('/addNewUser');
    await user.type(await screen.findByLabelText('First Name'), 'New');
    await user.type(screen.getByLabelText('Last Name'), 'Person');
    await user.type(screen.getByLabelText('Email'), 'New@Example.com');
    await user.click(screen.getByRole('button', { name: 'Invite User' }));
    expect(await screen.findByText(adminMessages.selectAccount)).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    await user.click(screen.getByLabelText('Select Account'));
    await user.click(await screen.findByTitle('Org 2'));
    await user.click(screen.getByRole('button', { name: 'Invite User' }));
    expect(await screen.findByText('This email is already a member.')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      first_name: 'New',
      last_name: 'Person',
      email: 'New@Example.com',
      organization_id: '00000000-0000-4000-8000-000000000002',
    });

    refuse = false;
    await user.click(screen.getByRole('button', { name: 'Invite User' }));
    expect(await screen.findByText(adminMessages.userInvited('new@example.com'))).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/userList'));
  });

  it('an operator has the Admin group in the menu', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: operator },
      'GET /api/admin/accounts': { status: 200, body: accountsPage(1) },
    });
    renderAt('/admindaccount');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(await within(nav).findByText('Admin')).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Account' })).toHaveAttribute('href', '/admindaccount');
    // The organisation's own Users (/users) stays; the Admin group's lists every organisation's.
    expect(
      within(nav)
        .getAllByRole('link', { name: 'Users' })
        .map((a) => a.getAttribute('href')),
    ).toEqual(['/users', '/userList']);
    expect(within(nav).getByRole('link', { name: 'Usage Detail' })).toHaveAttribute('href', '/usageDetail');
  });
});
