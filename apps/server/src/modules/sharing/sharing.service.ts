import http from 'node:http';
import https from 'node:https';
import { hash, verify } from '@node-rs/argon2';
import {
  SHARE_DOWNLOAD_URL_TTL_SECONDS,
  chatRefused,
  sharingMessages,
  type ChatChannelsAnswer,
  type ChatWebhookBody,
  type ChatWebhookView,
  type PublicShareView,
  type ShareDownloadAnswer,
  type ShareListAnswer,
  type ShareListItem,
} from '@cumulo/contract';
import type { SharedFile } from '../../db/schema/index.ts';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { AppError, badRequest, forbidden, notFound } from '../../errors.ts';
import { hashToken, newLinkToken } from '../../crypto/tokens.ts';
import type { SecretBox } from '../../crypto/keys.ts';
import type { Logger } from '../../logger.ts';
import type { OutboundPolicy } from '../../net/outbound-policy.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { ShareAccessLimiter } from './share-access-limiter.ts';
import type { ShareListRow, ShareRow, SharingRepo } from './sharing.repo.ts';
import { baseName, shareChatText, shareMail, type ShareNotice } from './sharing.mail.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';

/** The same argon2id cost as account passwords (identity.service.ts). */
const ARGON2 = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const CHAT_TIMEOUT_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ShareRequest {
  files: Array<{ name: string; bucket_name: string; cloud_account_id: string }>;
  password: string | null;
  expiration: number;
}

export interface Visitor {
  ip: string;
  userAgent?: string;
}

const gone = (message: string, code: string) => new AppError(410, code, message);

/** Files of one share named in its audit entry; more are counted, not listed. */
const AUDITED_FILES = 20;

/** A share as its audit entries name it: its one file, or how many files of which bucket. */
function shareResource(share: ShareRow): string {
  const [first] = share.files;
  if (!first) return 'Share';
  return share.files.length === 1
    ? `${first.bucket_name}/${first.path}`
    : `${share.files.length} files of ${first.bucket_name}`;
}

/** What a share's audit entries show: never its link's token nor its password, only whether it has one. */
function auditedShare(share: ShareRow) {
  const paths = share.files.map((f) => `${f.bucket_name}/${f.path}`);
  return {
    files: [
      ...paths.slice(0, AUDITED_FILES),
      ...(paths.length > AUDITED_FILES ? [`${paths.length - AUDITED_FILES} more`] : []),
    ].join(', '),
    fileCount: share.files.length,
    channel: share.channel,
    recipients: share.recipients.length,
    expiresAt: share.expiresAt,
    passwordProtected: share.passwordHash ? 'Yes' : 'No',
  };
}

/** "https://hooks.slack.com/••••abcd": enough to recognise the hook, not enough to use it. */
function maskWebhookUrl(url: string): string {
  let origin = '';
  try {
    origin = new URL(url).origin;
  } catch {
    // A stored URL always parses; a broken one still gets masked.
  }
  return `${origin}/••••${url.slice(-4)}`;
}

/**
 * Shares by e-mail link and chat message (spec 001 §3, §7, §8), the organisation's share list with revoke, and the
 * public /sharing/{token} calls that check a link and hand out one short-lived signed URL per download.
 */
export class SharingService {
  constructor(
    private readonly repo: SharingRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly mail: MailService,
    private readonly secrets: SecretBox,
    private readonly limiter: ShareAccessLimiter,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly outbound: OutboundPolicy,
  ) {}

  /** The webhook's connections: every one is checked by the outbound address policy (DNS rebinding included). */
  #chatAgents: ReturnType<OutboundPolicy['agents']> | undefined;

  async shareByEmail(principal: Principal, body: ShareRequest & { recipients: string[] }) {
    authorize(principal, 'share.create');
    const { share, notice } = await this.#create(principal, body, 'email', body.recipients);
    const results = await Promise.allSettled(
      body.recipients.map((to) => this.mail.send(shareMail(to, notice))),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length > 0) {
      this.log.error({ err: failed[0]?.reason, shareId: share.id }, 'share mail failed');
      // Recipients who got the mail would hold a link the sharer believes was never sent: withdraw it.
      await this.#withdraw(principal, share, failed.length === results.length ? 'delete' : 'revoke');
      throw new AppError(502, 'MAIL_FAILED', sharingMessages.mailFailed);
    }
    return { message: sharingMessages.shared };
  }

