import { Suspense, lazy, useMemo, useState } from 'react';
import {
  Alert,
  Button,
  Checkbox,
  DatePicker,
  Flex,
  Select,
  Spin,
  Table,
  Typography,
  type TableColumnsType,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { Link, useSearchParams } from 'react-router';
import {
  TRANSFER_HISTORY_COLUMNS,
  USAGE_TOTAL_COLUMNS,
  adminMessages,
  parseDirection,
  type AdminDirection,
  type AdminTransferRow,
  type AdminUsageFiltersAnswer,
  type AdminUsageTotalRow,
} from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import {
  filterFromSearch,
  filterQuery,
  filterSearch,
  useUsageFilters,
  useUsageHistory,
  useUsageTotals,
  type UsageFilter,
} from './admin-api.ts';
import { DownloadReport, LoadFailure, noData, pager, tableColumns } from './admin-ui.tsx';

// recharts is only fetched when this page draws its chart.
const UsageChart = lazy(() => import('./UsageChart.tsx').then((m) => ({ default: m.UsageChart })));

const ALL_USERS = 'ALL';
const DAY = 'YYYY-MM-DD';
const SHOWN_DAY = 'MM/DD/YYYY';

/**
 * /usageDetail — one organisation's (or every organisation's) transfers: totals per direction and the history,
 * under a filter kept in the URL so reloads and the Detail links keep it (spec 002 §2).
 */
export function UsageDetailPage() {
  useDocumentTitle('Usage Detail');
  const [params, setParams] = useSearchParams();
  const filter = useMemo(() => filterFromSearch(params), [params]);
  const [page, setPage] = useState(1);
  const filters = useUsageFilters(filter.account);
  const totals = useUsageTotals(filter);
  const history = useUsageHistory(filter, page);

  const apply = (next: UsageFilter) => {
    setPage(1);
    setParams(new URLSearchParams(filterSearch(next)));
  };

  const totalColumns = useMemo<TableColumnsType<AdminUsageTotalRow>>(
    () => [
      ...tableColumns(USAGE_TOTAL_COLUMNS),
      {
        title: 'Detail',
        key: 'detail',
        // A row of a removed account ('Unknown to Azure') has no direction the detail can filter by.
        render: (_, row) =>
          parseDirection(row.direction) ? (
            <Link
              to={`/transferCostDetail${filterSearch({ ...filter, directions: [row.direction] })}`}
              aria-label={`Detail of ${row.label}`}
            >
              Detail
            </Link>
          ) : (
            <Typography.Text type="secondary">{adminMessages.removedAccountNoDetail}</Typography.Text>
          ),
      },
    ],
    [filter],
  );
  const historyColumns = useMemo(() => tableColumns(TRANSFER_HISTORY_COLUMNS), []);
  const totalRows = totals.data?.totals ?? [];

  return (
    <Flex vertical gap={16}>
      <Flex vertical gap={0}>
        <Typography.Text type="secondary">Account Name</Typography.Text>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {filters.data
            ? (filters.data.account?.name ?? 'All accounts')
            : filter.account
              ? '…'
              : 'All accounts'}
        </Typography.Title>
      </Flex>
      {filters.error ? (
        <LoadFailure error={filters.error} />
      ) : filters.data ? (
        // Keyed by the applied filter: a reload or a back navigation shows the URL's filter, not a stale draft.
        <FilterBar key={params.toString()} filter={filter} options={filters.data} onApply={apply} />
      ) : (
        <Spin />
      )}

      <Typography.Title level={4} style={{ margin: 0 }}>
        Total Transfer/Cost Report
      </Typography.Title>
      {totals.error ? (
        <LoadFailure error={totals.error} />
      ) : (
        <>
          <Table<AdminUsageTotalRow>
            rowKey="direction"
            aria-label="Total Transfer/Cost Report"
            loading={totals.isFetching}
            columns={totalColumns}
            dataSource={totalRows}
            locale={noData}
            pagination={false}
          />
          {totalRows.length > 0 && (
            <figure aria-label="Total Transfer per direction" style={{ margin: 0 }}>
              <Suspense fallback={<Spin aria-label="Loading chart" />}>
                <UsageChart totals={totalRows} />
              </Suspense>
            </figure>
          )}
        </>
      )}

      <Flex justify="space-between" align="center" wrap gap={8}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          Transfer History
        </Typography.Title>
        <Typography.Title level={5} style={{ margin: 0 }}>
          <DownloadReport
            path="/admin/usage/history"
            query={filterQuery(filter)}
            fileName="transfer-history.csv"
          />
        </Typography.Title>
      </Flex>
      {history.error ? (
        <LoadFailure error={history.error} />
      ) : (
        <Table<AdminTransferRow>
          rowKey="id"
          aria-label="Transfer History"
          loading={history.isFetching}
          columns={historyColumns}
          dataSource={history.data?.rows ?? []}
          locale={noData}
          pagination={pager(page, history.data?.total ?? 0, setPage)}
        />
      )}
    </Flex>
  );
}

/** A URL's 'YYYY-MM-DD' as a picker's day; nothing for an absent or unreadable one. */
function dayOf(text: string | undefined): Dayjs | null {
  const day = text ? dayjs(text) : null;
  return day?.isValid() ? day : null;
}

interface FilterBarProps {
  filter: UsageFilter;
  options: AdminUsageFiltersAnswer;
  onApply: (filter: UsageFilter) => void;
}

/** The user, the period and the directions; nothing is asked for until 'Filter'. */
function FilterBar({ filter, options, onApply }: FilterBarProps) {
  const all = options.directions.map((direction: AdminDirection) => direction.key);
  const [user, setUser] = useState(filter.user ?? ALL_USERS);
  const [start, setStart] = useState<Dayjs | null>(() => dayOf(filter.start));
  const [end, setEnd] = useState<Dayjs | null>(() => dayOf(filter.end));
  const [checked, setChecked] = useState<string[]>(filter.directions ?? all);
  const badPeriod = start !== null && end !== null && end.isBefore(start, 'day');

  const apply = () => {
    if (badPeriod) return;
    // Every box (or none) checked is no direction filter at all: new directions then show up too.
    const some = checked.length > 0 && all.some((key) => !checked.includes(key));
    onApply({
      account: filter.account,
      user: user === ALL_USERS ? undefined : user,
      start: start?.format(DAY),
      end: end?.format(DAY),
      directions: some ? checked : undefined,
    });
  };

  return (
    <Flex vertical gap={8}>
      <Flex wrap gap={8} align="center">
        <Select
          aria-label="User"
          style={{ minWidth: 220 }}
          showSearch
          optionFilterProp="label"
          value={user}
          onChange={setUser}
          options={[
            { value: ALL_USERS, label: 'ALL' },
            ...options.users.map((u) => ({ value: u.id, label: u.name })),
          ]}
        />
        <DatePicker
          aria-label="Period start"
          placeholder="Period start"
          format={SHOWN_DAY}
          value={start}
          onChange={setStart}
        />
        <DatePicker
          aria-label="Period end"
          placeholder="Period end"
          format={SHOWN_DAY}
          value={end}
          onChange={setEnd}
          status={badPeriod ? 'error' : undefined}
        />
        <Button type="primary" onClick={apply} disabled={badPeriod}>
          Filter
        </Button>
      </Flex>
      {badPeriod && <Alert type="error" showIcon title={adminMessages.badPeriod} />}
      {options.directions.length > 0 && (
        <Checkbox.Group
          aria-label="Directions"
          value={checked}
          onChange={(keys) => setChecked(keys.map(String))}
          options={options.directions.map((direction) => ({ value: direction.key, label: direction.label }))}
        />
      )}
    </Flex>
  );
}
