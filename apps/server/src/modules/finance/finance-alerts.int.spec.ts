import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FINANCE_DIGEST_MAX_ENTRIES,
  FINANCE_SETTINGS_DEFAULTS,
  ROLE_ID,
  budgetLabelOf,
  defaultAlertRange,
  financeMessages,
  type BudgetAlert,
  type FinanceSettings,
  type NotificationItem,
} from '@cumulo/contract';
import { startS3rver } from '@cumulo/storage/testing';
import type { PgBoss } from 'pg-boss';
import {
  buyPackage,
  callApi,
  connectS3rverAccount,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { createLogger } from '../../logger.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';
import { AnalyticsCostsRepo } from '../analytics/analytics-costs.repo.ts';
import { registerAnalyticsJobs } from '../analytics/analytics.jobs.ts';
import type { AnalyticsRepo } from '../analytics/analytics.repo.ts';
import type { IngestRun } from '../analytics/ingest/ingest-run.ts';
import { QUEUES } from '../../jobs/boss.ts';
import { AuditRepo } from '../audit/audit.repo.ts';
import { FinanceActuals } from './actuals.ts';
import { FinanceAlertsRepo } from './finance-alerts.repo.ts';
import { FinanceAlertsService } from './finance-alerts.service.ts';
import { FinanceDigest } from './finance-digest.ts';
import { FinanceSettingsRepo } from './finance-settings.repo.ts';

/*
 * Budget alerts, finance settings and the audit digest against embedded PostgreSQL and the SMTP sink.
 *
 * Budgets go in with SQL (the budgets service is another module's); actuals go in as analytics rollup rows
 * (analytics_report_periods + analytics_monthly_costs, exactly what ingestion writes and FinanceActuals reads), so
 * each month's total and its last day of data — which the forecast divides by — are set to the cent. Ingestion
 * itself is covered by the analytics tests. Evaluation and the digest run on services built here with an injected
 * clock (2031), on the server's database, bell and mail; the HTTP calls run on the real clock.
 */

type Member = Awaited<ReturnType<typeof signedInMember>>;
let server: TestServer;
let s3rver: Awaited<ReturnType<typeof startS3rver>>;
let owner: Member;
let user: Member;
let stranger: Member;
let awsId: string;
let clock = new Date('2031-06-15T12:00:00Z');
const queued: string[] = [];
const log = createLogger('silent');
const YEAR = new Date().getUTCFullYear();

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);

/** The alerts service on the injected clock, as the worker builds it, with evaluations queued into `queued`. */
function alertsService() {
  return new FinanceAlertsService(
    new FinanceAlertsRepo(server.db.orm),
    new FinanceSettingsRepo(server.db.orm),
    server.services.cloudAccountsRepo,
    new FinanceActuals(new AnalyticsCostsRepo(server.db.orm), () => clock),
    server.services.entitlements,
    (notice) => server.services.alerts.bell(notice),
    server.services.mail,
    async (organizationId) => void queued.push(organizationId),
    'http://cumulo.test',
    log,
    () => clock,
  );
}

function digestService(mail: { send(mail: OutgoingMail): Promise<void> } = server.services.mail) {
  return new FinanceDigest(
    new FinanceSettingsRepo(server.db.orm),
    new AuditRepo(server.db.orm),
    mail,
    'http://cumulo.test',
    log,
    () => clock,
  );
}

async function setBudget(label: string, month: string, dollars: number) {
  await server.db.pool.query(
    `insert into finance_budgets (organization_id, cloud_account_id, label, month, amount_cents)
     values ($1, $2, $3, $4, $5)
     on conflict (organization_id, cloud_account_id, label, month) do update set amount_cents = excluded.amount_cents`,
    [owner.principal.organizationId, awsId, label, `${month}-01`, Math.round(dollars * 100)],
  );
}

