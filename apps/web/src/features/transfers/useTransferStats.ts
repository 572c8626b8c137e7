import { useEffect, useRef, useState } from 'react';
import { STATS_LOOP, type MigrationProgress } from '@cumulo/contract';
import {
  ZERO_STATS,
  appendSpeedPoint,
  computeStats,
  initialSpeedSeries,
  type SpeedPoint,
  type TransferStats,
} from './transfer-stats.ts';

export interface TransferStatsState {
  stats: TransferStats;
  series: SpeedPoint[];
}

/** Spec 001 §4 "Stats loop": every second, the tiles' totals and one more point of the speed chart. */
export function useTransferStats(migrations: readonly MigrationProgress[]): TransferStatsState {
  const latest = useRef(migrations);
  useEffect(() => {
    latest.current = migrations;
  });
  const [state, setState] = useState<TransferStatsState>(() => ({
    stats: ZERO_STATS,
    series: initialSpeedSeries(Date.now()),
  }));

  useEffect(() => {
    const timer = setInterval(() => {
      const now = Date.now();
      const stats = computeStats(latest.current, now);
      setState((previous) => ({
        stats,
        series: appendSpeedPoint(previous.series, { time: now, bitsPerSecond: stats.speed * 8 }),
      }));
    }, STATS_LOOP.tickMs);
    return () => clearInterval(timer);
  }, []);

  return state;
}
