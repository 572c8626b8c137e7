import { useMemo, useState } from 'react';
import { Flex, Input, Table, Typography } from 'antd';
import { useSearchParams } from 'react-router';
import { ADMIN_SEARCH_MAX, TRANSFER_COST_COLUMNS, type AdminTransferCostRow } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { filterFromSearch, filterQuery, useTransferCosts } from './admin-api.ts';
import { DownloadReport, LoadFailure, noData, pager, tableColumns } from './admin-ui.tsx';

/**
 * /transferCostDetail — per direction and pair of cloud accounts, the bytes moved, the price per GB and the total,
 * under /usageDetail's filter (from the URL); the search runs over the direction, 20 characters at most (spec 002 §2).
 */
export function TransferCostDetailPage() {
  useDocumentTitle('Transfer and Cost Report');
  const [params] = useSearchParams();
  const filter = useMemo(() => filterFromSearch(params), [params]);
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const costs = useTransferCosts(filter, page, search);
  const columns = useMemo(() => tableColumns(TRANSFER_COST_COLUMNS), []);

  return (
    <Flex vertical gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Transfer and Cost Report
      </Typography.Title>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Input.Search
          aria-label="Search directions"
          placeholder="Search directions"
          allowClear
          maxLength={ADMIN_SEARCH_MAX}
          style={{ maxWidth: 320 }}
          onSearch={(value) => {
            setSearch(value.trim().slice(0, ADMIN_SEARCH_MAX));
            setPage(1);
          }}
        />
        <Typography.Title level={5} style={{ margin: 0 }}>
          <DownloadReport
            path="/admin/transfer-costs"
            query={{ ...filterQuery(filter), search: search || undefined }}
            fileName="transfer-costs.csv"
          />
        </Typography.Title>
      </Flex>
      {costs.error ? (
        <LoadFailure error={costs.error} />
      ) : (
        <Table<AdminTransferCostRow>
          rowKey={(row) => `${row.direction}|${row.source}|${row.destination}`}
          aria-label="Transfer and Cost Report"
          loading={costs.isFetching}
          columns={columns}
          dataSource={costs.data?.rows ?? []}
          locale={noData}
          pagination={pager(page, costs.data?.total ?? 0, setPage)}
        />
      )}
    </Flex>
  );
}
