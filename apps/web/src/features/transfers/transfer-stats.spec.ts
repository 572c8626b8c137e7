import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { STATS_LOOP } from '@cumulo/contract';
import { buildMigration, MB } from './transfer-factories.ts';
import {
  appendSpeedPoint,
  computeStats,
  formatDuration,
  formatSpeed,
  initialSpeedSeries,
  type SpeedPoint,
} from './transfer-stats.ts';
import { useTransferStats } from './useTransferStats.ts';

const NOW = Date.parse('2025-05-01T12:00:00.000Z');
const secondsAgo = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('stats loop (spec 001 §4), one tick', () => {
  it('adds up only Processing migrations updated less than 60 s ago', () => {
    const stats = computeStats(
      [
        buildMigration({
          id: 'a',
          rate: MB,
          transferred: 10 * MB,
          size: 30 * MB,
          percent: 33,
          updated: secondsAgo(1),
        }),
        buildMigration({
          id: 'b',
          rate: 2 * MB,
          transferred: 5 * MB,
          size: 20 * MB,
          skipped_size: 5 * MB,
          percent: 50,
          updated: secondsAgo(59.999),
        }),
        // Stale: exactly 60 s ago is no longer counted.
        buildMigration({
          id: 'c',
          rate: 9 * MB,
          transferred: 9 * MB,
          size: 90 * MB,
          updated: secondsAgo(60),
        }),
        buildMigration({ id: 'd', status: 'Enqueued', rate: 7 * MB, transferred: 0, updated: secondsAgo(0) }),
        buildMigration({ id: 'e', status: 'Failed', rate: 7 * MB, updated: secondsAgo(0) }),
      ],
      NOW,
    );
    expect(stats).toEqual({ speed: 3 * MB, transferred: 15 * MB, remaining: 20 * MB + 10 * MB });
  });

  it('resets to 0 when the summed percent is exactly 100', () => {
    const finished = buildMigration({
      percent: 100,
      rate: MB,
      transferred: 100 * MB,
      updated: secondsAgo(1),
    });
    expect(computeStats([finished], NOW)).toEqual({ speed: 0, transferred: 0, remaining: 0 });
    const halves = [
      buildMigration({ id: 'a', percent: 50, updated: secondsAgo(1) }),
      buildMigration({ id: 'b', percent: 50, updated: secondsAgo(1) }),
    ];
    expect(computeStats(halves, NOW)).toEqual({ speed: 0, transferred: 0, remaining: 0 });
    const almost = buildMigration({
      percent: 99.5,
      rate: MB,
      transferred: 99 * MB,
      size: 100 * MB,
      updated: secondsAgo(1),
    });
    expect(computeStats([almost], NOW)).toEqual({ speed: MB, transferred: 99 * MB, remaining: MB });
  });

  it('starts the speed series with 30 zero points, keeps at most 1000 and drops the oldest 100 on overflow', () => {
    const start = initialSpeedSeries(NOW);
    expect(start).toHaveLength(STATS_LOOP.startPoints);
    expect(start.every((point) => point.bitsPerSecond === 0)).toBe(true);
    expect(start.at(-1)?.time).toBe(NOW);

    let series: SpeedPoint[] = start;
    for (let tick = 1; series.length < STATS_LOOP.maxPoints; tick += 1) {
      series = appendSpeedPoint(series, { time: NOW + tick * 1000, bitsPerSecond: tick });
    }
    expect(series).toHaveLength(1000);
    const oldestKept = series[100];
    const overflowed = appendSpeedPoint(series, { time: NOW + 10_000_000, bitsPerSecond: 42 });
    expect(overflowed).toHaveLength(901);
    expect(overflowed[0]).toEqual(oldestKept);
    expect(overflowed.at(-1)).toEqual({ time: NOW + 10_000_000, bitsPerSecond: 42 });
  });

  it('shows speeds in bits per second with "ps" and durations in s, m and h', () => {
    expect(formatSpeed(0)).toBe('0 bps');
    expect(formatSpeed(100)).toBe('800 bps');
    expect(formatSpeed((12.5 * MB) / 8)).toBe('12.5 Mbps');
    expect(formatSpeed(256)).toBe('2 Kbps');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(200)).toBe('3m 20s');
    expect(formatDuration(7500)).toBe('2h 5m');
  });
});

describe('useTransferStats (fake timers drive the 1 s loop)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ticks every second: tiles from the live migrations, one speed point per tick in bits', () => {
    const migration = buildMigration({
      rate: MB,
      transferred: 10 * MB,
      size: 30 * MB,
      percent: 33,
      updated: secondsAgo(0),
    });
    const { result, rerender } = renderHook(({ list }) => useTransferStats(list), {
      initialProps: { list: [migration] },
    });
    expect(result.current.stats).toEqual({ speed: 0, transferred: 0, remaining: 0 });
    expect(result.current.series).toHaveLength(30);

    act(() => vi.advanceTimersByTime(999));
    expect(result.current.series).toHaveLength(30);
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.stats).toEqual({ speed: MB, transferred: 10 * MB, remaining: 20 * MB });
    expect(result.current.series).toHaveLength(31);
    expect(result.current.series.at(-1)).toEqual({ time: NOW + 1000, bitsPerSecond: 8 * MB });

    // The next tick reads the list as it is then; after 60 s without an update the migration no longer counts.
    rerender({ list: [{ ...migration, rate: 2 * MB, updated: new Date(NOW + 1000).toISOString() }] });
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.series.at(-1)?.bitsPerSecond).toBe(16 * MB);
    act(() => vi.advanceTimersByTime(59_000));
    expect(result.current.stats).toEqual({ speed: 0, transferred: 0, remaining: 0 });
    expect(result.current.series).toHaveLength(30 + 61);
  });

  it('drops the oldest 100 points when the series passes 1000', () => {
    const { result } = renderHook(() => useTransferStats([]));
    act(() => vi.advanceTimersByTime(970 * 1000));
    expect(result.current.series).toHaveLength(1000);
    const hundredAndFirst = result.current.series[100];
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.series).toHaveLength(901);
    expect(result.current.series[0]).toEqual(hundredAndFirst);
  });
});
