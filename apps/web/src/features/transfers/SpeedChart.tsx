import { useMemo } from 'react';
import { Area, AreaChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import dayjs from 'dayjs';
import { speedAxis } from './speed-axis.ts';
import { formatSpeed, type SpeedPoint } from './transfer-stats.ts';

const SPEED_COLOUR = '#1668dc';
const timeText = (time: number) => dayjs(time).format('HH:mm:ss');
const bitsText = (bits: number) => formatSpeed(bits / 8);

/** The live transfer-speed area chart (spec 001 §2); the series is in bits per second. Loaded lazily. */
export function SpeedChart({ series }: { series: readonly SpeedPoint[] }) {
  const peak = series.reduce((max, point) => Math.max(max, point.bitsPerSecond), 0);
  // recharts' own ticks split the domain evenly in bits, which read as '19.07 Mbps' in 1024-based units.
  const axis = useMemo(() => speedAxis(peak), [peak]);
  return (
    <AreaChart
      responsive
      data={[...series]}
      style={{ width: '100%', height: 260 }}
      margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="time" tickFormatter={timeText} minTickGap={40} />
      <YAxis domain={[0, axis.top]} ticks={axis.ticks} interval={0} tickFormatter={axis.label} width={90} />
      <Tooltip
        labelFormatter={(time) => timeText(Number(time))}
        formatter={(bits) => bitsText(Number(bits))}
      />
      <Area
        type="monotone"
        dataKey="bitsPerSecond"
        name="Speed"
        stroke={SPEED_COLOUR}
        fill={SPEED_COLOUR}
        fillOpacity={0.2}
        isAnimationActive={false}
      />
    </AreaChart>
  );
}