  async shareByChat(principal: Principal, body: ShareRequest & { channel?: string }) {
    authorize(principal, 'share.create');
    const webhook = await this.repo.webhook(principal.organizationId);
    if (!webhook)
      throw badRequest(sharingMessages.noChatChannel, { channel: [sharingMessages.noChatChannel] });
    if (body.channel && body.channel.replace(/^#/, '') !== webhook.channelName.replace(/^#/, '')) {
      throw badRequest(sharingMessages.unknownChannel, { channel: [sharingMessages.unknownChannel] });
    }
    const { share, notice } = await this.#create(principal, body, 'chat', [webhook.channelName]);
    try {
      await this.#postToChat(this.secrets.open(webhook.urlSealed), shareChatText(notice));
    } catch (error) {
      await this.#withdraw(principal, share, 'delete');
      throw error;
    }
    return { message: sharingMessages.shared };
  }

  async #postToChat(url: string, text: string) {
    let status: number;
    try {
      this.#assertWebhookAllowed(url);
      status = await this.#post(url, JSON.stringify({ text }));
    } catch (error) {
      this.log.warn({ err: error }, 'chat webhook unreachable');
      throw new AppError(502, 'CHAT_UNREACHABLE', sharingMessages.chatUnreachable);
    }
    if (status < 200 || status > 299) throw new AppError(502, 'CHAT_REFUSED', chatRefused(status));
  }

  /**
   * One POST through the policy's agents. A redirect is never followed (node's http client does not): a webhook
   * that redirects is not the one the admin set, and its target was never checked. The hook's answer is never
   * passed on, only its status.
   */
  #post(url: string, body: string): Promise<number> {
    this.#chatAgents ??= this.outbound.agents();
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const request = secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const outgoing = request(
        target,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          agent: secure ? this.#chatAgents?.httpsAgent : this.#chatAgents?.httpAgent,
          signal: AbortSignal.timeout(CHAT_TIMEOUT_MS),
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** Webhooks are https, on a public address, unless the operator allows the host (ALLOWED_PRIVATE_ENDPOINTS). */
  #assertWebhookAllowed(url: string) {
    const target = new URL(url);
    if (target.protocol !== 'https:' && !this.outbound.allowsHost(target.hostname)) {
      throw badRequest(sharingMessages.webhookUrlNotAllowed, { url: [sharingMessages.webhookUrlNotAllowed] });
    }
  }

