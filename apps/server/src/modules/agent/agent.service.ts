import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import {
  AGENT_PAIR_CODE_TTL_SECONDS,
  AGENT_TICKET_TTL_SECONDS,
  agentCost,
  agentMessages,
  messages,
  transferMessages,
  type AgentDevice,
  type AgentDownloadAnswer,
  type AgentDownloadBody,
  type AgentDownloadUrlsAnswer,
  type AgentDownloadUrlsBody,
  type AgentHistoryAnswer,
  type AgentHistoryItem,
  type AgentHistoryReport,
  type AgentMeAnswer,
  type AgentPairingCode,
  type AgentSummaryAnswer,
  type RedeemAgentCodeAnswer,
  type RedeemAgentCodeBody,
} from '@cumulo/contract';
import type { ObjectStore } from '@cumulo/storage';
import { authorize, SERVICE_OFF } from '../../authz/policy.ts';
import type { DeviceAuthenticator, Principal } from '../../authz/principal.ts';
import { AppError, badRequest, forbidden, notFound, tooManyRequests } from '../../errors.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { decodeCursor, downloadPage, encodeCursor, signFiles, signKeys } from './agent-downloads.ts';
import { AGENT_DEVICE_ROUTES } from './agent-device-routes.ts';
import type { AgentRepo, AgentTransferRow, HistoryScope, ListedDevice } from './agent.repo.ts';

/** Eight characters without look-alikes (no 0/O, 1/I/L), shown as XXXX-XXXX. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** A device's last call is stamped at most this often. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
/** Failed code redeems one client address may make per window before it waits (a code has ~40 bits). */
export const PAIR_TRIES = { perIp: 20, windowSeconds: 15 * 60 } as const;

const agentErrors = {
  continuationInvalid:
    'This continuation is not one this server gave for these paths. Start the listing again.',
  rangeInvalid: 'The start date must be before the end date.',
  urlOfFolder: 'A key ending with / is a folder: list it with POST /agent/downloads.',
} as const;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
/** A code as typed: the dash and case do not matter. */
const normalizeCode = (code: string) => code.replace('-', '').toUpperCase();

/** The failed code redeems of each client address, counted in PostgreSQL so every web process shares them. */
export class PairingLimiter {
  readonly #failures: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    private readonly limit: { perIp: number; windowSeconds: number } = PAIR_TRIES,
  ) {
    this.#failures = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'sign_in_limits',
      tableCreated: true,
      keyPrefix: 'agent-pair-ip',
      points: Number.MAX_SAFE_INTEGER,
      duration: limit.windowSeconds,
    });
  }

  /** 429 with Retry-After once the address failed `perIp` times in the window. */
  async check(ip: string) {
    const state = await this.#failures.get(ip);
    if (state && state.consumedPoints >= this.limit.perIp) {
      throw tooManyRequests(state.msBeforeNext / 1000, messages.tooManyAttempts);
    }
  }

  async recordFailure(ip: string) {
    await this.#failures.penalty(ip, 1);
  }
}

const deviceView = (row: ListedDevice): AgentDevice => ({
  id: row.id,
  name: row.name,
  platform: row.platform,
  version: row.version,
  user_id: row.userId,
  user_email: row.userEmail,
  created_at: row.createdAt.toISOString(),
  last_seen_at: row.lastSeenAt?.toISOString() ?? null,
});

const historyItem = (row: AgentTransferRow): AgentHistoryItem => ({
  id: row.id,
  bucket: row.bucket,
  cost: row.cost,
  date: row.createdAt.toISOString(),
  direction: row.direction,
  size: row.size,
  files: row.files,
  files_count: row.filesCount,
  is_directory: row.isDirectory,
});

/**
 * The transfer agent (ftX) on the server's side (README): pairing codes redeemed for revocable device tokens,
 * one-time connect tickets, the signed download lists the agent fetches, and the history it reports. The agent
 * never holds cloud keys: it moves bytes through URLs this server signs, under the member's ACL and quotas.
 */
export class AgentService implements DeviceAuthenticator {
  readonly routes = AGENT_DEVICE_ROUTES;

