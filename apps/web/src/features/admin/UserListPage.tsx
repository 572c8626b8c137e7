import { useMemo, useState } from 'react';
import { App, Flex, Space, Switch, Table, type TableColumnsType } from 'antd';
import { UserAddOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { ADMIN_PAGE_SIZE, USER_COLUMNS, type AdminUserRow } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useAdminUsers, useSetUserActive } from './admin-api.ts';
import { AdminListHeader, DownloadReport, LoadFailure, noData, pager, tableColumns } from './admin-ui.tsx';

const STATUS_TITLE = 'Status';

/** /userList — every member of every organisation, with the Active switch (spec 002 §2). */
export function UserListPage() {
  useDocumentTitle('Users');
  const { message } = App.useApp();
  const { data: profile } = useProfile();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const query = { search: search || undefined };
  const users = useAdminUsers({ ...query, page, pagesize: ADMIN_PAGE_SIZE });
  const setActive = useSetUserActive();

  const columns = useMemo<TableColumnsType<AdminUserRow>>(() => {
    const toggle = (row: AdminUserRow, active: boolean) =>
      setActive.mutate(
        { id: row.id, active },
        {
          onSuccess: (text) => void message.success(text),
          onError: (error) => void message.error(describeError(error)),
        },
      );
    return [
      ...tableColumns(USER_COLUMNS).map((column) =>
        column.key === STATUS_TITLE
          ? {
              ...column,
              render: (_: unknown, row: AdminUserRow) => (
                <Space>
                  <Switch
                    size="small"
                    aria-label={`Active: ${row.userName}`}
                    checked={row.active}
                    // Nobody switches themselves off: the console would lock its own operator out.
                    disabled={row.id === profile?.id}
                    loading={setActive.isPending && setActive.variables.id === row.id}
                    onChange={(checked) => toggle(row, checked)}
                  />
                  {row.active ? 'Active' : 'Deactivate'}
                </Space>
              ),
            }
          : column,
      ),
      {
        title: 'Detail',
        key: 'detail',
        render: (_, row) => (
          <Link
            to={`/usageDetail?account=${encodeURIComponent(row.accountId)}&user=${encodeURIComponent(row.id)}`}
            aria-label={`Detail of ${row.userName}`}
          >
            Detail
          </Link>
        ),
      },
    ];
  }, [message, profile?.id, setActive]);

  return (
    <Flex vertical gap={16}>
      <AdminListHeader
        title="Users"
        add={{ to: '/addNewUser', label: 'Add New User', icon: <UserAddOutlined /> }}
        searchLabel="Search users"
        onSearch={(value) => {
          setSearch(value);
          setPage(1);
        }}
        download={<DownloadReport path="/admin/users" query={query} fileName="users.csv" />}
      />
      {users.error ? (
        <LoadFailure error={users.error} />
      ) : (
        <Table<AdminUserRow>
          rowKey="id"
          aria-label="Users"
          loading={users.isFetching}
          columns={columns}
          dataSource={users.data?.users ?? []}
          locale={noData}
          pagination={pager(page, users.data?.total ?? 0, setPage)}
        />
      )}
    </Flex>
  );
}
