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
  const plain = plainNanoDollars(text);
  if (plain !== undefined) return plain;
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

/** Digits a Number holds exactly (< 2^53) whatever they are: 15. */
const EXACT_DIGITS = 15;

/**
 * The common case of parseNanoDollars, read without a regular expression or BigInt arithmetic: a plain decimal
 * (`0.0123456789`, `-12.5`) of at most 15 digits, whose digits and nano-dollars a Number holds exactly; one BigInt
 * is made at the end. Any other text (an exponent, a sign '+', spaces, more digits) answers undefined and takes
 * the general path. A report has one cost per line, and the general path's BigInt arithmetic was a tenth of a
 * reading thread's garbage.
 */
function plainNanoDollars(text: string): bigint | undefined {
  const length = text.length;
  let at = text.charCodeAt(0) === 45 ? 1 : 0;
  const negative = at === 1;
  let digits = 0;
  let count = 0;
  let decimals = -1;
  for (; at < length; at++) {
    const code = text.charCodeAt(at);
    if (code >= 48 && code <= 57) {
      digits = digits * 10 + (code - 48);
      count++;
      if (decimals >= 0) decimals++;
    } else if (code === 46 && decimals < 0) {
      decimals = 0;
    } else {
      return undefined;
    }
  }
  if (count === 0 || count > EXACT_DIGITS) return undefined;
  let nano: number;
  if (decimals <= NANO_DIGITS) {
    nano = digits * 10 ** (NANO_DIGITS - Math.max(decimals, 0));
    if (nano > Number.MAX_SAFE_INTEGER) return undefined;
  } else {
    // Integers below 2^53: the remainder and the quotient are exact; half away from zero, as the general path.
    const divisor = 10 ** (decimals - NANO_DIGITS);
    const rest = digits % divisor;
    nano = (digits - rest) / divisor + (rest * 2 >= divisor ? 1 : 0);
  }
  return BigInt(negative ? -nano : nano);
}

/** Nano-dollars of a float a Parquet file stores: its shortest decimal text, the figure AWS meant, made exact. */
export function nanoDollarsOfNumber(value: number): bigint | undefined {
  return Number.isFinite(value) ? parseNanoDollars(String(value)) : undefined;
}
