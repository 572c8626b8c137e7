/** The longest a stopping worker lets its copies run before handing them back (main.ts forces exit at 30 s). */
const DRAIN_GRACE_MS = 15_000;

/**
 * How long a worker shutting down (SIGTERM) lets the copies in flight finish before it aborts them and hands
 * their objects back: at most half a lease, so that they return sooner than a dead worker's would.
 */
export function drainGraceMs(leaseSeconds: number): number {
  return Math.min(DRAIN_GRACE_MS, (leaseSeconds * 1000) / 2);
}
