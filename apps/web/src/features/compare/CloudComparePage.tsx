import { Suspense, lazy, useState } from 'react';
import {
  Alert,
  Card,
  Flex,
  InputNumber,
  Select,
  Space,
  Spin,
  Table,
  Typography,
  type TableColumnsType,
} from 'antd';
import { Link, useParams } from 'react-router';
import {
  SIZE_UNITS_GB,
  calculatorSize,
  formatUsd,
  type CloudAccountView,
  type SizeUnit,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { ProviderLogo } from '../../ui/ProviderLogo.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { bytesToGb } from '../accounts/account-filters.ts';
import { comparePrices, comparedGb, type ProviderPrice } from './price-comparison.ts';

// recharts is only fetched when this page draws its chart.
const CompareChart = lazy(() => import('./CompareChart.tsx').then((m) => ({ default: m.CompareChart })));

const UNITS = Object.keys(SIZE_UNITS_GB) as SizeUnit[];
/** /cloud-compare/0 starts at 1 TB. */
const DEFAULT_SIZE = { size: 1, unit: 'TB' as SizeUnit };

/** Per-GB prices are fractions of a cent: show them with enough decimals to tell the providers apart. */
const perGbText = (value: number) => formatUsd(value, 4);

const columns: TableColumnsType<ProviderPrice> = [
  {
    title: 'Provider',
    key: 'provider',
    render: (_, price) => (
      <Flex align="center" gap={8}>
        <ProviderLogo provider={price.logo} />
        <span>{price.label}</span>
      </Flex>
    ),
  },
  { title: 'Price per GB', key: 'perGb', align: 'right', render: (_, price) => perGbText(price.perGb) },
  {
    title: 'Storage / month',
    key: 'storage',
    align: 'right',
    render: (_, price) => formatUsd(price.storageMonthly),
  },
  { title: 'Egress', key: 'egress', align: 'right', render: (_, price) => formatUsd(price.egress) },
  {
    title: 'Total',
    key: 'total',
    align: 'right',
    render: (_, price) => <Typography.Text strong>{formatUsd(price.total)}</Typography.Text>,
  },
];

interface CalculatorProps {
  account?: CloudAccountView;
  initialSize: number;
  initialUnit: SizeUnit;
}

function PriceCalculator({ account, initialSize, initialUnit }: CalculatorProps) {
  // null while the field is empty: the prices then use the minimum size, 1.
  const [size, setSize] = useState<number | null>(initialSize);
  const [unit, setUnit] = useState<SizeUnit>(initialUnit);
  const wholeSize = calculatorSize(size ?? 1);
  const prices = comparePrices(comparedGb(wholeSize, unit));

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {account ? `Cloud Price Comparison for ${account.name}` : 'Cloud Price Comparison'}
      </Typography.Title>
      <Card>
        <Flex align="center" gap={12} wrap>
          <label htmlFor="compare-size">Size</label>
          <Space.Compact>
            <InputNumber<number>
              id="compare-size"
              min={1}
              step={1}
              value={size}
              onChange={setSize}
              onBlur={() => setSize(wholeSize)}
              style={{ width: 160 }}
            />
            <Select<SizeUnit>
              aria-label="Unit"
              value={unit}
              onChange={setUnit}
              options={UNITS.map((value) => ({ value, label: value }))}
              style={{ width: 90 }}
            />
          </Space.Compact>
          <Typography.Text type="secondary">
            Prices for {wholeSize.toLocaleString('en-US')} {unit} stored for one month.
          </Typography.Text>
        </Flex>
      </Card>
      <Card title="Prices">
        <Table<ProviderPrice>
          rowKey="table"
          columns={columns}
          dataSource={prices}
          pagination={false}
          size="middle"
        />
      </Card>
      <Card title="Monthly cost">
        <Typography.Paragraph type="secondary">
          Each bar stacks the monthly storage cost and the egress cost of downloading the same amount once.
        </Typography.Paragraph>
        <Suspense fallback={<Spin aria-label="Loading chart" />}>
          <CompareChart prices={prices} />
        </Suspense>
      </Card>
    </Space>
  );
}

/** An account's usage as the calculator's starting size, in whole GB. */
function accountSize(account: CloudAccountView): { size: number; unit: SizeUnit } {
  return { size: calculatorSize(bytesToGb(account.total_bytes_used)), unit: 'GB' };
}

function AccountComparison({ accountId }: { accountId: string }) {
  const accounts = useCloudAccounts();
  if (accounts.isPending) return <PageSpinner />;
  const account = accounts.data?.find((item) => item.id === accountId);
  const start = account ? accountSize(account) : DEFAULT_SIZE;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      {!account && (
        <Alert
          type="warning"
          showIcon
          title={
            accounts.error
              ? describeError(accounts.error)
              : 'This cloud account was not found. The prices below are for 1 TB.'
          }
          action={<Link to="/cloudproviders">Cloud Providers</Link>}
        />
      )}
      <PriceCalculator account={account} initialSize={start.size} initialUnit={start.unit} />
    </Space>
  );
}

/** /cloud-compare/{id} — storage prices of Wasabi, Azure, S3 and Google side by side (spec 000 §2, §9). */
export function CloudComparePage() {
  useDocumentTitle('Cloud Price Comparison');
  const { id = '0' } = useParams();
  if (id === '0') return <PriceCalculator initialSize={DEFAULT_SIZE.size} initialUnit={DEFAULT_SIZE.unit} />;
  return <AccountComparison key={id} accountId={id} />;
}
