import { describe, expect, it } from 'vitest';
import { IDLE_SPEED_AXIS_TOP, speedAxis } from './speed-axis.ts';

const Kb = 1024;
const Mb = 1024 ** 2;
const Gb = 1024 ** 3;

const labels = (maxBitsPerSecond: number) => {
  const axis = speedAxis(maxBitsPerSecond);
  return axis.ticks.map(axis.label);
};

describe('speed chart axis', () => {
  it('ticks a 19.07 Mbps peak at whole 5 Mbps steps, not at 1024-based odd values', () => {
    // 20 000 000 bits/s is what the chart drew as '19.07 Mbps' ticks.
    expect(labels(20_000_000)).toEqual(['0 Mbps', '5 Mbps', '10 Mbps', '15 Mbps', '20 Mbps']);
  });

  it('names a Kbps peak in Kbps with round steps', () => {
    // 146.48 Kbps was one of the odd ticks seen.
    expect(labels(146.48 * Kb)).toEqual(['0 Kbps', '50 Kbps', '100 Kbps', '150 Kbps']);
    expect(labels(1000 * Kb)).toEqual([
      '0 Kbps',
      '200 Kbps',
      '400 Kbps',
      '600 Kbps',
      '800 Kbps',
      '1000 Kbps',
    ]);
  });

  it('gives an idle chart a 0–1 Mbps scale, not 0–4 bps', () => {
    expect(speedAxis(0).top).toBe(IDLE_SPEED_AXIS_TOP);
    expect(labels(0)).toEqual(['0 Mbps', '0.2 Mbps', '0.4 Mbps', '0.6 Mbps', '0.8 Mbps', '1 Mbps']);
    expect(labels(Number.NaN)).toEqual(labels(0));
  });

  it('draws a trickle of a few bits on a whole-unit scale', () => {
    expect(labels(4)).toEqual(['0 Kbps', '0.2 Kbps', '0.4 Kbps', '0.6 Kbps', '0.8 Kbps', '1 Kbps']);
  });

  it('keeps the top at or above the peak, the ticks evenly spaced from 0, one unit throughout', () => {
    for (const peak of [37, 1.5 * Mb, 7.97 * Mb, 63 * Mb, 480 * Kb * 8, 2.4 * Gb, 999 * Gb]) {
      const axis = speedAxis(peak);
      expect(axis.top).toBeGreaterThanOrEqual(peak);
      expect(axis.ticks[0]).toBe(0);
      expect(axis.ticks.at(-1)).toBe(axis.top);
      expect(axis.ticks.length).toBeGreaterThanOrEqual(3);
      expect(axis.ticks.length).toBeLessThanOrEqual(11);
      const step = (axis.ticks[1] ?? 0) - (axis.ticks[0] ?? 0);
      axis.ticks.forEach((tick, index) => expect(tick).toBeCloseTo(index * step, 3));
      for (const label of axis.ticks.map(axis.label)) {
        expect(label).toMatch(new RegExp(`^\\d+(\\.\\d+)? ${axis.unit}$`));
      }
      // The step, in the unit shown, is 1, 2 or 5 × 10^n.
      const [first = '', second = ''] = axis.ticks.slice(0, 2).map(axis.label);
      const stepInUnit = Number(second.split(' ')[0]) - Number(first.split(' ')[0]);
      const mantissa = stepInUnit / 10 ** Math.floor(Math.log10(stepInUnit));
      expect([1, 2, 5].some((round) => Math.abs(mantissa - round) < 1e-9)).toBe(true);
    }
  });

  it('steps into Gbps once the peak passes 1 Gbps', () => {
    expect(labels(2.4 * Gb)).toEqual(['0 Gbps', '0.5 Gbps', '1 Gbps', '1.5 Gbps', '2 Gbps', '2.5 Gbps']);
  });
});
