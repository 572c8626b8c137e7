import { Suspense, useMemo, type ReactNode } from 'react';
import { Layout, Menu, Typography, type MenuProps } from 'antd';
import {
  AppstoreOutlined,
  AuditOutlined,
  BankOutlined,
  BarChartOutlined,
  CloudOutlined,
  CloudSyncOutlined,
  DashboardOutlined,
  DollarOutlined,
  FileSearchOutlined,
  FundOutlined,
  LogoutOutlined,
  RetweetOutlined,
  SettingOutlined,
  ShareAltOutlined,
  SwapOutlined,
  SyncOutlined,
  TeamOutlined,
  UnorderedListOutlined,
  UsergroupAddOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import { Link, Outlet, useLocation } from 'react-router';
import { USER_TYPE_ALL_PROVIDERS, type AccessService } from '@cumulo/contract';
import { useRealtimeConnection } from '../api/realtime.ts';
import { useProfile } from '../features/profile/useProfile.ts';
import { PaymentMethodBanner } from '../features/billing/PaymentMethodBanner.tsx';
import { NotificationBell } from '../features/notifications/NotificationBell.tsx';
import { TransferIndicator } from '../features/transfers/TransferIndicator.tsx';
import { useLiveTransferFeed } from '../features/transfers/live-transfers.ts';
import { useSignOut } from '../features/auth/useSignOut.ts';
import { PlayerProvider } from '../features/media/PlayerProvider.tsx';
import { PageSpinner } from '../ui/PageSpinner.tsx';

const SIGN_OUT_KEY = 'sign-out';
/** antd's own split-line colour, the one the inline menu drew. */
const SIDEBAR_EDGE = '1px solid rgba(5, 5, 5, 0.06)';

interface NavEntry {
  path: string;
  label: string;
  icon: ReactNode;
  /** Other first path segments that belong to this entry. */
  alsoFor?: string[];
  /** The service ACL the entry needs: hidden while the member's is off (GET /users/_me `acl.services`). */
  service?: AccessService;
}

function selectedKey(pathname: string, entries: NavEntry[]): string {
  const segment = (pathname.split('/')[1] ?? '').toLowerCase();
  if (segment === '' || segment === 'dashboard') return '/';
  const entry = entries.find(
    (item) => item.path.slice(1).toLowerCase() === segment || item.alsoFor?.includes(segment),
  );
  return entry?.path ?? '';
}

/** The frame of every signed-in page: menu, greeting, notification bell (spec 002 §2 "Other shared UI"). */
export function AppLayout() {
  // The floating video player outlives page changes, so it is held here rather than by a page.
  return (
    <PlayerProvider>
      <AppFrame />
    </PlayerProvider>
  );
}

function AppFrame() {
  const { data: profile } = useProfile();
  const { pathname } = useLocation();
  const signOut = useSignOut();
  useRealtimeConnection();
  useLiveTransferFeed();

  const entries = useMemo<NavEntry[]>(() => {
    const list: NavEntry[] = [
      { path: '/', label: 'Dashboard', icon: <DashboardOutlined /> },
      { path: '/cloudproviders', label: 'Cloud Providers', icon: <CloudOutlined /> },
      {
        path: '/c2c',
        label: 'Transfers',
        icon: <SwapOutlined />,
        alsoFor: ['transfers'],
        service: 'transfers',
      },
    ];
    list.push({ path: '/ftx', label: 'Cumulo Transfer', icon: <CloudSyncOutlined />, service: 'ftx' });
    if (profile?.userType === USER_TYPE_ALL_PROVIDERS) {
      list.push({ path: '/migration', label: 'Migration', icon: <AppstoreOutlined />, service: 'transfers' });
    }
    list.push(
      { path: '/sync', label: 'Sync', icon: <SyncOutlined />, service: 'sync' },
      { path: '/replication', label: 'Replication', icon: <RetweetOutlined />, service: 'sync' },
      {
        path: '/mboard',
        label: 'Transfer Status',
        icon: <UnorderedListOutlined />,
        alsoFor: ['rboard'],
        service: 'transfers',
      },
      { path: '/sharing', label: 'Shared Files', icon: <ShareAltOutlined />, service: 'sharing' },
      { path: '/encoding', label: 'Encoding', icon: <VideoCameraOutlined />, service: 'encoding' },
      { path: '/mediasearch', label: 'Media Search', icon: <FileSearchOutlined />, service: 'media_search' },
      { path: '/hybrik', label: 'Hybrik', icon: <VideoCameraOutlined />, service: 'encoding' },
      { path: '/analytics', label: 'Analytics', icon: <BarChartOutlined />, service: 'analytics' },
      { path: '/finance', label: 'Finance', icon: <DollarOutlined />, service: 'finance' },
      { path: '/logs', label: 'Logs', icon: <AuditOutlined /> },
      {
        path: '/profile',
        label: 'Settings',
        icon: <SettingOutlined />,
        alsoFor: ['billing', 'roles', 'security-credentials', 'mfa', 'plan', 'pricings'],
      },
    );
    if (profile && profile.role.title !== 'User') {
      list.push({ path: '/users', label: 'Users', icon: <TeamOutlined /> });
    }
    return list.filter((entry) => !entry.service || profile?.acl.services[entry.service] !== false);
  }, [profile]);

  // The operator console (issue 28): only this Cumulo's operators see its group.
  const adminEntries = useMemo<NavEntry[]>(
    () =>
      profile?.operator
        ? [
            { path: '/admindaccount', label: 'Account', icon: <BankOutlined />, alsoFor: ['addnewaccount'] },
            { path: '/userList', label: 'Users', icon: <UsergroupAddOutlined />, alsoFor: ['addnewuser'] },
            {
              path: '/usageDetail',
              label: 'Usage Detail',
              icon: <FundOutlined />,
              alsoFor: ['transfercostdetail'],
            },
          ]
        : [],
    [profile?.operator],
  );

  const toItem = (entry: NavEntry) => ({
    key: entry.path,
    icon: entry.icon,
    label: <Link to={entry.path}>{entry.label}</Link>,
  });
  const items: MenuProps['items'] = [
    ...entries.map(toItem),
    ...(adminEntries.length > 0
      ? [{ type: 'group' as const, key: 'admin', label: 'Admin', children: adminEntries.map(toItem) }]
      : []),
    { type: 'divider' as const },
    { key: SIGN_OUT_KEY, icon: <LogoutOutlined />, label: 'Sign out' },
  ];

  const onMenuClick: MenuProps['onClick'] = ({ key }) => {
    if (key === SIGN_OUT_KEY) void signOut();
  };

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {/* The panel's edge is the sider's own border: the menu's border stopped under its last entry. */}
      <Layout.Sider
        theme="light"
        breakpoint="lg"
        collapsedWidth={0}
        width={220}
        style={{ borderInlineEnd: SIDEBAR_EDGE }}
      >
        <div style={{ padding: '16px 24px', fontSize: 22, fontWeight: 600 }}>Cumulo</div>
        <nav aria-label="Main">
          <Menu
            mode="inline"
            selectedKeys={[selectedKey(pathname, [...entries, ...adminEntries])]}
            items={items}
            onClick={onMenuClick}
            style={{ borderInlineEnd: 'none' }}
          />
        </nav>
      </Layout.Sider>
      <Layout>
        <Layout.Header
          style={{
            background: '#fff',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'flex-end',
            gap: 16,
            paddingInline: 24,
          }}
        >
          {profile && <Typography.Text>Hello, {profile.first_name}</Typography.Text>}
          <TransferIndicator />
          <NotificationBell />
        </Layout.Header>
        <PaymentMethodBanner />
        <Layout.Content style={{ padding: 24 }}>
          <Suspense fallback={<PageSpinner />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
