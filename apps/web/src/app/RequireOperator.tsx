import type { ReactNode } from 'react';
import { Result } from 'antd';
import { adminMessages } from '@cumulo/contract';
import { useProfile } from '../features/profile/useProfile.ts';
import { PageSpinner } from '../ui/PageSpinner.tsx';

/**
 * The gate of the operator console (issue 28): only this Cumulo's operators see the admin reports; anyone else,
 * an organisation's Owner too, is told so. The server answers 403 to them anyway; this spares a screen of refusals.
 */
export function RequireOperator({ children }: { children: ReactNode }) {
  const { data: profile, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (profile?.operator) return <>{children}</>;
  return <Result status="403" title={adminMessages.operatorsOnly} />;
}
