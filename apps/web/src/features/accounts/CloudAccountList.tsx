import { useEffect, useRef, useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  Empty,
  Flex,
  Space,
  Table,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd';
import {
  BarChartOutlined,
  BellOutlined,
  DeleteOutlined,
  EditOutlined,
  PlusSquareOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { BUCKET_CREATION_PROVIDERS, formatUsd, type CloudAccountView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { readAgain } from '../../api/query-client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useRealtimeMessage } from '../../api/realtime.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { PROVIDER_TITLES, ProviderLogo, isProviderName } from '../../ui/ProviderLogo.tsx';
import { AccountFilterPanel } from './AccountFilterPanel.tsx';
import { BucketTable } from './BucketTable.tsx';
import { NO_FILTERS, filterAccounts, type AccountFilters, type FilteredAccount } from './account-filters.ts';
import {
  useAccountPermissions,
  useCloudAccounts,
  useDeleteAccount,
  useRefreshInventory,
} from './accounts-api.ts';

const NO_ACCOUNTS_TEXT = 'You currently have no cloud accounts connected';

/** An inventory sends one message per bucket: refetch the list at most this often while they arrive. */
const INVENTORY_REFETCH_DELAY_MS = 500;

/** Live sizes: an 'inventory' message from the /rm hub marks the account list stale (refetched, throttled). */
function useInventoryUpdates(): void {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useRealtimeMessage('inventory', () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void readAgain(queryClient, queryKeys.accounts);
    }, INVENTORY_REFETCH_DELAY_MS);
  });
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );
}

