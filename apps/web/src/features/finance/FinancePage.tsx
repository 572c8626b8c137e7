import { Suspense, lazy, useState } from 'react';
import { Alert, App, Button, Card, Col, Flex, Result, Row, Space, Spin, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import {
  ACTIONS,
  analyticsReadMessages,
  budgetLabelOf,
  financeMessages,
  roleMay,
  type CloudAccountView,
  type UserProfile,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { IngestStatus } from '../analytics/IngestStatus.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useProfile } from '../profile/useProfile.ts';
import { saveTextFile } from '../transfers/save-text-file.ts';
import { BudgetTable } from './BudgetTable.tsx';
import { FinanceActions } from './FinanceActions.tsx';
import { BudgetTree } from './BudgetTree.tsx';
import { FinanceFilters, useFinanceFilters, type FinanceFilterState } from './FinanceFilters.tsx';
import { fetchBudgetCsv, useBudgetHierarchical } from './finance-api.ts';
import { useFinanceFormat } from './useFinanceFormat.ts';

// recharts is only fetched when the chart is drawn, never with the sign-in screens.
const BudgetChart = lazy(() => import('./BudgetChart.tsx').then((m) => ({ default: m.BudgetChart })));

/** Whether the member may set budgets: the server's own rule (finance.budget, with the finance ACL on). */
export function mayEditBudget(profile: UserProfile | undefined): boolean {
  const service = ACTIONS['finance.budget'].service;
  return (
    profile !== undefined &&
    roleMay(profile.role.title, 'finance.budget') &&
    (service === null || profile.acl.services[service] !== false)
  );
}

/** 'YYYY-MM' of a date (UTC, as the server counts months). */
const monthOf = (date: Date) => `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;

/** /finance, the budget manager (spec 002 §2 Finance): filters, the tree of clouds, the chart and the table. */
export function FinancePage() {
  useDocumentTitle('Finance');
  const filters = useFinanceFilters();
  const cloud = filters.account?.id;
  const label = filters.label;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap={16}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Finance
        </Typography.Title>
        <Space wrap>
          <FinanceActions cloud={cloud} product={label} />
          {cloud && <ExportCsvButton cloud={cloud} year={filters.year} label={label} />}
        </Space>
      </Flex>
      <FinanceBody filters={filters} />
    </Space>
  );
}

function FinanceBody({ filters }: { filters: FinanceFilterState }) {
  const accounts = useCloudAccounts();
  if (accounts.isError) return <Alert type="error" showIcon title={describeError(accounts.error)} />;
  if (!filters.accounts) return <PageSpinner />;
  if (filters.accounts.length === 0) {
    return (
      <Result
        status="info"
        title={analyticsReadMessages.noAccount}
        extra={
          <Link to="/addProvider">
            <Button type="primary">Add a cloud account</Button>
          </Link>
        }
      />
    );
  }
  const account = filters.account;
  if (!account) return <PageSpinner />;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <FinanceFilters state={filters} />
      <Row gutter={[24, 24]}>
        <Col xs={24} xl={7}>
          <section aria-label="Budgets by cloud">
            <Card size="small" title="Budgets by cloud">
              <BudgetTree
                year={filters.year}
                selected={{ cloud: account.id, label: filters.label }}
                onSelect={(chosen) => filters.choose({ cloud: chosen.cloud, label: chosen.label })}
              />
            </Card>
          </section>
        </Col>
        <Col xs={24} xl={17}>
          <AccountBudget account={account} filters={filters} />
        </Col>
      </Row>
    </Space>
  );
}

function AccountBudget({ account, filters }: { account: CloudAccountView; filters: FinanceFilterState }) {
  const { money } = useFinanceFormat();
  const profile = useProfile().data;
  const budget = useBudgetHierarchical({
    cloud: account.id,
    year: filters.year,
    label: filters.label,
    compare: filters.compare,
  });
  const currentMonth = monthOf(new Date());
  if (budget.isError) return <Alert type="error" showIcon title={describeError(budget.error)} />;
  if (budget.isPending) return <Spin aria-label="Loading" />;
  const data = budget.data;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      {/* Actuals come from the billing reports: when a run under way ends, IngestStatus's useIngestRuns reads every
          finance answer again, so the table and the chart show the new month at once. */}
      {account.billing_bucket && <IngestStatus account={account} />}
      {!data.has_reports && <Alert type="info" showIcon title={financeMessages.noReports} />}
      <section aria-label="Budget chart">
        <Card
          size="small"
          title={`${account.name} · ${budgetLabelOf(data.label)} · ${data.year}`}
          extra={
            data.data_through && (
              <Typography.Text type="secondary">Reports through {data.data_through}</Typography.Text>
            )
          }
        >
          <figure aria-label="Budget versus actual chart" style={{ margin: 0 }}>
            <Suspense fallback={<Spin aria-label="Loading" />}>
              <BudgetChart
                points={data.chart}
                currentMonth={currentMonth}
                label={budgetLabelOf(data.label)}
                compare={data.compare === null ? null : budgetLabelOf(data.compare)}
                money={money}
              />
            </Suspense>
          </figure>
        </Card>
      </section>
      <section aria-label="Budget versus actual">
        <Card size="small" title="Budget versus actual by month">
          <BudgetTable
            budget={data}
            cloud={account.id}
            mayEdit={mayEditBudget(profile)}
            currentMonth={currentMonth}
          />
        </Card>
      </section>
    </Space>
  );
}

/** Export CSV: the table of the cloud, label and year, through the authenticated API. */
function ExportCsvButton({ cloud, year, label }: { cloud: string; year: number; label: string }) {
  const { message } = App.useApp();
  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    setExporting(true);
    try {
      saveTextFile(`budget-${year}-${label}.csv`, await fetchBudgetCsv({ cloud, year, label }), 'text/csv');
    } catch (error) {
      void message.error(describeError(error));
    } finally {
      setExporting(false);
    }
  };
  return (
    <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportCsv()}>
      Export CSV
    </Button>
  );
}
