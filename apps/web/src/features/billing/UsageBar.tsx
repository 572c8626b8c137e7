import { usageBar } from '@cumulo/contract';

const COLOURS = { green: '#52c41a', blue: '#1677ff', red: '#ff4d4f' } as const;

/** Spec 002 §9: under 1 % is drawn as 2, green below 3, red above 80 (the contract's usageBar). */
export function UsageBar({ used, total, label }: { used: number; total: number; label: string }) {
  const bar = usageBar(used, total);
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(bar.percent)}
      data-colour={bar.colour}
      style={{ height: 8, borderRadius: 4, background: '#f0f0f0', overflow: 'hidden' }}
    >
      <div style={{ width: `${bar.percent}%`, height: '100%', background: COLOURS[bar.colour] }} />
    </div>
  );
}
