import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { canUseDirectUpload } from './direct-upload-access.ts';

/** Spec 001 §2/§6: others are redirected to /. */
export function RequireDirectUploadAccess({ children }: { children: ReactNode }) {
  const { data: profile, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (!profile || !canUseDirectUpload(profile)) return <Navigate to="/" replace />;
  return <>{children}</>;
}
