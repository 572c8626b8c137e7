import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useProfile } from './useProfile.ts';

/** Spec 001 §2: the direct Wasabi screen needs acl.has_wasabi; others are redirected to /. */
export function RequireWasabiAccess({ children }: { children: ReactNode }) {
  const { data: profile, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (!profile?.acl.has_wasabi) return <Navigate to="/" replace />;
  return <>{children}</>;
}
