import {
  ACCOUNT_LIST_CLOUD_TYPE,
  ACCOUNT_TYPES,
  FILEBASE_ENDPOINT,
  INSERT_CLOUD_TYPE,
  MASK,
  WASABI_DEFAULT_REGION,
  accountFormMessages,
  estimateMonthlyCost,
  objectMessages,
  providersAllowedFor,
  roleMay,
  storageIdParts,
  type AccountMember,
  type CloudAccountView,
  type InsertAccountBody,
  type ProviderName,
  type StorageListItem,
} from '@cumulo/contract';
import type { ObjectStore, StoreConfig } from '@cumulo/storage';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, forbidden, notFound, type FieldErrors } from '../../errors.ts';
import type { WasabiPartnerClient } from './wasabi-partner.ts';
import type { SecretBox } from '../../crypto/keys.ts';
import type { Logger } from '../../logger.ts';
import type { BucketRow, CloudAccountRow, CloudAccountsRepo } from './cloud-accounts.repo.ts';
import type { InventoryJob } from './cloud-accounts.jobs.ts';
import type { IngestJob } from '../analytics/ingest/ingest-run.ts';
import type { StoreRegistry } from './store-registry.ts';
import { endpointCheckError, endpointUnreachable, providerError } from './provider-error.ts';
import type { OutboundPolicy } from '../../net/outbound-policy.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';

/** Per account, the newest month its ingested billing reports hold and that month's billed total (analytics). */
export type BilledMonths = (
  organizationId: string,
) => Promise<Map<string, { month: string; costNano: bigint }>>;
/** What a connect form resolves to before the credentials are checked. */
interface ResolvedAccount {
  provider: ProviderName;
  config: StoreConfig;
  keyId: string;
  region: string | null;
  serviceUrl: string | null;
  /** More of the connection for its audit entry (the Wasabi sub-account it was created as). */
  audited?: Record<string, string>;
}

const GOOGLE_UNIVERSE = 'googleapis.com';
const AZURE_ACCOUNT_NAME = /^[a-z0-9]{3,24}$/;

/** An active member of the organisation, as the identity repo lists them. */
interface OrganizationMember {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  role: { id: number; title: string };
}

const accountTypeId = (provider: ProviderName) => ACCOUNT_TYPES.find((t) => t.name === provider)?.id ?? 0;

/**
 * An account's properties as its audit entries show them: the access key by its last four characters only, the
 * secret key as "set" and listed in `secrets` so that the trail shows it masked, never its value.
 */
const auditedAccount = (row: CloudAccountRow) => ({
  name: row.name,
  provider: row.provider,
  region: row.region,
  endpoint: row.serviceUrl,
  accessKey: `${MASK}${row.keyHint}`,
  secretKey: 'set',
  billingBucket: row.billingBucket,
});
const ACCOUNT_SECRETS = ['secretKey'];

/** Connecting, listing, renaming and removing cloud accounts; every call is scoped to the caller's organisation. */
export class CloudAccountsService {
  constructor(
    private readonly repo: CloudAccountsRepo,
    private readonly registry: StoreRegistry,
    private readonly secrets: SecretBox,
    /** PROVIDER_ENDPOINTS: provider → endpoint override (tests, private deployments). */
    private readonly endpointOverrides: Partial<Record<ProviderName, string>>,
    private readonly userTypeOf: (principal: Principal) => Promise<number>,
    private readonly enqueueInventory: (job: InventoryJob) => Promise<void>,
    private readonly log: Logger,
    private readonly wasabiPartner: WasabiPartnerClient,
    private readonly outbound: OutboundPolicy,
    private readonly membersOf: (organizationId: string) => Promise<OrganizationMember[]>,
    /** Queues an ingestion of the account's billing reports (analytics). */
    private readonly enqueueIngest: (job: IngestJob) => Promise<void>,
    /** Per account, the newest month its ingested billing reports hold and that month's billed total. */
    private readonly billedMonths: BilledMonths = async () => new Map(),
  ) {}