let costRow = 0;
/** Adds a usage cost to a month's current report period (created on first use), as an ingestion would. */
async function addCost(month: string, productCode: string, dollars: number, lastDay: string) {
  const org = owner.principal.organizationId;
  const existing = await server.db.pool.query<{ id: string }>(
    'select id from analytics_report_periods where cloud_account_id = $1 and period = $2 and current',
    [awsId, month],
  );
  const periodId =
    existing.rows[0]?.id ??
    (
      await server.db.pool.query<{ id: string }>(
        `insert into analytics_report_periods (organization_id, cloud_account_id, report, period, layout, version,
           manifest_key, current, line_items, ingested_at)
         values ($1, $2, 'cur', $3, 'cur2', 'v1', 'manifest', true, 1, now()) returning id`,
        [org, awsId, month],
      )
    ).rows[0]?.id;
  costRow += 1;
  await server.db.pool.query(
    `insert into analytics_monthly_costs (organization_id, cloud_account_id, period_id, month, usage_account_id,
       line_item_type, product_code, usage_type, operation, region, resource_id, cost_nano, usage_amount, line_items,
       last_day)
     values ($1, $2, $3, $4, '111122223333', 'Usage', $5, $6, 'op', 'us-east-1', '', $7, 1, 1, $8)`,
    [
      org,
      awsId,
      periodId,
      month,
      productCode,
      `usage-${costRow}`,
      BigInt(Math.round(dollars * 1e9)),
      lastDay,
    ],
  );
}

/** A re-delivered report: the month's period is replaced by a new version holding `dollars`. */
async function redeliver(month: string, productCode: string, dollars: number) {
  await server.db.pool.query(
    'update analytics_report_periods set current = false where cloud_account_id = $1 and period = $2',
    [awsId, month],
  );
  await addCost(month, productCode, dollars, `${month}-28`);
}

const budgetBells = async () =>
  ((await call('GET', '/api/notifications/all', owner)).body as NotificationItem[]).filter((n) =>
    n.title.startsWith('Budget alert'),
  );
const mailsTitled = (title: string) => server.mail.received.filter((m) => m.subject.includes(title));

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  await buyPackage(server, owner, 'finance');
  await buyPackage(server, stranger, 'finance');
  awsId = await connectS3rverAccount(server, owner.token, 'Lab AWS');
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

