import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  defaultAlertRange,
  financeMessages,
  type BudgetAlert,
  type BudgetAlertConfig,
  type FinanceSettings,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { FinanceActions } from './FinanceActions.tsx';

const CLOUD = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const now = new Date();
const YEAR = now.getUTCFullYear();
const thisMonth = defaultAlertRange(now).start;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const monthText = (firstDay: string) => `${MONTHS[Number(firstDay.slice(5, 7)) - 1]} ${firstDay.slice(0, 4)}`;

/** GET /finance/budget for a pair without an alert: the server's defaults of a new one. */
const newAlert: BudgetAlertConfig = {
  id: null,
  actual_alert_percent: 80,
  forecast_alert_percent: 80,
  ...defaultAlertRange(now),
};

const settings: FinanceSettings = {
  alert_emails: ['ada@example.com'],
  logs_emails: [],
  logs_frequency: 'Monthly',
  show_dollar_sign: true,
  show_decimal: true,
  show_border: true,
  last_digest: {
    period_start: '2026-10-01T00:00:00.000Z',
    period_end: '2026-10-31T23:59:59.999Z',
    sent_at: '2026-11-01T00:07:00.000Z',
    entries: 12,
    error: null,
  },
  next_digest_at: '2026-12-01T00:07:00.000Z',
};

const alertOf = (extra: Partial<BudgetAlert>): BudgetAlert => ({
  id: 'alert-1',
  title: 'Production AWS: Total',
  cloud: CLOUD,
  product: 'Total',
  actual_alert_percent: 80,
  forecast_alert_percent: null,
  start: '2026-11-01',
  end: '2026-12-01',
  last_fired: null,
  ...extra,
});

function renderActions(
  handlers: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {},
  role: { id: number; title: 'Owner' | 'Admin' | 'User' } = { id: 1, title: 'Owner' },
) {
  const calls = stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile({ role }) },
    ...handlers,
  });
  const view = renderAt('/finance', [
    { path: '/finance', element: <FinanceActions cloud={CLOUD} product="Total" /> },
    { path: '/logs', element: <h1>Users Activities</h1> },
  ]);
  return { ...view, calls, writes: () => calls.filter((call) => call.method !== 'GET') };
}

const dialog = (name: string) => screen.getByRole('dialog', { name });

async function chooseOption(user: ReturnType<typeof renderActions>['user'], label: string, option: string) {
  await user.click(screen.getByLabelText(label));
  const options = await screen.findAllByTitle(option);
  const last = options.at(-1);
  if (!last) throw new Error(`no option ${option}`);
  await user.click(last);
}

