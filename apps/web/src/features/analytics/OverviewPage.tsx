import { useState } from 'react';
import { Button, Col, Flex, Row, Space, Table, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import {
  QUOTA_UNLIMITED,
  formatBytes,
  formatUsd,
  type AnalyticsOverview,
  type AnalyticsServiceUsage,
  type AnalyticsTransferItem,
  type CostCategory,
  type QuotaKey,
} from '@cumulo/contract';
import { UsageBar } from '../billing/UsageBar.tsx';
import { QUOTA_LABELS } from '../billing/PlanUsageCard.tsx';
import {
  useAnalyticsOverview,
  useServicesUsage,
  useTransferCosts,
  type AnalyticsSelection,
} from './analytics-api.ts';
import {
  ChartFigure,
  CostBarChart,
  CostList,
  FigureCard,
  NoData,
  Panel,
  QueryBody,
  TrendChart,
  usd,
} from './AnalyticsPanel.tsx';
import { analyticsTexts, formatTimestamp } from './analytics-texts.ts';

/** Spec 000 §9: transfer costs to 5 decimals. */
const TRANSFER_COST_DECIMALS = 5;
const TRANSFERS_SHOWN = 5;

/** Whether the reports hold anything for the month: usage by category, or a credit, refund, tax or fee alone. */
export const hasMonthData = (overview: AnalyticsOverview) =>
  overview.categories.length > 0 || overview.line_item_types.length > 0;

/** /analytics Overview (spec 002 §2): the cards, the Total Cost Chart, the trend, Services Usage, Transfer Costs. */
export function OverviewPage({ selection }: { selection: AnalyticsSelection }) {
  const overview = useAnalyticsOverview(selection);
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <QueryBody query={overview}>
        {(data) => (hasMonthData(data) ? <MonthCosts overview={data} /> : <NoData />)}
      </QueryBody>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <ServicesUsage month={selection.month} />
        </Col>
        <Col xs={24} lg={12}>
          <TransferCosts />
        </Col>
      </Row>
    </Space>
  );
}

function MonthCosts({ overview }: { overview: AnalyticsOverview }) {
  const cards = [
    ['Compute Cost', overview.compute_cost],
    ['Storage Cost', overview.storage_cost],
    ['Total Cost', overview.monthly_actual],
    ['Forecast', overview.monthly_forecast],
  ] as const;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Row gutter={[16, 16]}>
        {cards.map(([title, amount]) => (
          <Col key={title} xs={12} lg={6}>
            <FigureCard title={title} value={usd(amount)} />
          </Col>
        ))}
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={14}>
          <TotalCostChart overview={overview} />
        </Col>
        <Col xs={24} lg={10}>
          <LineItemTypes overview={overview} />
        </Col>
      </Row>
      <Panel title="Cost Trend">
        <ChartFigure label="Cost of the last 12 months">
          <TrendChart trend={overview.trend} />
        </ChartFigure>
      </Panel>
    </Space>
  );
}

/**
 * The Total Cost Chart (spec 002 §2): the month's cost per category; choosing a category (its bar or its row)
 * shows that category's products, and Back returns to the categories.
 */
function TotalCostChart({ overview }: { overview: AnalyticsOverview }) {
  const [chosen, setChosen] = useState<CostCategory | null>(null);
  const category = overview.categories.find((c) => c.name === chosen);
  const rows = category
    ? category.products.map((p) => ({ key: p.name, name: p.label, cost: p.monthly_actual }))
    : overview.categories.map((c) => ({ key: c.name, name: c.name, cost: c.monthly_actual }));
  const drill = (name: string) => {
    const next = overview.categories.find((c) => c.name === name);
    if (next) setChosen(next.name);
  };
  return (
    <Panel
      title="Total Cost Chart"
      extra={
        category && (
          <Button size="small" icon={<ArrowLeftOutlined aria-hidden />} onClick={() => setChosen(null)}>
            Back
          </Button>
        )
      }
    >
      <Typography.Text strong>{category ? `${category.name} products` : 'Cost by category'}</Typography.Text>
      <ChartFigure label={category ? `${category.name} products` : 'Cost by category'}>
        <CostBarChart bars={rows} onSelect={category ? undefined : drill} />
      </ChartFigure>
      <CostList
        label={category ? `${category.name} products` : 'Categories'}
        rows={rows.map((row) => ({
          key: row.key,
          name: category ? (
            <Typography.Text>{row.name}</Typography.Text>
          ) : (
            <Button type="link" style={{ padding: 0, height: 'auto' }} onClick={() => drill(row.name)}>
              {row.name}
            </Button>
          ),
          cost: <Typography.Text>{usd(row.cost)}</Typography.Text>,
        }))}
      />
    </Panel>
  );
}

