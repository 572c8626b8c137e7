import { useMemo, useState } from 'react';
import { Flex, Table, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { ACCOUNT_COLUMNS, ADMIN_PAGE_SIZE, formatMonthName, type AdminAccountRow } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useAdminAccounts } from './admin-api.ts';
import { AdminListHeader, DownloadReport, LoadFailure, noData, pager, tableColumns } from './admin-ui.tsx';

/** /admindaccount — every organisation of this Cumulo with its previous month's usage and cost (spec 002 §2). */
export function AccountsPage() {
  useDocumentTitle('Account');
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const query = { search: search || undefined };
  const accounts = useAdminAccounts({ ...query, page, pagesize: ADMIN_PAGE_SIZE });

  const columns = useMemo<TableColumnsType<AdminAccountRow>>(
    () => [
      ...tableColumns(ACCOUNT_COLUMNS),
      {
        title: 'Detail',
        key: 'detail',
        render: (_, row) => (
          <Link
            to={`/usageDetail?account=${encodeURIComponent(row.id)}`}
            aria-label={`Detail of ${row.accountName}`}
          >
            Detail
          </Link>
        ),
      },
    ],
    [],
  );

  return (
    <Flex vertical gap={16}>
      <AdminListHeader
        title="Account"
        add={{ to: '/addNewAccount', label: 'Add New Account', icon: <PlusOutlined /> }}
        searchLabel="Search accounts"
        onSearch={(value) => {
          setSearch(value);
          setPage(1);
        }}
        download={<DownloadReport path="/admin/accounts" query={query} fileName="accounts.csv" />}
      />
      {accounts.error ? (
        <LoadFailure error={accounts.error} />
      ) : (
        <Table<AdminAccountRow>
          rowKey="id"
          aria-label="Accounts"
          loading={accounts.isFetching}
          columns={columns}
          dataSource={accounts.data?.accounts ?? []}
          locale={noData}
          title={
            accounts.data
              ? () =>
                  `Total Usage and Total Cost of the previous month: ${formatMonthName(accounts.data.month)}`
              : undefined
          }
          pagination={pager(page, accounts.data?.total ?? 0, setPage)}
        />
      )}
    </Flex>
  );
}