  /** Checks the account is the organisation's and each file exists, then stores the share with its sizes. */
  async #create(principal: Principal, body: ShareRequest, channel: 'email' | 'chat', recipients: string[]) {
    const accountId = body.files[0]?.cloud_account_id;
    if (!accountId)
      throw badRequest(sharingMessages.filesRequired, { files: [sharingMessages.filesRequired] });
    const account = await this.accounts.find(principal.organizationId, accountId);
    if (!account) throw notFound();
    const store = await this.stores.storeFor(account);
    const unique = new Map(body.files.map((f) => [`${f.bucket_name}\n${f.name}`, f]));
    const files: SharedFile[] = [];
    for (const file of unique.values()) {
      let info;
      try {
        info = await store.stat(file.bucket_name, file.name);
      } catch (error) {
        throw providerError(error);
      }
      if (!info) {
        const text = `${file.name} was not found in ${file.bucket_name}.`;
        throw badRequest(text, { files: [text] });
      }
      files.push({
        cloud_account_id: account.id,
        bucket_name: file.bucket_name,
        path: file.name,
        size: info.size,
      });
    }
    const token = newLinkToken();
    const expiresAt = new Date(Date.now() + body.expiration * 1000);
    const passwordHash = body.password ? await hash(body.password, ARGON2) : null;
    const share = await this.repo.transaction(async (tx) => {
      const created = await tx.insert({
        organizationId: principal.organizationId,
        createdBy: principal.userId,
        cloudAccountId: account.id,
        tokenHash: hashToken(token),
        files,
        recipients,
        channel,
        passwordHash,
        expiresAt,
      });
      await recordAudit(tx.orm, principal, {
        entity: 'Share',
        type: 'Added',
        resource: shareResource(created),
        resourceId: created.id,
        changes: changesOf(null, auditedShare(created)),
      });
      return created;
    });
    const notice: ShareNotice = {
      sharedBy: (await this.repo.userName(principal.organizationId, principal.userId)) ?? 'A Cumulo user',
      files: files.map((f) => ({ name: f.path, size: f.size })),
      expiresAt,
      passwordRequired: body.password !== null,
      link: `${this.publicUrl.replace(/\/+$/, '')}/sharing/${token}`,
    };
    return { share, notice };
  }

  async list(principal: Principal, page: number, pageSize: number): Promise<ShareListAnswer> {
    requireService(principal, 'sharing');
    const { rows, total } = await this.repo.list(principal.organizationId, page, pageSize);
    return { items: rows.map((row) => listItem(row)), total, page, page_size: pageSize };
  }

  /** Owners and Admins revoke any link of the organisation; others only the links they created. */
  async revoke(principal: Principal, id: string) {
    const share = UUID.test(id) ? await this.repo.find(principal.organizationId, id) : undefined;
    if (!share) throw notFound();
    authorize(principal, 'share.revoke', share);
    await this.repo.transaction(async (tx) => {
      if (await tx.revoke(principal.organizationId, id, new Date())) {
        await recordAudit(tx.orm, principal, this.#revoked(share));
      }
    });
    return { message: sharingMessages.revokeDone };
  }

  /**
   * Takes back a share whose delivery failed: removed when nobody got it, revoked when some did. Its Added entry
   * stays (the trail is append-only), so the withdrawal is an entry of its own, in the same transaction.
   */
  async #withdraw(principal: Principal, share: ShareRow, how: 'delete' | 'revoke') {
    await this.repo.transaction(async (tx) => {
      if (how === 'delete') await tx.delete(share.id);
      else await tx.revoke(principal.organizationId, share.id, new Date());
      await recordAudit(tx.orm, principal, this.#revoked(share));
    });
  }

  #revoked(share: ShareRow) {
    return {
      entity: 'Share' as const,
      type: 'Deleted' as const,
      resource: shareResource(share),
      resourceId: share.id,
      changes: changesOf(auditedShare(share), null),
    };
  }

  async view(token: string, visitor: Visitor): Promise<PublicShareView> {
    const share = await this.#live(token, visitor);
    return {
      files: share.files.map((f, index) => ({ index, path: f.path, name: baseName(f.path), size: f.size })),
      expires_at: share.expiresAt.toISOString(),
      password_required: share.passwordHash !== null,
      shared_by: share.createdBy ? await this.repo.userName(share.organizationId, share.createdBy) : null,
    };
  }

  async download(
    token: string,
    input: { path: string; index?: number; password?: string | null },
    visitor: Visitor,
  ): Promise<ShareDownloadAnswer> {
    const share = await this.#live(token, visitor);
    if (share.passwordHash) {
      if (!input.password) throw forbidden(sharingMessages.passwordRequired, 'PASSWORD_REQUIRED');
      if (!(await verify(share.passwordHash, input.password))) {
        await this.limiter.recordFailure(share.id, visitor.ip);
        throw forbidden(sharingMessages.wrongPassword, 'WRONG_PASSWORD');
      }
    }
    // By its place in the share when given (the path must still match), so two files of one path in two buckets
    // each download their own.
    const file =
      input.index === undefined
        ? share.files.find((f) => f.path === input.path)
        : share.files[input.index]?.path === input.path
          ? share.files[input.index]
          : undefined;
    if (!file) throw notFound(sharingMessages.fileNotShared);
    const account = await this.accounts.find(share.organizationId, file.cloud_account_id);
    if (!account) throw gone(sharingMessages.fileGone, 'FILE_GONE');
    const store = await this.stores.storeFor(account);
    let url: string;
    let size: number;
    try {
      const info = await store.stat(file.bucket_name, file.path);
      if (!info) throw gone(sharingMessages.fileGone, 'FILE_GONE');
      size = info.size;
      url = await store.signedUrl(file.bucket_name, file.path, {
        method: 'GET',
        expiresInSeconds: SHARE_DOWNLOAD_URL_TTL_SECONDS,
        downloadName: baseName(file.path),
      });
    } catch (error) {
      throw error instanceof AppError ? error : providerError(error);
    }
    await this.repo.logDownload({
      shareId: share.id,
      path: file.path,
      size,
      ip: visitor.ip,
      userAgent: visitor.userAgent?.slice(0, 512) ?? null,
    });
    return { url, expires_in: SHARE_DOWNLOAD_URL_TTL_SECONDS };
  }

  /** The share behind a token, refused with its reason when it no longer opens; tries are rate-limited. */
  async #live(token: string, visitor: Visitor): Promise<ShareRow> {
    const share = await this.repo.findByTokenHash(hashToken(token));
    // Unknown tokens share one counter per address, so sweeping for tokens is throttled like guessing passwords.
    const limiterKey = share?.id ?? 'unknown';
    await this.limiter.check(limiterKey, visitor.ip);
    if (!share) {
      await this.limiter.recordFailure(limiterKey, visitor.ip);
      throw notFound(sharingMessages.unknownLink);
    }
    if (share.revokedAt) throw gone(sharingMessages.revoked, 'SHARE_REVOKED');
    if (share.expiresAt.getTime() <= Date.now()) throw gone(sharingMessages.expired, 'SHARE_EXPIRED');
    return share;
  }

  async webhookView(principal: Principal): Promise<ChatWebhookView> {
    requireService(principal, 'sharing');
    const row = await this.repo.webhook(principal.organizationId);
    if (!row) return { configured: false, channel_name: null, url_masked: null, updated_at: null };
    return {
      configured: true,
      channel_name: row.channelName,
      url_masked: maskWebhookUrl(this.secrets.open(row.urlSealed)),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  async saveWebhook(principal: Principal, body: ChatWebhookBody): Promise<ChatWebhookView> {
    authorize(principal, 'chat.configure');
    this.#assertWebhookAllowed(body.url);
    await this.outbound.checkUrl(body.url).catch(() => {
      throw badRequest(sharingMessages.webhookUrlNotAllowed, { url: [sharingMessages.webhookUrlNotAllowed] });
    });
    await this.repo.transaction(async (tx) => {
      const before = await tx.webhook(principal.organizationId);
      const after = await tx.saveWebhook(
        principal.organizationId,
        this.secrets.seal(body.url),
        body.channel_name.replace(/^#/, ''),
      );
      // The URL is the hook's credential: compared in full, shown masked.
      const changes = changesOf(
        before ? { channel: before.channelName, url: this.secrets.open(before.urlSealed) } : null,
        { channel: after.channelName, url: body.url },
        { secrets: ['url'] },
      );
      if (changes.length > 0) {
        await recordAudit(tx.orm, principal, {
          entity: 'Chat webhook',
          type: before ? 'Modified' : 'Added',
          resource: `#${after.channelName}`,
          resourceId: after.organizationId,
          changes,
        });
      }
    });
    return this.webhookView(principal);
  }

  async deleteWebhook(principal: Principal) {
    authorize(principal, 'chat.configure');
    await this.repo.transaction(async (tx) => {
      const removed = await tx.deleteWebhook(principal.organizationId);
      if (!removed) return;
      await recordAudit(tx.orm, principal, {
        entity: 'Chat webhook',
        type: 'Deleted',
        resource: `#${removed.channelName}`,
        resourceId: removed.organizationId,
        changes: changesOf({ channel: removed.channelName, url: 'set' }, null, { secrets: ['url'] }),
      });
    });
    return { message: sharingMessages.chatWebhookRemoved };
  }

  async channels(principal: Principal): Promise<ChatChannelsAnswer> {
    requireService(principal, 'sharing');
    const row = await this.repo.webhook(principal.organizationId);
    return { channels: row ? [{ name: row.channelName }] : [] };
  }
}

function listItem(row: ShareListRow): ShareListItem {
  const expired = row.expiresAt.getTime() <= Date.now();
  return {
    id: row.id,
    files: row.files.map((f) => ({
      name: f.path,
      size: f.size,
      bucket_name: f.bucket_name,
      cloud_account_id: f.cloud_account_id,
    })),
    channel: row.channel,
    recipients: row.recipients,
    created_by: row.creatorName,
    created_by_id: row.createdBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    revoked: row.revokedAt !== null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    status: row.revokedAt ? 'revoked' : expired ? 'expired' : 'active',
    has_password: row.passwordHash !== null,
    download_count: row.downloadCount,
  };
}
