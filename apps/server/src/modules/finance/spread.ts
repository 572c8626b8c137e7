/** One month's share of a spread budget: 'YYYY-MM' and integer cents. */
export interface MonthCents {
  month: string;
  cents: number;
}

/** The months `start`..`end` ('YYYY-MM', inclusive, one year), or null when they are not one ordered range. */
export function monthsOfRange(start: string, end: string): string[] | null {
  const [startYear, startMonth] = start.split('-').map(Number);
  const [endYear, endMonth] = end.split('-').map(Number);
  if (startYear === undefined || startMonth === undefined || endMonth === undefined) return null;
  if (startYear !== endYear || startMonth > endMonth) return null;
  return Array.from(
    { length: endMonth - startMonth + 1 },
    (_, index) => `${startYear}-${String(startMonth + index).padStart(2, '0')}`,
  );
}

/**
 * A yearly amount in cents spread evenly over `months`: each month gets the same whole cents and the cents left
 * over go to the last month, so the months add up to the amount exactly (1000.00 over 12 months: 11 × 83.33 and
 * 83.37), and a member who reads the table sums back what they typed.
 */
export function spreadCents(totalCents: number, months: readonly string[]): MonthCents[] {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0)
    throw new RangeError('cents must be a whole amount');
  if (months.length === 0) return [];
  const each = Math.floor(totalCents / months.length);
  const last = totalCents - each * (months.length - 1);
  return months.map((month, index) => ({ month, cents: index === months.length - 1 ? last : each }));
}
