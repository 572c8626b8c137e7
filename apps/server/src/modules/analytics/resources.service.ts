import {
  DOWNLOAD_URL_TTL_SECONDS,
  QUOTA_KEYS,
  TRANSFER_CHARGE_PER_GB,
  TRANSFER_GB_BYTES,
  analyticsMessages,
  analyticsReadMessages,
  baseNameOf,
  estimateMonthlyCost,
  roundTransferCost,
  transferCostEstimate,
  type AnalyticsInstance,
  type AnalyticsInvoices,
  type AnalyticsServiceUsage,
  type AnalyticsTransferItem,
  type EfsFileSystem,
  type InstanceKind,
  type ProviderName,
  type QuotaKey,
  type StorageCostEstimate,
} from '@cumulo/contract';
import { StorageError } from '@cumulo/storage';
import { requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { BillingRepo } from '../billing/billing.repo.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { billingLocation } from './ingest/discover.ts';
import type { ResourceApi, ResourceApis } from './resource-api.ts';
import { bucketKey, type MonthRange, type ResourceUsageRow, type ResourcesRepo } from './resources.repo.ts';

/** Files per page of GET /analytics/invoices (a provider's listing page). */
const INVOICES_PAGE = 1000;
/** Bytes of the GB the reports bill storage in (AWS GB-Mo are binary gigabytes). */
const GB = 1024 ** 3;
/** Store errors that mean the account's keys cannot read the billing bucket (the ingestion's rule too). */
const UNREADABLE: ReadonlySet<string> = new Set(['AccessDenied', 'InvalidCredentials', 'BucketNotFound']);

/** The resource ids each kind of instance has in the report: EC2 instance ids, RDS database ARNs. */
const INSTANCE_RESOURCES: Record<InstanceKind, { product: string; pattern: string }> = {
  ec2: { product: 'AmazonEC2', pattern: 'i-%' },
  rds: { product: 'AmazonRDS', pattern: 'arn:aws:rds:%:db:%' },
};

/** The month 'YYYY-MM' (the current UTC month when absent) as the rollups' day range. */
function monthRange(month: string | undefined, now: Date): MonthRange {
  const [year, monthIndex] = (month ?? now.toISOString().slice(0, 7)).split('-').map(Number);
  const first = Date.UTC(year ?? now.getUTCFullYear(), (monthIndex ?? 1) - 1, 1);
  const next = new Date(first);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { from: new Date(first).toISOString().slice(0, 10), to: next.toISOString().slice(0, 10) };
}

const dollars = (nano: bigint) => Number(nano) / 1e9;
/** A usage type without its region prefix ('EUC1-BoxUsage:t3.medium' → 'BoxUsage:t3.medium'). */
const withoutRegion = (usageType: string) => usageType.replace(/^[A-Z]{2,4}\d?-(?=[A-Za-z])/, '');
/** The database identifier of an RDS ARN (`arn:aws:rds:<region>:<account>:db:<name>`). */
const dbNameOf = (arn: string) => arn.slice(arn.lastIndexOf(':db:') + 4);
/** The file system id of an EFS resource id: its ARN (`…:file-system/fs-…`) or the bare id. */
const fileSystemIdOf = (resourceId: string) => /(fs-[0-9a-z]+)$/i.exec(resourceId)?.[1] ?? resourceId;

/**
 * The analytics calls about an account's resources, its billing bucket's files, Cumulo's own transfers and the
 * storage estimates of every provider (issue 24 points 3 and 5; module README "Resources, invoices, transfers and
 * estimates"). Every call needs the analytics service and the Analytics package.
 */
export class ResourcesService {
  constructor(
    private readonly repo: ResourcesRepo,
    private readonly accounts: Pick<CloudAccountsRepo, 'find' | 'list' | 'bucketsOf'>,
    private readonly stores: Pick<StoreRegistry, 'storeFor' | 'configOf'>,
    private readonly entitlements: Pick<Entitlements, 'may' | 'remaining'>,
    private readonly counters: Pick<BillingRepo, 'counter'>,
    private readonly apis: ResourceApis,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** GET /analytics/instances/{ec2|rds}: the month's instances, costliest first, running or stopped. */
  async instances(
    principal: Principal,
    kind: InstanceKind,
    query: { cloudId: string; month?: string; awsAccountId?: string },
  ): Promise<AnalyticsInstance[]> {
    const account = await this.#account(principal, query.cloudId);
    const month = monthRange(query.month, this.now());
    const { product, pattern } = INSTANCE_RESOURCES[kind];
    const [rows, lastDay] = await Promise.all([
      this.repo.resourceUsage(
        principal.organizationId,
        account.id,
        month,
        product,
        pattern,
        query.awsAccountId,
      ),
      this.repo.lastDataDay(principal.organizationId, account.id, month),
    ]);
    const resources = groupByResource(rows);
    const api = this.#api(account);
    const apiStates = new Map<string, boolean>();
    if (api) {
      const idOf = (resourceId: string) => (kind === 'rds' ? dbNameOf(resourceId) : resourceId);
      for (const [region, ids] of byRegion(resources)) {
        const states = await this.#ask(account, `${kind} states`, () =>
          api.instanceStates(kind, region, ids.map(idOf)),
        );
        for (const id of ids) {
          const running = states?.get(idOf(id));
          if (running !== undefined) apiStates.set(id, running);
        }
      }
    }
    return [...resources.values()]
      .map((resource): AnalyticsInstance => {
        const fromApi = apiStates.get(resource.id);
        // The report's rule: used on the month's last day of data means it was still running then.
        const running = fromApi ?? (lastDay !== null && resource.lastUsageDay === lastDay);
        return {
          id: resource.id,
          name: kind === 'rds' ? dbNameOf(resource.id) : resource.id,
          monthly_actual: dollars(resource.costNano),
          state: running ? 'running' : 'stopped',
          state_source: fromApi === undefined ? 'report' : 'api',
          products: resource.usageTypes.map((usage) => ({
            label: withoutRegion(usage.usageType),
            name: usage.usageType,
            monthly_actual: dollars(usage.costNano),
          })),
        };
      })
      .sort((a, b) => b.monthly_actual - a.monthly_actual || a.id.localeCompare(b.id));
  }

  /**
   * GET /analytics/efs: the month's EFS file systems. Name, metered size, mount targets and creation time come
   * from the EFS API where the keys allow it; otherwise the size is the report's storage usage: the month's
   * TimedStorage GB-Mo summed, divided by the share of the month the data covers (so a month in progress reads as
   * the average size over its days so far), in binary GB (× 2^30 bytes).
   */
  async efs(
    principal: Principal,
    query: { cloudId: string; month?: string; awsAccountId?: string },
  ): Promise<EfsFileSystem[]> {
    const account = await this.#account(principal, query.cloudId);
    const month = monthRange(query.month, this.now());
    const [rows, lastDay] = await Promise.all([
      this.repo.resourceUsage(
        principal.organizationId,
        account.id,
        month,
        'AmazonEFS',
        '_%',
        query.awsAccountId,
      ),
      this.repo.lastDataDay(principal.organizationId, account.id, month),
    ]);
    const resources = groupByResource(rows);
    const api = this.#api(account);
    const fromApi = new Map<string, Awaited<ReturnType<ResourceApi['fileSystems']>>>();
    if (api) {
      for (const region of byRegion(resources).keys()) {
        const systems = await this.#ask(account, 'EFS file systems', () => api.fileSystems(region));
        if (systems) fromApi.set(region, systems);
      }
    }
    const daysInMonth = (Date.parse(month.to) - Date.parse(month.from)) / 86_400_000;
    const daysCovered =
      lastDay === null ? daysInMonth : (Date.parse(lastDay) - Date.parse(month.from)) / 86_400_000 + 1;
    return [...resources.values()]
      .map((resource): EfsFileSystem => {
        const id = fileSystemIdOf(resource.id);
        const known = fromApi.get(resource.region)?.get(id);
        const gbMonths = resource.usageTypes
          .filter((usage) => usage.usageType.includes('TimedStorage'))
          .reduce((sum, usage) => sum + usage.usageAmount, 0);
        return {
          name: known?.name ?? id,
          file_system_id: id,
          size_in_bytes: {
            value: known ? known.sizeInBytes : Math.round(((gbMonths * daysInMonth) / daysCovered) * GB),
          },
          number_of_mount_targets: known ? known.mountTargets : null,
          creation_time: known ? known.creationTime : null,
          monthly_actual: dollars(resource.costNano),
        };
      })
      .sort(
        (a, b) => b.monthly_actual - a.monthly_actual || a.file_system_id.localeCompare(b.file_system_id),
      );
  }

  /** GET /analytics/invoices: one page of the billing bucket's files (under its prefix), with the next page's token. */
  async invoices(
    principal: Principal,
    query: { cloudId: string; token?: string },
  ): Promise<AnalyticsInvoices> {
    const account = await this.#account(principal, query.cloudId);
    const { billingBucket, bucket, prefix } = billingOf(account);
    const store = await this.stores.storeFor(account);
    try {
      for await (const page of store.list(bucket, {
        prefix,
        pageSize: INVOICES_PAGE,
        continuationToken: query.token,
      })) {
        return {
          bucket: billingBucket,
          files: page.objects.map((object) => ({
            key: object.key,
            size: object.size,
            last_modified: object.lastModified?.toISOString() ?? null,
          })),
          next_token: page.continuationToken,
        };
      }
      return { bucket: billingBucket, files: [], next_token: null };
    } catch (error) {
      throw unreadable(error, billingBucket);
    }
  }

  /**
   * GET /analytics/invoices/download: a short-lived signed link to one file of the billing bucket, as the bucket
   * browser's download makes them (same signing, same lifetime, saved under the file's own name).
   */
  async invoiceDownload(
    principal: Principal,
    query: { cloudId: string; key: string },
  ): Promise<{ url: string }> {
    const account = await this.#account(principal, query.cloudId);
    const { billingBucket, bucket, prefix } = billingOf(account);
    // The key must stay under the saved prefix: `..` segments mean nothing to S3, so a plain prefix test holds.
    if (!query.key.startsWith(prefix) || query.key.endsWith('/')) {
      throw badRequest(analyticsReadMessages.invoiceOutsideBucket(billingBucket));
    }
    const store = await this.stores.storeFor(account);
    try {
      if (!(await store.stat(bucket, query.key))) throw notFound();
      const url = await store.signedUrl(bucket, query.key, {
        method: 'GET',
        expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
        downloadName: baseNameOf(query.key),
      });
      return { url };
    } catch (error) {
      throw unreadable(error, billingBucket);
    }
  }

  /**
   * GET /analytics/transfers/history: the organisation's latest finished transfers. The cost is the transfer cost
   * rule of POST /transfer/calculate_cost (`transferCostEstimate`: the source's egress plus the transfer charge)
   * on the bytes copied; a batch whose source account was removed is charged the transfer charge alone, as
   * GET /c2c/usage counts it.
   */
  async transferHistory(principal: Principal, limit: number): Promise<AnalyticsTransferItem[]> {
    await this.#gate(principal);
    const rows = await this.repo.finishedTransfers(principal.organizationId, limit);
    return rows.map((row) => {
      const sizeGb = row.transferredSize / TRANSFER_GB_BYTES;
      return {
        id: row.id,
        cost: row.sourceProvider
          ? transferCostEstimate(row.sourceProvider as ProviderName, sizeGb).total
          : roundTransferCost(sizeGb * TRANSFER_CHARGE_PER_GB),
        size: row.transferredSize,
        ended: row.finishedAt.toISOString(),
        cloud: row.destinationName ?? row.destinationBucket,
      };
    });
  }

  /**
   * GET /analytics/transfers/usage: per quota of the billing contract, what the month used and the quota's total
   * (-1 unlimited), as the entitlements count them. The current month is the entitlements' own answer
   * (`remaining`: used and reserved); a past month reads the same counter of that month's period.
   */
  async transferUsage(principal: Principal, month: string | undefined): Promise<AnalyticsServiceUsage[]> {
    await this.#gate(principal);
    const current = this.now().toISOString().slice(0, 7);
    return Promise.all(
      QUOTA_KEYS.map(async (quota: QuotaKey) => {
        const { used, total } = await this.entitlements.remaining(principal.organizationId, quota);
        if (month === undefined || month === current) return { service: quota, usage: used, total };
        const counter = await this.counters.counter(principal.organizationId, quota, month);
        return { service: quota, usage: counter.used + counter.reserved, total };
      }),
    );
  }

  /**
   * GET /analytics/estimates: every bucket of every account, any provider, its storage cost estimated from the
   * inventory's size and the price table (the cloud account list's `cost`), beside the month's billed AmazonS3
   * cost of that bucket where the account's reports cover the month (null otherwise).
   */
  async estimates(principal: Principal, month: string | undefined): Promise<StorageCostEstimate[]> {
    await this.#gate(principal);
    const range = monthRange(month, this.now());
    const accounts = await this.accounts.list(principal.organizationId);
    const [buckets, billed] = await Promise.all([
      this.accounts.bucketsOf(
        principal.organizationId,
        accounts.map((a) => a.id),
      ),
      this.repo.billedBuckets(principal.organizationId, range),
    ]);
    const byId = new Map(accounts.map((a) => [a.id, a]));
    return buckets.flatMap((bucket) => {
      const account = byId.get(bucket.cloudAccountId);
      if (!account) return [];
      const estimated = estimateMonthlyCost(account.provider, bucket.totalBytes);
      const billedNano = billed.reported.has(account.id)
        ? (billed.costs.get(bucketKey(account.id, bucket.name)) ?? 0n)
        : null;
      const billedCost = billedNano === null ? null : dollars(billedNano);
      return [
        {
          cloud_account_id: account.id,
          account_name: account.name,
          provider: account.provider,
          bucket_name: bucket.name,
          region: bucket.region ?? account.region ?? '',
          size: bucket.totalBytes,
          estimated_cost: estimated,
          billed_cost: billedCost,
          difference: billedCost === null ? null : billedCost - estimated,
        },
      ];
    });
  }

  async #gate(principal: Principal) {
    requireService(principal, 'analytics');
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'analytics',
      analyticsReadMessages.packageRequired,
    );
  }

  /** The caller's account (another organisation's or an unknown id is 404), after the gates. */
  async #account(principal: Principal, cloudId: string): Promise<CloudAccountRow> {
    await this.#gate(principal);
    const account = await this.accounts.find(principal.organizationId, cloudId);
    if (!account) throw notFound();
    return account;
  }

  #api(account: CloudAccountRow): ResourceApi | null {
    return this.apis(account, this.stores.configOf(account));
  }

  /** One API question; any refusal or failure answers null and the report answers instead (logged at debug). */
  async #ask<T>(account: CloudAccountRow, what: string, question: () => Promise<T>): Promise<T | null> {
    try {
      return await question();
    } catch (error) {
      this.log.debug({ accountId: account.id, what, err: error }, 'provider API refused; the report answers');
      return null;
    }
  }
}