  constructor(
    private readonly repo: AgentRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly limiter: PairingLimiter,
    /** Keys the pairing codes' hashes: a code has only ~40 bits, so a copy of the table alone must not test guesses. */
    private readonly codeKey: Buffer,
    private readonly entitlements?: Entitlements,
  ) {}

  #codeHash(code: string) {
    return createHmac('sha256', this.codeKey).update(normalizeCode(code)).digest('base64url');
  }

  /** The spec's words when the member's ftX ACL is off, before anything else is looked at. */
  #requireFtx(principal: Principal) {
    if (!principal.access.services.ftx) throw forbidden(agentMessages.notActivated, SERVICE_OFF);
  }

  async #requireFtxCharge(organizationId: string) {
    if (!(await this.repo.ftxConfirmed(organizationId))) {
      throw forbidden(transferMessages.ftxChargeNotConfirmed, 'CHARGE_NOT_CONFIRMED');
    }
  }

  /** POST /agent/pairing-codes: a one-time code for pairing an agent with the caller's account. */
  async createCode(principal: Principal, now = new Date()): Promise<AgentPairingCode> {
    this.#requireFtx(principal);
    authorize(principal, 'agent.pair');
    const raw = Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    const expiresAt = new Date(now.getTime() + AGENT_PAIR_CODE_TTL_SECONDS * 1000);
    await this.repo.insertCode({
      codeHash: this.#codeHash(raw),
      organizationId: principal.organizationId,
      userId: principal.userId,
      expiresAt,
    });
    return { code: `${raw.slice(0, 4)}-${raw.slice(4)}`, expires_at: expiresAt.toISOString() };
  }

  /**
   * POST /agent/devices (no session: the code is the proof): uses the code once and answers the device token,
   * which is shown this once and kept as its SHA-256. Failed tries slow that client address down.
   */
  async redeemCode(body: RedeemAgentCodeBody, ip: string, now = new Date()): Promise<RedeemAgentCodeAnswer> {
    await this.limiter.check(ip);
    const codeHash = this.#codeHash(body.code);
    const token = randomBytes(32).toString('base64url');
    const paired = await this.repo.transaction(async (tx) => {
      const code = await tx.useCode(codeHash, now);
      const member = code && (await tx.activeMember(code.organizationId, code.userId));
      if (!code || !member) return null;
      const device = await tx.insertDevice({
        organizationId: code.organizationId,
        userId: code.userId,
        name: body.name,
        platform: body.platform,
        version: body.version,
        tokenHash: sha256(token),
      });
      await tx.linkCode(codeHash, device.id);
      await recordAudit(
        tx.orm,
        { organizationId: device.organizationId, userId: device.userId, deviceId: device.id },
        {
          entity: 'Transfer agent',
          type: 'Added',
          resource: device.name,
          resourceId: device.id,
          changes: changesOf(null, { name: device.name, platform: device.platform, version: device.version }),
        },
      );
      return { device, member };
    });
    if (!paired) {
      await this.limiter.recordFailure(ip);
      throw badRequest(agentMessages.pairCodeInvalid, { code: [agentMessages.pairCodeInvalid] });
    }
    const { device, member } = paired;
    return {
      device_id: device.id,
      token,
      user: {
        id: member.userId,
        email: member.email,
        first_name: member.firstName,
        last_name: member.lastName,
      },
      organization_name: member.organizationName,
    };
  }

  /** GET /agent/devices: the caller's live devices; an Owner's or Admin's: the organisation's. */
  async listDevices(principal: Principal): Promise<{ devices: AgentDevice[] }> {
    const everyone = principal.role === 'Owner' || principal.role === 'Admin';
    const rows = await this.repo.listDevices(principal.organizationId, everyone ? null : principal.userId);
    return { devices: rows.map(deviceView) };
  }

  /** DELETE /agent/devices/:id: the token stops working with its next call; another organisation's id is 404. */
  async revoke(principal: Principal, id: string, now = new Date()) {
    await this.repo.transaction(async (tx) => {
      const device = await tx.lockLiveDevice(principal.organizationId, id);
      if (!device) throw notFound();
      authorize(principal, 'agent.revoke', { createdBy: device.userId });
      await tx.revoke(principal.organizationId, id, now);
      await recordAudit(tx.orm, principal, {
        entity: 'Transfer agent',
        type: 'Deleted',
        resource: device.name,
        resourceId: device.id,
        changes: changesOf({ name: device.name, platform: device.platform }, null),
      });
    });
    return { message: agentMessages.deviceRevoked };
  }

  /**
   * POST /agent/tickets: a one-time ticket for one of the caller's own live devices. Another member's device (the
   * agent on this machine acts for them) answers 403 naming that member, so the page can say what to do; a device
   * of another organisation, revoked or unknown, 404.
   */
  async createTicket(principal: Principal, deviceId: string, now = new Date()) {
    this.#requireFtx(principal);
    const device = await this.repo.liveDevice(principal.organizationId, deviceId);
    if (!device) throw notFound();
    if (device.userId !== principal.userId) {
      const listed = await this.repo.listDevices(principal.organizationId, device.userId);
      const email = listed.find((row) => row.id === device.id)?.userEmail ?? 'another member';
      throw forbidden(agentMessages.pairedWithOther(email), 'AGENT_PAIRED_WITH_OTHER');
    }
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + AGENT_TICKET_TTL_SECONDS * 1000);
    await this.repo.insertTicket({
      ticketHash: sha256(ticket),
      organizationId: principal.organizationId,
      deviceId: device.id,
      userId: principal.userId,
      expiresAt,
    });
    return { ticket, expires_at: expiresAt.toISOString() };
  }

  /** POST /agent/tickets/redeem (device): the ticket must be this device's, unused and unexpired. */
  async redeemTicket(principal: Principal, ticket: string, now = new Date()) {
    const deviceId = this.#deviceOf(principal);
    const used = await this.repo.useTicket(sha256(ticket), principal.organizationId, deviceId, now);
    const member = used && (await this.repo.activeMember(principal.organizationId, used.userId));
    if (!member) throw badRequest(agentMessages.ticketInvalid, { ticket: [agentMessages.ticketInvalid] });
    return { user_id: member.userId, email: member.email };
  }

  /** GET /agent/me (device): who the agent acts for. */
  async me(principal: Principal): Promise<AgentMeAnswer> {
    const device = await this.repo.liveDevice(principal.organizationId, this.#deviceOf(principal));
    const member = await this.repo.activeMember(principal.organizationId, principal.userId);
    if (!device || !member) throw new AppError(401, 'DEVICE_UNKNOWN', agentMessages.deviceUnknown);
    return {
      device_id: device.id,
      name: device.name,
      user_id: member.userId,
      email: member.email,
      organization_name: member.organizationName,
    };
  }

  /**
   * POST /agent/downloads (device): a page of the files under the chosen keys with their signed GET URLs; a
   * folder is walked a listing page at a time, so no call holds more than one page of any bucket.
   */
  async downloads(principal: Principal, body: AgentDownloadBody): Promise<AgentDownloadAnswer> {
    const cursor = body.continuation ? decodeCursor(body.continuation) : { path: 0, token: null };
    return this.#withDownloadStore(principal, body.cloud_account_id, async (store) => {
      if (!cursor || cursor.path >= body.paths.length) {
        throw badRequest(agentErrors.continuationInvalid, {
          continuation: [agentErrors.continuationInvalid],
        });
      }
      const page = await downloadPage(store, body.bucket_name, body.paths, cursor);
      return {
        files: await signFiles(store, body.bucket_name, page.objects),
        continuation: page.next ? encodeCursor(page.next) : null,
      };
    });
  }

  /**
   * POST /agent/downloads/urls (device): fresh signed GET URLs for files of a download, under the same rules as
   * the listing that named them (ftX on, its charge confirmed, an account of the caller's organisation). Keys
   * ending with '/' are folders, never files: refused.
   */
  async downloadUrls(principal: Principal, body: AgentDownloadUrlsBody): Promise<AgentDownloadUrlsAnswer> {
    return this.#withDownloadStore(principal, body.cloud_account_id, async (store) => {
      if (body.keys.some((key) => key.endsWith('/'))) {
        throw badRequest(agentErrors.urlOfFolder, { keys: [agentErrors.urlOfFolder] });
      }
      return { urls: await signKeys(store, body.bucket_name, body.keys) };
    });
  }

  /**
   * The download calls' one gate: ftX on for the member, `agent.transfer`, the ftX charge confirmed and an account
   * of the caller's organisation; `work` then runs on its store, a provider's failure answered in words.
   */
  async #withDownloadStore<T>(
    principal: Principal,
    accountId: string,
    work: (store: ObjectStore) => Promise<T>,
  ): Promise<T> {
    this.#requireFtx(principal);
    authorize(principal, 'agent.transfer');
    await this.#requireFtxCharge(principal.organizationId);
    const account = await this.#account(principal, accountId);
    const store = await this.stores.storeFor(account);
    try {
      return await work(store);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw providerError(error);
    }
  }

  /**
   * POST /agent/history (device): records an ended transfer once per (device, transfer_id) and prices it. A
   * download's bytes count against `fc` here; an upload's were counted when its upload sessions opened.
   */
  async report(principal: Principal, report: AgentHistoryReport): Promise<AgentHistoryItem> {
    this.#requireFtx(principal);
    authorize(principal, 'agent.transfer');
    const deviceId = this.#deviceOf(principal);
    await this.#account(principal, report.cloud_account_id);
    const inserted = await this.repo.insertTransfer({
      organizationId: principal.organizationId,
      userId: principal.userId,
      deviceId,
      transferId: report.transfer_id,
      direction: report.direction,
      cloudAccountId: report.cloud_account_id,
      bucket: report.bucket_name,
      files: report.files,
      filesCount: report.files_count,
      size: report.size,
      cost: agentCost(report.size),
      isDirectory: report.is_directory,
    });
    if (inserted && inserted.direction === 'download') {
      // The ref makes the count idempotent too, should the row's insert and this call be retried apart.
      await this.entitlements?.record(
        principal.organizationId,
        'fc',
        `agent:${deviceId}:${report.transfer_id}`,
        report.size,
      );
    }
    const row =
      inserted ?? (await this.repo.findTransfer(principal.organizationId, deviceId, report.transfer_id));
    if (!row) throw new Error('agent transfer neither inserted nor found');
    return historyItem(row);
  }

  /** GET /transfers/history: the agent's history, newest first (README "History": whose rows a role sees). */
  async history(principal: Principal, page: number, limit: number): Promise<AgentHistoryAnswer> {
    this.#requireFtx(principal);
    const { rows, count } = await this.repo.history(this.#scope(principal), limit, (page - 1) * limit);
    return { transfers: rows.map(historyItem), count };
  }

  /** GET /transfers/summary: count, bytes and cost between two instants. */
  async summary(principal: Principal, from: Date, to: Date): Promise<AgentSummaryAnswer> {
    this.#requireFtx(principal);
    if (from > to) throw badRequest(agentErrors.rangeInvalid, { start_date: [agentErrors.rangeInvalid] });
    return this.repo.summary(this.#scope(principal), from, to);
  }

  /** The device token's member (the auth hook's DeviceAuthenticator); stamps the device's last call. */
  async authenticate(token: string, now = new Date()): Promise<Omit<Principal, 'access'> | null> {
    // A token is 43 base64url characters; anything else is not looked up.
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const device = await this.repo.liveByTokenHash(sha256(token));
    if (!device) return null;
    const staleBefore = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);
    if (!device.lastSeenAt || device.lastSeenAt < staleBefore)
      await this.repo.touch(device.id, now, staleBefore);
    return {
      userId: device.userId,
      organizationId: device.organizationId,
      role: device.role,
      sessionId: '',
      deviceId: device.id,
    };
  }

  /** Whether the organisation confirmed the ftX charge: the upload service asks it for a device's uploads. */
  ftxConfirmed(organizationId: string): Promise<boolean> {
    return this.repo.ftxConfirmed(organizationId);
  }

  #scope(principal: Principal): HistoryScope {
    const everyone = principal.role === 'Owner' || principal.role === 'Admin';
    return { organizationId: principal.organizationId, userId: everyone ? null : principal.userId };
  }

  #deviceOf(principal: Principal): string {
    if (!principal.deviceId) throw new AppError(401, 'DEVICE_UNKNOWN', agentMessages.deviceUnknown);
    return principal.deviceId;
  }

  async #account(principal: Principal, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(principal.organizationId, id);
    if (!account) throw notFound();
    return account;
  }
}
