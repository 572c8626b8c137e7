import { useState } from 'react';
import { Alert, App, Button, Flex, Input, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { WarningOutlined } from '@ant-design/icons';
import {
  financeMessages,
  parseBudgetInput,
  type BudgetHierarchical,
  type BudgetRow,
  type PutBudgetBody,
} from '@cumulo/contract';
import { ApiError, fieldMessages } from '../../api/client.ts';
import { usePutBudget } from './finance-api.ts';
import { useFinanceFormat } from './useFinanceFormat.ts';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 'January 2026' of '2026-01' (or of '2026-01-01'). */
const monthTitle = (month: string) =>
  `${MONTH_NAMES[Number(month.slice(5, 7)) - 1] ?? month} ${month.slice(0, 4)}`;

/** Spec 002 §8: the server's words when it answered with some, else 'Error updating budget, please try again.'. */
function budgetFailureText(error: unknown): string {
  if (error instanceof ApiError && error.body && typeof error.body === 'object') {
    if ('message' in error.body || 'errors' in error.body) {
      return fieldMessages(error.body)[0] ?? financeMessages.budgetFailed;
    }
  }
  return financeMessages.budgetFailed;
}

/** The share of the budget spent, '—' without a budget to measure against. */
function percentUsed(actual: number, budget: number | null): string {
  if (budget === null || budget === 0) return '—';
  return `${((actual / budget) * 100).toFixed(1)} %`;
}

/** Sends one budget change and tells how it went; true when saved. */
function useBudgetSave() {
  const { message } = App.useApp();
  const put = usePutBudget();
  return async (body: PutBudgetBody): Promise<boolean> => {
    try {
      await put.mutateAsync(body);
      void message.success(financeMessages.budgetUpdated);
      return true;
    } catch (error) {
      void message.error(budgetFailureText(error));
      return false;
    }
  };
}

/** A month's budget being edited: Enter saves, Escape cancels, a value that is no budget sends nothing. */
function BudgetEditor({
  month,
  initial,
  onSave,
  onCancel,
}: {
  month: string;
  initial: number | null;
  onSave: (amount: number) => Promise<boolean>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial === null ? '' : String(initial));
  const [invalid, setInvalid] = useState(false);
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const amount = parseBudgetInput(draft);
    if (amount === null) {
      setInvalid(true);
      return;
    }
    setSaving(true);
    // Saved, the editor closes; refused, it stays open with what was typed.
    if (!(await onSave(amount))) setSaving(false);
  };
  return (
    <Flex vertical gap={2}>
      <Input
        autoFocus
        size="small"
        aria-label={`Budget of ${monthTitle(month)}`}
        value={draft}
        status={invalid ? 'error' : undefined}
        disabled={saving}
        style={{ maxWidth: 160 }}
        onChange={(event) => {
          setDraft(event.target.value);
          setInvalid(false);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            void submit();
          } else if (event.key === 'Escape') {
            event.preventDefault();
            onCancel();
          }
        }}
      />
      {invalid && (
        <Typography.Text type="danger" role="alert">
          {financeMessages.invalidBudget}
        </Typography.Text>
      )}
    </Flex>
  );
}

/** The mismatch warning of a Total month, with what its product budgets add up to. */
function MismatchWarning({ row, money }: { row: BudgetRow; money: (value: number | null) => string }) {
  return (
    <Typography.Text type="warning" style={{ fontSize: 12 }}>
      <WarningOutlined /> <span>{financeMessages.subBudgetMismatch}</span>
      {row.sub_budgets !== null && <span> (products: {money(row.sub_budgets)})</span>}
    </Typography.Text>
  );
}

/** "Set yearly budget": one amount spread over the year's twelve months by the server. */
function YearlyBudgetForm({ onSave }: { onSave: (amount: number) => Promise<boolean> }) {
  const [draft, setDraft] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const amount = parseBudgetInput(draft);
    if (amount === null) {
      setInvalid(true);
      return;
    }
    setSaving(true);
    if (await onSave(amount)) setDraft('');
    setSaving(false);
  };
  return (
    <Flex vertical gap={2}>
      <Space.Compact>
        <Input
          aria-label="Yearly budget"
          placeholder="Yearly budget"
          value={draft}
          status={invalid ? 'error' : undefined}
          style={{ width: 160 }}
          onChange={(event) => {
            setDraft(event.target.value);
            setInvalid(false);
          }}
          onPressEnter={() => void submit()}
        />
        <Button type="primary" loading={saving} onClick={() => void submit()}>
          Set yearly budget
        </Button>
      </Space.Compact>
      {invalid && (
        <Typography.Text type="danger" role="alert">
          {financeMessages.invalidBudget}
        </Typography.Text>
      )}
    </Flex>
  );
}

/**
 * Budget versus actual by month for one cloud and label, with the year's total (spec 002 §2 Finance). Members who
 * may set budgets click a month's budget to edit it, or spread a yearly amount over the months.
 */
