import {
  csvCell,
  BUDGET_TOTAL_LABEL,
  budgetLabelOf,
  costCategoryOf,
  financeMessages,
  productLabelOf,
  type BudgetHierarchical,
  type BudgetQuery,
  type BudgetRow,
  type ChartPoint,
  type CreateProductBody,
  type FinanceProduct,
  type PutBudgetBody,
  type TreeNode,
} from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import { changesOf, recordAudit, type AuditEvent } from '../audit/audit.writer.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { centsOf, type ActualsTable, type FinanceActuals } from './actuals.ts';
import type { BudgetMonth, BudgetsRepo, ProductRow } from './budgets.repo.ts';
import { monthsOfRange, spreadCents, type MonthCents } from './spread.ts';
import { KNOWN_CODES, resolveBudgetLabel } from './budget-labels.ts';

/** Every month a report product code can be read from: the widest years a finance query takes. */
const ALL_MONTHS = ['2000-01', '2100-12'] as const;
/** The CSV's columns (GET /finance/budget.csv), as the table shows them. */
const BUDGET_CSV_COLUMNS = ['month', 'budget', 'actual', 'forecast', 'difference', 'percent used'] as const;

const dollars = (cents: number) => cents / 100;
const shown = (cents: number | null) => (cents === null ? null : (cents / 100).toFixed(2));
const sumOrNull = (values: readonly (number | null)[]) =>
  values.some((value) => value !== null)
    ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
    : null;
const yearMonths = (year: number) => monthsOfRange(`${year}-01`, `${year}-12`) ?? [];

/** The budgets of a range held for lookups by account, label and month. */
class BudgetBook {
  readonly #cents = new Map<string, number>();
  constructor(readonly months: readonly BudgetMonth[]) {
    for (const row of months) this.#cents.set(`${row.cloudAccountId}|${row.label}|${row.month}`, row.cents);
  }

  of(cloudAccountId: string, label: string, month: string): number | null {
    return this.#cents.get(`${cloudAccountId}|${label}|${month}`) ?? null;
  }

  /** The sum of the product budgets set for a cloud's month (its sub budgets), null when none is set. */
  subBudgets(cloudAccountId: string, month: string): number | null {
    return sumOrNull(
      this.months
        .filter((row) => row.cloudAccountId === cloudAccountId && row.month === month)
        .filter((row) => row.label !== BUDGET_TOTAL_LABEL)
        .map((row) => row.cents),
    );
  }

  /** The labels other than the total that have a budget for the account. */
  productLabels(cloudAccountId: string): string[] {
    return [
      ...new Set(
        this.months
          .filter((row) => row.cloudAccountId === cloudAccountId && row.label !== BUDGET_TOTAL_LABEL)
          .map((row) => row.label),
      ),
    ];
  }
}

/**
 * Spec 002 §7 "Budget and finance" warning: a cloud's month whose product budgets, when any is set, do not add
 * up to its own (total) budget — 'sub budgets does not match total budget'.
 */
const subBudgetsMismatch = (total: number | null, subBudgets: number | null) =>
  subBudgets !== null && subBudgets !== total;

/**
 * Budgets, custom products and the budget-versus-actual views (issue 25 point 1, the CSV of point 4). Budgets are
 * per cloud account, label (the cloud's Total, a report product code or a custom product) and month, in cents;
 * actuals come from the analytics rollups through `FinanceActuals`. Every call needs the finance ACL and the
 * Finance package; changes also pass `finance.budget`.
 */
