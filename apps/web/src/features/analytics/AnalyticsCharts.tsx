import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { formatUsd } from '@cumulo/contract';

const COST_COLOUR = '#1668dc';
const TREND_COLOUR = '#13a8a8';

export interface CostBar {
  /** What the axis names (a category, a product's label, an instance). */
  name: string;
  cost: number;
}

/**
 * The /analytics bar charts (recharts, so this module is only fetched when a chart is drawn). A click on a bar
 * hands its name to `onSelect`, which the Total Cost Chart uses to drill down into a category.
 */
export function CostBarChart({
  bars,
  onSelect,
  colour = COST_COLOUR,
}: {
  bars: readonly CostBar[];
  onSelect?: (name: string) => void;
  colour?: string;
}) {
  return (
    <BarChart
      responsive
      data={[...bars]}
      style={{ width: '100%', height: 280 }}
      margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      {/* Slanted, so long names (Infrastructure, a product code) never run into each other. */}
      <XAxis dataKey="name" interval={0} angle={-30} textAnchor="end" height={72} tick={{ fontSize: 12 }} />
      <YAxis tickFormatter={(value: number) => formatUsd(value, 0)} width={80} />
      <Tooltip formatter={(value) => formatUsd(Number(value))} />
      <Bar
        dataKey="cost"
        name="Cost"
        fill={colour}
        isAnimationActive={false}
        cursor={onSelect ? 'pointer' : undefined}
        onClick={
          onSelect ? (item: { payload?: CostBar }) => item.payload && onSelect(item.payload.name) : undefined
        }
      />
    </BarChart>
  );
}

/** The twelve months ending at the chosen one (GET /analytics `trend`). */
export function TrendChart({ trend }: { trend: ReadonlyArray<{ month: string; monthly_actual: number }> }) {
  return (
    <CostBarChart
      bars={trend.map((point) => ({ name: point.month, cost: point.monthly_actual }))}
      colour={TREND_COLOUR}
    />
  );
}
