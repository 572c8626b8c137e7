import { execFileSync } from 'node:child_process';

/**
 * Writes every dirty page to disk before a timed run. A run that starts while the previous tool's gigabytes are
 * still being written back is throttled by the kernel for the other tool's writes: measured on (c), whichever of
 * rclone and Cumulo ran second took 1.8× longer. Each timed run starts from a settled disk instead.
 */
export function settleDisk(): void {
  execFileSync('sync');
}