interface ResourceMonth {
  id: string;
  region: string;
  costNano: bigint;
  lastUsageDay: string | null;
  usageTypes: ResourceUsageRow[];
}

/** Folds the per-usage-type rows into one entry per resource, its usage types costliest first. */
function groupByResource(rows: ResourceUsageRow[]): Map<string, ResourceMonth> {
  const resources = new Map<string, ResourceMonth>();
  for (const row of rows) {
    let resource = resources.get(row.resourceId);
    if (!resource) {
      resource = { id: row.resourceId, region: row.region, costNano: 0n, lastUsageDay: null, usageTypes: [] };
      resources.set(row.resourceId, resource);
    }
    resource.costNano += row.costNano;
    if (
      row.lastUsageDay !== null &&
      (resource.lastUsageDay === null || row.lastUsageDay > resource.lastUsageDay)
    )
      resource.lastUsageDay = row.lastUsageDay;
    if (resource.region === '' && row.region !== '') resource.region = row.region;
    const same = resource.usageTypes.find((usage) => usage.usageType === row.usageType);
    if (same) {
      same.costNano += row.costNano;
      same.usageAmount += row.usageAmount;
    } else resource.usageTypes.push({ ...row });
  }
  for (const resource of resources.values())
    resource.usageTypes.sort((a, b) => (b.costNano > a.costNano ? 1 : b.costNano < a.costNano ? -1 : 0));
  return resources;
}

/** Resource ids per region, for one API call per region. */
function byRegion(resources: Map<string, ResourceMonth>): Map<string, string[]> {
  const regions = new Map<string, string[]>();
  for (const resource of resources.values()) {
    if (resource.region === '') continue;
    regions.set(resource.region, [...(regions.get(resource.region) ?? []), resource.id]);
  }
  return regions;
}

function billingOf(account: CloudAccountRow) {
  if (!account.billingBucket) throw badRequest(analyticsMessages.noBillingBucket(account.name));
  return { billingBucket: account.billingBucket, ...billingLocation(account.billingBucket) };
}

/** A bucket the keys cannot read says so in words (as the ingestion says it on the account); else the provider's answer. */
function unreadable(error: unknown, billingBucket: string) {
  if (!(error instanceof StorageError)) return error;
  if (UNREADABLE.has(error.code))
    return badRequest(analyticsMessages.bucketUnreadable(billingBucket, error.message));
  return providerError(error);
}
