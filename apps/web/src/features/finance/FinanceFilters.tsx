import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { Select, Space, Tabs } from 'antd';
import { BUDGET_TOTAL_LABEL, budgetLabelOf, financeYears, type CloudAccountView } from '@cumulo/contract';
import { ProviderLogo, isProviderName } from '../../ui/ProviderLogo.tsx';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useFinanceProducts } from './finance-api.ts';

export interface FinanceFilterState {
  /** Every connected account (a budget needs no billing report), undefined while loading. */
  accounts: CloudAccountView[] | undefined;
  account: CloudAccountView | undefined;
  /** The budget label shown: `Total` (the cloud's own budget) or a product. */
  label: string;
  /** The label drawn beside for comparison, if any. */
  compare: string | undefined;
  year: number;
  /** Previous, current and next year (spec 002 §2). */
  years: [number, number, number];
  choose: (change: { cloud?: string; label?: string; compare?: string | null; year?: number }) => void;
}

/**
 * The cloud, label, comparison and year of /finance, kept in the address (`?cloud&label&compare&year`) so a view
 * can be linked and survives a reload. Defaults: the first account, its Total, no comparison, the current year.
 */
export function useFinanceFilters(now: Date = new Date()): FinanceFilterState {
  const [params, setParams] = useSearchParams();
  const { data: accounts } = useCloudAccounts();
  const years = financeYears(now);
  const yearParam = Number(params.get('year'));
  const year = years.includes(yearParam) ? yearParam : years[1];
  const account = accounts?.find((a) => a.id === params.get('cloud')) ?? accounts?.[0];
  const label = params.get('label') || BUDGET_TOTAL_LABEL;
  const compareParam = params.get('compare');
  const compare = compareParam && compareParam !== label ? compareParam : undefined;
  const choose: FinanceFilterState['choose'] = (change) => {
    const next = new URLSearchParams(params);
    if (change.cloud !== undefined && change.cloud !== account?.id) {
      // Another cloud has other products: its view starts from its Total.
      next.set('cloud', change.cloud);
      next.delete('label');
      next.delete('compare');
    }
    if (change.label !== undefined) next.set('label', change.label);
    if (change.compare === null) next.delete('compare');
    else if (change.compare !== undefined) next.set('compare', change.compare);
    if (change.year !== undefined) next.set('year', String(change.year));
    setParams(next, { replace: true });
  };
  return { accounts, account, label, compare, year, years, choose };
}

/** An account as the finance selects show it: the provider's mark, then the name. */
function accountOption(account: CloudAccountView) {
  return {
    value: account.id,
    title: account.name,
    label: (
      <Space size={8}>
        {isProviderName(account.provider) && <ProviderLogo provider={account.provider} height={18} />}
        <span>{account.name}</span>
      </Space>
    ),
  };
}

/** The filter bar: cloud account, product (Total first), the service compared with, and the year tabs. */
export function FinanceFilters({ state }: { state: FinanceFilterState }) {
  const products = useFinanceProducts(state.account?.id);
  const labels = useMemo(() => {
    const list = [
      { value: BUDGET_TOTAL_LABEL, label: BUDGET_TOTAL_LABEL },
      ...(products.data ?? []).map((product) => ({ value: product.name, label: product.label })),
    ];
    // A label linked or chosen in the tree stays selectable while the products load.
    if (!list.some((option) => option.value === state.label)) {
      list.push({ value: state.label, label: budgetLabelOf(state.label) });
    }
    return list;
  }, [products.data, state.label]);
  return (
    <Space orientation="vertical" size="small" style={{ width: '100%' }}>
      <Space wrap>
        <Select<string>
          aria-label="Cloud account"
          placeholder="Cloud account"
          style={{ minWidth: 240 }}
          loading={!state.accounts}
          value={state.account?.id}
          onChange={(cloud) => state.choose({ cloud })}
          showSearch={{ optionFilterProp: 'title' }}
          options={(state.accounts ?? []).map(accountOption)}
        />
        <Select<string>
          aria-label="Product"
          style={{ minWidth: 200 }}
          loading={products.isPending}
          value={state.label}
          onChange={(label) => state.choose({ label })}
          showSearch={{ optionFilterProp: 'label' }}
          options={labels}
        />
        <Select<string>
          aria-label="Compare with"
          placeholder="Compare with"
          allowClear
          style={{ minWidth: 200 }}
          value={state.compare}
          onChange={(compare) => state.choose({ compare: compare ?? null })}
          showSearch={{ optionFilterProp: 'label' }}
          options={labels.filter((option) => option.value !== state.label)}
        />
      </Space>
      <Tabs
        aria-label="Year"
        activeKey={String(state.year)}
        onChange={(key) => state.choose({ year: Number(key) })}
        items={state.years.map((year) => ({ key: String(year), label: String(year) }))}
      />
    </Space>
  );
}
