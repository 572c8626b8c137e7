import { STATS_LOOP, formatBytes, type MigrationProgress } from '@cumulo/contract';

/** The totals the three tiles show, in bytes and bytes per second. */
export interface TransferStats {
  /** Bytes per second, summed over the counted migrations. */
  speed: number;
  transferred: number;
  remaining: number;
}

/** One point of the live speed chart: when, and the speed in bits per second (spec 001 §3 "Speed sample"). */
export interface SpeedPoint {
  time: number;
  bitsPerSecond: number;
}

export const ZERO_STATS: TransferStats = { speed: 0, transferred: 0, remaining: 0 };

/**
 * Spec 001 §4 "Stats loop", one tick: only Processing migrations updated less than 60 s ago count; when their
 * summed percent is exactly 100 the stats reset to 0 (the last one has just finished, nothing is moving).
 */
export function computeStats(migrations: readonly MigrationProgress[], now: number): TransferStats {
  let speed = 0;
  let transferred = 0;
  let remaining = 0;
  let percent = 0;
  for (const migration of migrations) {
    if (migration.status !== 'Processing') continue;
    const updated = Date.parse(migration.updated);
    if (!Number.isFinite(updated) || now - updated >= STATS_LOOP.staleMs) continue;
    speed += migration.rate;
    transferred += migration.transferred;
    remaining += Math.max(0, migration.size - migration.transferred - migration.skipped_size);
    percent += migration.percent;
  }
  if (percent === 100) return ZERO_STATS;
  return { speed, transferred, remaining };
}

/** The series a fresh chart starts with: 30 zero points, one per tick, ending now. */
export function initialSpeedSeries(now: number): SpeedPoint[] {
  return Array.from({ length: STATS_LOOP.startPoints }, (_, index) => ({
    time: now - (STATS_LOOP.startPoints - 1 - index) * STATS_LOOP.tickMs,
    bitsPerSecond: 0,
  }));
}

/** Adds a point; past 1000 points the oldest 100 are dropped (spec 001 §4). Returns a new array. */
export function appendSpeedPoint(series: readonly SpeedPoint[], point: SpeedPoint): SpeedPoint[] {
  const next = [...series, point];
  return next.length > STATS_LOOP.maxPoints ? next.slice(STATS_LOOP.dropOnOverflow) : next;
}

/** Bytes per second as the spec shows speeds: in bits (8 × bytes/s) with "ps", e.g. '12.5 Mbps'. */
export function formatSpeed(bytesPerSecond: number): string {
  const [value, unit] = formatBytes(bytesPerSecond * 8).split(' ');
  return `${value} ${BIT_UNITS[unit ?? ''] ?? 'b'}ps`;
}

// The repo's one size formatter (1024-based) names byte units; speeds name the same steps in bits.
const BIT_UNITS: Record<string, string> = {
  Bytes: 'b',
  kB: 'Kb',
  MB: 'Mb',
  GB: 'Gb',
  TB: 'Tb',
  PB: 'Pb',
};

/** Seconds as '45s', '3m 20s' or '2h 5m' (spec 001 §9: 60 for minutes and seconds). */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
