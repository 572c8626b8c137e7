import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { formatUsd } from '@cumulo/contract';
import { axisUsd, type ProviderPrice } from './price-comparison.ts';

const STORAGE_COLOUR = '#1668dc';
const EGRESS_COLOUR = '#fa8c16';

/** Stacked bars per provider: monthly storage cost under the egress of one full download. Loaded lazily. */
export function CompareChart({ prices }: { prices: readonly ProviderPrice[] }) {
  const data = prices.map((price) => ({
    provider: price.label,
    storage: Number(price.storageMonthly.toFixed(2)),
    egress: Number(price.egress.toFixed(2)),
  }));
  return (
    <BarChart
      responsive
      data={data}
      style={{ width: '100%', height: 340 }}
      margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="provider" />
      <YAxis tickFormatter={axisUsd} width={80} />
      <Tooltip formatter={(value) => formatUsd(Number(value))} />
      <Legend />
      <Bar dataKey="storage" name="Storage per month" stackId="cost" fill={STORAGE_COLOUR} />
      <Bar dataKey="egress" name="Egress (one full download)" stackId="cost" fill={EGRESS_COLOUR} />
    </BarChart>
  );
}