/** Credits, refunds, tax and fees apart from usage (issue 24: line-item types are never netted together). */
function LineItemTypes({ overview }: { overview: AnalyticsOverview }) {
  return (
    <Panel title="By line-item type">
      <CostList
        label="Line-item types"
        rows={overview.line_item_types.map((item) => ({
          key: item.line_item_type,
          name: <Typography.Text>{item.line_item_type}</Typography.Text>,
          cost: (
            <Typography.Text type={item.cost < 0 ? 'success' : undefined}>{usd(item.cost)}</Typography.Text>
          ),
        }))}
      />
    </Panel>
  );
}

const serviceLabel = (service: string) =>
  service in QUOTA_LABELS ? QUOTA_LABELS[service as QuotaKey] : service;

/** Services Usage (spec 002 §2): the month's use of each service against its quota, with the usage bar. */
function ServicesUsage({ month }: { month: string }) {
  const usage = useServicesUsage(month);
  return (
    <Panel title="Services Usage">
      <QueryBody query={usage}>
        {(services) =>
          services.length === 0 ? (
            <Typography.Text type="secondary">{analyticsTexts.noServiceUsed}</Typography.Text>
          ) : (
            <Space orientation="vertical" style={{ width: '100%' }}>
              {services.map((service) => (
                <ServiceUsageRow key={service.service} usage={service} />
              ))}
            </Space>
          )
        }
      </QueryBody>
    </Panel>
  );
}

function ServiceUsageRow({ usage }: { usage: AnalyticsServiceUsage }) {
  const label = serviceLabel(usage.service);
  const unlimited = usage.total === QUOTA_UNLIMITED;
  return (
    <div role="group" aria-label={label}>
      <Flex justify="space-between">
        <Typography.Text>{label}</Typography.Text>
        <Typography.Text type="secondary">
          {unlimited
            ? `${formatBytes(usage.usage)} of Unlimited`
            : `${formatBytes(usage.usage)} of ${formatBytes(usage.total)}`}
        </Typography.Text>
      </Flex>
      {!unlimited && <UsageBar used={usage.usage} total={usage.total} label={label} />}
    </div>
  );
}

/** Transfer Costs (spec 002 §2): Cumulo's own latest 5 finished transfers and what each cost. */
function TransferCosts() {
  const transfers = useTransferCosts(TRANSFERS_SHOWN);
  return (
    <Panel title="Transfer Costs">
      <QueryBody query={transfers}>
        {(items) => (
          <Table<AnalyticsTransferItem>
            size="small"
            rowKey="id"
            pagination={false}
            dataSource={items}
            locale={{ emptyText: analyticsTexts.noTransfer }}
            columns={[
              { title: 'Cloud', dataIndex: 'cloud' },
              { title: 'Size', dataIndex: 'size', render: (size: number) => formatBytes(size) },
              {
                title: 'Cost',
                dataIndex: 'cost',
                align: 'right',
                render: (cost: number) => formatUsd(cost, TRANSFER_COST_DECIMALS),
              },
              {
                title: 'Ended',
                dataIndex: 'ended',
                render: (ended: string) => formatTimestamp(ended),
              },
            ]}
          />
        )}
      </QueryBody>
    </Panel>
  );
}
