import type { TransferBatch } from '@cumulo/contract';

/** "Account / bucket", how every transfer screen names one end of a transfer. */
export function endpointLabel(account: string, bucket: string): string {
  return `${account} / ${bucket}`;
}

export function sourceLabel(batch: TransferBatch): string {
  return endpointLabel(batch.sourceCloudAccount.name, batch.sourceBucket);
}
