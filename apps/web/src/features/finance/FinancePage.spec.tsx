import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  FINANCE_SETTINGS_DEFAULTS,
  financeMessages,
  type BudgetHierarchical,
  type BudgetRow,
  type CloudAccountView,
  type FinanceProduct,
  type FinanceSettings,
  type TreeNode,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildCloudAccount } from '../accounts/account-factories.ts';

const AWS_ID = '5b0c3a1e-0000-4000-8000-00000000f001';
const WASABI_ID = '5b0c3a1e-0000-4000-8000-00000000f002';
const YEAR = new Date().getUTCFullYear();
const month = (n: number) => `${YEAR}-${String(n).padStart(2, '0')}`;

const accounts: CloudAccountView[] = [
  buildCloudAccount({ id: AWS_ID, name: 'Production AWS', billing_bucket: 'cur-reports' }),
  buildCloudAccount({ id: WASABI_ID, name: 'Archive Wasabi', provider: 'wasabi' }),
];

const products: FinanceProduct[] = [
  { name: 'AmazonS3', label: 'S3', category: 'Storage', custom: false },
  { name: 'AmazonEC2', label: 'EC2', category: 'Compute', custom: false },
  { name: 'Render farm', label: 'Render farm', category: 'Compute', custom: true },
];

/** A Total row: $1,000 budgeted each month, $400.25 spent; March's product budgets do not add up. */
const row = (n: number, extra: Partial<BudgetRow> = {}): BudgetRow => ({
  month: month(n),
  cloud: AWS_ID,
  label: 'Total',
  budget: 1000,
  actual: 400.25,
  forecast: 400.25,
  budget_warning: false,
  sub_budgets: null,
  ...extra,
});

function hierarchical(extra: Partial<BudgetHierarchical> = {}): BudgetHierarchical {
  const rows = Array.from({ length: 12 }, (_, i) =>
    row(i + 1, i === 2 ? { budget_warning: true, sub_budgets: 700 } : {}),
  );
  return {
    cloud: AWS_ID,
    label: 'Total',
    year: YEAR,
    compare: null,
    rows,
    chart: rows.map((r) => ({ month: r.month, actual: r.actual, budget: r.budget, forecast: r.forecast })),
    yearly: { budget: 12000, actual: 4803, forecast: 4803 },
    has_reports: true,
    data_through: `${YEAR}-11-25`,
    ...extra,
  };
}

const tree: TreeNode[] = [
  {
    cloud: AWS_ID,
    label: 'Total',
    title: 'Production AWS',
    value: 12000,
    actual: 4803,
    budget_warning: true,
    children: [
      {
        cloud: AWS_ID,
        label: 'AmazonS3',
        title: 'S3',
        value: 4000,
        actual: 1200,
        budget_warning: false,
        children: [],
      },
    ],
  },
  {
    cloud: WASABI_ID,
    label: 'Total',
    title: 'Archive Wasabi',
    value: null,
    actual: 0,
    budget_warning: false,
    children: [],
  },
];

const settings = (extra: Partial<FinanceSettings> = {}): FinanceSettings => ({
  ...FINANCE_SETTINGS_DEFAULTS,
  last_digest: null,
  next_digest_at: null,
  ...extra,
});

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

/** The /finance calls as the server answers them, for a member holding the Finance package. */
function stubFinance({
  profile = {},
  extra = {},
}: { profile?: Partial<UserProfile>; extra?: Record<string, Handler> } = {}) {
  return stubApi({
    'GET /api/users/_me': {
      status: 200,
      body: buildProfile({ packages: [{ title: 'Finance' }], ...profile }),
    },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'GET /api/finance/settings': { status: 200, body: settings() },
    'GET /api/finance/products': { status: 200, body: products },
    'GET /api/finance/budget/hierarchical': { status: 200, body: hierarchical() },
    'GET /api/finance/budget/tree': { status: 200, body: tree },
    'PUT /api/finance/budget': { status: 200, body: { message: financeMessages.budgetUpdated } },
    ...extra,
  });
}

