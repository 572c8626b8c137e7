import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { formatAdminSize, type AdminUsageTotalRow } from '@cumulo/contract';

const TRANSFER_COLOUR = '#1668dc';

/** Bars of Total Transfer per direction, to compare them at a glance (recharts, so loaded lazily). */
export function UsageChart({ totals }: { totals: readonly AdminUsageTotalRow[] }) {
  const data = totals.map((row) => ({ direction: row.label, transfer: row.totalTransfer }));
  return (
    <BarChart
      responsive
      data={data}
      style={{ width: '100%', maxWidth: 720, height: 260 }}
      margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="direction" />
      <YAxis tickFormatter={(value: number) => formatAdminSize(value)} width={90} />
      <Tooltip formatter={(value) => formatAdminSize(Number(value))} />
      <Bar dataKey="transfer" name="Total Transfer" fill={TRANSFER_COLOUR} />
    </BarChart>
  );
}
