import type { ReactNode } from 'react';
import type { RoleTitle } from '@cumulo/contract';
import { useProfile } from '../features/profile/useProfile.ts';

interface RoleGateProps {
  roles: readonly RoleTitle[];
  children: ReactNode;
}

/** Spec 000 §6: screens guarded for some roles show nothing to other users (nor while the role is unknown). */
export function RoleGate({ roles, children }: RoleGateProps) {
  const { data: profile } = useProfile();
  if (!profile || !(roles as readonly string[]).includes(profile.role.title)) return null;
  return <>{children}</>;
}
