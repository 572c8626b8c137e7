import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { Select, Space } from 'antd';
import type { CloudAccountView } from '@cumulo/contract';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import type { AnalyticsSelection } from './analytics-api.ts';

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

export interface AnalyticsFilterState {
  /** The accounts the filter offers (azure and wasabi left out), undefined while loading. */
  accounts: CloudAccountView[] | undefined;
  account: CloudAccountView | undefined;
  year: number;
  /** 1–12. */
  month: number;
  selection: AnalyticsSelection;
  choose: (change: { account?: string; year?: number; month?: number }) => void;
}

/**
 * The account, year and month of the analytics screens, kept in the address (`?account&year&month`) so a view can
 * be linked and survives a reload. Defaults: the first account with a billing bucket, the current UTC month.
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
  const choose = (change: { account?: string; year?: number; month?: number }) => {
    const next = new URLSearchParams(params);
    if (change.account !== undefined) next.set('account', change.account);
    if (change.year !== undefined) next.set('year', String(change.year));
    if (change.month !== undefined) next.set('month', String(change.month));
    setParams(next, { replace: true });
  };
  return {
    accounts,
    account,
    year,
    month,
    selection: { cloudId: account?.id, month: monthKey(year, month) },
    choose,
  };
}

/** The filter bar: account (azure and wasabi excluded), year (current and 3 previous), month. */
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
      />
    </Space>
  );
}
