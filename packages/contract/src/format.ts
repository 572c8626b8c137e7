/** 1024-based size units (spec 000 §9). */
export const SIZE_UNITS = ['Bytes', 'kB', 'MB', 'GB', 'TB', 'PB'] as const;

/** 1536 → '1.5 kB'; sizes use 1024-based units with up to 2 decimals. */
export function formatBytes(bytes: number, decimals = 2): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const i = Math.min(SIZE_UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const value = bytes / 1024 ** i;
  if (i === 0 && value === 1) return '1 Byte';
  return `${i === 0 ? value : Number(value.toFixed(decimals))} ${SIZE_UNITS[i]}`;
}

/** USD with 2 decimals ('$1,234.50'); alert and transfer costs use 5 (spec 000 §9). */
export function formatUsd(amount: number, decimals = 2): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
    // A tiny negative that rounds to nothing reads '$0.00', not '-$0.00'.
    signDisplay: 'negative',
  }).format(amount);
}

/** 'YYYY-MM' → 'October 2026' (UTC, as months are kept); anything else is returned as given. */
export function formatMonthName(month: string): string {
  const [year, number] = month.split('-').map(Number);
  if (!year || !number) return month;
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}