export class BudgetsService {
  constructor(
    private readonly repo: BudgetsRepo,
    private readonly accounts: Pick<CloudAccountsRepo, 'find' | 'list'>,
    private readonly actuals: FinanceActuals,
    private readonly entitlements: Pick<Entitlements, 'may'>,
    /** Queues the organisation's budget-alert evaluation (modules/finance jobs). */
    private readonly enqueueEvaluation: (organizationId: string) => Promise<void> = async () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * PUT /finance/budget. 'yearly' spreads the amount over start..end (default January..December of the year of
   * `month`, else of this year) and replaces those months at once; 'monthly' sets one month. One transaction,
   * one audit entry: a year is never half written.
   */
  async put(principal: Principal, body: PutBudgetBody): Promise<{ message: string }> {
    authorize(principal, 'finance.budget');
    await this.#package(principal);
    const account = await this.#account(principal, body.cloud);
    const label = await this.#label(principal, account, body.label, true);
    const months = this.#monthsOf(body);
    const year = Number(months[0]?.slice(0, 4));
    const cents = Math.round(body.amount * 100);
    const spread: MonthCents[] =
      body.flag === 'yearly' ? spreadCents(cents, months) : months.map((month) => ({ month, cents }));

    await this.repo.transaction(async (tx) => {
      await tx.lockYear(principal.organizationId, account.id, label, year);
      const held = (await tx.months(principal.organizationId, account.id, `${year}-01`, `${year}-12`)).filter(
        (row) => row.label === label,
      );
      await tx.setMonths(principal.organizationId, account.id, label, spread, principal.userId);
      await recordAudit(tx.orm, principal, {
        entity: 'Budget',
        resourceId: account.id,
        ...budgetChangeOf(body.flag, `${label} budget of ${account.name}`, held, spread),
      });
    });
    // The alerts on this budget compare against the new amount now, not at the next billing report.
    await this.enqueueEvaluation(principal.organizationId);
    return { message: financeMessages.budgetUpdated };
  }

  /** GET /finance/budget/hierarchical: a cloud's label by month, with the chart's points and the year's sums. */
  async hierarchical(principal: Principal, query: BudgetQuery): Promise<BudgetHierarchical> {
    await this.#gate(principal);
    const account = await this.#account(principal, query.cloud);
    const label = await this.#label(principal, account, query.label, false);
    const compare = query.compare ? await this.#label(principal, account, query.compare, false) : null;
    const months = yearMonths(query.year);
    const [table, book, withReports] = await Promise.all([
      this.actuals.read(principal.organizationId, account.id, `${query.year}-01`, `${query.year}-12`),
      this.#book(principal, account.id, query.year),
      this.actuals.accountsWithReports(principal.organizationId),
    ]);
    const rows = months.map((month) => budgetRowOf(table, book, account.id, label, month));
    const chart = rows.map((row): ChartPoint => {
      const point: ChartPoint = {
        month: row.month,
        actual: row.actual,
        budget: row.budget,
        forecast: row.forecast,
      };
      if (compare === null) return point;
      const other = table.of(account.id, compare, row.month);
      const budgetCmp = book.of(account.id, compare, row.month);
      return {
        ...point,
        actual_cmp: dollars(centsOf(other.actualNano)),
        budget_cmp: budgetCmp === null ? null : dollars(budgetCmp),
      };
    });
    const lastDays = months.map((month) => table.of(account.id, BUDGET_TOTAL_LABEL, month).lastDay);
    const dataThrough = lastDays.reduce<string | null>(
      (latest, day) => (day !== null && (latest === null || day > latest) ? day : latest),
      null,
    );
    const centsRows = months.map((month) => monthCents(table, book, account.id, label, month));
    const yearlyBudget = sumOrNull(centsRows.map((row) => row.budget));
    const yearlyForecast = sumOrNull(centsRows.map((row) => row.forecast));
    return {
      cloud: account.id,
      label,
      year: query.year,
      compare,
      rows,
      chart,
      yearly: {
        budget: yearlyBudget === null ? null : dollars(yearlyBudget),
        actual: dollars(centsRows.reduce((total, row) => total + row.actual, 0)),
        forecast: yearlyForecast === null ? null : dollars(yearlyForecast),
      },
      has_reports: withReports.has(account.id),
      data_through: dataThrough,
    };
  }

  /**
   * GET /finance/budget/tree: one node per cloud account of the organisation (budgets can be set for any cloud;
   * only accounts with reports have actuals), its children each product label with a budget or an actual.
   */
  async tree(principal: Principal, year: number): Promise<TreeNode[]> {
    await this.#gate(principal);
    const months = yearMonths(year);
    const [accounts, table, book] = await Promise.all([
      this.accounts.list(principal.organizationId),
      this.actuals.read(principal.organizationId, null, `${year}-01`, `${year}-12`),
      this.#book(principal, null, year),
    ]);
    const yearOf = (accountId: string, label: string) => {
      const cents = months.map((month) => monthCents(table, book, accountId, label, month));
      const budget = sumOrNull(cents.map((row) => row.budget));
      return {
        value: budget === null ? null : dollars(budget),
        actual: dollars(cents.reduce((total, row) => total + row.actual, 0)),
        budget_warning: cents.some((row) => row.warning),
      };
    };
    return [...accounts]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((account) => {
        const labels = [...new Set([...book.productLabels(account.id), ...table.productCodes(account.id)])];
        return {
          cloud: account.id,
          label: BUDGET_TOTAL_LABEL,
          title: account.name,
          ...yearOf(account.id, BUDGET_TOTAL_LABEL),
          children: labels
            .map((label) => ({
              cloud: account.id,
              label,
              title: budgetLabelOf(label),
              ...yearOf(account.id, label),
              budget_warning: false,
              children: [],
            }))
            .sort((a, b) => a.title.localeCompare(b.title)),
        };
      });
  }

  /** GET /finance/budget.csv: the table of `hierarchical` as CSV lines, and the file's name. */
  async csv(principal: Principal, query: BudgetQuery): Promise<{ filename: string; body: string }> {
    const view = await this.hierarchical(principal, { ...query, compare: undefined });
    const account = await this.#account(principal, query.cloud);
    const lines = [BUDGET_CSV_COLUMNS.map(csvCell).join(',')];
    for (const row of view.rows) {
      const budget = row.budget === null ? null : Math.round(row.budget * 100);
      const actual = Math.round(row.actual * 100);
      const forecast = row.forecast === null ? null : Math.round(row.forecast * 100);
      // Numbers are the server's own, written bare so a spreadsheet sums them; text cells pass csvCell.
      lines.push(
        [
          csvCell(row.month),
          shown(budget) ?? '',
          shown(actual) ?? '',
          shown(forecast) ?? '',
          budget === null ? '' : (shown(budget - actual) ?? ''),
          budget === null || budget === 0 ? '' : ((actual / budget) * 100).toFixed(2),
        ].join(','),
      );
    }
    const slug = (value: string) =>
      value.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'cloud';
    return {
      filename: `budget-${slug(account.name)}-${slug(budgetLabelOf(view.label))}-${view.year}.csv`,
      // The byte order mark tells spreadsheets the file is UTF-8, as the audit export does.
      body: `\uFEFF${lines.map((line) => `${line}\r\n`).join('')}`,
    };
  }

  /**
   * GET /finance/products: what a budget can be set for — the report product codes of the cloud (every cloud when
   * none is named) and the analytics screens' codes, then the organisation's custom products; each group by label.
   */
  async products(principal: Principal, cloud: string | undefined): Promise<FinanceProduct[]> {
    await this.#gate(principal);
    const accountId = cloud === undefined ? null : (await this.#account(principal, cloud)).id;
    const table = await this.actuals.read(principal.organizationId, accountId, ...ALL_MONTHS);
    const codes = [...new Set([...table.productCodes(accountId), ...KNOWN_CODES])];
    const byLabel = (a: FinanceProduct, b: FinanceProduct) =>
      a.label.localeCompare(b.label) || a.name.localeCompare(b.name);
    const reported = codes
      .map((code) => ({
        name: code,
        label: productLabelOf(code),
        category: costCategoryOf(code),
        custom: false,
      }))
      .sort(byLabel);
    const custom = (await this.repo.products(principal.organizationId)).map(productOf).sort(byLabel);
    return [...reported, ...custom];
  }

  /** POST /finance/products: a custom product, named once per organisation in any case; never 'Total'. */
  async createProduct(
    principal: Principal,
    body: CreateProductBody,
  ): Promise<{ message: string; product: FinanceProduct }> {
    authorize(principal, 'finance.budget');
    await this.#package(principal);
    const wanted = body.name.toLowerCase();
    if (wanted === BUDGET_TOTAL_LABEL.toLowerCase())
      throw badRequest(financeMessages.productReserved, { name: [financeMessages.productReserved] });
    // A name a report product already answers to (its code or its label, in any cloud of the organisation) would
    // show twice in the Product list, and its budgets and alerts would go to different products (#label).
    const table = await this.actuals.read(principal.organizationId, null, ...ALL_MONTHS);
    if (resolveBudgetLabel(body.name, table.productCodes(null), []) !== undefined) {
      const exists = financeMessages.productExists(body.name);
      throw badRequest(exists, { name: [exists] });
    }
    const row = await this.repo.transaction(async (tx) => {
      const created = await tx.insertProduct(
        principal.organizationId,
        body.name,
        body.category,
        principal.userId,
      );
      if (!created) return undefined;
      await recordAudit(tx.orm, principal, {
        entity: 'Product',
        type: 'Added',
        resource: created.name,
        resourceId: created.id,
        changes: changesOf(null, { name: created.name, category: created.category }),
      });
      return created;
    });
    if (!row) {
      const exists = financeMessages.productExists(body.name);
      throw badRequest(exists, { name: [exists] });
    }
    return { message: financeMessages.productSaved, product: productOf(row) };
  }

  async #package(principal: Principal) {
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'finance',
      financeMessages.packageRequired,
    );
  }

