import {
  ALERT_PERCENT_DEFAULT,
  BUDGET_TOTAL_LABEL,
  budgetLabelOf,
  defaultAlertRange,
  financeMessages,
  formatFinanceAmount,
  productLabelOf,
  type BudgetAlert,
  type BudgetAlertConfig,
  type SetBudgetAlertBody,
} from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { AlertsService } from '../alerts/alerts.service.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { centsOf, type FinanceActuals } from './actuals.ts';
import type { FinanceAlertRow, FinanceAlertsRepo, FiringKind } from './finance-alerts.repo.ts';
import type { FinanceSettingsRepo } from './finance-settings.repo.ts';
import { budgetAlertMail } from './finance.mail.ts';
import { resolveBudgetLabel } from './budget-labels.ts';

/** An alert as the list and the audit trail name it: "S3 budget of My AWS". */
const alertTitle = (label: string, accountName: string) => `${budgetLabelOf(label)} budget of ${accountName}`;

/** The months 'YYYY-MM' from `from` to `to`, inclusive. */
function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [year, month] = from.split('-').map(Number) as [number, number];
  for (let current = from; current <= to;) {
    months.push(current);
    month += 1;
    if (month > 12) [year, month] = [year + 1, 1];
    current = `${year}-${String(month).padStart(2, '0')}`;
  }
  return months;
}

const money = (cents: number) =>
  formatFinanceAmount(cents / 100, { show_dollar_sign: true, show_decimal: true });

/** Whether `value` is at least `percent` % of `budget` (all integers: no rounding decides a crossing). */
const crosses = (valueCents: number, budgetCents: number, percent: number) =>
  valueCents * 100 >= percent * budgetCents;

const audited = (row: FinanceAlertRow, accountName: string) => ({
  account: accountName,
  product: row.label,
  actual_alert_percent: row.actualPercent,
  forecast_alert_percent: row.forecastPercent,
  start: row.start,
  end: row.end,
});

type Bell = AlertsService['bell'];

/**
 * Budget alerts (spec 002 §3 "Budget alert", §5, §7; issue 25): one per cloud account and label, fired once per
 * month and kind on the first crossing (as AWS Budgets does), to the bell and to `alert_emails`.
 */