describe('budget alerts: the calls', () => {
  let saved: BudgetAlert;
  const body = (changes: Record<string, unknown> = {}) => ({
    cloud: awsId,
    product: 'AmazonS3',
    actual_alert_percent: 80,
    forecast_alert_percent: 90,
    start: `${YEAR}-01-01`,
    end: `${YEAR}-12-01`,
    ...changes,
  });

  it('answers the defaults of a pair without an alert', async () => {
    const res = await call('GET', `/api/finance/budget?cloud=${awsId}&product=AmazonS3`, owner);
    expect(res).toMatchObject({
      status: 200,
      body: {
        id: null,
        actual_alert_percent: 80,
        forecast_alert_percent: 80,
        ...defaultAlertRange(new Date()),
      },
    });
    expect((await call('GET', '/api/finance/alerts', owner)).body).toEqual([]);
  });

  it('saves one alert per cloud and product: saving again replaces it, each change audited', async () => {
    const first = await call('POST', '/api/finance/alerts', owner, body());
    expect(first.status, first.raw).toBe(200);
    expect((first.body as { message: string }).message).toBe('Alert saved successfully');
    saved = (first.body as { alert: BudgetAlert }).alert;
    expect(saved).toMatchObject({
      title: `${budgetLabelOf('AmazonS3')} budget of Lab AWS`,
      cloud: awsId,
      product: 'AmazonS3',
      actual_alert_percent: 80,
      forecast_alert_percent: 90,
      last_fired: null,
    });

    const again = await call(
      'POST',
      '/api/finance/alerts',
      owner,
      body({
        actual_alert_percent: 120,
        forecast_alert_percent: null,
        start: `${YEAR + 1}-02-01`,
        end: `${YEAR + 1}-03-01`,
      }),
    );
    expect(again.status, again.raw).toBe(200);
    const listed = (await call('GET', '/api/finance/alerts', owner)).body as BudgetAlert[];
    expect(listed).toEqual([
      {
        ...saved,
        actual_alert_percent: 120,
        forecast_alert_percent: null,
        start: `${YEAR + 1}-02-01`,
        end: `${YEAR + 1}-03-01`,
      },
    ]);
    expect((await call('GET', `/api/finance/budget?cloud=${awsId}&product=AmazonS3`, owner)).body).toEqual({
      id: saved.id,
      actual_alert_percent: 120,
      forecast_alert_percent: null,
      start: `${YEAR + 1}-02-01`,
      end: `${YEAR + 1}-03-01`,
    });
    const audits = await server.db.pool.query(
      `select type, resource from audits where organization_id = $1 and entity = 'Budget alert' order by id`,
      [owner.principal.organizationId],
    );
    expect(audits.rows).toEqual([
      { type: 'Added', resource: saved.title },
      { type: 'Modified', resource: saved.title },
    ]);
    // Saving queues an evaluation, so a budget already past the percentages says so without waiting for a report.
    const jobs = await server.db.pool.query(`select data from pgboss.job where name = 'finance.evaluate'`);
    expect(jobs.rows).toContainEqual({
      data: { organizationId: owner.principal.organizationId, requestId: expect.any(String) },
    });
  });

  it("takes 'Total', a product code or a custom product of the organisation, stored as the product is named", async () => {
    await server.db.pool.query(
      `insert into finance_products (organization_id, name, category) values ($1, 'Render Farm', 'Others')`,
      [owner.principal.organizationId],
    );
    const custom = await call('POST', '/api/finance/alerts', owner, body({ product: 'render farm' }));
    expect(custom.status, custom.raw).toBe(200);
    expect((custom.body as { alert: BudgetAlert }).alert).toMatchObject({
      product: 'Render Farm',
      title: 'Render Farm budget of Lab AWS',
    });
    const total = await call('POST', '/api/finance/alerts', owner, body({ product: 'Total' }));
    expect((total.body as { alert: BudgetAlert }).alert.title).toBe('Total budget of Lab AWS');
    // A report product by its label, even with a custom product of the same name (kept from before such names
    // were refused): the alert watches the product the budget of that name is set on, AmazonEC2.
    await server.db.pool.query(
      `insert into finance_products (organization_id, name, category) values ($1, 'EC2', 'Compute')`,
      [owner.principal.organizationId],
    );
    const byLabel = await call('POST', '/api/finance/alerts', owner, body({ product: 'EC2' }));
    expect(byLabel.status, byLabel.raw).toBe(200);
    const ec2 = (byLabel.body as { alert: BudgetAlert }).alert;
    expect(ec2.product).toBe('AmazonEC2');
    expect((await call('DELETE', `/api/finance/alerts/${ec2.id}`, owner)).status).toBe(200);
    const unknown = await call('POST', '/api/finance/alerts', owner, body({ product: 'Nothing Like It' }));
    expect(unknown).toMatchObject({ status: 400, body: { message: financeMessages.productNameRequired } });
    // Another organisation's custom product is not one of ours.
    expect(
      (
        await call('POST', '/api/finance/alerts', stranger, {
          ...body(),
          cloud: await connectS3rverAccount(server, stranger.token, 'Theirs'),
          product: 'Render Farm',
        })
      ).status,
    ).toBe(400);
  });

  it('refuses bad alerts with the words of the contract, never a 5xx', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ actual_alert_percent: null, forecast_alert_percent: null }, financeMessages.alertNeedsOne],
      [{ actual_alert_percent: 0 }, financeMessages.invalidPercent],
      [{ forecast_alert_percent: 1001 }, financeMessages.invalidPercent],
      [{ actual_alert_percent: 80.5 }, financeMessages.invalidPercent],
      [{ actual_alert_percent: '80' }, financeMessages.invalidPercent],
      [{ start: `${YEAR}-13-01` }, financeMessages.invalidMonth],
      [{ start: `${YEAR}-03-15` }, financeMessages.invalidMonth],
      [{ end: `${YEAR}-02` }, financeMessages.invalidMonth],
      [{ start: `${YEAR}-06-01`, end: `${YEAR}-05-01` }, financeMessages.alertRange],
      [{ start: `${YEAR - 1}-12-01` }, financeMessages.alertYears],
      [{ end: `${YEAR + 2}-01-01` }, financeMessages.alertYears],
    ];
    for (const [changes, message] of cases) {
      const res = await call('POST', '/api/finance/alerts', owner, body(changes));
      expect({ changes, status: res.status, message: (res.body as { message: string }).message }).toEqual({
        changes,
        status: 400,
        message,
      });
    }
    for (const product of ['S3\u0000', '\ud800', 'x'.repeat(101)]) {
      expect((await call('POST', '/api/finance/alerts', owner, body({ product }))).status).toBe(400);
    }
    expect((await call('POST', '/api/finance/alerts', owner, body({ cloud: 'not-a-uuid' }))).status).toBe(
      400,
    );
    expect(
      (
        await call(
          'GET',
          `/api/finance/budget?cloud=${awsId}&product=${encodeURIComponent('a\u0000')}`,
          owner,
        )
      ).status,
    ).toBe(400);
    // Nothing of the refused bodies was saved.
    expect(((await call('GET', '/api/finance/alerts', owner)).body as BudgetAlert[]).length).toBe(3);
  });

  it("answers 404 for another organisation's cloud or alert, and refuses a User's changes", async () => {
    expect((await call('GET', `/api/finance/budget?cloud=${awsId}&product=Total`, stranger)).status).toBe(
      404,
    );
    expect((await call('POST', '/api/finance/alerts', stranger, body())).status).toBe(404);
    expect((await call('DELETE', `/api/finance/alerts/${saved.id}`, stranger)).status).toBe(404);
    expect((await call('GET', '/api/finance/alerts', stranger)).body).toEqual([]);

    expect((await call('GET', '/api/finance/alerts', user)).status).toBe(200);
    expect((await call('POST', '/api/finance/alerts', user, body())).status).toBe(403);
    expect((await call('DELETE', `/api/finance/alerts/${saved.id}`, user)).status).toBe(403);
    expect((await call('PUT', '/api/finance/settings', user, FINANCE_SETTINGS_DEFAULTS)).status).toBe(403);
  });

  it('deletes an alert once, audited; the second time it is gone', async () => {
    const res = await call('DELETE', `/api/finance/alerts/${saved.id}`, owner);
    expect(res).toMatchObject({ status: 200, body: { message: 'Alert deleted successfully.' } });
    expect((await call('DELETE', `/api/finance/alerts/${saved.id}`, owner)).status).toBe(404);
    const listed = (await call('GET', '/api/finance/alerts', owner)).body as BudgetAlert[];
    expect(listed.map((a) => a.product).sort()).toEqual(['Render Farm', 'Total']);
    const deleted = await server.db.pool.query(
      `select count(*)::int as n from audits where entity = 'Budget alert' and type = 'Deleted' and resource_id = $1`,
      [saved.id],
    );
    expect(deleted.rows[0]).toEqual({ n: 1 });
    for (const alert of listed) await call('DELETE', `/api/finance/alerts/${alert.id}`, owner);
  });
});

