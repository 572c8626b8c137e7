import { BUDGET_TOTAL_LABEL, PROJECTED_LINE_ITEM_TYPES, productLabelOf } from '@cumulo/contract';
import type { AccountMonthSum, AnalyticsCostsRepo } from '../analytics/analytics-costs.repo.ts';
import { forecastNano } from '../analytics/analytics-costs.service.ts';

const PROJECTED: ReadonlySet<string> = new Set(PROJECTED_LINE_ITEM_TYPES);

/** One month of one account and label: what the reports billed, and the month's forecast (spec 000 §5). */
interface MonthActual {
  actualNano: bigint;
  /** The current month's forecast; a past month's actual; null for a month still ahead. */
  forecastNano: bigint | null;
  /** The last day of data in the month ('YYYY-MM-DD'), null when none. */
  lastDay: string | null;
}

/** Nano-dollars to cents, rounded half away from zero: budgets are compared and stored in cents. */
export const centsOf = (nano: bigint) =>
  Number((nano + (nano >= 0n ? 5_000_000n : -5_000_000n)) / 10_000_000n);

/** Whether a report's product code is what a budget label names: the code itself or its label, any case. */
function labelMatches(label: string, productCode: string): boolean {
  if (label === BUDGET_TOTAL_LABEL) return true;
  const wanted = label.toLowerCase();
  return productCode.toLowerCase() === wanted || productLabelOf(productCode).toLowerCase() === wanted;
}

/**
 * Actual spending for Finance, read from the analytics rollups (the same `chosenPeriodsOf` report per account and
 * month as every analytics read), so /finance and /analytics never disagree on a month.
 */
export class FinanceActuals {
  constructor(
    private readonly repo: Pick<AnalyticsCostsRepo, 'monthsByAccountProduct' | 'accountsWithReports'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The months `from`..`to` ('YYYY-MM') of one account (or every account when null). */
  async read(
    organizationId: string,
    accountId: string | null,
    from: string,
    to: string,
  ): Promise<ActualsTable> {
    const sums = await this.repo.monthsByAccountProduct({ organizationId, accountId }, from, to);
    return new ActualsTable(sums, this.now().toISOString().slice(0, 7));
  }

  /** The accounts that have billing reports (the others have no actuals to show). */
  accountsWithReports(organizationId: string): Promise<Set<string>> {
    return this.repo.accountsWithReports(organizationId);
  }
}

/** The sums of a range of months, asked per account, label and month. */
export class ActualsTable {
  constructor(
    private readonly sums: readonly AccountMonthSum[],
    private readonly currentMonth: string,
  ) {}

  /** The product codes the reports name for an account (every account when null). */
  productCodes(accountId: string | null): string[] {
    return [
      ...new Set(
        this.sums
          .filter((s) => accountId === null || s.cloudAccountId === accountId)
          .map((s) => s.productCode),
      ),
    ].sort();
  }

  /** The month's actual and forecast of `label` (BUDGET_TOTAL_LABEL: every product) for one account. */
  of(accountId: string, label: string, month: string): MonthActual {
    let actual = 0n;
    let projected = 0n;
    let lastDay: string | null = null;
    // The forecast divides by the account's last day of data, whatever the product: a product without a line
    // since the 3rd is not on its way to ten times its cost.
    for (const sum of this.sums) {
      if (sum.cloudAccountId !== accountId || sum.month !== month) continue;
      if (lastDay === null || sum.lastDay > lastDay) lastDay = sum.lastDay;
      if (!labelMatches(label, sum.productCode)) continue;
      actual += sum.costNano;
      if (PROJECTED.has(sum.lineItemType)) projected += sum.costNano;
    }
    const forecast =
      month > this.currentMonth ? null : forecastNano(actual, projected, lastDay, month, this.currentMonth);
    return { actualNano: actual, forecastNano: forecast, lastDay };
  }
}