function EmptyAccounts({
  error,
  refreshing,
  onRefresh,
}: {
  error?: unknown;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  return (
    <Card>
      <Empty description={NO_ACCOUNTS_TEXT}>
        {error !== undefined && error !== null && (
          <Alert
            type="error"
            showIcon
            title={describeError(error)}
            style={{ marginBottom: 16, textAlign: 'left' }}
          />
        )}
        <Button type="primary" icon={<ReloadOutlined aria-hidden />} loading={refreshing} onClick={onRefresh}>
          Refresh
        </Button>
      </Empty>
    </Card>
  );
}

interface CloudAccountListProps {
  /** The dashboard sends Owners and Admins with no account to /addProvider (spec 000 §2 "Empty state"). */
  redirectWhenEmpty?: boolean;
}

/**
 * Whether the page rendered here is still the browser's current history entry. A click in the menu commits its page
 * in a transition: until that page's code has loaded, this one stays on screen with its old location, and a
 * redirect it rendered meanwhile (an Owner without accounts sent on to /addProvider) would undo the click. The
 * browser's entry has already moved on; React Router's browser history keys it as it keys its locations (a memory
 * router, as in the tests, leaves no key there).
 */
function useStillCurrent(): boolean {
  const location = useLocation();
  const current = (window.history.state as { key?: unknown } | null)?.key;
  return typeof current !== 'string' || current === location.key;
}

/** The widest an account's name is drawn in the list, in CSS pixels; longer names are cut with an ellipsis. */
const ACCOUNT_NAME_WIDTH = 320;

/** The Active Cloud Providers list with its filter panel (spec 000 §2), fed by GET /api/cloud_accounts/. */
export function CloudAccountList({ redirectWhenEmpty = false }: CloudAccountListProps) {
  const accounts = useCloudAccounts();
  const permissions = useAccountPermissions();
  const stillCurrent = useStillCurrent();
  useInventoryUpdates();
  const refresh = () => void accounts.refetch();

  if (accounts.isPending) return <PageSpinner />;
  if (!accounts.data) {
    return <EmptyAccounts error={accounts.error} refreshing={accounts.isFetching} onRefresh={refresh} />;
  }
  if (accounts.data.length === 0) {
    if (!permissions.known) return <PageSpinner />;
    if (redirectWhenEmpty && permissions.canManage) {
      return stillCurrent ? <Navigate to="/addProvider" replace /> : <PageSpinner />;
    }
    return <EmptyAccounts refreshing={accounts.isFetching} onRefresh={refresh} />;
  }
  return <AccountTable accounts={accounts.data} canManage={permissions.canManage} />;
}

function AccountTable({ accounts, canManage }: { accounts: CloudAccountView[]; canManage: boolean }) {
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  const deleteAccount = useDeleteAccount();
  const refreshInventory = useRefreshInventory();
  const [filters, setFilters] = useState<AccountFilters>(NO_FILTERS);
  const [expandedId, setExpandedId] = useState<string | null>(null);
  // Accounts whose buckets were un-hidden by collapsing them; new filters hide buckets again.
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(new Set());

  const rows = filterAccounts(accounts, filters, revealed);

  const changeFilters = (next: AccountFilters) => {
    setFilters(next);
    setRevealed(new Set());
  };

  /** One account open at a time; clicking the open one closes it and shows all of its buckets. */
  const toggle = (accountId: string) => {
    if (expandedId === accountId) {
      setExpandedId(null);
      setRevealed((current) => new Set(current).add(accountId));
    } else {
      setExpandedId(accountId);
    }
  };

  const confirmDelete = (account: CloudAccountView) => {
    modal.confirm({
      title: 'Remove cloud account',
      content: `Do you want to remove the ${account.name} cloud account?`,
      okText: 'Remove',
      okButtonProps: { danger: true },
      cancelText: 'Cancel',
      onOk: async () => {
        try {
          const answer = await deleteAccount.mutateAsync(account.id);
          if (expandedId === account.id) setExpandedId(null);
          void message.success(answer.message);
        } catch (error) {
          void message.error(describeError(error));
        }
      },
    });
  };

  const refreshSizes = (account: CloudAccountView) => {
    refreshInventory.mutate(account.id, {
      onSuccess: (answer) => void message.success(answer.message),
      onError: (error) => void message.error(describeError(error)),
    });
  };

  const columns: TableColumnsType<FilteredAccount> = [
    {
      title: 'Name',
      key: 'name',
      render: (_, { account }) => {
        const provider = isProviderName(account.provider) ? account.provider : 'genericS3';
        return (
          <Flex align="center" gap={12}>
            <ProviderLogo provider={provider} />
            <Flex vertical style={{ minWidth: 0 }}>
              {/* A long name (up to 100 characters) is cut, whole on hover, so the other columns keep their place. */}
              <Button
                type="link"
                aria-expanded={expandedId === account.id}
                onClick={() => toggle(account.id)}
                title={account.name}
                style={{
                  padding: 0,
                  height: 'auto',
                  fontWeight: 600,
                  justifyContent: 'flex-start',
                  maxWidth: ACCOUNT_NAME_WIDTH,
                }}
              >
                <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                  {account.name}
                </span>
              </Button>
              <Typography.Text type="secondary">{PROVIDER_TITLES[provider]}</Typography.Text>
            </Flex>
          </Flex>
        );
      },
    },
    {
      title: 'Storage',
      key: 'storage',
      render: (_, { account }) => (
        <Flex vertical>
          <ByteSize bytes={account.total_bytes_used} />
          <Typography.Text type="secondary">
            {account.bucket_count === 1 ? '1 bucket' : `${account.bucket_count} buckets`} ·{' '}
            {formatUsd(account.total_cost)}/month est.
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: 'Actions',
      key: 'actions',
      render: (_, { account }) => {
        const id = encodeURIComponent(account.id);
        const canCreateBucket =
          canManage && (BUCKET_CREATION_PROVIDERS as readonly string[]).includes(account.provider);
        return (
          <Space wrap size={4}>
            {canCreateBucket && (
              <Tooltip title="Create bucket">
                <Button
                  aria-label="Create bucket"
                  icon={<PlusSquareOutlined aria-hidden />}
                  onClick={() => navigate(`/addBucket/${account.provider}/${id}`)}
                />
              </Tooltip>
            )}
            <Tooltip title="Alerts">
              <Button
                aria-label="Alerts"
                icon={<BellOutlined aria-hidden />}
                onClick={() => navigate(`/setAlert/${id}`)}
              />
            </Tooltip>
            {canManage && (
              <Tooltip title="Edit">
                <Button
                  aria-label="Edit"
                  icon={<EditOutlined aria-hidden />}
                  onClick={() => navigate(`/addProvider/${account.provider}/${id}`)}
                />
              </Tooltip>
            )}
            <Tooltip title="Refresh sizes">
              <Button
                aria-label="Refresh sizes"
                icon={<ReloadOutlined aria-hidden />}
                loading={refreshInventory.isPending && refreshInventory.variables === account.id}
                onClick={() => refreshSizes(account)}
              />
            </Tooltip>
            <Tooltip title="Compare prices">
              <Button
                aria-label="Compare prices"
                icon={<BarChartOutlined aria-hidden />}
                onClick={() => navigate(`/cloud-compare/${id}`)}
              />
            </Tooltip>
            {canManage && (
              <Tooltip title="Delete">
                <Button
                  aria-label="Delete"
                  danger
                  icon={<DeleteOutlined aria-hidden />}
                  onClick={() => confirmDelete(account)}
                />
              </Tooltip>
            )}
          </Space>
        );
      },
    },
  ];

  return (
    <Card title="Active Cloud Providers">
      <AccountFilterPanel accounts={accounts} filters={filters} onChange={changeFilters} />
      <Table<FilteredAccount>
        rowKey={(row) => row.account.id}
        columns={columns}
        dataSource={rows}
        pagination={false}
        locale={{ emptyText: 'No cloud account matches the filters.' }}
        expandable={{
          expandedRowKeys: expandedId ? [expandedId] : [],
          onExpand: (_, row) => toggle(row.account.id),
          expandedRowRender: (row) => (
            <BucketTable
              accountId={row.account.id}
              accountName={row.account.name}
              buckets={row.visibleBuckets}
              hiddenBucketCount={row.hiddenBucketCount}
            />
          ),
        }}
      />
    </Card>
  );
}