export class FinanceAlertsService {
  constructor(
    private readonly repo: FinanceAlertsRepo,
    private readonly settings: Pick<FinanceSettingsRepo, 'get'>,
    private readonly accounts: Pick<CloudAccountsRepo, 'find' | 'list'>,
    private readonly actuals: FinanceActuals,
    private readonly entitlements: Pick<Entitlements, 'may'>,
    private readonly bell: (notice: Parameters<Bell>[0]) => Promise<void>,
    private readonly mail: Pick<MailService, 'send'>,
    private readonly enqueueEvaluation: (organizationId: string) => Promise<void>,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** GET /finance/budget?cloud&product: the pair's alert, or what a new one starts with. */
  async config(principal: Principal, cloud: string, product: string): Promise<BudgetAlertConfig> {
    await this.#gate(principal);
    await this.#account(principal.organizationId, cloud);
    const row = await this.repo.find(principal.organizationId, cloud, product);
    if (!row) {
      return {
        id: null,
        actual_alert_percent: ALERT_PERCENT_DEFAULT,
        forecast_alert_percent: ALERT_PERCENT_DEFAULT,
        ...defaultAlertRange(this.now()),
      };
    }
    return {
      id: row.id,
      actual_alert_percent: row.actualPercent,
      forecast_alert_percent: row.forecastPercent,
      start: row.start,
      end: row.end,
    };
  }

  async list(principal: Principal): Promise<BudgetAlert[]> {
    await this.#gate(principal);
    const names = await this.#accountNames(principal.organizationId);
    return (await this.repo.list(principal.organizationId)).map((row) => ({
      id: row.id,
      title: alertTitle(row.label, names.get(row.cloudAccountId) ?? row.cloudAccountId),
      cloud: row.cloudAccountId,
      product: row.label,
      actual_alert_percent: row.actualPercent,
      forecast_alert_percent: row.forecastPercent,
      start: row.start,
      end: row.end,
      last_fired: row.lastFired?.toISOString() ?? null,
    }));
  }

  async save(principal: Principal, body: SetBudgetAlertBody) {
    authorize(principal, 'finance.manage');
    await this.#gate(principal);
    if (body.actual_alert_percent === null && body.forecast_alert_percent === null) {
      throw badRequest(financeMessages.alertNeedsOne);
    }
    if (body.end < body.start)
      throw badRequest(financeMessages.alertRange, { end: [financeMessages.alertRange] });
    const year = this.now().getUTCFullYear();
    for (const [field, value] of [
      ['start', body.start],
      ['end', body.end],
    ] as const) {
      const valueYear = Number(value.slice(0, 4));
      if (valueYear < year || valueYear > year + 1) {
        throw badRequest(financeMessages.alertYears, { [field]: [financeMessages.alertYears] });
      }
    }
    const account = await this.#account(principal.organizationId, body.cloud);
    const label = await this.#label(principal.organizationId, account.id, body.product);
    const row = await this.repo.transaction(async (tx, orm) => {
      const before = await tx.lock(principal.organizationId, account.id, label);
      const saved = await tx.upsert({
        organizationId: principal.organizationId,
        cloudAccountId: account.id,
        label,
        actualPercent: body.actual_alert_percent,
        forecastPercent: body.forecast_alert_percent,
        start: body.start,
        end: body.end,
        createdBy: principal.userId,
      });
      await recordAudit(orm, principal, {
        entity: 'Budget alert',
        type: before ? 'Modified' : 'Added',
        resource: alertTitle(label, account.name),
        resourceId: saved.id,
        changes: changesOf(before ? audited(before, account.name) : null, audited(saved, account.name)),
      });
      return saved;
    });
    // A budget already past the new percentages should say so now, not after the next billing report.
    await this.enqueueEvaluation(principal.organizationId);
    const [alert] = (await this.list(principal)).filter((a) => a.id === row.id);
    if (!alert) throw notFound();
    return { message: financeMessages.alertSaved, alert };
  }

  async remove(principal: Principal, id: string) {
    authorize(principal, 'finance.manage');
    await this.#gate(principal);
    const removed = await this.repo.transaction(async (tx, orm) => {
      const row = await tx.delete(principal.organizationId, id);
      if (!row) return undefined;
      const account = await this.accounts.find(principal.organizationId, row.cloudAccountId);
      const accountName = account?.name ?? row.cloudAccountId;
      await recordAudit(orm, principal, {
        entity: 'Budget alert',
        type: 'Deleted',
        resource: alertTitle(row.label, accountName),
        resourceId: row.id,
        changes: changesOf(audited(row, accountName), null),
      });
      return row;
    });
    if (!removed) throw notFound();
    return { message: financeMessages.alertDeleted };
  }

  /**
   * Compares every alert of the organisation with its budgets, for each month of its range up to the current one:
   * the actual against `actual_alert_percent`, and in the current month the forecast (spec 000 §5) against
   * `forecast_alert_percent`. A month without a budget (or a budget of 0) is skipped. The first crossing of a
   * month and kind inserts its firing row and notifies; later evaluations find the row and say nothing.
   */
  async evaluate(organizationId: string): Promise<{ checked: number; fired: number }> {
    const alerts = (await this.repo.list(organizationId)).filter(
      (a) => a.actualPercent !== null || a.forecastPercent !== null,
    );
    if (alerts.length === 0) return { checked: 0, fired: 0 };
    const current = this.now().toISOString().slice(0, 7);
    const from = alerts.map((a) => a.start.slice(0, 7)).reduce((a, b) => (a < b ? a : b));
    const latest = alerts.map((a) => a.end.slice(0, 7)).reduce((a, b) => (a > b ? a : b));
    const to = latest < current ? latest : current;
    if (from > to) return { checked: alerts.length, fired: 0 };
    const [budgetRows, actuals, names, settings] = await Promise.all([
      this.repo.budgets(organizationId, from, to),
      this.actuals.read(organizationId, null, from, to),
      this.#accountNames(organizationId),
      this.settings.get(organizationId),
    ]);
    const budgetKey = (cloud: string, label: string, month: string) =>
      `${cloud} ${label.toLowerCase()} ${month}`;
    const budgets = new Map(
      budgetRows.map((b) => [budgetKey(b.cloudAccountId, b.label, b.month), b.amountCents]),
    );
    let fired = 0;
    for (const alert of alerts) {
      const accountName = names.get(alert.cloudAccountId);
      if (accountName === undefined) continue;
      const end = alert.end.slice(0, 7) < to ? alert.end.slice(0, 7) : to;
      // As AWS Budgets, an alert watches from the month it was set in: months that closed before it was set are
      // not told about at once, one notice and one e-mail each (their figures are on /finance).
      const setIn = alert.createdAt.toISOString().slice(0, 7);
      const start = alert.start.slice(0, 7) > setIn ? alert.start.slice(0, 7) : setIn;
      for (const month of monthsBetween(start, end)) {
        const budget = budgets.get(budgetKey(alert.cloudAccountId, alert.label, month));
        if (!budget) continue;
        const spent = actuals.of(alert.cloudAccountId, alert.label, month);
        const candidates: Array<{ kind: FiringKind; cents: number; percent: number }> = [];
        if (alert.actualPercent !== null) {
          candidates.push({ kind: 'actual', cents: centsOf(spent.actualNano), percent: alert.actualPercent });
        }
        if (alert.forecastPercent !== null && month === current && spent.forecastNano !== null) {
          candidates.push({
            kind: 'forecast',
            cents: centsOf(spent.forecastNano),
            percent: alert.forecastPercent,
          });
        }
        for (const candidate of candidates) {
          if (!crosses(candidate.cents, budget, candidate.percent)) continue;
          const won = await this.repo.claimFiring({
            alertId: alert.id,
            organizationId,
            month: `${month}-01`,
            kind: candidate.kind,
            valueCents: candidate.cents,
            budgetCents: budget,
            percent: candidate.percent,
          });
          if (!won) continue;
          fired += 1;
          await this.#notify(
            alert,
            accountName,
            month,
            { ...candidate, budget },
            settings?.alertEmails ?? [],
          );
        }
      }
    }
    return { checked: alerts.length, fired };
  }