  accountTypes() {
    return [...ACCOUNT_TYPES];
  }

  async accessInfo(principal: Principal) {
    const userType = await this.userTypeOf(principal);
    return {
      userType,
      providers: providersAllowedFor(userType),
      wasabi_create: this.wasabiPartner.info(),
    };
  }

  async list(principal: Principal): Promise<CloudAccountView[]> {
    const rows = await this.repo.list(principal.organizationId);
    const inventory = await this.repo.bucketsOf(
      principal.organizationId,
      rows.map((r) => r.id),
    );
    const billed = await this.billedMonths(principal.organizationId);
    return rows.map((row) =>
      this.#view(
        row,
        inventory.filter((b) => b.cloudAccountId === row.id),
        billed.get(row.id),
      ),
    );
  }

  /** GET /storages: every bucket of the organisation's accounts known to the inventory, with its account. */
  async storages(principal: Principal): Promise<StorageListItem[]> {
    const accounts = await this.list(principal);
    return accounts.flatMap((account) =>
      account.storages.map((storage) => ({
        ...storage,
        provider: account.provider,
        project_name: account.name,
      })),
    );
  }

  /** GET /storage/{id}: one bucket of the inventory; 404 when the account is another organisation's or unknown. */
  async storage(principal: Principal, storageId: string): Promise<StorageListItem> {
    const parts = storageIdParts(storageId);
    if (!parts) throw badRequest(objectMessages.storageIdInvalid, { id: [objectMessages.storageIdInvalid] });
    const row = await this.repo.find(principal.organizationId, parts.accountId);
    if (!row) throw notFound();
    const inventory = await this.repo.bucketsOf(principal.organizationId, [row.id]);
    const bucket = inventory.find((b) => b.name === parts.bucketName);
    const [storage] = bucket ? this.#view(row, [bucket]).storages : [];
    if (!storage) throw notFound(`${parts.bucketName} is not a bucket of ${row.name}.`);
    return { ...storage, provider: row.provider, project_name: row.name };
  }

  /**
   * GET /cloud_accounts/{id}/users: who can use the account — every active member of the organisation, until the
   * team issue's per-user service permissions narrow it — and whether their role may also manage it.
   */
  async users(principal: Principal, id: string): Promise<AccountMember[]> {
    const row = await this.repo.find(principal.organizationId, id);
    if (!row) throw notFound();
    const members = await this.membersOf(principal.organizationId);
    return members.map((member) => ({
      id: member.id,
      first_name: member.firstName,
      last_name: member.lastName,
      email: member.email,
      role: member.role,
      can_manage: roleMay(member.role.title, 'account.update'),
    }));
  }

  /** Queues a fresh inventory of the account's buckets (the dashboard's Refresh). */
  async refreshInventory(principal: Principal, id: string) {
    authorize(principal, 'account.refresh');
    const row = await this.repo.find(principal.organizationId, id);
    if (!row) throw notFound();
    await this.enqueueInventory({ organizationId: principal.organizationId, accountId: id });
    return { message: `Refreshing the buckets of ${row.name}.` };
  }

  /** POST /cloudaccount/insert: checks the credentials with a real call, then stores them sealed. */
  async insert(principal: Principal, body: InsertAccountBody): Promise<CloudAccountView> {
    authorize(principal, 'account.connect');
    const resolved = this.#resolve(body);
    return this.#connect(principal, body.name, resolved, body.billingBucket || null);
  }

  /** POST /cloud_accounts/: the legacy create of a Backblaze account. */
  async insertLegacyBackblaze(
    principal: Principal,
    body: { project_name: string; info: { access_key: string; secret_key: string; region: string } },
  ): Promise<CloudAccountView> {
    authorize(principal, 'account.connect');
    const config: StoreConfig = {
      provider: 'backblaze',
      accessKeyId: body.info.access_key,
      secretAccessKey: body.info.secret_key,
      region: body.info.region,
      endpoint: this.endpointOverrides.backblaze,
    };
    return this.#connect(principal, body.project_name, {
      provider: 'backblaze',
      config,
      keyId: body.info.access_key,
      region: body.info.region,
      serviceUrl: null,
    });
  }

  /** POST /wasabi_sub_accounts: a new Wasabi account from the partner API, connected like any other. */
  async createWasabiSubAccount(
    principal: Principal,
    body: { acct_name: string; password: string; project_name: string },
  ): Promise<CloudAccountView> {
    authorize(principal, 'account.connect');
    const userType = await this.userTypeOf(principal);
    if (!providersAllowedFor(userType).includes('wasabi')) throw forbidden();
    const keys = await this.wasabiPartner.createAccount(body.acct_name, body.password);
    this.log.info({ acctName: body.acct_name }, 'wasabi sub-account created');
    const subAccount = { wasabiSubAccount: body.acct_name };
    const config: StoreConfig = {
      provider: 'wasabi',
      accessKeyId: keys.accessKey,
      secretAccessKey: keys.secretKey,
      region: WASABI_DEFAULT_REGION,
      endpoint: this.endpointOverrides.wasabi,
    };
    return this.#connect(principal, body.project_name, {
      provider: 'wasabi',
      config,
      keyId: keys.accessKey,
      region: WASABI_DEFAULT_REGION,
      serviceUrl: null,
      audited: subAccount,
    });
  }

  async update(principal: Principal, id: string, changes: { name?: string; billingBucket?: string | null }) {
    authorize(principal, 'account.update');
    const row = await this.repo.transaction(async (tx) => {
      const before = await tx.find(principal.organizationId, id);
      const after = before && (await tx.update(principal.organizationId, id, changes));
      if (!before || !after) return undefined;
      const changed = changesOf(auditedAccount(before), auditedAccount(after), { secrets: ACCOUNT_SECRETS });
      if (changed.length > 0) {
        await recordAudit(tx.orm, principal, {
          entity: 'Cloud account',
          type: 'Modified',
          resource: after.name,
          resourceId: after.id,
          changes: changed,
        });
      }
      return after;
    });
    if (!row) throw notFound();
    // Saving the billing bucket, even unchanged, reads its reports again (issue 24).
    if (changes.billingBucket !== undefined && row.billingBucket) {
      await this.enqueueIngest({
        organizationId: principal.organizationId,
        accountId: row.id,
        trigger: 'billing_bucket_saved',
      });
    }
    return this.#view(row, await this.repo.bucketsOf(principal.organizationId, [row.id]));
  }

  async remove(principal: Principal, id: string) {
    authorize(principal, 'account.remove');
    const row = await this.repo.transaction(async (tx) => {
      const removed = await tx.delete(principal.organizationId, id);
      if (removed) {
        await recordAudit(tx.orm, principal, {
          entity: 'Cloud account',
          type: 'Deleted',
          resource: removed.name,
          resourceId: removed.id,
          changes: changesOf(auditedAccount(removed), null, { secrets: ACCOUNT_SECRETS }),
        });
      }
      return removed;
    });
    if (!row) throw notFound();
    await this.registry.forget(id);
    return { message: `${row.name} removed successfully` };
  }

  /** The account's buckets, asked of the provider now. */
  async listBuckets(principal: Principal, id: string) {
    const row = await this.repo.find(principal.organizationId, id);
    if (!row) throw notFound();
    try {
      const buckets = await (await this.registry.storeFor(row)).listBuckets();
      return buckets.map((b) => ({
        name: b.name,
        region: b.region,
        creationDate: b.createdAt?.toISOString() ?? null,
      }));
    } catch (error) {
      throw providerError(error);
    }
  }

  async #connect(
    principal: Principal,
    name: string,
    resolved: ResolvedAccount,
    billingBucket: string | null = null,
  ): Promise<CloudAccountView> {
    const userType = await this.userTypeOf(principal);
    if (!providersAllowedFor(userType).includes(resolved.provider)) {
      throw forbidden('Your plan allows adding only Wasabi accounts.');
    }
    // A service URL the tenant typed is checked against the outbound address policy before any connection (and
    // every later connection is checked again by the store's agents), and its failures all answer one text.
    const tenantEndpoint = resolved.provider === 'genericS3' ? resolved.serviceUrl : null;
    if (tenantEndpoint) {
      await this.outbound.checkUrl(tenantEndpoint).catch(() => {
        throw endpointUnreachable(400);
      });
    }
    // Construction can refuse too (a malformed key, an unsupported signature), so it sits inside the check.
    let probe: ObjectStore | undefined;
    try {
      probe = await this.registry.build(resolved.config);
      await probe.verify();
    } catch (error) {
      throw tenantEndpoint ? endpointCheckError(error) : providerError(error);
    } finally {
      await probe?.close();
    }
    const row = await this.repo.transaction(async (tx) => {
      const connected = await tx.insert({
        organizationId: principal.organizationId,
        provider: resolved.provider,
        name,
        credentials: this.secrets.seal(JSON.stringify(resolved.config)),
        keyHint: resolved.keyId.slice(-4),
        region: resolved.region,
        serviceUrl: resolved.serviceUrl,
        billingBucket,
      });
      await recordAudit(tx.orm, principal, {
        entity: 'Cloud account',
        type: 'Added',
        resource: connected.name,
        resourceId: connected.id,
        changes: changesOf(
          null,
          { ...auditedAccount(connected), ...resolved.audited },
          { secrets: ACCOUNT_SECRETS },
        ),
      });
      return connected;
    });
    this.log.info({ accountId: row.id, provider: row.provider }, 'cloud account connected');
    await this.enqueueInventory({ organizationId: principal.organizationId, accountId: row.id });
    if (row.billingBucket) {
      await this.enqueueIngest({
        organizationId: principal.organizationId,
        accountId: row.id,
        trigger: 'connect',
      });
    }
    return this.#view(row, []);
  }

  /** Maps the onboarding form to a provider and its store config, with the spec's field messages. */
  #resolve(body: InsertAccountBody): ResolvedAccount {
    const errors: FieldErrors = {};
    const need = (field: keyof InsertAccountBody, message: string) => {
      const value = body[field];
      if (typeof value !== 'string' || value.trim() === '') errors[field] = [message];
      return typeof value === 'string' ? value.trim() : '';
    };
    const fail = () => {
      const first = Object.values(errors)[0]?.[0] ?? accountFormMessages.field;
      return badRequest(first, errors);
    };

    if (body.cloudType === INSERT_CLOUD_TYPE.google) {
      const credentialsJson = need('credentialsData', accountFormMessages.serviceAccount);
      if (Object.keys(errors).length) throw fail();
      let clientEmail = '';
      let universe: unknown;
      try {
        const key = JSON.parse(credentialsJson) as { client_email?: unknown; universe_domain?: unknown };
        clientEmail = typeof key.client_email === 'string' ? key.client_email : '';
        universe = key.universe_domain;
      } catch {
        // The adapter's own check below answers a malformed key with a clear message.
      }
      // The key's universe_domain names the hosts the library connects to (storage.{universe}): a pasted key must
      // not point the server elsewhere than Google (outbound address policy).
      if (universe !== undefined && universe !== GOOGLE_UNIVERSE && !this.endpointOverrides.google) {
        throw endpointUnreachable(400);
      }
      return {
        provider: 'google',
        config: { provider: 'google', credentialsJson, endpoint: this.endpointOverrides.google },
        keyId: clientEmail.split('@')[0] ?? '',
        region: null,
        serviceUrl: null,
      };
    }
    const accessKey = need('accessKey', accountFormMessages.accessKey);
    const secretKey = need('secretKey', accountFormMessages.secretKey);
    if (body.cloudType === INSERT_CLOUD_TYPE.azure) {
      if (Object.keys(errors).length) throw fail();
      // The account name becomes the host https://{name}.blob.core.windows.net: only a real account name (3 to 24
      // lower-case letters and digits) keeps it there (outbound address policy).
      if (!this.endpointOverrides.azure && !AZURE_ACCOUNT_NAME.test(accessKey))
        throw endpointUnreachable(400);
      return {
        provider: 'azure',
        config: {
          provider: 'azure',
          accountName: accessKey,
          accountKey: secretKey,
          endpoint: this.endpointOverrides.azure,
        },
        keyId: accessKey,
        region: null,
        serviceUrl: null,
      };
    }
    if (body.cloudType === INSERT_CLOUD_TYPE.genericS3OrFilebase) {
      const serviceUrl = need('serviceUrl', accountFormMessages.field);
      if (serviceUrl && !/^https?:\/\/[^\s/]+/i.test(serviceUrl)) {
        errors.serviceUrl = ['Enter the service URL, such as https://s3.example.com.'];
      }
      if (Object.keys(errors).length) throw fail();
      const isFilebase = serviceUrl.replace(/\/+$/, '').toLowerCase() === FILEBASE_ENDPOINT;
      const provider: ProviderName = isFilebase ? 'filebase' : 'genericS3';
      return {
        provider,
        config: {
          provider,
          accessKeyId: accessKey,
          secretAccessKey: secretKey,
          region: body.region || 'us-east-1',
          endpoint: isFilebase ? (this.endpointOverrides.filebase ?? FILEBASE_ENDPOINT) : serviceUrl,
          ...(isFilebase ? {} : { signatureVersion: body.signatureVersion ?? 'v4' }),
        },
        keyId: accessKey,
        region: body.region || null,
        serviceUrl,
      };
    }
    if (Object.keys(errors).length) throw fail();
    const provider: ProviderName = body.cloudType === INSERT_CLOUD_TYPE.wasabi ? 'wasabi' : 'aws';
    const region = body.region || (provider === 'wasabi' ? WASABI_DEFAULT_REGION : 'us-east-1');
    return {
      provider,
      config: {
        provider,
        accessKeyId: accessKey,
        secretAccessKey: secretKey,
        region,
        endpoint: this.endpointOverrides[provider],
      },
      keyId: accessKey,
      region,
      serviceUrl: null,
    };
  }

  #view(
    row: CloudAccountRow,
    inventory: BucketRow[],
    billed?: { month: string; costNano: bigint },
  ): CloudAccountView {
    const endpoint = row.serviceUrl ?? this.endpointOverrides[row.provider] ?? null;
    const storages = inventory.map((b) => ({
      id: `${row.id}/${b.name}`,
      name: b.name,
      bucket_name: b.name,
      region: b.region,
      creationDate: b.createdOn?.toISOString() ?? null,
      size: b.totalBytes,
      object_count: b.objectCount,
      cost: estimateMonthlyCost(row.provider, b.totalBytes),
      cloud_account_id: row.id,
      inventory_status: b.status,
      inventoried_at: b.inventoriedAt?.toISOString() ?? null,
    }));
    return {
      id: row.id,
      name: row.name,
      project_name: row.name,
      provider: row.provider,
      cloudType: ACCOUNT_LIST_CLOUD_TYPE[row.provider],
      account_type_id: accountTypeId(row.provider),
      serviceUrl: row.serviceUrl,
      endpoint,
      billing_bucket: row.billingBucket,
      billing_error: row.billingError,
      total_cost: billed ? Number(billed.costNano) / 1e9 : storages.reduce((sum, b) => sum + b.cost, 0),
      cost_month: billed?.month ?? null,
      total_bytes_used: storages.reduce((sum, b) => sum + b.size, 0),
      bucket_count: storages.length,
      storages,
      info: { access_key: `${MASK}${row.keyHint}`, secret_key: MASK, region: row.region, endpoint },
      created_at: row.createdAt.toISOString(),
    };
  }
}
