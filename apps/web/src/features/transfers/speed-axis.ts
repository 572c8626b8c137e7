/** The bit units a speed axis names, 1024 apart as `formatSpeed` counts them. */
const BIT_UNITS: ReadonlyArray<readonly [unit: string, bits: number]> = [
  ['bps', 1],
  ['Kbps', 1024],
  ['Mbps', 1024 ** 2],
  ['Gbps', 1024 ** 3],
  ['Tbps', 1024 ** 4],
];

/**
 * The top of an idle chart's axis, in bits per second: 1 Mbps, so a chart with nothing moving reads 0–1 Mbps rather
 * than a meaningless 0–4 bps.
 */
export const IDLE_SPEED_AXIS_TOP = 1024 ** 2;

/** The smallest top once something moves: 1 Kbps, so a trickle of a few bits still draws on a whole-unit scale. */
const MOVING_SPEED_AXIS_MIN_TOP = 1024;

/** About this many steps from 0 to the top. */
const TARGET_STEPS = 5;

/** The y-axis of a speed chart: where its ticks go (bits per second) and how each reads. */
export interface SpeedAxis {
  /** 0, step, 2 × step, … up to `top`, in bits per second. */
  ticks: number[];
  top: number;
  /** The unit every tick is named in, e.g. 'Mbps'. */
  unit: string;
  /** A tick's text in that unit: '0 Mbps', '0.2 Mbps', '15 Mbps'. */
  label: (bitsPerSecond: number) => string;
}

/** The smallest 1, 2 or 5 × 10^n at least `raw`. */
function roundStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const mantissa = [1, 2, 5, 10].find((candidate) => candidate * power >= raw - power * 1e-9) ?? 10;
  return mantissa * power;
}

/**
 * An axis for speeds up to `maxBitsPerSecond`: one unit (the largest the top reaches), ticks at whole multiples
 * of a 1/2/5 × 10^n step of that unit, so no tick reads '19.07 Mbps'; 0–1 Mbps while nothing moves.
 */
export function speedAxis(maxBitsPerSecond: number): SpeedAxis {
  const peak = Number.isFinite(maxBitsPerSecond) ? maxBitsPerSecond : 0;
  const top = peak > 0 ? Math.max(peak, MOVING_SPEED_AXIS_MIN_TOP) : IDLE_SPEED_AXIS_TOP;
  const [unit, unitBits] = BIT_UNITS.findLast(([, bits]) => bits <= top) ?? ['bps', 1];
  const step = roundStep(top / unitBits / TARGET_STEPS);
  const steps = Math.ceil(top / unitBits / step - 1e-9);
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const ticks = Array.from({ length: steps + 1 }, (_, index) => index * step * unitBits);
  return {
    ticks,
    top: steps * step * unitBits,
    unit,
    label: (bitsPerSecond) => `${Number((bitsPerSecond / unitBits).toFixed(decimals))} ${unit}`,
  };
}