  async #notify(
    alert: FinanceAlertRow,
    accountName: string,
    month: string,
    crossing: { kind: FiringKind; cents: number; percent: number; budget: number },
    alertEmails: readonly string[],
  ) {
    const scope = `${budgetLabelOf(alert.label)} on ${accountName}`;
    const title = financeMessages.crossedTitle(scope);
    const share = Math.floor((crossing.cents * 100) / crossing.budget);
    const description =
      `${crossing.kind === 'actual' ? 'Actual' : 'Forecast'} spending of ${scope} for ${month} is ` +
      `${money(crossing.cents)}, ${share} % of the ${money(crossing.budget)} budget (alert at ${crossing.percent} %)`;
    await this.bell({
      organizationId: alert.organizationId,
      title,
      description,
      status: 'alerts',
      link: '/finance',
    });
    const creator =
      alertEmails.length === 0 && alert.createdBy
        ? await this.repo.memberEmail(alert.organizationId, alert.createdBy)
        : undefined;
    const recipients = alertEmails.length > 0 ? alertEmails : creator ? [creator] : [];
    const link = `${this.publicUrl}/finance`;
    for (const to of recipients) {
      try {
        await this.mail.send(budgetAlertMail(to, title, description, link));
      } catch (error) {
        // The bell already shows the crossing, and the firing row stays: a mail outage never fires it again.
        this.log.warn({ err: error, alertId: alert.id }, 'budget alert e-mail could not be sent');
      }
    }
    this.log.info({ alertId: alert.id, month, kind: crossing.kind }, 'budget alert fired');
  }

  /** A budget label as stored: 'Total', a product code (of the reports or known), or a custom product's name. */
  async #label(organizationId: string, accountId: string, typed: string): Promise<string> {
    if (typed.toLowerCase() === BUDGET_TOTAL_LABEL.toLowerCase()) return BUDGET_TOTAL_LABEL;
    const year = this.now().getUTCFullYear();
    const [table, custom] = await Promise.all([
      this.actuals.read(organizationId, accountId, `${year - 1}-01`, `${year + 1}-12`),
      this.repo.customProductName(organizationId, typed),
    ]);
    // The same resolution as the budget's (BudgetsService #label), so the alert watches that budget.
    const label = resolveBudgetLabel(
      typed,
      table.productCodes(accountId),
      custom === undefined ? [] : [custom],
    );
    if (label !== undefined) return label;
    if (productLabelOf(typed) !== typed) return typed;
    throw badRequest(financeMessages.productNameRequired, { product: [financeMessages.productNameRequired] });
  }

  async #account(organizationId: string, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(organizationId, id);
    if (!account) throw notFound();
    return account;
  }

  async #accountNames(organizationId: string): Promise<Map<string, string>> {
    return new Map((await this.accounts.list(organizationId)).map((a) => [a.id, a.name]));
  }

  async #gate(principal: Principal) {
    requireService(principal, 'finance');
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'finance',
      financeMessages.packageRequired,
    );
  }
}
