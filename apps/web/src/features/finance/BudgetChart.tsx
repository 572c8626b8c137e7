import { Bar, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartPoint } from '@cumulo/contract';

const ACTUAL_COLOUR = '#1668dc';
const FORECAST_COLOUR = '#91caff';
const BUDGET_COLOUR = '#fa8c16';
const ACTUAL_CMP_COLOUR = '#13a8a8';
const BUDGET_CMP_COLOUR = '#722ed1';

const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'Jan' of '2026-01'. */
const monthName = (month: string) => SHORT_MONTHS[Number(month.slice(5, 7)) - 1] ?? month;

/**
 * The /finance chart (recharts, so this module is only fetched when the chart is drawn): per month the actual as
 * bars and the budget as a line; the current month's forecast as a lighter, outlined bar beside its actual, since
 * only that month's forecast differs from what was spent; with a comparison, the compared service's actual and
 * budget beside them.
 */
export function BudgetChart({
  points,
  currentMonth,
  label,
  compare,
  money,
}: {
  points: readonly ChartPoint[];
  /** 'YYYY-MM' of today. */
  currentMonth: string;
  label: string;
  compare: string | null;
  money: (value: number | null) => string;
}) {
  const data = points.map((point) => ({
    ...point,
    name: monthName(point.month),
    forecast_now: point.month.slice(0, 7) === currentMonth ? point.forecast : null,
  }));
  return (
    <ComposedChart
      responsive
      data={data}
      style={{ width: '100%', height: 300 }}
      margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="name" tick={{ fontSize: 12 }} />
      <YAxis tickFormatter={(value: number) => money(value)} width={96} />
      <Tooltip formatter={(value) => money(value === null || value === undefined ? null : Number(value))} />
      <Legend />
      <Bar dataKey="actual" name={`${label} actual`} fill={ACTUAL_COLOUR} isAnimationActive={false} />
      <Bar
        dataKey="forecast_now"
        name="Forecast (this month)"
        fill={FORECAST_COLOUR}
        stroke={ACTUAL_COLOUR}
        strokeDasharray="4 2"
        isAnimationActive={false}
      />
      {compare && (
        <Bar
          dataKey="actual_cmp"
          name={`${compare} actual`}
          fill={ACTUAL_CMP_COLOUR}
          isAnimationActive={false}
        />
      )}
      <Line
        type="monotone"
        dataKey="budget"
        name={`${label} budget`}
        stroke={BUDGET_COLOUR}
        strokeWidth={2}
        connectNulls
        isAnimationActive={false}
      />
      {compare && (
        <Line
          type="monotone"
          dataKey="budget_cmp"
          name={`${compare} budget`}
          stroke={BUDGET_CMP_COLOUR}
          strokeDasharray="6 3"
          strokeWidth={2}
          connectNulls
          isAnimationActive={false}
        />
      )}
    </ComposedChart>
  );
}