  async #gate(principal: Principal) {
    requireService(principal, 'finance');
    await this.#package(principal);
  }

  async #account(principal: Principal, cloud: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(principal.organizationId, cloud);
    if (!account) throw notFound();
    return account;
  }

  #book(principal: Principal, accountId: string | null, year: number): Promise<BudgetBook> {
    return this.repo
      .months(principal.organizationId, accountId, `${year}-01`, `${year}-12`)
      .then((months) => new BudgetBook(months));
  }

  /**
   * The label a budget is kept under: the Total, a report product code (named by its code or its label, any
   * case), or a custom product's name as it was saved. A save refuses anything else (400); a read keeps it as given.
   */
  async #label(
    principal: Principal,
    account: CloudAccountRow,
    given: string,
    strict: boolean,
  ): Promise<string> {
    if (given.toLowerCase() === BUDGET_TOTAL_LABEL.toLowerCase()) return BUDGET_TOTAL_LABEL;
    const [table, custom] = await Promise.all([
      this.actuals.read(principal.organizationId, account.id, ...ALL_MONTHS),
      this.repo.products(principal.organizationId),
    ]);
    const label = resolveBudgetLabel(
      given,
      table.productCodes(account.id),
      custom.map((row) => row.name),
    );
    if (label) return label;
    if (!strict) return given;
    const message = financeMessages.unknownLabel(given);
    throw badRequest(message, { label: [message] });
  }

  /** The months a PUT sets, or a 400 in words when its range or month is missing or wrong. */
  #monthsOf(body: PutBudgetBody): string[] {
    if (body.flag === 'monthly') {
      if (!body.month)
        throw badRequest(financeMessages.monthRequired, { month: [financeMessages.monthRequired] });
      return [body.month];
    }
    const rangeError = () =>
      badRequest(financeMessages.budgetRange, { start: [financeMessages.budgetRange] });
    if ((body.start === undefined) !== (body.end === undefined)) throw rangeError();
    const year = body.month?.slice(0, 4) ?? String(this.now().getUTCFullYear());
    const months = monthsOfRange(body.start ?? `${year}-01`, body.end ?? `${year}-12`);
    if (!months) throw rangeError();
    return months;
  }
}

