import type { ReactNode } from 'react';
import { packageByHandle, type PackageHandle } from '@cumulo/contract';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { holdsPackage } from './billing-api.ts';
import { SubscriptionModal } from './SubscriptionModal.tsx';

/**
 * The gate of a paid screen (spec 002 §2, §6: analytics needs Analytics, finance needs Finance): holding the
 * package shows the screen, lacking it shows the subscription modal. The server refuses the screen's calls
 * anyway; this only spares the member a screen of refusals.
 */
export function RequirePackage({ pkg, children }: { pkg: PackageHandle; children: ReactNode }) {
  const { data: profile, isPending } = useProfile();
  const definition = packageByHandle(pkg);
  if (isPending) return <PageSpinner />;
  if (!profile || !definition) return null;
  if (holdsPackage(profile, definition.title) || holdsPackage(profile, definition.handle))
    return <>{children}</>;
  return <SubscriptionModal pkg={definition} />;
}
