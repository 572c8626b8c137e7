import { formatBytes } from '@cumulo/contract';

/** A size in 1024-based units, exact byte count on hover. */
export function ByteSize({ bytes }: { bytes: number }) {
  return <span title={`${bytes.toLocaleString('en-US')} bytes`}>{formatBytes(bytes)}</span>;
}