/**
 * What the trail says of a budget save: a yearly save, the year's old and new totals and the months it replaced
 * ('AmazonS3 budget of My AWS, 2026'); a monthly one, the month's old and new amount ('…, 2026-03').
 */
function budgetChangeOf(
  flag: PutBudgetBody['flag'],
  name: string,
  held: readonly BudgetMonth[],
  spread: readonly MonthCents[],
): Pick<AuditEvent, 'type' | 'resource' | 'changes'> {
  const first = spread[0]?.month ?? '';
  if (flag === 'monthly') {
    const before = held.find((row) => row.month === first)?.cents ?? null;
    return {
      type: before === null ? 'Added' : 'Modified',
      resource: `${name}, ${first}`,
      changes: changesOf({ budget: shown(before) }, { budget: shown(spread[0]?.cents ?? null) }),
    };
  }
  const after = new Map(held.map((row) => [row.month, row.cents]));
  for (const month of spread) after.set(month.month, month.cents);
  const before = sumOrNull(held.map((row) => row.cents));
  return {
    type: before === null ? 'Added' : 'Modified',
    resource: `${name}, ${first.slice(0, 4)}`,
    changes: changesOf(
      { yearly_budget: shown(before) },
      {
        yearly_budget: shown(sumOrNull([...after.values()])),
        months: `${first}..${spread.at(-1)?.month ?? first}`,
      },
    ),
  };
}

const productOf = (row: ProductRow): FinanceProduct => ({
  name: row.name,
  label: row.name,
  category: row.category,
  custom: true,
});

/** A month of a cloud's label in cents: the budget, the actual and forecast, and the sub-budget warning. */
function monthCents(table: ActualsTable, book: BudgetBook, accountId: string, label: string, month: string) {
  const actual = table.of(accountId, label, month);
  const budget = book.of(accountId, label, month);
  const subBudgets = label === BUDGET_TOTAL_LABEL ? book.subBudgets(accountId, month) : null;
  return {
    budget,
    actual: centsOf(actual.actualNano),
    forecast: actual.forecastNano === null ? null : centsOf(actual.forecastNano),
    subBudgets,
    warning: subBudgetsMismatch(budget, subBudgets),
  };
}

function budgetRowOf(
  table: ActualsTable,
  book: BudgetBook,
  accountId: string,
  label: string,
  month: string,
): BudgetRow {
  const cents = monthCents(table, book, accountId, label, month);
  return {
    month,
    cloud: accountId,
    label,
    budget: cents.budget === null ? null : dollars(cents.budget),
    actual: dollars(cents.actual),
    forecast: cents.forecast === null ? null : dollars(cents.forecast),
    budget_warning: cents.warning,
    sub_budgets: cents.subBudgets === null ? null : dollars(cents.subBudgets),
  };
}