describe('the /finance actions and their modals (fetch stubbed)', () => {
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));
  afterEach(() => vi.unstubAllGlobals());

  it('shows a User only Add product: Notifications, Set Preferences, Logs and Set alert need write permission', async () => {
    renderActions({}, { id: 3, title: 'User' });
    expect(await screen.findByRole('button', { name: /Add product/ })).toBeInTheDocument();
    for (const name of [/Notifications/, /Set Preferences/, /Set alert/]) {
      expect(screen.queryByRole('button', { name })).toBeNull();
    }
    expect(screen.queryByRole('link', { name: /Logs/ })).toBeNull();
  });

  it('hides every action from an Owner whose finance ACL is off', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ acl: { services: { ...buildProfile().acl.services, finance: false } } }),
      },
    });
    renderAt('/finance', [{ path: '/finance', element: <FinanceActions cloud={CLOUD} product="Total" /> }]);
    await waitFor(() => expect(screen.queryByRole('button')).toBeNull());
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('gives an Owner every action; Logs goes to /logs', async () => {
    const { user, location } = renderActions();
    expect(await screen.findByRole('button', { name: /Notifications/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Set Preferences/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Add product/ })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: /Logs/ }));
    expect(await screen.findByRole('heading', { name: 'Users Activities' })).toBeInTheDocument();
    expect(location()).toBe('/logs');
  });

  it('sets a new alert with the defaults: 80 %, 80 %, this month to December, dates as first days', async () => {
    const { user, writes } = renderActions({
      'GET /api/finance/budget': { status: 200, body: newAlert },
      'POST /api/finance/alerts': { status: 200, body: { message: financeMessages.alertSaved } },
    });
    await user.click(await screen.findByRole('button', { name: /Set alert/ }));
    const form = await screen.findByRole('dialog', { name: 'Set alert: Total' });
    expect(await within(form).findByLabelText('Actual %')).toHaveValue('80');
    expect(within(form).getByLabelText('Forecast %')).toHaveValue('80');
    expect(within(form).getAllByTitle(monthText(thisMonth)).length).toBeGreaterThan(0);
    expect(within(form).getAllByTitle(`Dec ${YEAR}`).length).toBeGreaterThan(0);

    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.alertSaved)).toBeInTheDocument();
    expect(writes()).toHaveLength(1);
    expect(writes()[0]?.body).toEqual({
      cloud: CLOUD,
      product: 'Total',
      actual_alert_percent: 80,
      forecast_alert_percent: 80,
      start: thisMonth,
      end: `${YEAR}-12-01`,
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('sends a disabled percentage as null and the months chosen as YYYY-MM-01', async () => {
    const { user, writes } = renderActions({
      'GET /api/finance/budget': {
        status: 200,
        body: { ...newAlert, id: 'alert-1', actual_alert_percent: 120, forecast_alert_percent: null },
      },
      'POST /api/finance/alerts': { status: 200, body: { message: financeMessages.alertSaved } },
    });
    await user.click(await screen.findByRole('button', { name: /Set alert/ }));
    const form = await screen.findByRole('dialog', { name: 'Set alert: Total' });
    expect(await within(form).findByLabelText('Actual %')).toHaveValue('120');
    expect(within(form).getByRole('switch', { name: 'Forecast alert' })).not.toBeChecked();
    expect(within(form).getByLabelText('Forecast %')).toBeDisabled();

    await chooseOption(user, 'End month', `Mar ${YEAR + 1}`);
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.alertSaved)).toBeInTheDocument();
    expect(writes()[0]?.body).toEqual({
      cloud: CLOUD,
      product: 'Total',
      actual_alert_percent: 120,
      forecast_alert_percent: null,
      start: thisMonth,
      end: `${YEAR + 1}-03-01`,
    });
  });

  it("refuses both alerts off, a backward range and a percentage out of range in the contract's words", async () => {
    const { user, writes } = renderActions({ 'GET /api/finance/budget': { status: 200, body: newAlert } });
    await user.click(await screen.findByRole('button', { name: /Set alert/ }));
    const form = await screen.findByRole('dialog', { name: 'Set alert: Total' });
    await within(form).findByLabelText('Actual %');

    await user.click(within(form).getByRole('switch', { name: 'Actual alert' }));
    await user.click(within(form).getByRole('switch', { name: 'Forecast alert' }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText(financeMessages.alertNeedsOne)).toBeInTheDocument();

    await user.click(within(form).getByRole('switch', { name: 'Actual alert' }));
    await user.clear(within(form).getByLabelText('Actual %'));
    await user.type(within(form).getByLabelText('Actual %'), '1001');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText(financeMessages.invalidPercent)).toBeInTheDocument();

    await user.clear(within(form).getByLabelText('Actual %'));
    await user.type(within(form).getByLabelText('Actual %'), '90');
    await chooseOption(user, 'Start month', `Dec ${YEAR}`);
    await chooseOption(user, 'End month', `Jan ${YEAR}`);
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText(financeMessages.alertRange)).toBeInTheDocument();
    expect(writes()).toHaveLength(0);
  });

  it("shows the server's refusal of an alert, else the spec's fallback", async () => {
    let refusal: FakeReply = { status: 400, body: { message: financeMessages.alertYears } };
    const { user } = renderActions({
      'GET /api/finance/budget': { status: 200, body: newAlert },
      'POST /api/finance/alerts': () => refusal,
    });
    await user.click(await screen.findByRole('button', { name: /Set alert/ }));
    const form = await screen.findByRole('dialog', { name: 'Set alert: Total' });
    await within(form).findByLabelText('Actual %');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect((await screen.findAllByText(financeMessages.alertYears)).length).toBeGreaterThan(0);

    refusal = { status: 500, body: { message: 'Something went wrong. Please try again later.' } };
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.alertSaveFailed)).toBeInTheDocument();
  });

  it('lists the alerts and deletes one after confirmation, with the toast', async () => {
    let alerts = [
      alertOf({}),
      alertOf({
        id: 'alert-2',
        title: 'Production AWS: Amazon S3',
        product: 'AmazonS3',
        actual_alert_percent: null,
        forecast_alert_percent: 90,
        start: `${YEAR + 1}-01-01`,
        end: `${YEAR + 1}-06-01`,
        last_fired: '2026-11-20T08:00:00.000Z',
      }),
    ];
    const { user, calls } = renderActions({
      'GET /api/finance/alerts': () => ({ status: 200, body: alerts }),
      'DELETE /api/finance/alerts/alert-2': () => {
        alerts = alerts.filter((alert) => alert.id !== 'alert-2');
        return { status: 200, body: { message: financeMessages.alertDeleted } };
      },
    });
    await user.click(await screen.findByRole('button', { name: /Notifications/ }));
    const list = await screen.findByRole('dialog', { name: 'Notifications' });
    const s3Row = (await within(list).findByText('Production AWS: Amazon S3')).closest('tr');
    if (!s3Row) throw new Error('no row');
    expect(within(s3Row).getByText('off')).toBeInTheDocument();
    expect(within(s3Row).getByText('90 %')).toBeInTheDocument();
    expect(within(s3Row).getByText(`Jan ${YEAR + 1} – Jun ${YEAR + 1}`)).toBeInTheDocument();
    expect(within(s3Row).getByText('11/20/2026')).toBeInTheDocument();
    const totalRow = within(list).getByText('Production AWS: Total').closest('tr');
    if (!totalRow) throw new Error('no row');
    expect(within(totalRow).getByText('80 %')).toBeInTheDocument();
    expect(within(totalRow).getByText('Never')).toBeInTheDocument();

    await user.click(
      within(list).getByRole('button', { name: 'Delete the alert Production AWS: Amazon S3' }),
    );
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    await user.click(await screen.findByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(financeMessages.alertDeleted)).toBeInTheDocument();
    await waitFor(() => expect(within(list).queryByText('Production AWS: Amazon S3')).toBeNull());
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      '/api/finance/alerts/alert-2',
    ]);
  });

  it('says when deleting fails, and shows the empty state', async () => {
    const { user } = renderActions({
      'GET /api/finance/alerts': { status: 200, body: [alertOf({})] },
      'DELETE /api/finance/alerts/alert-1': { status: 404, body: { message: 'Not found' } },
    });
    await user.click(await screen.findByRole('button', { name: /Notifications/ }));
    const list = await screen.findByRole('dialog', { name: 'Notifications' });
    await user.click(
      await within(list).findByRole('button', { name: 'Delete the alert Production AWS: Total' }),
    );
    await user.click(await screen.findByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(financeMessages.alertDeleteFailed)).toBeInTheDocument();
  });

  it('shows the empty state without alerts', async () => {
    const { user } = renderActions({ 'GET /api/finance/alerts': { status: 200, body: [] } });
    await user.click(await screen.findByRole('button', { name: /Notifications/ }));
    expect(await within(dialog('Notifications')).findByText('No notification found')).toBeInTheDocument();
  });

  it('says when the alerts cannot be read: the toast and the server-error text', async () => {
    const { user } = renderActions({ 'GET /api/finance/alerts': { status: 500, body: {} } });
    await user.click(await screen.findByRole('button', { name: /Notifications/ }));
    // A 5xx is retried twice (1 s, then 2 s) before it counts as failed.
    expect(
      await screen.findByText(financeMessages.alertsFailed, undefined, { timeout: 6000 }),
    ).toBeInTheDocument();
    expect(within(dialog('Notifications')).getByText(financeMessages.alertsServerError)).toBeInTheDocument();
  }, 10_000);

  it('saves the settings with the toast; refuses an invalid e-mail where it was typed; previews the format', async () => {
    const { user, writes } = renderActions({
      'GET /api/finance/settings': { status: 200, body: settings },
      'PUT /api/finance/settings': {
        status: 200,
        body: { message: financeMessages.settingsSaved, settings },
      },
    });
    await user.click(await screen.findByRole('button', { name: /Set Preferences/ }));
    const form = await screen.findByRole('dialog', { name: 'Set Preferences' });
    expect(await within(form).findByText('ada@example.com')).toBeInTheDocument();
    expect(within(form).getByText(/went on 11\/01\/2026 - \d\d:07 with 12 entries/)).toBeInTheDocument();
    expect(within(form).getByText(/^Next digest: 12\/01\/2026/)).toBeInTheDocument();
    expect(within(form).getByRole('radio', { name: 'Monthly' })).toBeChecked();
    expect(within(form).getByLabelText('Preview')).toHaveTextContent('$12,345.67');

    const logsEmails = within(form).getByLabelText('Logs e-mails');
    await user.type(logsEmails, 'not-an-address{enter}');
    expect(await within(form).findByText(financeMessages.invalidEmail('not-an-address'))).toBeInTheDocument();
    expect(writes()).toHaveLength(0);
    await user.clear(logsEmails);
    await user.type(logsEmails, 'Books@Example.com{enter}');
    expect(within(form).queryByText(financeMessages.invalidEmail('not-an-address'))).toBeNull();
    expect(within(form).getByText('books@example.com')).toBeInTheDocument();
    await user.type(within(form).getByLabelText('Alert e-mails'), 'ops@example.com{enter}');
    await user.click(within(form).getByRole('button', { name: 'Remove ops@example.com' }));

    await user.click(within(form).getByRole('radio', { name: 'Weekly' }));
    await user.click(within(form).getByRole('switch', { name: 'Show the dollar sign' }));
    await user.click(within(form).getByRole('switch', { name: 'Show decimals' }));
    expect(within(form).getByLabelText('Preview')).toHaveTextContent(/^12,346$/);

    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.settingsSaved)).toBeInTheDocument();
    expect(writes()[0]?.body).toEqual({
      alert_emails: ['ada@example.com'],
      logs_emails: ['books@example.com'],
      logs_frequency: 'Weekly',
      show_dollar_sign: false,
      show_decimal: false,
      show_border: true,
    });
  });

  it("says when the settings cannot be saved, in the spec's words", async () => {
    const { user } = renderActions({
      'GET /api/finance/settings': {
        status: 200,
        body: { ...settings, last_digest: null, next_digest_at: null },
      },
      'PUT /api/finance/settings': { status: 404, body: { message: 'Not found' } },
    });
    await user.click(await screen.findByRole('button', { name: /Set Preferences/ }));
    const form = await screen.findByRole('dialog', { name: 'Set Preferences' });
    expect(await within(form).findByText('No activity digest has been sent yet.')).toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.settingsFailed)).toBeInTheDocument();
  });

  it('adds a product: an empty name is refused before any call; a saved one toasts', async () => {
    let refusal: FakeReply | null = {
      status: 400,
      body: { message: financeMessages.productExists('Backups') },
    };
    const { user, writes } = renderActions({
      'POST /api/finance/products': () =>
        refusal ?? { status: 200, body: { message: financeMessages.productSaved } },
    });
    await user.click(await screen.findByRole('button', { name: /Add product/ }));
    const form = await screen.findByRole('dialog', { name: 'Add product' });
    await user.type(within(form).getByLabelText('Name'), '   ');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText(financeMessages.productNameRequired)).toBeInTheDocument();
    expect(writes()).toHaveLength(0);

    await user.type(within(form).getByLabelText('Name'), 'Backups');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect((await screen.findAllByText(financeMessages.productExists('Backups'))).length).toBeGreaterThan(0);

    refusal = null;
    await chooseOption(user, 'Category', 'Storage');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(financeMessages.productSaved)).toBeInTheDocument();
    expect(writes().map((call) => call.body)).toEqual([
      { category: 'Others', name: 'Backups' },
      { category: 'Storage', name: 'Backups' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add product' })).toBeNull());
  });
});
