import { Result } from 'antd';
import { Link } from 'react-router';

const MANAGERS_ONLY = 'Only Owners and Admins can connect cloud accounts.';

/** What a member with role User sees on a screen that changes accounts (spec 000 §6). */
export function ManagersOnly({ title = MANAGERS_ONLY }: { title?: string }) {
  return <Result status="403" title={title} extra={<Link to="/">Back to the dashboard</Link>} />;
}

/** Owners and Admins may connect, edit and create; Users may only look. */
export function canManageAccounts(roleTitle: string | undefined): boolean {
  return roleTitle === 'Owner' || roleTitle === 'Admin';
}
