import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { Flex, Select, Space, Typography } from 'antd';
import { formatUsd, type CloudAccountView } from '@cumulo/contract';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useAnalyticsPeriods, type AnalyticsSelection } from './analytics-api.ts';

/** How many years before the current one the year filter offers (spec 002 §9: current and 3 previous). */
const PREVIOUS_YEARS = 3;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** azure and wasabi deliver no billing report Cumulo reads: /analytics leaves them out (spec 002 §2). */
const WITHOUT_REPORTS = new Set(['azure', 'wasabi']);

function reportAccounts(accounts: readonly CloudAccountView[]): CloudAccountView[] {
  return accounts.filter((account) => !WITHOUT_REPORTS.has(account.provider));
}

/** 'YYYY-MM' of a year and a month number (1–12). */
const monthKey = (year: number, month: number) => `${year}-${String(month).padStart(2, '0')}`;

/** An AWS account id, as a usage (linked) account of a consolidated bill is named. */
const LINKED_ACCOUNT = /^\d{12}$/;

export interface AnalyticsFilterState {
  /** The accounts the filter offers (azure and wasabi left out), undefined while loading. */
  accounts: CloudAccountView[] | undefined;
  account: CloudAccountView | undefined;
  year: number;
  /** 1–12. */
  month: number;
  /** The usage (linked) account the figures are narrowed to; undefined: all of them. */
  linked: string | undefined;
  /** The usage accounts the account's reports name (a consolidated bill names each member account). */
  linkedAccounts: string[];
  /**
   * Each month the reports hold ('YYYY-MM'), with its cost (the linked account's when one is chosen); undefined while
   * unknown (loading, or an account without billing reports).
   */
  monthsHeld: ReadonlyMap<string, number> | undefined;
  selection: AnalyticsSelection;
  choose: (change: { account?: string; year?: number; month?: number; linked?: string }) => void;
}

/**
 * The account, year, month and linked account of the analytics screens, kept in the address
 * (`?account&year&month&linked`) so a view can be linked and survives a reload. Defaults: the first account with a
 * billing bucket, the current UTC month, every linked account. The months the reports hold and the linked accounts
 * they name come from GET /analytics/periods.
 */
export function useAnalyticsFilters(now: Date = new Date()): AnalyticsFilterState {
  const [params, setParams] = useSearchParams();
  const { data } = useCloudAccounts();
  const accounts = useMemo(() => (data ? reportAccounts(data) : undefined), [data]);
  const currentYear = now.getUTCFullYear();
  const yearParam = Number(params.get('year'));
  const year =
    yearParam >= currentYear - PREVIOUS_YEARS && yearParam <= currentYear ? yearParam : currentYear;
  const monthParam = Number(params.get('month'));
  const month = monthParam >= 1 && monthParam <= 12 ? monthParam : now.getUTCMonth() + 1;
  const account =
    accounts?.find((a) => a.id === params.get('account')) ??
    accounts?.find((a) => a.billing_bucket) ??
    accounts?.[0];
  const linkedParam = params.get('linked') ?? '';
  const asked = LINKED_ACCOUNT.test(linkedParam) ? linkedParam : undefined;
  // Only AWS delivers the reports the periods are read from. Their usage accounts are all of the bill's, whichever
  // is asked for; the months' costs are the one asked for's.
  const periods = useAnalyticsPeriods(
    account?.provider === 'aws' && account.billing_bucket ? account.id : undefined,
    asked,
  );
  const linkedAccounts = periods.data?.usage_accounts ?? [];
  // A linked account the reports do not name (an old link, another account's) narrows nothing.
  const linked = asked && (!periods.data || linkedAccounts.includes(asked)) ? asked : undefined;
  const monthsHeld = useMemo(
    () => periods.data && new Map(periods.data.months.map((held) => [held.month, held.cost])),
    [periods.data],
  );
  const choose = (change: { account?: string; year?: number; month?: number; linked?: string }) => {
    const next = new URLSearchParams(params);
    if (change.account !== undefined) {
      next.set('account', change.account);
      // Another account's bill names other linked accounts.
      if (change.account !== account?.id) next.delete('linked');
    }
    if (change.year !== undefined) next.set('year', String(change.year));
    if (change.month !== undefined) next.set('month', String(change.month));
    if (change.linked !== undefined) {
      if (change.linked) next.set('linked', change.linked);
      else next.delete('linked');
    }
    setParams(next, { replace: true });
  };
  return {
    accounts,
    account,
    year,
    month,
    linked,
    linkedAccounts,
    monthsHeld,
    selection: {
      cloudId: account?.id,
      month: monthKey(year, month),
      ...(linked ? { awsAccountId: linked } : {}),
    },
    choose,
  };
}

/**
 * The filter bar: account (azure and wasabi excluded), year (current and 3 previous), month (each month the reports
 * hold shows its cost in the list, the others say they have no report), and, when the bill names more than one
 * usage account (AWS Organizations' consolidated billing), the linked account.
 */
export function AnalyticsFilters({ state, now = new Date() }: { state: AnalyticsFilterState; now?: Date }) {
  const currentYear = now.getUTCFullYear();
  const years = Array.from({ length: PREVIOUS_YEARS + 1 }, (_, i) => currentYear - i);
  return (
    <Space wrap>
      <Select<string>
        aria-label="Account"
        placeholder="Account"
        style={{ minWidth: 220 }}
        loading={!state.accounts}
        value={state.account?.id}
        onChange={(account) => state.choose({ account })}
        optionFilterProp="label"
        showSearch
        options={(state.accounts ?? []).map((account) => ({ value: account.id, label: account.name }))}
      />
      <Select<number>
        aria-label="Year"
        style={{ width: 100 }}
        value={state.year}
        onChange={(year) => state.choose({ year })}
        options={years.map((year) => ({ value: year, label: String(year) }))}
      />
      <Select<number>
        aria-label="Month"
        style={{ width: 140 }}
        value={state.month}
        onChange={(month) => state.choose({ month })}
        options={MONTH_NAMES.map((name, i) => ({ value: i + 1, label: name }))}
        optionRender={(option) => {
          if (!state.monthsHeld) return option.label;
          const cost = state.monthsHeld.get(monthKey(state.year, Number(option.value)));
          return (
            <Flex justify="space-between" gap={8}>
              <span>{option.label}</span>
              <Typography.Text type="secondary">
                {cost === undefined ? 'no report' : formatUsd(cost)}
              </Typography.Text>
            </Flex>
          );
        }}
        popupMatchSelectWidth={false}
      />
      {(state.linkedAccounts.length > 1 || state.linked) && (
        <Select<string>
          aria-label="Linked account"
          style={{ minWidth: 190 }}
          value={state.linked ?? ''}
          onChange={(linked) => state.choose({ linked })}
          // An organisation's bill can name hundreds of member accounts.
          showSearch
          optionFilterProp="label"
          options={[
            { value: '', label: 'All linked accounts' },
            ...state.linkedAccounts.map((id) => ({ value: id, label: id })),
          ]}
        />
      )}
    </Space>
  );
}
