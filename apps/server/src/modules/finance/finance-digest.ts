import { FINANCE_DIGEST_MAX_ENTRIES, type LogsFrequency } from '@cumulo/contract';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { FinanceSettingsRepo, FinanceSettingsRow } from './finance-settings.repo.ts';
import { digestMail } from './finance.mail.ts';

const DAY = 24 * 60 * 60 * 1000;
/** The minute of each hour the digest check runs (FINANCE_DIGEST_CRON '7 * * * *'). */
const CHECK_MINUTE = 7;

interface Period {
  start: Date;
  end: Date;
}

const midnight = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
/** The Monday 00:00 UTC of the week `now` is in. */
const monday = (now: Date) => new Date(midnight(now).getTime() - ((now.getUTCDay() + 6) % 7) * DAY);
const firstOfMonth = (now: Date, offset = 0) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));

/** The period `now` is in (not complete yet): today, this Monday–Sunday week, or this calendar month (UTC). */
export function currentPeriod(now: Date, frequency: LogsFrequency): Period {
  if (frequency === 'Daily') {
    const start = midnight(now);
    return { start, end: new Date(start.getTime() + DAY) };
  }
  if (frequency === 'Weekly') {
    const start = monday(now);
    return { start, end: new Date(start.getTime() + 7 * DAY) };
  }
  return { start: firstOfMonth(now), end: firstOfMonth(now, 1) };
}

/** The last complete period before `now`: yesterday, last Monday–Sunday week, or last calendar month (UTC). */
export function lastCompletePeriod(now: Date, frequency: LogsFrequency): Period {
  const { start: end } = currentPeriod(now, frequency);
  return currentPeriod(new Date(end.getTime() - 1), frequency);
}

/** The first hourly check at or after `at`. */
function checkAtOrAfter(at: Date): Date {
  const hour = new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
  const check = new Date(hour.getTime() + CHECK_MINUTE * 60_000);
  return check.getTime() >= at.getTime() ? check : new Date(check.getTime() + 3_600_000);
}

/**
 * When the next digest goes: the next hourly check when the last complete period is still unsent (just turned on,
 * or a failed send waiting for its retry), else the first check after the current period ends.
 */
export function nextDigestAt(now: Date, frequency: LogsFrequency, lastPeriodSent: boolean): Date {
  if (!lastPeriodSent) return checkAtOrAfter(new Date(now.getTime() + 1));
  return checkAtOrAfter(currentPeriod(now, frequency).end);
}

/** How people read a period in the digest's subject. */
export function periodText(period: Period, frequency: LogsFrequency): string {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  if (frequency === 'Daily') return day(period.start);
  if (frequency === 'Monthly') return period.start.toISOString().slice(0, 7);
  return `${day(period.start)} to ${day(new Date(period.end.getTime() - DAY))}`;
}

/**
 * The audit digest (spec 002 §3 "Finance settings"): each hourly check sends, to every organisation with
 * `logs_emails`, the digest of its last complete period unless one went already. The `finance_digests` row is
 * claimed before the mail goes, so a period is sent once however many checks run; a failed send leaves the row
 * with its error and no `sent_at`, and the next check claims and sends it again.
 */
export class FinanceDigest {
  constructor(
    private readonly repo: FinanceSettingsRepo,
    private readonly audits: Pick<AuditRepo, 'page'>,
    private readonly mail: Pick<MailService, 'send'>,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Sends every digest that is due; what it sent and what failed. */
  async runDue(): Promise<{ sent: number; failed: number }> {
    const now = this.now();
    let sent = 0;
    let failed = 0;
    for (const settings of await this.repo.withLogsEmails()) {
      const outcome = await this.#sendOne(settings, now);
      if (outcome === 'sent') sent += 1;
      if (outcome === 'failed') failed += 1;
    }
    return { sent, failed };
  }

  async #sendOne(settings: FinanceSettingsRow, now: Date): Promise<'sent' | 'failed' | 'skipped'> {
    const { organizationId, logsFrequency: frequency, logsEmails } = settings;
    const period = lastCompletePeriod(now, frequency);
    if (!(await this.repo.claimDigest(organizationId, frequency, period.start, period.end))) return 'skipped';
    const scope = { organizationId, onlyAuthor: null, from: period.start, to: period.end };
    const [page, counts] = await Promise.all([
      this.audits.page(scope, 0, FINANCE_DIGEST_MAX_ENTRIES),
      this.repo.auditCounts(organizationId, period.start, period.end),
    ]);
    const content = {
      period: periodText(period, frequency),
      counts,
      entries: page.rows,
      total: page.total,
      link: `${this.publicUrl}/logs`,
    };
    const result = { entries: page.total, recipients: logsEmails.length };
    try {
      // One mail to every address at once: a retry after a failure never sends some of them a second copy.
      await this.mail.send(digestMail(logsEmails.join(', '), content));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.repo.digestFailed(organizationId, frequency, period.start, { ...result, error: message });
      this.log.warn(
        { err: error, organizationId, frequency },
        'audit digest could not be sent; retried next hour',
      );
      return 'failed';
    }
    await this.repo.digestSent(organizationId, frequency, period.start, result);
    this.log.info({ organizationId, frequency, entries: page.total }, 'audit digest sent');
    return 'sent';
  }
}
