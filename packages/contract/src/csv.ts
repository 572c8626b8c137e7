/**
 * One CSV cell (RFC 4180 quoting). A cell a spreadsheet would run as a formula (starting with = + - @, or a tab or
 * carriage return that hides one) is prefixed with ', so opening an export never runs what someone typed into a name.
 */
export function csvCell(value: string | null): string {
  const text = value ?? '';
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One CSV line of cells, ending in CRLF. */
export const csvLine = (cells: readonly (string | null)[]) => `${cells.map(csvCell).join(',')}\r\n`;
