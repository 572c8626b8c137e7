import { FINANCE_SETTINGS_DEFAULTS, formatFinanceAmount } from '@cumulo/contract';
import { useFinanceSettings } from './finance-api.ts';

/**
 * Every finance number and table as the organisation's finance settings say (spec 002 §3 "Finance settings"):
 * `money(value)` with or without `$` and decimals, and `bordered` for tables. The defaults apply until the
 * settings load, and when they cannot be read.
 */
export function useFinanceFormat() {
  const { data } = useFinanceSettings();
  const settings = data ?? FINANCE_SETTINGS_DEFAULTS;
  return {
    money: (value: number | null) => formatFinanceAmount(value, settings),
    bordered: settings.show_border,
  };
}
