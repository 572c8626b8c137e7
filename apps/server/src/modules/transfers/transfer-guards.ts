import { transferMessages } from '@cumulo/contract';
import { badRequest, forbidden } from '../../errors.ts';
import type { CloudAccountRow } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { endpointKeyOf } from './engine/executor.ts';
import { sourceBase } from './engine/keys.ts';
import type { TransfersRepo } from './transfers.repo.ts';

/**
 * The checks every copy between two buckets passes before it is accepted: a transfer (TransfersService.start) and
 * a sync job (SyncService.insert) alike, each refusing in its own screen's words.
 */

/** What a refused overlap says: the transfer's words, or the sync's. */
interface OverlapWords {
  sameBucket: string;
  nestedDestination: string;
}

interface CopyPair {
  sourceBucket: string;
  destinationBucket: string;
  sourcePath: string;
  /** A folder ('' = bucket root), as `destinationFolder` gives it. */
  destinationPath: string;
  /** Only these keys and folders (ending in '/'); everything under sourcePath when null. */
  files: string[] | null;
}

/** 403 until the organisation confirmed the cloud-to-cloud charge (or is a CBS organisation). */
export async function requireChargeConfirmed(
  repo: Pick<TransfersRepo, 'chargeConfirmed'>,
  organizationId: string,
): Promise<void> {
  if (!(await repo.chargeConfirmed(organizationId))) {
    throw forbidden(transferMessages.chargeNotConfirmed, 'CHARGE_NOT_CONFIRMED');
  }
}

/**
 * Same bucket of the same store: refused when the copies would land on their own sources, or inside the
 * source (the listing would pick them up and copy them again).
 */
export function refuseOverlap(
  stores: StoreRegistry,
  source: CloudAccountRow,
  destination: CloudAccountRow,
  pair: CopyPair,
  words: OverlapWords = transferMessages,
): void {
  if (pair.sourceBucket !== pair.destinationBucket) return;
  const sameStore =
    source.id === destination.id || endpointKeyOf(source, stores) === endpointKeyOf(destination, stores);
  if (!sameStore) return;
  // Every key keeps its path relative to the folder of sourcePath (engine/keys.ts), selections included.
  if (sourceBase(pair.sourcePath) === pair.destinationPath) {
    throw badRequest(words.sameBucket, { destinationPath: [words.sameBucket] });
  }
  const roots = pair.files ? pair.files.filter((file) => file.endsWith('/')) : [pair.sourcePath];
  if (roots.some((root) => pair.destinationPath.startsWith(root))) {
    throw badRequest(words.nestedDestination, { destinationPath: [words.nestedDestination] });
  }
}

/** 400 in the provider's words when the source bucket is missing or cannot be read. */
export async function requireBucket(stores: StoreRegistry, account: CloudAccountRow, bucket: string) {
  let found: { region: string | null } | null;
  try {
    found = await (await stores.storeFor(account)).headBucket(bucket);
  } catch (error) {
    throw providerError(error);
  }
  if (!found) {
    const message = `The bucket ${bucket} does not exist in ${account.name}.`;
    throw badRequest(message, { sourceBucket: [message] });
  }
}