describe('finance settings', () => {
  it('answers the defaults when never saved', async () => {
    expect((await call('GET', '/api/finance/settings', owner)).body).toEqual({
      ...FINANCE_SETTINGS_DEFAULTS,
      last_digest: null,
      next_digest_at: null,
    });
  });

  it('saves them (addresses lower-cased, once each), audited, and says when the next digest goes', async () => {
    const before = Date.now();
    const res = await call('PUT', '/api/finance/settings', owner, {
      ...FINANCE_SETTINGS_DEFAULTS,
      alert_emails: ['Budget@Example.com', 'budget@example.com', 'cfo@example.com'],
      logs_emails: ['logs@example.com'],
      logs_frequency: 'Weekly',
      show_decimal: false,
    });
    expect(res.status, res.raw).toBe(200);
    const { message, settings } = res.body as { message: string; settings: FinanceSettings };
    expect(message).toBe('Settings saved successfully.');
    expect(settings).toMatchObject({
      alert_emails: ['budget@example.com', 'cfo@example.com'],
      logs_emails: ['logs@example.com'],
      logs_frequency: 'Weekly',
      show_decimal: false,
      last_digest: null,
    });
    // Last week was never sent: the next hourly check sends it.
    const next = Date.parse(settings.next_digest_at ?? '');
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(before + 3_600_000 + 60_000);
    expect((await call('GET', '/api/finance/settings', owner)).body).toEqual(settings);

    // The owner's organisation keeps no digest: the digest tests below use their own.
    await call('PUT', '/api/finance/settings', owner, { ...settings, logs_emails: [] });
    const audits = await server.db.pool.query(
      `select type from audits where organization_id = $1 and entity = 'Finance settings' order by id`,
      [owner.principal.organizationId],
    );
    expect(audits.rows).toEqual([{ type: 'Added' }, { type: 'Modified' }]);
  });

  it('refuses bad addresses and values with 400', async () => {
    const base = { ...FINANCE_SETTINGS_DEFAULTS };
    const bad = await call('PUT', '/api/finance/settings', owner, { ...base, alert_emails: ['nope'] });
    expect(bad).toMatchObject({ status: 400, body: { message: financeMessages.invalidEmail('nope') } });
    for (const changes of [
      { logs_emails: ['a@example.com\u0000'] },
      { logs_emails: Array.from({ length: 21 }, (_, i) => `p${i}@example.com`) },
      { logs_frequency: 'Hourly' },
      { show_border: 'yes' },
    ]) {
      expect((await call('PUT', '/api/finance/settings', owner, { ...base, ...changes })).status).toBe(400);
    }
  });
});