export function BudgetTable({
  budget,
  cloud,
  mayEdit,
  currentMonth,
}: {
  budget: BudgetHierarchical;
  cloud: string;
  mayEdit: boolean;
  /** 'YYYY-MM' of today. */
  currentMonth: string;
}) {
  const { money, bordered } = useFinanceFormat();
  const save = useBudgetSave();
  const [editing, setEditing] = useState<string | null>(null);
  const { label, year, rows, yearly } = budget;
  // The Year's difference and % used weigh the year's budget against the months it covers: spending in months
  // without a budget would otherwise read as, say, 3905 % of a one-month budget.
  const partlyBudgeted =
    yearly.budget !== null && rows.some((row) => row.budget === null && row.actual !== 0);
  const budgetedActual = partlyBudgeted
    ? Math.round(rows.filter((row) => row.budget !== null).reduce((sum, row) => sum + row.actual, 0) * 100) /
      100
    : yearly.actual;

  const saveMonth = async (month: string, amount: number) => {
    const saved = await save({ cloud, label, amount, flag: 'monthly', month: month.slice(0, 7) });
    if (saved) setEditing(null);
    return saved;
  };
  const saveYear = (amount: number) =>
    save({ cloud, label, amount, flag: 'yearly', start: `${year}-01`, end: `${year}-12` });

  const columns: TableColumnsType<BudgetRow> = [
    {
      title: 'Month',
      dataIndex: 'month',
      render: (month: string) => (
        <Space size={4}>
          {monthTitle(month)}
          {month.slice(0, 7) === currentMonth && <Tag color="blue">Current</Tag>}
        </Space>
      ),
    },
    {
      title: 'Budget',
      dataIndex: 'budget',
      align: 'right',
      render: (_: unknown, row: BudgetRow) => (
        <Flex vertical align="flex-end" gap={2}>
          {editing === row.month ? (
            <BudgetEditor
              month={row.month}
              initial={row.budget}
              onSave={(amount) => saveMonth(row.month, amount)}
              onCancel={() => setEditing(null)}
            />
          ) : mayEdit ? (
            <Button
              type="link"
              size="small"
              aria-label={`Edit the budget of ${monthTitle(row.month)}`}
              onClick={() => setEditing(row.month)}
              style={{ padding: 0 }}
            >
              {row.budget === null ? 'Set budget' : money(row.budget)}
            </Button>
          ) : (
            money(row.budget)
          )}
          {row.budget_warning && <MismatchWarning row={row} money={money} />}
        </Flex>
      ),
    },
    { title: 'Actual', dataIndex: 'actual', align: 'right', render: (actual: number) => money(actual) },
    {
      title: 'Forecast',
      dataIndex: 'forecast',
      align: 'right',
      render: (forecast: number | null) => money(forecast),
    },
    {
      title: 'Difference',
      key: 'difference',
      align: 'right',
      render: (_: unknown, row: BudgetRow) => (
        <Difference budget={row.budget} actual={row.actual} money={money} />
      ),
    },
    {
      title: '% used',
      key: 'used',
      align: 'right',
      render: (_: unknown, row: BudgetRow) => percentUsed(row.actual, row.budget),
    },
  ];

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      {rows.some((row) => row.budget_warning) && (
        <Alert type="warning" showIcon title={financeMessages.subBudgetMismatch} />
      )}
      {mayEdit && <YearlyBudgetForm onSave={saveYear} />}
      <Table<BudgetRow>
        rowKey="month"
        size="small"
        bordered={bordered}
        pagination={false}
        columns={columns}
        dataSource={rows}
        summary={() => (
          <Table.Summary.Row>
            <Table.Summary.Cell index={0}>
              <strong>Year {year}</strong>
            </Table.Summary.Cell>
            <Table.Summary.Cell index={1} align="right">
              {money(yearly.budget)}
            </Table.Summary.Cell>
            <Table.Summary.Cell index={2} align="right">
              {money(yearly.actual)}
            </Table.Summary.Cell>
            <Table.Summary.Cell index={3} align="right">
              {money(yearly.forecast)}
            </Table.Summary.Cell>
            <Table.Summary.Cell index={4} align="right">
              <Difference budget={yearly.budget} actual={budgetedActual} money={money} />
            </Table.Summary.Cell>
            <Table.Summary.Cell index={5} align="right">
              {percentUsed(budgetedActual, yearly.budget)}
            </Table.Summary.Cell>
          </Table.Summary.Row>
        )}
      />
      {partlyBudgeted && (
        <Typography.Text type="secondary">
          The year&apos;s difference and % used count the months that have a budget.
        </Typography.Text>
      )}
    </Space>
  );
}

/** What is left of the budget; spent beyond it shows in red. */
function Difference({
  budget,
  actual,
  money,
}: {
  budget: number | null;
  actual: number;
  money: (value: number | null) => string;
}) {
  if (budget === null) return <>{money(null)}</>;
  // Cents, so 0.1 + 0.2 style remainders never show as a stray cent.
  const left = (Math.round(budget * 100) - Math.round(actual * 100)) / 100;
  return <Typography.Text type={left < 0 ? 'danger' : undefined}>{money(left)}</Typography.Text>;
}
