import { roleMay } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';

/**
 * Whether the signed-in member may cancel a batch or retry its failed files (contract `transfer.manage`): an Owner
 * or an Admin any batch, a User only the batches they started. The server refuses the others with a 403, so the
 * screens hide those buttons rather than offer a click that can only fail. False while the profile loads.
 */
export function useMayManageTransfer(): (batch: { createdBy: string | null }) => boolean {
  const profile = useProfile().data;
  return (batch) =>
    profile !== undefined &&
    (roleMay(profile.role.title, 'transfer.manage') || batch.createdBy === profile.id);
}