describe('budget alert evaluation (AWS Budgets: once per month and kind, on the first crossing)', () => {
  const s3Title = financeMessages.crossedTitle('S3 on Lab AWS');
  const totalTitle = financeMessages.crossedTitle('Total on Lab AWS');

  beforeAll(async () => {
    clock = new Date('2031-06-15T12:00:00Z');
    const settings = (await call('GET', '/api/finance/settings', owner)).body as FinanceSettings;
    const { last_digest: _last, next_digest_at: _next, ...body } = settings;
    await call('PUT', '/api/finance/settings', owner, {
      ...body,
      alert_emails: ['budget@example.com', 'cfo@example.com'],
    });
  });

  it('saving queues an evaluation; a month under the percentage says nothing, a month without budget is skipped', async () => {
    queued.length = 0;
    const service = alertsService();
    await service.save(owner.principal, {
      cloud: awsId,
      product: 'AmazonS3',
      actual_alert_percent: 80,
      forecast_alert_percent: null,
      start: '2031-03-01',
      end: '2031-12-01',
    });
    expect(queued).toEqual([owner.principal.organizationId]);
    for (const month of ['2031-03', '2031-05', '2031-06']) await setBudget('AmazonS3', month, 1000);
    await setBudget('AmazonS3', '2031-04', 0);
    await addCost('2031-03', 'AmazonS3', 500, '2031-03-31');
    await addCost('2031-04', 'AmazonS3', 5000, '2031-04-30');
    await addCost('2031-05', 'AmazonS3', 100, '2031-05-31');
    expect(await service.evaluate(owner.principal.organizationId)).toEqual({ checked: 1, fired: 0 });
    expect(await budgetBells()).toEqual([]);
  });

  it('the month crosses: one bell notification and one e-mail to each alert address', async () => {
    await addCost('2031-03', 'AmazonS3', 350, '2031-03-31');
    expect(await alertsService().evaluate(owner.principal.organizationId)).toEqual({ checked: 1, fired: 1 });
    const bells = await budgetBells();
    expect(bells).toHaveLength(1);
    expect(bells[0]).toMatchObject({
      status: 'alerts',
      title: s3Title,
      description:
        'Actual spending of S3 on Lab AWS for 2031-03 is $850.00, 85 % of the $1,000.00 budget (alert at 80 %)',
      link: '/finance',
    });
    await server.mail.waitFor('budget@example.com', s3Title);
    await server.mail.waitFor('cfo@example.com', s3Title);
    expect(mailsTitled(s3Title).map((m) => m.to)).toEqual([['budget@example.com'], ['cfo@example.com']]);
    expect(mailsTitled(s3Title)[0]?.body).toContain('$850.00, 85 % of the $1,000.00 budget');
    const [alert] = await alertsService().list(owner.principal);
    expect(alert?.last_fired).not.toBeNull();
  });

  it('a re-delivered month, another evaluation or two at once never notify twice', async () => {
    await redeliver('2031-03', 'AmazonS3', 900);
    expect(await alertsService().evaluate(owner.principal.organizationId)).toEqual({ checked: 1, fired: 0 });
    const twice = await Promise.all([
      alertsService().evaluate(owner.principal.organizationId),
      alertsService().evaluate(owner.principal.organizationId),
    ]);
    expect(twice.map((r) => r.fired)).toEqual([0, 0]);
    expect(await budgetBells()).toHaveLength(1);
    expect(mailsTitled(s3Title)).toHaveLength(2);
  });

  it('the next month crossing fires anew, once, even with two evaluations racing', async () => {
    await addCost('2031-05', 'AmazonS3', 700, '2031-05-31');
    const racing = await Promise.all([
      alertsService().evaluate(owner.principal.organizationId),
      alertsService().evaluate(owner.principal.organizationId),
    ]);
    expect(racing.reduce((sum, r) => sum + r.fired, 0)).toBe(1);
    const bells = await budgetBells();
    expect(bells).toHaveLength(2);
    expect(bells[0]?.description).toBe(
      'Actual spending of S3 on Lab AWS for 2031-05 is $800.00, 80 % of the $1,000.00 budget (alert at 80 %)',
    );
    await server.mail.waitFor('cfo@example.com', s3Title);
    await expect.poll(() => mailsTitled(s3Title).length).toBe(4);
  });

  it("the forecast alert compares the current month's forecast (spec 000 §5), and mails the creator when no address is set", async () => {
    const settings = (await call('GET', '/api/finance/settings', owner)).body as FinanceSettings;
    const { last_digest: _last, next_digest_at: _next, ...body } = settings;
    await call('PUT', '/api/finance/settings', owner, { ...body, alert_emails: [] });
    await alertsService().save(owner.principal, {
      cloud: awsId,
      product: 'Total',
      actual_alert_percent: null,
      forecast_alert_percent: 100,
      start: '2031-05-01',
      end: '2031-12-01',
    });
    await setBudget('Total', '2031-05', 100);
    await setBudget('Total', '2031-06', 3000);
    // June, data through the 10th: $600 forecasts $600 / 10 × 30 = $1,800, under the $3,000 budget. (May, over its
    // budget, is past: a forecast alert only watches the current month.)
    await addCost('2031-06', 'AmazonS3', 600, '2031-06-10');
    expect(await alertsService().evaluate(owner.principal.organizationId)).toEqual({ checked: 2, fired: 0 });
    // $1,100 by the 10th forecasts $3,300: 110 % of the budget, though the actual is 37 %.
    await addCost('2031-06', 'AmazonEC2', 500, '2031-06-10');
    expect(await alertsService().evaluate(owner.principal.organizationId)).toEqual({ checked: 2, fired: 1 });
    expect(await alertsService().evaluate(owner.principal.organizationId)).toEqual({ checked: 2, fired: 0 });
    const [latest] = await budgetBells();
    expect(latest).toMatchObject({
      title: totalTitle,
      description:
        'Forecast spending of Total on Lab AWS for 2031-06 is $3,300.00, 110 % of the $3,000.00 budget (alert at 100 %)',
    });
    await server.mail.waitFor(owner.email, totalTitle);
    expect(mailsTitled(totalTitle).map((m) => m.to)).toEqual([[owner.email]]);
    const firings = await server.db.pool.query(
      `select month::text, kind, value_cents::int, budget_cents::int, percent from finance_alert_firings
       where organization_id = $1 order by month, kind`,
      [owner.principal.organizationId],
    );
    expect(firings.rows).toEqual([
      { month: '2031-03-01', kind: 'actual', value_cents: 85000, budget_cents: 100000, percent: 80 },
      { month: '2031-05-01', kind: 'actual', value_cents: 80000, budget_cents: 100000, percent: 80 },
      { month: '2031-06-01', kind: 'forecast', value_cents: 330000, budget_cents: 300000, percent: 100 },
    ]);
  });

  it('watches from the month it was set in: a month closed before then is not told about at once', async () => {
    const { alert } = await alertsService().save(owner.principal, {
      cloud: awsId,
      product: 'AmazonEC2',
      actual_alert_percent: 80,
      forecast_alert_percent: null,
      start: '2031-01-01',
      end: '2031-12-01',
    });
    await server.db.pool.query(
      `update finance_alerts set created_at = '2031-06-10T09:00:00Z' where id = $1`,
      [alert.id],
    );
    // April was over its budget before the alert was set; June (the month it was set in) is over it too.
    await setBudget('AmazonEC2', '2031-04', 100);
    await addCost('2031-04', 'AmazonEC2', 500, '2031-04-30');
    await setBudget('AmazonEC2', '2031-06', 100);
    await alertsService().evaluate(owner.principal.organizationId);
    const firings = await server.db.pool.query(
      `select month::text from finance_alert_firings where alert_id = $1 order by month`,
      [alert.id],
    );
    expect(firings.rows).toEqual([{ month: '2031-06-01' }]);
  });
});

