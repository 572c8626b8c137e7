import { Col, Empty, Row, Space, Table, Tag, Tooltip } from 'antd';
import { type AnalyticsInstance, type CostCategory, type InstanceKind } from '@cumulo/contract';
import { useInstances, type AnalyticsSelection } from './analytics-api.ts';
import { ChartFigure, CostBarChart, FigureCard, Panel, QueryBody, usd } from './AnalyticsPanel.tsx';
import { analyticsTexts } from './analytics-texts.ts';

/** What the chart and the cards of each page say; the kind is the instances call's. */
const PAGES: Record<InstanceKind, { category: Extract<CostCategory, 'Compute' | 'Database'>; noun: string }> =
  {
    ec2: { category: 'Compute', noun: 'EC2 instances' },
    rds: { category: 'Database', noun: 'RDS databases' },
  };

/** The instances' costs summed per product (compute hours, storage, I/O…), costliest first. */
function costPerProduct(instances: readonly AnalyticsInstance[]) {
  const totals = new Map<string, number>();
  for (const instance of instances) {
    for (const product of instance.products) {
      totals.set(product.label, (totals.get(product.label) ?? 0) + product.monthly_actual);
    }
  }
  return [...totals].map(([name, cost]) => ({ name, cost })).sort((a, b) => b.cost - a.cost);
}

/**
 * /analytics Database and Compute (spec 002 §2): cards Total Cost, Running, Stopped, a categories chart (the month's
 * cost per product of the instances, or per instance when they name no product) and the instance list.
 */
export function InstancesPage({ kind, selection }: { kind: InstanceKind; selection: AnalyticsSelection }) {
  const instances = useInstances(kind, selection);
  const page = PAGES[kind];
  return (
    <QueryBody query={instances}>
      {(list) => {
        if (list.length === 0) return <Empty description={analyticsTexts.noInstances(page.noun)} />;
        const running = list.filter((i) => i.state === 'running').length;
        const byProduct = costPerProduct(list);
        const bars =
          byProduct.length > 0
            ? byProduct
            : list.map((instance) => ({ name: instance.name, cost: instance.monthly_actual }));
        return (
          <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
            <Row gutter={[16, 16]}>
              {(
                [
                  ['Total Cost', usd(list.reduce((sum, i) => sum + i.monthly_actual, 0))],
                  ['Running', running],
                  ['Stopped', list.length - running],
                ] as const
              ).map(([title, value]) => (
                <Col key={title} xs={24} md={8}>
                  <FigureCard title={title} value={value} />
                </Col>
              ))}
            </Row>
            <Panel title={`${page.category} categories`}>
              <ChartFigure label={`${page.category} cost by category`}>
                <CostBarChart bars={bars} />
              </ChartFigure>
            </Panel>
            <Panel title={page.noun}>
              <Table<AnalyticsInstance>
                size="small"
                aria-label={page.noun}
                rowKey="id"
                dataSource={list}
                pagination={list.length > 20 ? { pageSize: 20 } : false}
                columns={[
                  { title: 'Name', dataIndex: 'name' },
                  {
                    title: 'State',
                    dataIndex: 'state',
                    render: (state: AnalyticsInstance['state'], instance) => (
                      <Tooltip
                        title={
                          instance.state_source === 'api'
                            ? analyticsTexts.stateFromApi
                            : analyticsTexts.stateFromReport
                        }
                      >
                        <Tag color={state === 'running' ? 'green' : 'default'}>{state}</Tag>
                      </Tooltip>
                    ),
                  },
                  {
                    title: 'Cost',
                    dataIndex: 'monthly_actual',
                    align: 'right',
                    render: (cost: number) => usd(cost),
                  },
                ]}
              />
            </Panel>
          </Space>
        );
      }}
    </QueryBody>
  );
}
