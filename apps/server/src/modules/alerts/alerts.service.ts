import {
  alertMessages,
  estimateMonthlyCost,
  formatBytes,
  formatMonthName,
  formatUsd,
  type AlertView,
  type CreateAlertBody,
  type NotificationItem,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { BusMessage } from '../../realtime/events.ts';
import type { BucketRow, CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { BilledMonths } from '../cloud-accounts/cloud-accounts.service.ts';
import type { AlertRow, AlertsRepo, MemberNotificationRow } from './alerts.repo.ts';
import { alertMail } from './alerts.mail.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';

/** An alert as its audit entries name it: "Size alert on photos" or "Cost alert on My AWS". */
const alertResource = (alert: AlertRow, accountName: string) =>
  `${alert.kind === 'SIZE' ? 'Size' : 'Cost'} alert on ${alert.bucketName ?? accountName}`;

const auditedAlert = (alert: AlertRow, accountName: string) => ({
  account: accountName,
  bucket: alert.bucketName,
  kind: alert.kind,
  sizeLimit: alert.sizeLimit,
  costLimit: alert.costLimit,
});

/** Latest bell notifications returned by GET /notifications. */
const BELL_LIMIT = 50;

/** Who a notification is for, by the member's role: an Owner sees everything, a User what every member sees. */
const audiencesOf = (principal: Principal): Array<'members' | 'approvers' | 'owners'> =>
  principal.role === 'Owner'
    ? ['members', 'approvers', 'owners']
    : principal.role === 'Admin'
      ? ['members', 'approvers']
      : ['members'];

const readMessage = (count: number) => `${count} notification${count === 1 ? '' : 's'} marked as read`;

/** What an alert compares with its limit; `billedMonth` when it is a month's bill rather than an estimate. */
interface Measured {
  value: number;
  billedMonth?: string;
}

/**
 * What an alert watches, the figure the account list and the Alerts screen show for the same scope. An account's
 * COST, once billing reports are ingested, is its newest billed month's total (every service, not storage alone),
 * as the account's `total_cost`. Otherwise the figures come from the latest finished inventory; null while a
 * watched bucket is still being counted (a half-walked bucket would read as a drop and re-arm the alert) or when
 * nothing was measured yet. Buckets whose inventory failed are left out of an account's sum.
 */
function measure(
  alert: Pick<AlertRow, 'kind' | 'bucketName'>,
  account: Pick<CloudAccountRow, 'provider'>,
  buckets: ReadonlyArray<Pick<BucketRow, 'name' | 'totalBytes' | 'status'>>,
  billed: { month: string; costNano: bigint } | undefined,
): Measured | null {
  if (alert.kind === 'COST' && alert.bucketName === null && billed) {
    return { value: Number(billed.costNano) / 1e9, billedMonth: billed.month };
  }
  const watched = alert.bucketName === null ? buckets : buckets.filter((b) => b.name === alert.bucketName);
  if (watched.some((b) => b.status === 'pending' || b.status === 'running')) return null;
  const done = watched.filter((b) => b.status === 'done');
  if (done.length === 0) return null;
  if (alert.kind === 'SIZE') return { value: done.reduce((sum, b) => sum + b.totalBytes, 0) };
  // The same per-bucket estimate the account list shows, so the alert and the screen agree.
  return { value: done.reduce((sum, b) => sum + estimateMonthlyCost(account.provider, b.totalBytes), 0) };
}

/** Alerts of spec 000 §2/§3/§7, their scheduled check, and the organisation's bell notifications. */
export class AlertsService {
  constructor(
    private readonly repo: AlertsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly mail: MailService,
    private readonly publish: (message: BusMessage) => Promise<void>,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly billedMonths: BilledMonths = async () => new Map(),
  ) {}

  async listForAccount(principal: Principal, accountId: string, bucketName?: string): Promise<AlertView[]> {
    await this.#account(principal.organizationId, accountId);
    return (await this.repo.listForAccount(principal.organizationId, accountId, bucketName)).map(alertView);
  }

  /** GET /storages/{id}/notifications, where a storage id reads "{cloudAccountId}/{bucketName}". */
  async listForStorage(principal: Principal, storageId: string): Promise<AlertView[]> {
    const slash = storageId.indexOf('/');
    const accountId = slash > 0 ? storageId.slice(0, slash) : '';
    const bucket = storageId.slice(slash + 1);
    if (!/^[0-9a-f-]{36}$/i.test(accountId) || !bucket) throw notFound();
    return this.listForAccount(principal, accountId, bucket);
  }

  async create(principal: Principal, body: CreateAlertBody): Promise<AlertView> {
    authorize(principal, 'alert.manage');
    const account = await this.#account(principal.organizationId, body.cloud_account_id);
    const bucketName = body.bucket_name?.trim() || null;
    if (bucketName) {
      const known = await this.accounts.bucketsOf(principal.organizationId, [account.id]);
      if (!known.some((b) => b.name === bucketName)) {
        throw badRequest(`${bucketName} is not a bucket of ${account.name}.`, {
          bucket_name: [`${bucketName} is not a bucket of ${account.name}.`],
        });
      }
    }
    const row = await this.repo.transaction(async (tx) => {
      const created = await tx.insert({
        organizationId: principal.organizationId,
        cloudAccountId: account.id,
        bucketName,
        kind: body.size_limit != null ? 'SIZE' : 'COST',
        sizeLimit: body.size_limit ?? null,
        costLimit: body.cost_limit ?? null,
        createdBy: principal.userId,
      });
      await recordAudit(tx.orm, principal, {
        entity: 'Alert',
        type: 'Added',
        resource: alertResource(created, account.name),
        resourceId: created.id,
        changes: changesOf(null, auditedAlert(created, account.name)),
      });
      return created;
    });
    // A limit that is already passed should say so now, not at the next scheduled check.
    await this.check(principal.organizationId);
    const [fresh] = (await this.repo.listForAccount(principal.organizationId, account.id)).filter(
      (a) => a.id === row.id,
    );
    return alertView(fresh ?? row);
  }

  async remove(principal: Principal, id: string) {
    authorize(principal, 'alert.manage');
    const row = await this.repo.transaction(async (tx) => {
      const removed = await tx.delete(principal.organizationId, id);
      if (!removed) return undefined;
      const account = await this.accounts.find(principal.organizationId, removed.cloudAccountId);
      const accountName = account?.name ?? removed.cloudAccountId;
      await recordAudit(tx.orm, principal, {
        entity: 'Alert',
        type: 'Deleted',
        resource: alertResource(removed, accountName),
        resourceId: removed.id,
        changes: changesOf(auditedAlert(removed, accountName), null),
      });
      return removed;
    });
    if (!row) throw notFound();
    return { message: alertMessages.deleted };
  }

  async notifications(principal: Principal, all: boolean): Promise<NotificationItem[]> {
    const limit = all ? undefined : BELL_LIMIT;
    return (
      await this.repo.notifications(principal.organizationId, principal.userId, audiencesOf(principal), limit)
    ).map(notificationView);
  }

  /** The bell's badge: all the member's unread notifications, also those older than the latest BELL_LIMIT. */
  async unreadCount(principal: Principal): Promise<{ count: number }> {
    return {
      count: await this.repo.unreadCount(principal.organizationId, principal.userId, audiencesOf(principal)),
    };
  }

  async markRead(principal: Principal, ids: string[]) {
    const count = await this.repo.markRead(principal.organizationId, principal.userId, ids);
    return { message: readMessage(count) };
  }

  /** "Mark all as read": every notification the member sees, not only the bell's latest BELL_LIMIT. */
  async markAllRead(principal: Principal) {
    const count = await this.repo.markAllRead(
      principal.organizationId,
      principal.userId,
      audiencesOf(principal),
    );
    return { message: readMessage(count) };
  }

  /**
   * Compares every alert of the organisation with the latest inventory. A crossing (value above the limit after
   * being under it) creates one bell notification and one e-mail; a value back under the limit re-arms it.
   * Safe to run twice at once: only the check that flips `over` notifies.
   */
  async check(organizationId: string): Promise<{ checked: number; fired: number }> {
    const alerts = await this.repo.listForOrganization(organizationId);
    if (alerts.length === 0) return { checked: 0, fired: 0 };
    const accounts = new Map((await this.accounts.list(organizationId)).map((a) => [a.id, a]));
    const buckets = await this.accounts.bucketsOf(organizationId, [...accounts.keys()]);
    const billed = alerts.some((a) => a.kind === 'COST' && a.bucketName === null)
      ? await this.billedMonths(organizationId)
      : new Map<string, { month: string; costNano: bigint }>();
    let fired = 0;
    for (const alert of alerts) {
      const account = accounts.get(alert.cloudAccountId);
      if (!account) continue;
      const measured = measure(
        alert,
        account,
        buckets.filter((b) => b.cloudAccountId === account.id),
        billed.get(account.id),
      );
      if (measured === null) continue;
      const { value } = measured;
      const limit = alert.kind === 'SIZE' ? alert.sizeLimit : alert.costLimit;
      if (limit === null) continue;
      if (value <= limit) {
        if (alert.over) await this.repo.markUnder(alert.id);
        continue;
      }
      if (alert.over) continue;
      const won = await this.repo.markOver(alert.id, new Date());
      if (!won) continue;
      fired += 1;
      await this.#notify(won, account, measured, limit);
    }
    return { checked: alerts.length, fired };
  }

  /**
   * A bell entry for every member of the organisation, pushed at once to their open pages (other modules' notices:
   * a transfer that failed as a whole). No e-mail.
   */
  async bell(notice: {
    organizationId: string;
    title: string;
    description: string;
    status: 'error' | 'warning' | 'normal' | 'alerts';
    link?: string;
    /** Every member by default; 'owners' for what only an Owner can act on (a member's billing request). */
    audience?: 'members' | 'owners';
  }): Promise<void> {
    const notification = await this.repo.insertNotification({ ...notice, link: notice.link ?? null });
    await this.publish({
      organizationId: notice.organizationId,
      type: 'notification',
      data: notificationView({ ...notification, read: false }),
    });
  }

  async #notify(alert: AlertRow, account: CloudAccountRow, measured: Measured, limit: number) {
    const { value, billedMonth } = measured;
    const scope = alert.bucketName ? `${alert.bucketName} (${account.name})` : account.name;
    const title = alert.kind === 'SIZE' ? `Size alert: ${scope}` : `Cost alert: ${scope}`;
    const above = `above the ${formatUsd(limit, 5)} limit you set.`;
    const description =
      alert.kind === 'SIZE'
        ? `${scope} now holds ${formatBytes(value)}, above the ${formatBytes(limit)} limit you set.`
        : billedMonth
          ? `The billed cost of ${scope} for ${formatMonthName(billedMonth)} is now ${formatUsd(value, 5)}, ${above}`
          : `The estimated monthly storage cost of ${scope} is now ${formatUsd(value, 5)}, ${above}`;
    const notification = await this.repo.insertNotification({
      organizationId: alert.organizationId,
      title,
      description,
      status: 'alerts',
      alertId: alert.id,
    });
    await this.publish({
      organizationId: alert.organizationId,
      type: 'notification',
      data: notificationView({ ...notification, read: false }),
    });
    const link = `${this.publicUrl}/setAlert/${account.id}${alert.bucketName ? `/${encodeURIComponent(alert.bucketName)}` : ''}`;
    const recipients = await this.repo.recipients(alert.organizationId, alert.createdBy);
    for (const r of recipients) {
      try {
        await this.mail.send(alertMail(r.email, r.firstName, title, description, link));
      } catch (error) {
        // The bell already shows the crossing; a mail server outage must not re-fire the alert.
        this.log.warn({ err: error, alertId: alert.id }, 'alert e-mail could not be sent');
      }
    }
    this.log.info({ alertId: alert.id, kind: alert.kind, value, limit }, 'alert fired');
  }

  async #account(organizationId: string, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(organizationId, id);
    if (!account) throw notFound();
    return account;
  }
}

function alertView(row: AlertRow): AlertView {
  return {
    id: row.id,
    type: row.kind,
    kind: row.kind,
    size_limit: row.sizeLimit,
    cost_limit: row.costLimit,
    last_notified: row.lastNotified?.toISOString() ?? null,
    bucket_name: row.bucketName,
    cloud_account_id: row.cloudAccountId,
    service: 'S3',
    created_at: row.createdAt.toISOString(),
  };
}

function notificationView(row: MemberNotificationRow): NotificationItem {
  return {
    id: row.id,
    read: row.read,
    title: row.title,
    description: row.description,
    status: row.status,
    last_notified: row.createdAt.toISOString(),
    avatar: row.avatar,
    link: row.link,
  };
}
