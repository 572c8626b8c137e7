import {
  FINANCE_SETTINGS_DEFAULTS,
  financeMessages,
  type FinanceSettings,
  type FinanceSettingsBody,
} from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { FinanceSettingsRepo, FinanceSettingsRow } from './finance-settings.repo.ts';
import { lastCompletePeriod, nextDigestAt } from './finance-digest.ts';

const bodyOf = (row: FinanceSettingsRow | undefined): FinanceSettingsBody =>
  row
    ? {
        alert_emails: row.alertEmails,
        logs_emails: row.logsEmails,
        logs_frequency: row.logsFrequency,
        show_dollar_sign: row.showDollarSign,
        show_decimal: row.showDecimal,
        show_border: row.showBorder,
      }
    : FINANCE_SETTINGS_DEFAULTS;

/** The settings as the audit trail shows them: lists as comma-separated text. */
const audited = (body: FinanceSettingsBody) => ({
  ...body,
  alert_emails: body.alert_emails.join(', '),
  logs_emails: body.logs_emails.join(', '),
});

/** Finance settings (spec 002 §3 "Finance settings"): who gets alerts and the digest, and how numbers show. */
export class FinanceSettingsService {
  constructor(
    private readonly repo: FinanceSettingsRepo,
    private readonly entitlements: Pick<Entitlements, 'may'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(principal: Principal): Promise<FinanceSettings> {
    await this.#gate(principal);
    return this.#view(principal.organizationId, bodyOf(await this.repo.get(principal.organizationId)));
  }

  async put(principal: Principal, body: FinanceSettingsBody) {
    authorize(principal, 'finance.manage');
    await this.#gate(principal);
    const saved = await this.repo.transaction(async (tx, orm) => {
      const before = await tx.lock(principal.organizationId);
      const row = await tx.upsert({
        organizationId: principal.organizationId,
        alertEmails: body.alert_emails,
        logsEmails: body.logs_emails,
        logsFrequency: body.logs_frequency,
        showDollarSign: body.show_dollar_sign,
        showDecimal: body.show_decimal,
        showBorder: body.show_border,
      });
      const changes = changesOf(before ? audited(bodyOf(before)) : null, audited(bodyOf(row)));
      if (!before || changes.length > 0) {
        await recordAudit(orm, principal, {
          entity: 'Finance settings',
          type: before ? 'Modified' : 'Added',
          resource: 'Finance settings',
          resourceId: principal.organizationId,
          changes,
        });
      }
      return row;
    });
    return {
      message: financeMessages.settingsSaved,
      settings: await this.#view(principal.organizationId, bodyOf(saved)),
    };
  }

  async #view(organizationId: string, body: FinanceSettingsBody): Promise<FinanceSettings> {
    const last = await this.repo.lastDigest(organizationId);
    let next: string | null = null;
    if (body.logs_emails.length > 0) {
      const now = this.now();
      const due = lastCompletePeriod(now, body.logs_frequency);
      const sent = await this.repo.digest(organizationId, body.logs_frequency, due.start);
      next = nextDigestAt(now, body.logs_frequency, Boolean(sent?.sentAt)).toISOString();
    }
    return {
      ...body,
      last_digest: last
        ? {
            period_start: last.periodStart.toISOString(),
            period_end: last.periodEnd.toISOString(),
            sent_at: last.sentAt?.toISOString() ?? null,
            entries: last.entries,
            error: last.error,
          }
        : null,
      next_digest_at: next,
    };
  }

  async #gate(principal: Principal) {
    requireService(principal, 'finance');
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'finance',
      financeMessages.packageRequired,
    );
  }
}