describe('evaluated after every ingestion', () => {
  it('the analytics ingest handler queues an evaluation of the organisation once its run is over', async () => {
    const handlers = new Map<string, (jobs: unknown[]) => Promise<unknown>>();
    const boss = {
      work: async (name: string, ...rest: unknown[]) => {
        handlers.set(name, rest.at(-1) as (jobs: unknown[]) => Promise<unknown>);
      },
    } as unknown as PgBoss;
    const steps: string[] = [];
    const ingest = {
      run: async () => {
        steps.push('ingest');
        return undefined;
      },
    } as unknown as IngestRun;
    await registerAnalyticsJobs(boss, ingest, {} as AnalyticsRepo, log, false, async (organizationId) => {
      steps.push(`evaluate ${organizationId}`);
    });
    const job = { data: { organizationId: 'org-1', accountId: 'account-1', trigger: 'schedule' } };
    await handlers.get(QUEUES.analyticsIngest)?.([job]);
    expect(steps).toEqual(['ingest', 'evaluate org-1']);
  });
});

describe('the audit digest (hourly check, injected clock)', () => {
  let digester: Member;
  const LOGS = ['digest-a@example.com', 'digest-b@example.com'];
  const digests = () => server.mail.received.filter((m) => m.to.includes(LOGS[0] ?? ''));

  async function entry(resource: string, at: string) {
    await server.db.pool.query(
      `insert into audits (organization_id, author_user_id, author_name, entity, type, resource, created_at)
       values ($1, $2, 'Digest Test', 'Budget', 'Modified', $3, $4)`,
      [digester.principal.organizationId, digester.principal.userId, resource, at],
    );
  }
  async function frequency(logs_frequency: 'Daily' | 'Weekly' | 'Monthly') {
    const res = await call('PUT', '/api/finance/settings', digester, {
      ...FINANCE_SETTINGS_DEFAULTS,
      logs_emails: LOGS,
      logs_frequency,
    });
    expect(res.status, res.raw).toBe(200);
  }
  const runAt = async (at: string, mail?: { send(mail: OutgoingMail): Promise<void> }) => {
    clock = new Date(at);
    return digestService(mail).runDue();
  };

  beforeAll(async () => {
    digester = await signedInMember(server, 'digester');
    await buyPackage(server, digester, 'finance');
    await entry('before-the-day', '2031-03-02T23:59:59Z');
    await entry('monday-early', '2031-03-03T00:00:00Z');
    await entry('monday-late', '2031-03-03T23:59:59Z');
    await entry('tuesday', '2031-03-04T08:00:00Z');
    await entry('sunday-night', '2031-03-09T23:59:00Z');
    await entry('next-monday', '2031-03-10T00:00:00Z');
    await entry('end-of-february', '2031-02-28T23:59:00Z');
    await entry('april-first', '2031-04-01T00:00:00Z');
  });

  it('Daily: yesterday UTC, once, to every logs address in one mail', async () => {
    await frequency('Daily');
    expect(await runAt('2031-03-04T10:07:00Z')).toEqual({ sent: 1, failed: 0 });
    expect(await runAt('2031-03-04T11:07:00Z')).toEqual({ sent: 0, failed: 0 });
    expect(await runAt('2031-03-04T23:07:00Z')).toEqual({ sent: 0, failed: 0 });
    expect(digests()).toHaveLength(1);
    const [mail] = digests();
    expect(mail?.to).toEqual(LOGS);
    expect(mail?.subject).toBe('Cumulo activity digest: 2031-03-03');
    expect(mail?.body).toContain('2 changes in 2031-03-03.');
    expect(mail?.body).toContain('Budget: 2 (Modified 2)');
    expect(mail?.body).toContain('2031-03-03 23:59 UTC | Digest Test | Budget | monday-late | Modified');
    expect(mail?.body.indexOf('monday-late')).toBeLessThan(mail?.body.indexOf('monday-early') ?? 0);
    for (const other of ['before-the-day', 'tuesday']) expect(mail?.body).not.toContain(other);
  });

  it('a failed send is recorded and retried by the next hourly check, then never again', async () => {
    const down = { send: async () => Promise.reject(new Error('SMTP server unavailable')) };
    expect(await runAt('2031-03-05T00:07:00Z', down)).toEqual({ sent: 0, failed: 1 });
    expect(digests()).toHaveLength(1);
    const failed = (await call('GET', '/api/finance/settings', digester)).body as FinanceSettings;
    expect(failed.last_digest).toMatchObject({
      period_start: '2031-03-04T00:00:00.000Z',
      period_end: '2031-03-05T00:00:00.000Z',
      sent_at: null,
      error: 'SMTP server unavailable',
    });
    expect(await runAt('2031-03-05T01:07:00Z')).toEqual({ sent: 1, failed: 0 });
    expect(await runAt('2031-03-05T02:07:00Z')).toEqual({ sent: 0, failed: 0 });
    expect(digests().map((m) => m.subject)).toEqual([
      'Cumulo activity digest: 2031-03-03',
      'Cumulo activity digest: 2031-03-04',
    ]);
    expect(digests()[1]?.body).toContain('tuesday');
    const sent = (await call('GET', '/api/finance/settings', digester)).body as FinanceSettings;
    expect(sent.last_digest).toMatchObject({ entries: 1, error: null });
    expect(sent.last_digest?.sent_at).not.toBeNull();
  });

  it('an empty period still sends a short "no activity" digest', async () => {
    expect(await runAt('2031-03-06T00:07:00Z')).toEqual({ sent: 1, failed: 0 });
    const last = digests().at(-1);
    expect(last?.subject).toBe('Cumulo activity digest: 2031-03-05');
    expect(last?.body).toContain('No activity in 2031-03-05');
  });

  it('Weekly: the last Monday–Sunday week UTC, once', async () => {
    await frequency('Weekly');
    const before = digests().length;
    expect(await runAt('2031-03-12T05:07:00Z')).toEqual({ sent: 1, failed: 0 });
    expect(await runAt('2031-03-16T23:07:00Z')).toEqual({ sent: 0, failed: 0 });
    expect(digests()).toHaveLength(before + 1);
    const mail = digests().at(-1);
    expect(mail?.subject).toBe('Cumulo activity digest: 2031-03-03 to 2031-03-09');
    expect(mail?.body).toContain('4 changes in 2031-03-03 to 2031-03-09.');
    for (const inside of ['monday-early', 'monday-late', 'tuesday', 'sunday-night'])
      expect(mail?.body).toContain(inside);
    for (const outside of ['before-the-day', 'next-monday']) expect(mail?.body).not.toContain(outside);
  });

  it('Monthly: last calendar month UTC, at most FINANCE_DIGEST_MAX_ENTRIES listed and "and N more" linking /logs', async () => {
    await frequency('Monthly');
    await server.db.pool.query(
      `insert into audits (organization_id, author_name, entity, type, resource, created_at)
       select $1, 'Digest Test', 'Product', 'Added', 'bulk-' || n, '2031-03-20T12:00:00Z'::timestamptz
       from generate_series(1, $2::int) n`,
      [digester.principal.organizationId, FINANCE_DIGEST_MAX_ENTRIES],
    );
    const before = digests().length;
    expect(await runAt('2031-04-01T00:07:00Z')).toEqual({ sent: 1, failed: 0 });
    expect(await runAt('2031-04-20T00:07:00Z')).toEqual({ sent: 0, failed: 0 });
    expect(digests()).toHaveLength(before + 1);
    const mail = digests().at(-1);
    const total = FINANCE_DIGEST_MAX_ENTRIES + 6;
    expect(mail?.subject).toBe('Cumulo activity digest: 2031-03');
    expect(mail?.body).toContain(`${total} changes in 2031-03.`);
    expect(mail?.body).toContain('Budget: 6 (Modified 6)');
    expect(mail?.body).toContain(
      `Product: ${FINANCE_DIGEST_MAX_ENTRIES} (Added ${FINANCE_DIGEST_MAX_ENTRIES})`,
    );
    expect(mail?.body).toContain('and 6 more: http://cumulo.test/logs');
    // Newest first: the bulk of the 20th fills the list, the older entries are the ones counted as more.
    expect(mail?.body).not.toContain('monday-early');
    for (const outside of ['end-of-february', 'april-first']) expect(mail?.body).not.toContain(outside);
    const row = await server.db.pool.query(
      `select entries, recipients, sent_at is not null as sent from finance_digests
       where organization_id = $1 and frequency = 'Monthly'`,
      [digester.principal.organizationId],
    );
    expect(row.rows).toEqual([{ entries: total, recipients: 2, sent: true }]);
  });
});
