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

/**
 * 400 when a bucket of the copy is missing (in the screen's words, on the field that names it); a source that cannot
 * be read is refused in the provider's words. The destination is checked too: a copy into a bucket that is not
 * there would be accepted only for every one of its files to fail.
 */
export async function requireBuckets(
  stores: StoreRegistry,
  source: { account: CloudAccountRow; bucket: string },
  destination: { account: CloudAccountRow; bucket: string },
): Promise<void> {
  // Both asked at once; when both fail, the source's refusal is the one answered.
  const checks = await Promise.allSettled([
    requireBucket(stores, source.account, source.bucket, 'source'),
    requireBucket(stores, destination.account, destination.bucket, 'destination'),
  ]);
  for (const check of checks) if (check.status === 'rejected') throw check.reason;
}

async function requireBucket(
  stores: StoreRegistry,
  account: CloudAccountRow,
  bucket: string,
  side: 'source' | 'destination',
) {
  let found: { region: string | null } | null;
  try {
    found = await (await stores.storeFor(account)).headBucket(bucket);
  } catch (error) {
    // A destination that cannot be asked now (an outage) is the engine's to wait for: the batch pauses until it
    // is back (README "When a store cannot be reached"). Only a destination that answers "no such bucket" is
    // refused here.
    if (side === 'destination') return;
    throw providerError(error);
  }
  if (!found) {
    const message = transferMessages.missingBucket(side, bucket, account.name);
    throw badRequest(message, { [`${side}Bucket`]: [message] });
  }
}

/**
 * 400 when a copy of everything under a prefix would copy nothing: rclone's "There was nothing to transfer", said
 * before a batch is queued rather than as a Completed batch of 0 files. One listing request of one key.
 */
export async function requireSomethingUnder(
  stores: StoreRegistry,
  account: CloudAccountRow,
  bucket: string,
  prefix: string,
): Promise<void> {
  try {
    const store = await stores.storeFor(account);
    for await (const page of store.list(bucket, { prefix, pageSize: 1 })) {
      if (page.objects.length > 0) return;
    }
  } catch (error) {
    throw providerError(error);
  }
  const message = transferMessages.nothingUnderPrefix(prefix, bucket);
  throw badRequest(message, { sourcePath: [message] });
}