const queryOf = (call: RecordedCall | undefined) => Object.fromEntries(new URLSearchParams(call?.search));
const hierarchicalCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.path === '/api/finance/budget/hierarchical');
const puts = (calls: RecordedCall[]) => calls.filter((call) => call.method === 'PUT');
const table = () => screen.findByRole('region', { name: 'Budget versus actual' });
/** The table row of a month ('March 2026'). */
async function monthRow(name: string) {
  const cell = await within(await table()).findByText(name);
  const found = cell.closest('tr');
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

describe('/finance, the budget manager (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    // Load the lazy route's modules once up front, so the first test does not spend its wait on transforming them.
    await Promise.all([
      import('./FinancePage.tsx'),
      import('./BudgetChart.tsx'),
      import('../../app/AppLayout.tsx'),
    ]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows budget against actual by month with the year total, and the mismatch warning in the row and above', async () => {
    const calls = stubFinance();
    renderAt('/finance');

    expect(await screen.findByRole('heading', { name: 'Finance' })).toBeInTheDocument();
    expect(document.title).toBe('Finance · Cumulo');
    const january = await monthRow(`January ${YEAR}`);
    expect(within(january).getByText('$1,000.00')).toBeInTheDocument();
    expect(within(january).getAllByText('$400.25')).toHaveLength(2);
    expect(within(january).getByText('$599.75')).toBeInTheDocument();
    expect(within(january).getByText('40.0 %')).toBeInTheDocument();

    const march = await monthRow(`March ${YEAR}`);
    expect(within(march).getByText(financeMessages.subBudgetMismatch)).toBeInTheDocument();
    expect(within(march).getByText(/products: \$700\.00/)).toBeInTheDocument();
    expect(within(january).queryByText(financeMessages.subBudgetMismatch)).not.toBeInTheDocument();
    // One Alert above the table, whatever the number of months out of step.
    const region = await table();
    expect(within(region).getAllByRole('alert')).toHaveLength(1);
    expect(within(region).getByRole('alert')).toHaveTextContent(financeMessages.subBudgetMismatch);

    expect(within(region).getByText(`Year ${YEAR}`)).toBeInTheDocument();
    expect(within(region).getByText('$12,000.00')).toBeInTheDocument();
    expect(within(region).getByText('$7,197.00')).toBeInTheDocument();

    // The first account, with its provider's mark, its Total, the current year.
    expect(screen.getByRole('img', { name: 'Amazon S3' })).toBeInTheDocument();
    expect(queryOf(hierarchicalCalls(calls)[0])).toEqual({
      cloud: AWS_ID,
      year: String(YEAR),
      label: 'Total',
    });
    expect(screen.queryByText(financeMessages.noReports)).not.toBeInTheDocument();
  });

  it("weighs the Year's budget against the months it covers when only some months have one", async () => {
    // $10 budgeted for January only; $400.25 spent in every month.
    const rows = Array.from({ length: 12 }, (_, i) => row(i + 1, { budget: i === 0 ? 10 : null }));
    stubFinance({
      extra: {
        'GET /api/finance/budget/hierarchical': {
          status: 200,
          body: hierarchical({ rows, yearly: { budget: 10, actual: 4803, forecast: 4803 } }),
        },
      },
    });
    renderAt('/finance');
    const yearRow = (await within(await table()).findByText(`Year ${YEAR}`)).closest('tr');
    if (!yearRow) throw new Error('no Year row');
    // January's $400.25 against its $10, not the year's $4,803 (48,030 %).
    expect(yearRow).toHaveTextContent('4002.5 %');
    expect(yearRow).toHaveTextContent('$4,803.00');
    expect(
      screen.getByText("The year's difference and % used count the months that have a budget."),
    ).toBeInTheDocument();
  });

  it('reads the budgets again when a billing-report run under way ends, not for one that ended before', async () => {
    const run = (state: 'running' | 'succeeded') => ({
      id: '5b0c3a1e-0000-4000-8000-00000000a001',
      cloud_account_id: AWS_ID,
      trigger: 'manual',
      state,
      queued_at: `${YEAR}-11-26T10:00:00.000Z`,
      started_at: `${YEAR}-11-26T10:00:01.000Z`,
      finished_at: state === 'succeeded' ? `${YEAR}-11-26T10:00:09.000Z` : null,
      periods_seen: 1,
      periods_replaced: state === 'succeeded' ? 1 : 0,
      periods_skipped: 0,
      rows: 10,
      error: null,
    });
    const isRuns = (call: RecordedCall) => call.path === '/api/analytics/runs';
    const isTable = (call: RecordedCall) => call.path === '/api/finance/budget/hierarchical';
    // Opened after the last run ended: once the runs are known, the table is not read again.
    const ended = stubFinance({
      extra: { 'GET /api/analytics/runs': { status: 200, body: [run('succeeded')] } },
    });
    const first = renderAt('/finance');
    await monthRow(`January ${YEAR}`);
    await waitFor(() => expect(ended.some(isRuns)).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lastRuns = ended.findLastIndex(isRuns);
    expect(ended.slice(lastRuns).filter(isTable)).toEqual([]);
    first.unmount();
    vi.unstubAllGlobals();

    // Opened while a run is under way: the answer that says it ended reads the table again. The page's first
    // reads of the runs (two: the tests render in StrictMode) find it running; the 2 s poll finds it ended.
    let runsAnswered = 0;
    let endedAt = -1;
    const underWay = stubFinance({
      extra: {
        'GET /api/analytics/runs': () => {
          runsAnswered += 1;
          if (runsAnswered <= 2) return { status: 200, body: [run('running')] };
          // The call being answered is the last one recorded.
          if (endedAt < 0) endedAt = underWay.length - 1;
          return { status: 200, body: [run('succeeded')] };
        },
      },
    });
    renderAt('/finance');
    await monthRow(`January ${YEAR}`);
    await waitFor(() => expect(endedAt).toBeGreaterThanOrEqual(0), { timeout: 7000 });
    await waitFor(() => expect(underWay.slice(endedAt).filter(isTable)).toHaveLength(1));
  });

  it('applies the finance settings to every amount and says when the account has no billing reports', async () => {
    stubFinance({
      extra: {
        'GET /api/finance/settings': {
          status: 200,
          body: settings({ show_dollar_sign: false, show_decimal: false }),
        },
        'GET /api/finance/budget/hierarchical': { status: 200, body: hierarchical({ has_reports: false }) },
      },
    });
    renderAt('/finance');

    expect(await screen.findByText(financeMessages.noReports)).toBeInTheDocument();
    const january = await monthRow(`January ${YEAR}`);
    await waitFor(() => expect(within(january).getByText('1,000')).toBeInTheDocument());
    expect(within(january).getAllByText('400')).toHaveLength(2);
    expect(within(january).queryByText(/\$/)).not.toBeInTheDocument();
  });

  it("saves a month's budget with Enter, as a monthly budget of that month", async () => {
    const calls = stubFinance();
    const { user } = renderAt('/finance');

    await user.click(await screen.findByRole('button', { name: `Edit the budget of April ${YEAR}` }));
    const input = screen.getByRole('textbox', { name: `Budget of April ${YEAR}` });
    expect(input).toHaveValue('1000');
    await user.clear(input);
    await user.type(input, '1,250.50{Enter}');

    expect(await screen.findByText(financeMessages.budgetUpdated)).toBeInTheDocument();
    expect(puts(calls).map((call) => call.body)).toEqual([
      { cloud: AWS_ID, label: 'Total', amount: 1250.5, flag: 'monthly', month: month(4) },
    ]);
    await waitFor(() =>
      expect(screen.queryByRole('textbox', { name: `Budget of April ${YEAR}` })).not.toBeInTheDocument(),
    );
    // The table is read again after the change.
    await waitFor(() => expect(hierarchicalCalls(calls).length).toBeGreaterThan(1));
  });

  it('Escape cancels an edit and sends nothing', async () => {
    const calls = stubFinance();
    const { user } = renderAt('/finance');

    await user.click(await screen.findByRole('button', { name: `Edit the budget of May ${YEAR}` }));
    const input = screen.getByRole('textbox', { name: `Budget of May ${YEAR}` });
    await user.clear(input);
    await user.type(input, '5{Escape}');

    expect(screen.queryByRole('textbox', { name: `Budget of May ${YEAR}` })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: `Edit the budget of May ${YEAR}` })).toHaveTextContent(
      '$1,000.00',
    );
    expect(puts(calls)).toHaveLength(0);
  });

  it("an empty or invalid budget gives 'Enter a valid budget.' and sends nothing", async () => {
    const calls = stubFinance();
    const { user } = renderAt('/finance');

    await user.click(await screen.findByRole('button', { name: `Edit the budget of June ${YEAR}` }));
    const input = screen.getByRole('textbox', { name: `Budget of June ${YEAR}` });
    await user.clear(input);
    await user.type(input, '{Enter}');
    expect(await screen.findByText(financeMessages.invalidBudget)).toBeInTheDocument();

    await user.type(input, '-3{Enter}');
    expect(screen.getByText(financeMessages.invalidBudget)).toBeInTheDocument();
    await user.clear(input);
    await user.type(input, '12.345{Enter}');
    expect(screen.getByText(financeMessages.invalidBudget)).toBeInTheDocument();
    expect(puts(calls)).toHaveLength(0);
  });

  it('spreads a yearly budget over the year, and shows a refusal as the toast', async () => {
    let refuse = false;
    const calls = stubFinance({
      extra: {
        'PUT /api/finance/budget': () =>
          refuse
            ? { status: 500, body: undefined }
            : { status: 200, body: { message: financeMessages.budgetUpdated } },
      },
    });
    const { user } = renderAt('/finance');

    const yearly = await screen.findByRole('textbox', { name: 'Yearly budget' });
    await user.click(screen.getByRole('button', { name: 'Set yearly budget' }));
    expect(await screen.findByText(financeMessages.invalidBudget)).toBeInTheDocument();
    expect(puts(calls)).toHaveLength(0);

    await user.type(yearly, '$12,000');
    await user.click(screen.getByRole('button', { name: 'Set yearly budget' }));
    expect(await screen.findByText(financeMessages.budgetUpdated)).toBeInTheDocument();
    expect(puts(calls).map((call) => call.body)).toEqual([
      {
        cloud: AWS_ID,
        label: 'Total',
        amount: 12000,
        flag: 'yearly',
        start: `${YEAR}-01`,
        end: `${YEAR}-12`,
      },
    ]);

    refuse = true;
    await user.type(yearly, '900{Enter}');
    expect(await screen.findByText(financeMessages.budgetFailed)).toBeInTheDocument();
    expect(puts(calls)).toHaveLength(2);
  });

  it("prefers the server's words when it refuses a budget, without the shared Error modal", async () => {
    const refusal = 'The end month must not be before the start month, and both must be in one year.';
    stubFinance({ extra: { 'PUT /api/finance/budget': { status: 400, body: { message: refusal } } } });
    const { user } = renderAt('/finance');

    await user.click(await screen.findByRole('button', { name: `Edit the budget of July ${YEAR}` }));
    await user.type(screen.getByRole('textbox', { name: `Budget of July ${YEAR}` }), '0{Enter}');

    expect(await screen.findByText(refusal)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    // Refused, the editor stays open with what was typed.
    expect(screen.getByRole('textbox', { name: `Budget of July ${YEAR}` })).toHaveValue('10000');
  });

  it('year tabs show previous, current and next year, and keep the choice in the address', async () => {
    const calls = stubFinance();
    const { user, location } = renderAt('/finance');

    const tabs = await screen.findAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual([String(YEAR - 1), String(YEAR), String(YEAR + 1)]);
    expect(screen.getByRole('tab', { name: String(YEAR), selected: true })).toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: String(YEAR + 1) }));
    await waitFor(() => expect(queryOf(hierarchicalCalls(calls).at(-1)).year).toBe(String(YEAR + 1)));
    expect(location()).toContain(`year=${YEAR + 1}`);
    expect(
      calls.some(
        (call) => call.path === '/api/finance/budget/tree' && queryOf(call).year === String(YEAR + 1),
      ),
    ).toBe(true);
  });

  it('a linked view opens on its cloud, product and comparison; the tree and the filters change it', async () => {
    const calls = stubFinance();
    const { user, location } = renderAt(
      `/finance?cloud=${WASABI_ID}&label=AmazonEC2&compare=AmazonS3&year=${YEAR - 1}`,
    );

    await waitFor(() =>
      expect(queryOf(hierarchicalCalls(calls)[0])).toEqual({
        cloud: WASABI_ID,
        year: String(YEAR - 1),
        label: 'AmazonEC2',
        compare: 'AmazonS3',
      }),
    );
    expect(
      calls.some((call) => call.path === '/api/finance/products' && queryOf(call).cloud === WASABI_ID),
    ).toBe(true);

    // The tree: a product of another cloud.
    const treeRegion = await screen.findByRole('region', { name: 'Budgets by cloud' });
    await user.click(await within(treeRegion).findByText('S3'));
    await waitFor(() =>
      expect(queryOf(hierarchicalCalls(calls).at(-1))).toEqual({
        cloud: AWS_ID,
        year: String(YEAR - 1),
        label: 'AmazonS3',
      }),
    );
    expect(location()).toContain(`cloud=${AWS_ID}`);
    expect(location()).toContain('label=AmazonS3');

    // The filter bar: Compare with EC2.
    await user.click(screen.getByRole('combobox', { name: 'Compare with' }));
    await user.click(await screen.findByTitle('EC2'));
    await waitFor(() => expect(queryOf(hierarchicalCalls(calls).at(-1)).compare).toBe('AmazonEC2'));
  });

  it('is read-only for a User whose finance access is off', async () => {
    const calls = stubFinance({
      profile: buildProfile({
        role: { id: 3, title: 'User' },
        packages: [{ title: 'Finance' }],
        acl: { services: { ...buildProfile().acl.services, finance: false } },
      }),
    });
    const { user } = renderAt('/finance');

    const january = await monthRow(`January ${YEAR}`);
    expect(within(january).getByText('$1,000.00')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Edit the budget/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Yearly budget' })).not.toBeInTheDocument();
    await user.click(within(january).getByText('$1,000.00'));
    expect(screen.queryByRole('textbox', { name: `Budget of January ${YEAR}` })).not.toBeInTheDocument();
    expect(puts(calls)).toHaveLength(0);
  });

  it('a User with the finance access may set budgets', async () => {
    stubFinance({ profile: { role: { id: 3, title: 'User' } } });
    renderAt('/finance');
    expect(
      await screen.findByRole('button', { name: `Edit the budget of January ${YEAR}` }),
    ).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Yearly budget' })).toBeInTheDocument();
  });

  it('exports the table as CSV through the authenticated API', async () => {
    const csv = `month,budget,actual,forecast\r\n${month(1)},1000.00,400.25,400.25\r\n`;
    const calls = stubFinance({ extra: { 'GET /api/finance/budget.csv': { status: 200, body: csv } } });
    const saved: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: vi.fn((blob: Blob) => {
          saved.push(blob);
          return 'blob:budget';
        }),
        revokeObjectURL: vi.fn(),
      }),
    );
    const { user } = renderAt('/finance');
    await monthRow(`January ${YEAR}`);
    await user.click(screen.getByRole('button', { name: /Export CSV/ }));

    await waitFor(() => expect(saved).toHaveLength(1));
    const exported = calls.find((call) => call.path === '/api/finance/budget.csv');
    expect(exported?.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(queryOf(exported)).toEqual({ cloud: AWS_ID, year: String(YEAR), label: 'Total' });
    const bytes = new Uint8Array((await saved[0]?.arrayBuffer()) ?? new ArrayBuffer(0));
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe(csv);
  });

  it('offers to add an account when none is connected, and says why a load failed', async () => {
    stubFinance({ extra: { 'GET /api/cloud_accounts/': { status: 200, body: [] } } });
    const first = renderAt('/finance');
    expect(await screen.findByRole('link', { name: 'Add a cloud account' })).toHaveAttribute(
      'href',
      '/addProvider',
    );
    first.unmount();

    // The server's own refusal (a package lapsed since the profile was read) shows in words.
    stubFinance({
      extra: {
        'GET /api/finance/budget/hierarchical': {
          status: 403,
          body: { message: financeMessages.packageRequired },
        },
      },
    });
    renderAt('/finance');
    expect(await screen.findByText(financeMessages.packageRequired)).toBeInTheDocument();
  });
});
