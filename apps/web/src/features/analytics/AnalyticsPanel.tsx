import { Suspense, lazy, type ReactNode } from 'react';
import { Alert, Card, Empty, Spin, Typography } from 'antd';
import type { UseQueryResult } from '@tanstack/react-query';
import { analyticsReadMessages, formatUsd } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';

// recharts is only fetched when a page draws a chart, never with the sign-in screens.
export const CostBarChart = lazy(() =>
  import('./AnalyticsCharts.tsx').then((m) => ({ default: m.CostBarChart })),
);
export const TrendChart = lazy(() =>
  import('./AnalyticsCharts.tsx').then((m) => ({ default: m.TrendChart })),
);

/** A named panel of /analytics: a card inside a region, so a reader (and a test) can find it by its title. */
export function Panel({ title, extra, children }: { title: string; extra?: ReactNode; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <Card title={title} extra={extra} size="small">
        {children}
      </Card>
    </section>
  );
}

/**
 * One call's panel body (spec 002 §4 "Analytics tabs: loading, then data or error"): its own spinner while the call
 * runs, the error in words when it fails (never a blank), else what `children` draws of the answer.
 */
export function QueryBody<T>({
  query,
  children,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  if (query.isError) return <Alert type="error" showIcon title={describeError(query.error)} />;
  if (query.isPending) return <Spin aria-label="Loading" />;
  return <>{children(query.data)}</>;
}

/** A chart in a figure named for it, with a spinner while recharts loads. */
export function ChartFigure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <figure aria-label={label} style={{ margin: 0 }}>
      <Suspense fallback={<Spin aria-label="Loading" />}>{children}</Suspense>
    </figure>
  );
}

/** A card of one figure (Compute Cost, Running, …): a group named by its title. */
export function FigureCard({ title, value }: { title: string; value: ReactNode }) {
  return (
    <Card size="small" style={{ height: '100%' }}>
      <div role="group" aria-label={title}>
        <Typography.Text type="secondary">{title}</Typography.Text>
        <div style={{ fontSize: 24, fontWeight: 600 }}>{value}</div>
      </div>
    </Card>
  );
}

export const usd = (amount: number) => formatUsd(amount);

/** Spec 002 §2: a month the reports hold nothing for. */
export function NoData() {
  return <Empty description={analyticsReadMessages.noData} />;
}

const rowStyle = {
  display: 'flex',
  justifyContent: 'space-between',
  gap: 16,
  padding: '6px 0',
  borderBottom: '1px solid #f0f0f0',
} as const;

/** A named list of what something costs, one row per name. */
export function CostList({
  label,
  rows,
}: {
  label: string;
  rows: ReadonlyArray<{ key: string; name: ReactNode; cost: ReactNode }>;
}) {
  return (
    <ul aria-label={label} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {rows.map((row) => (
        <li key={row.key} style={rowStyle}>
          {row.name}
          {row.cost}
        </li>
      ))}
    </ul>
  );
}
