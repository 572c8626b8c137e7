import type { ReactNode } from 'react';
import { Alert } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { fetchSignupInfo, type SignupInfo } from './auth-api.ts';

/**
 * Asks the server about an invitation link (GET /user/signupinfo) before its form shows: a spinner while it
 * answers; a canceled, used or expired link says so at once, with the way to sign in; a live one renders
 * `children` with the invitee's e-mail and names.
 */
export function InvitationCheck({
  token,
  title,
  children,
}: {
  token: string;
  title: string;
  children: (info: SignupInfo) => ReactNode;
}) {
  const info = useQuery({
    queryKey: queryKeys.signupInfo(token),
    queryFn: () => fetchSignupInfo(token),
    retry: false,
    staleTime: Infinity,
  });
  if (info.isPending) {
    return (
      <AuthCard title={title}>
        <PageSpinner />
      </AuthCard>
    );
  }
  if (info.isError) {
    return (
      <AuthCard title={title}>
        <Alert type="error" showIcon title={describeError(info.error)} style={{ marginBottom: 16 }} />
        <Link to="/login">Go to login</Link>
      </AuthCard>
    );
  }
  return <>{children(info.data)}</>;
}
