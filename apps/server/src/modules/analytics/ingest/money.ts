/**
 * Money of billing reports as exact integers: AWS writes costs as decimal text with up to 10 (legacy) or more
 * decimals, sometimes in exponent form (`1.2E-7`); summing them as floats drifts by cents over a month of millions
 * of lines, so they are parsed digit by digit into nano-dollars (1e-9 USD), never through a Number.
 */

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/;
/** Nano-dollars: nine decimals; the tenth and beyond round half away from zero. */
const NANO_DIGITS = 9;

/**
 * Nano-dollars of a decimal text (`'0.0000000015'` → 2n, `'-1.2E-7'` → -120n, `''` → 0n), rounding half away from
 * zero at the tenth decimal; `undefined` when the text is not a decimal number.
 */
export function parseNanoDollars(text: string): bigint | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 0n;
  const match = DECIMAL.exec(trimmed);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponent] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(whole + fraction || '0');
  // value = digits × 10^(exponent − fraction digits); nano = value × 10^9.
  const shift = Number(exponent ?? 0) - fraction.length + NANO_DIGITS;
  let nano: bigint;
  if (shift >= 0) {
    nano = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    nano = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) nano += 1n;
  }
  return sign === '-' ? -nano : nano;
}

/** Nano-dollars of a float a Parquet file stores: its shortest decimal text, the figure AWS meant, made exact. */
export function nanoDollarsOfNumber(value: number): bigint | undefined {
  return Number.isFinite(value) ? parseNanoDollars(String(value)) : undefined;
}
