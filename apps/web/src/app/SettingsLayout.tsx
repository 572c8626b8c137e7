import { Suspense } from 'react';
import { Menu, type MenuProps } from 'antd';
import { Link, Outlet, useLocation } from 'react-router';
import { useProfile } from '../features/profile/useProfile.ts';
import { PageSpinner } from '../ui/PageSpinner.tsx';

interface SettingsTab {
  path: string;
  label: string;
  /** First path segments that select this tab. */
  segments: string[];
}

const TABS: SettingsTab[] = [
  { path: '/profile', label: 'Profile', segments: ['profile'] },
  { path: '/billing', label: 'Billing', segments: ['billing', 'plan', 'pricings'] },
  { path: '/users', label: 'Users', segments: ['users'] },
  { path: '/roles', label: 'Permissions', segments: ['roles'] },
  { path: '/security-credentials', label: 'Access Keys', segments: ['security-credentials'] },
  { path: '/mfa', label: 'MFA', segments: ['mfa'] },
];

/** Account and settings area (spec 002 §2): a tab bar above each settings screen. */
export function SettingsLayout() {
  const { pathname } = useLocation();
  const { data: profile } = useProfile();
  const segment = (pathname.split('/')[1] ?? '').toLowerCase();
  // Spec 002 §6: the Users entry is hidden from role User; so is Permissions, whose role ACLs they cannot read.
  const tabs = TABS.filter(
    (tab) => !['/users', '/roles'].includes(tab.path) || (profile && profile.role.title !== 'User'),
  );
  const items: MenuProps['items'] = tabs.map((tab) => ({
    key: tab.path,
    label: <Link to={tab.path}>{tab.label}</Link>,
  }));
  const selected = tabs.find((tab) => tab.segments.includes(segment))?.path ?? '';
  return (
    <div>
      <nav aria-label="Settings">
        <Menu mode="horizontal" selectedKeys={[selected]} items={items} style={{ marginBottom: 24 }} />
      </nav>
      <Suspense fallback={<PageSpinner />}>
        <Outlet />
      </Suspense>
    </div>
  );
}
