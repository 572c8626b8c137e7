import { Card, Empty, Flex, Statistic, Typography } from 'antd';
import { Cell, Pie, PieChart, Tooltip } from 'recharts';
import { formatUsd } from '@cumulo/contract';
import { creditsOf, donutSlices, type CostItem } from './donut-slices.ts';

const SLICE_COLOURS = ['#1668dc', '#13a8a8', '#fa8c16', '#722ed1', '#bfbfbf'];
const SIZE = 220;

/**
 * A donut of one cost breakdown (spec 002 §2): the total, the top 4 costliest usages and the rest as "Other". The
 * legend is a list beside the drawing, so the figures can be read (and found by a screen reader) without hovering.
 */
export function CostDonut({
  title,
  total,
  items,
}: {
  title: string;
  total: number;
  items: readonly CostItem[];
}) {
  const slices = donutSlices(items);
  // A donut cannot draw a credit: the legend lists them, so its lines add up to the total.
  const credits = creditsOf(items);
  return (
    <Card title={title} size="small" style={{ height: '100%' }}>
      <section aria-label={title}>
        <Statistic title="Total cost" value={formatUsd(total)} />
        {slices.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No cost this month" />
        ) : (
          <Flex wrap gap={16} align="center">
            <PieChart width={SIZE} height={SIZE} aria-hidden>
              <Pie
                data={slices}
                dataKey="cost"
                nameKey="name"
                innerRadius={SIZE / 4}
                outerRadius={SIZE / 2 - 8}
                isAnimationActive={false}
              >
                {slices.map((slice, index) => (
                  <Cell key={slice.name} fill={SLICE_COLOURS[index % SLICE_COLOURS.length]} />
                ))}
              </Pie>
              <Tooltip formatter={(value) => formatUsd(Number(value))} />
            </PieChart>
            <Flex vertical gap={4} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {slices.map((slice, index) => (
                <li key={slice.name}>
                  <Flex gap={8} align="center">
                    <span
                      aria-hidden
                      style={{
                        display: 'inline-block',
                        width: 10,
                        height: 10,
                        borderRadius: 2,
                        background: SLICE_COLOURS[index % SLICE_COLOURS.length],
                      }}
                    />
                    <Typography.Text>{slice.name}</Typography.Text>
                    <Typography.Text strong>{formatUsd(slice.cost)}</Typography.Text>
                  </Flex>
                </li>
              ))}
              {formatUsd(credits) !== formatUsd(0) && (
                <li>
                  <Flex gap={8} align="center">
                    <span aria-hidden style={{ display: 'inline-block', width: 10 }} />
                    <Typography.Text>Credits and refunds</Typography.Text>
                    <Typography.Text strong>{formatUsd(credits)}</Typography.Text>
                  </Flex>
                </li>
              )}
            </Flex>
          </Flex>
        )}
      </section>
    </Card>
  );
}
