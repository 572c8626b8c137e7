import dayjs from 'dayjs';
import type { AuditRange } from '@cumulo/contract';

/**
 * The start of a /logs range in the browser's time zone, as the instant GET /audits takes for `from`; undefined for
 * 'All'. Ranges end now, so no `to` is sent.
 */
export function rangeStart(range: AuditRange, now: Date = new Date()): string | undefined {
  const at = dayjs(now);
  switch (range) {
    case 'Today':
      return at.startOf('day').toISOString();
    case 'This Week':
      return at.startOf('week').toISOString();
    case 'This Month':
      return at.startOf('month').toISOString();
    case 'All':
      return undefined;
  }
}
