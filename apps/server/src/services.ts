// The services every role builds once per process: repositories, services, the transfer engine and the sync
// cycles. Kept apart from app.ts so that a worker, which serves no HTTP, loads none of Fastify and its plugins.
import path from 'node:path';
import type { PgBoss } from 'pg-boss';
import { SIGN_IN_BACKOFF, SSO_START_LIMIT, messages } from '@cumulo/contract';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Logger } from './logger.ts';
import { AuthService } from './http/auth.ts';
import { SecretBox, deriveKey } from './crypto/keys.ts';
import { MailService } from './mail/mail.service.ts';
import { publish } from './realtime/events.ts';
import { IdentityRepo } from './modules/identity/identity.repo.ts';
import { IdentityService } from './modules/identity/identity.service.ts';
import { AddressLimiter, MailLimiter, SignInLimiter } from './modules/identity/sign-in-limiter.ts';
import { ApiKeysRepo } from './modules/api-keys/api-keys.repo.ts';
import { ApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { AgentRepo } from './modules/agent/agent.repo.ts';
import { AgentService, PairingLimiter } from './modules/agent/agent.service.ts';
import { AgentPackages } from './modules/agent/agent-package.ts';
import { serverRoot } from './runtime/paths.ts';
import { SsoService, type SsoOptions } from './modules/identity/sso.service.ts';
import { CloudAccountsRepo } from './modules/cloud-accounts/cloud-accounts.repo.ts';
import { CloudAccountsService } from './modules/cloud-accounts/cloud-accounts.service.ts';
import { StoreRegistry, guardedConnect } from './modules/cloud-accounts/store-registry.ts';
import { OutboundPolicy, parseAllowList } from './net/outbound-policy.ts';
import { BucketInventory } from './modules/cloud-accounts/bucket-inventory.ts';
import { SearchIndex } from './modules/search/search-index.ts';
import { SearchRepo } from './modules/search/search.repo.ts';
import { SearchService } from './modules/search/search.service.ts';
import { enqueueInventory } from './modules/cloud-accounts/cloud-accounts.jobs.ts';
import { AnalyticsRepo } from './modules/analytics/analytics.repo.ts';
import { AnalyticsService } from './modules/analytics/analytics.service.ts';
import { AnalyticsCostsRepo } from './modules/analytics/analytics-costs.repo.ts';
import { AnalyticsCostsService } from './modules/analytics/analytics-costs.service.ts';
import { enqueueIngest } from './modules/analytics/analytics.jobs.ts';
import { FinanceActuals } from './modules/finance/actuals.ts';
import { BudgetsRepo } from './modules/finance/budgets.repo.ts';
import { BudgetsService } from './modules/finance/budgets.service.ts';
import { IngestRun } from './modules/analytics/ingest/ingest-run.ts';
import { createIngestEngine } from './modules/analytics/ingest/engine.ts';
import { ResourcesRepo } from './modules/analytics/resources.repo.ts';
import { ResourcesService } from './modules/analytics/resources.service.ts';
import { awsResourceApis } from './modules/analytics/resource-api.ts';
import { BucketsService } from './modules/cloud-accounts/buckets.service.ts';
import { WasabiPartnerClient } from './modules/cloud-accounts/wasabi-partner.ts';
import { AlertsRepo } from './modules/alerts/alerts.repo.ts';
import { AlertsService } from './modules/alerts/alerts.service.ts';
import { recordAudit } from './modules/audit/audit.writer.ts';
import { UploadsRepo } from './modules/uploads/uploads.repo.ts';
import { UploadsService } from './modules/uploads/uploads.service.ts';
import { BucketConfigService } from './modules/uploads/bucket-config.service.ts';
import { ObjectsService } from './modules/objects/objects.service.ts';
import { MediaRepo } from './modules/media/media.repo.ts';
import { MediaService } from './modules/media/media.service.ts';
import { Ffprobe } from './modules/media/ffprobe.ts';
import { PlaybackTokens } from './modules/media/playback-token.ts';
import { SharingRepo } from './modules/sharing/sharing.repo.ts';
import { SharingService } from './modules/sharing/sharing.service.ts';
import { ShareAccessLimiter } from './modules/sharing/share-access-limiter.ts';
import { TransfersRepo } from './modules/transfers/transfers.repo.ts';
import { TransferRetentionRepo } from './modules/transfers/transfer-retention.repo.ts';
import { TransferRetention } from './modules/transfers/transfer-retention.service.ts';
import { TransfersService } from './modules/transfers/transfers.service.ts';
import { enqueueTransferBatch } from './modules/transfers/transfers.jobs.ts';
import { TransferExecutor } from './modules/transfers/engine/executor.ts';
import { TransferQuota } from './modules/transfers/transfer-quota.ts';
import { TransferProgress } from './modules/transfers/engine/progress.ts';
import { abandonCopy, copyObject } from './modules/transfers/engine/object-copier.ts';
import { MemoryBudget } from './modules/transfers/engine/memory-budget.ts';
import { OrganizationsRepo } from './modules/organizations/organizations.repo.ts';
import { OrganizationsService } from './modules/organizations/organizations.service.ts';
import { MembersRepo } from './modules/members/members.repo.ts';
import { AuditRepo } from './modules/audit/audit.repo.ts';
import { AuditService } from './modules/audit/audit.service.ts';
import { AccessRepo } from './modules/access/access.repo.ts';
import { AccessService } from './modules/access/access.service.ts';
import { MembersService } from './modules/members/members.service.ts';
import { InstanceOperatorsRepo } from './modules/admin/instance-operators.repo.ts';
import { AdminRepo } from './modules/admin/admin.repo.ts';
import { AdminUsageRepo } from './modules/admin/admin-usage.repo.ts';
import { AdminService } from './modules/admin/admin.service.ts';
import { DashboardRepo } from './modules/dashboard/dashboard.repo.ts';
import { DashboardService } from './modules/dashboard/dashboard.service.ts';
import { CostsService } from './modules/transfers/costs.service.ts';
import { EncodingRepo } from './modules/encoding/encoding.repo.ts';
import { EncodingService } from './modules/encoding/encoding.service.ts';
import { EncodingRunner } from './modules/encoding/encoding-runner.ts';
import { enqueueEncoding, lostEncodingJobs } from './modules/encoding/encoding.jobs.ts';
import { sweepLostJobs } from './jobs/lost-jobs.ts';
import { HybrikRepo } from './modules/hybrik/hybrik.repo.ts';
import { HybrikService } from './modules/hybrik/hybrik.service.ts';
import { HybrikRunner } from './modules/hybrik/hybrik-runner.ts';
import { enqueueHybrikJob, lostHybrikJobs } from './modules/hybrik/hybrik.jobs.ts';
import { C2cRepo } from './modules/transfers/c2c.repo.ts';
import { C2cService } from './modules/transfers/c2c.service.ts';
import { SyncCyclesRepo } from './modules/sync/sync-cycles.repo.ts';
import { SyncCycleService } from './modules/sync/sync-cycles.service.ts';
import { SyncJobsRepo } from './modules/sync/sync-jobs.repo.ts';
import { SyncService } from './modules/sync/sync.service.ts';
import { BillingRepo } from './modules/billing/billing.repo.ts';
import { EntitlementsService } from './modules/billing/entitlements.service.ts';
import { BillingService } from './modules/billing/billing.service.ts';
import { BillingRequests } from './modules/billing/billing-requests.service.ts';
import { BillingRoll } from './modules/billing/billing-roll.service.ts';
import { GatewayWebhooks } from './modules/billing/billing-webhooks.service.ts';
import { buildGateway } from './modules/billing/gateways/build-gateway.ts';
import { FinanceAlertsRepo } from './modules/finance/finance-alerts.repo.ts';
import { FinanceAlertsService } from './modules/finance/finance-alerts.service.ts';
import { FinanceSettingsRepo } from './modules/finance/finance-settings.repo.ts';
import { FinanceSettingsService } from './modules/finance/finance-settings.service.ts';
import { FinanceDigest } from './modules/finance/finance-digest.ts';
import { enqueueFinanceEvaluation } from './modules/finance/finance.jobs.ts';
import { Metrics } from './modules/metrics/metrics.ts';
import { QueueStatsRepo } from './modules/metrics/queue-stats.repo.ts';
import { Lifecycle } from './runtime/lifecycle.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  boss: PgBoss;
  log: Logger;
  masterKey: Buffer;
  /** Connection string for the realtime LISTEN connection. */
  databaseUrl: string;
  /** Built web app to serve; null serves the API only. */
  webDist: string | null;
}

/** The single sign-on clients the environment configures (config.ts makes each one complete or absent). */
function ssoOptions(config: Config): SsoOptions {
  const { GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = config;
  return {
    redirectUri: `${config.PUBLIC_URL}/api/oauth/callback`,
    google:
      GOOGLE_CLIENT_ID && GOOGLE_CLIENT_SECRET
        ? { issuer: config.GOOGLE_ISSUER, clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET }
        : undefined,
    oidc:
      OIDC_ISSUER && OIDC_CLIENT_ID && OIDC_CLIENT_SECRET
        ? {
            issuer: OIDC_ISSUER,
            clientId: OIDC_CLIENT_ID,
            clientSecret: OIDC_CLIENT_SECRET,
            name: config.OIDC_NAME,
          }
        : undefined,
  };
}

/** The services every role shares, built once per process. */
export function buildServices(deps: Pick<AppDeps, 'config' | 'db' | 'log' | 'masterKey' | 'boss'>) {
  const { config, db, log, masterKey, boss } = deps;
  // One registry per process (GET /metrics, and a worker's METRICS_PORT); the queue gauges read the database.
  const queueStats = new QueueStatsRepo(db.orm);
  const metrics = new Metrics(() => queueStats.queueStats());
  const lifecycle = new Lifecycle();
  // Keys are checked by the auth hook, so they are built before it; their failed tries have counters of their own.
  const apiKeys = new ApiKeysService(
    new ApiKeysRepo(db.orm),
    new SignInLimiter(db.pool, SIGN_IN_BACKOFF, 'apikey-'),
    deriveKey(masterKey, 'api-key-secrets'),
  );
  const accessRepo = new AccessRepo(db.orm);
  const billingRepo = new BillingRepo(db.orm);
  // The one answer to "may this organisation use this, and how much is left?": modules receive it from here.
  const entitlements = new EntitlementsService(billingRepo, config.BILLING_ENTITLE_ALL);
  const cloudAccountsRepo = new CloudAccountsRepo(db.orm);
  const secrets = new SecretBox(masterKey);
  const outbound = new OutboundPolicy(parseAllowList(config.ALLOWED_PRIVATE_ENDPOINTS));
  const stores = new StoreRegistry(
    secrets,
    guardedConnect(outbound, Object.values(config.PROVIDER_ENDPOINTS)),
  );
  // Device tokens of the transfer agents are checked by the auth hook too.
  const agentRepo = new AgentRepo(db.orm);
  const agent = new AgentService(
    agentRepo,
    cloudAccountsRepo,
    stores,
    new PairingLimiter(db.pool),
    deriveKey(masterKey, 'agent-pairing-codes'),
    entitlements,
  );
  const agentPackages = new AgentPackages(
    path.resolve(config.AGENT_DIST_DIR ?? path.join(serverRoot(), '..', 'agent')),
  );
  const auth = new AuthService(masterKey, db.orm, config.JWT_TTL_SECONDS, accessRepo, apiKeys, agent);
  const mail = new MailService(
    { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR },
    log,
  );
  const identityRepo = new IdentityRepo(db.orm);
  const instanceOperators = new InstanceOperatorsRepo(db.orm, config.OPERATOR_EMAILS);
  const identity = new IdentityService(
    identityRepo,
    auth,
    new SignInLimiter(db.pool),
    new MailLimiter(db.pool),
    mail,
    secrets,
    deriveKey(masterKey, 'mfa-recovery-codes'),
    config.PUBLIC_URL,
    log,
    (message) => publish(db.pool, message),
    entitlements,
    (userId) => instanceOperators.isOperator(userId),
  );
  // Sign-in providers are operator settings, so trusted: their issuers are not held to the outbound address policy.
  const sso = new SsoService(
    identityRepo,
    identity,
    ssoOptions(config),
    log,
    new AddressLimiter(db.pool, 'sso-start', SSO_START_LIMIT, messages.tooManySsoStarts),
  );
  const analyticsRepo = new AnalyticsRepo(db.orm);
  const analyticsResourcesRepo = new ResourcesRepo(db.orm);
  const cloudAccounts = new CloudAccountsService(
    cloudAccountsRepo,
    stores,
    secrets,
    config.PROVIDER_ENDPOINTS,
    async (principal) => (await identity.profile(principal)).userType,
    enqueueInventory(boss),
    log,
    new WasabiPartnerClient(config.WASABI_PARTNER_URL, config.WASABI_PARTNER_API_KEY),
    outbound,
    (organizationId) => identityRepo.activeMembers(organizationId),
    enqueueIngest(boss, analyticsRepo),
    (organizationId) => analyticsResourcesRepo.newestBilledMonths(organizationId),
  );
  const analytics = new AnalyticsService(
    analyticsRepo,
    cloudAccountsRepo,
    enqueueIngest(boss, analyticsRepo),
  );
  const analyticsCostsRepo = new AnalyticsCostsRepo(db.orm);
  const analyticsCosts = new AnalyticsCostsService(analyticsCostsRepo, cloudAccountsRepo, entitlements);
  const financeActuals = new FinanceActuals(analyticsCostsRepo);
  const budgets = new BudgetsService(
    new BudgetsRepo(db.orm),
    cloudAccountsRepo,
    financeActuals,
    entitlements,
  );
  const analyticsIngest = new IngestRun(
    analyticsRepo,
    cloudAccountsRepo,
    stores,
    createIngestEngine({ threads: config.ANALYTICS_READ_THREADS }),
    log,
    (state) => metrics.ingestRuns.inc({ outcome: state }),
  );
  const analyticsResources = new ResourcesService(
    analyticsResourcesRepo,
    cloudAccountsRepo,
    stores,
    entitlements,
    billingRepo,
    awsResourceApis,
    log,
  );
  const buckets = new BucketsService(cloudAccountsRepo, stores, enqueueInventory(boss), log);
  const searchRepo = new SearchRepo(db.orm);
  const searchIndex = new SearchIndex(searchRepo, log);
  const search = new SearchService(searchRepo, entitlements);
  const inventory = new BucketInventory(
    cloudAccountsRepo,
    stores,
    (message) => publish(db.pool, message),
    log,
    searchIndex,
  );
  const alertsRepo = new AlertsRepo(db.orm);
  const alerts = new AlertsService(
    alertsRepo,
    cloudAccountsRepo,
    mail,
    (message) => publish(db.pool, message),
    config.PUBLIC_URL,
    log,
  );
  const sharing = new SharingService(
    new SharingRepo(db.orm),
    cloudAccountsRepo,
    stores,
    mail,
    secrets,
    new ShareAccessLimiter(db.pool),
    config.PUBLIC_URL,
    log,
    outbound,
  );
  const mediaRepo = new MediaRepo(db.orm);
  const media = new MediaService(
    mediaRepo,
    cloudAccountsRepo,
    stores,
    new Ffprobe(),
    log,
    new PlaybackTokens(deriveKey(masterKey, 'media-playback-tokens')),
    searchIndex,
  );
  const objects = new ObjectsService(
    cloudAccountsRepo,
    stores,
    log,
    (actor, event) => recordAudit(db.orm, actor, event),
    // A deleted object leaves its custom metadata, its kept probe and the media-search index.
    async (account, bucket, keys) => {
      await mediaRepo.forgetObjects(account.organizationId, account.id, bucket, keys);
      await searchIndex.removeObjects(account.organizationId, account.id, bucket, keys);
    },
  );
  const uploads = new UploadsService(
    new UploadsRepo(db.orm),
    cloudAccountsRepo,
    stores,
    secrets,
    log,
    entitlements,
    searchIndex,
    (organizationId) => agent.ftxConfirmed(organizationId),
  );
  const bucketConfig = new BucketConfigService(cloudAccountsRepo, stores, log);
  const transfersRepo = new TransfersRepo(db.orm, db.pool, db.locks);
  // Transfers and sync cycles count their bytes against c2c; past the limit only an organisation in trial is refused.
  const transferQuota = new TransferQuota(
    entitlements,
    transfersRepo,
    async (organizationId) => (await entitlements.standing(organizationId)).inTrial,
  );
  // What follows a batch's end (Completed, Failed or Canceled), run once per batch by whoever ended it: the engine
  // (finalize, failBatch, a settled cancel, the sweep's too) or a cancel that ended it at once (TransfersService).
  // Its c2c reservation is settled to what it copied, a batch that failed as a whole tells the bell, a sync cycle's
  // batch moves its cycle on (the sync sweep catches what this misses), the buckets it changed are counted again
  // and the media-search index learns what it copied. Events while a batch runs are `publishBatch` alone.
  const onBatchFinished = async (batchId: string) => {
    await transfers.publishBatch(batchId);
    await transfers.settleQuota(batchId);
    await transfers.noticeFailure(batchId);
    await syncCycles.onBatchFinished(batchId);
    await transfers.recountChangedBuckets(batchId);
    await transfers.indexChangedObjects(batchId);
  };
  const transfers = new TransfersService(
    transfersRepo,
    cloudAccountsRepo,
    stores,
    enqueueTransferBatch(boss, config.TRANSFER_JOBS_PER_BATCH, (batchId) =>
      transfersRepo.queuePlaceOf(batchId),
    ),
    (message) => publish(db.pool, message),
    onBatchFinished,
    log,
    enqueueInventory(boss),
    (notice) => alerts.bell(notice),
    transferQuota,
    searchIndex,
  );
  const transferMemory = new MemoryBudget(config.TRANSFER_MEMORY_MB * 1024 * 1024);
  const transferCopier = {
    copyObject: (task: Parameters<typeof copyObject>[0]) => copyObject(task, { memory: transferMemory }),
    abandonCopy,
  };
  const syncCyclesRepo = new SyncCyclesRepo(db.orm, db.pool, db.locks);
  syncCyclesRepo.onFinished = (status) => metrics.syncCycleEnded(status);
  const syncCycles = new SyncCycleService({
    repo: syncCyclesRepo,
    accounts: cloudAccountsRepo,
    stores,
    alertsRepo,
    mail,
    boss,
    publish: (message) => publish(db.pool, message),
    enqueueBatch: enqueueTransferBatch(boss, config.TRANSFER_JOBS_PER_BATCH, (batchId) =>
      transfersRepo.queuePlaceOf(batchId),
    ),
    publishBatch: (batchId) => transfers.publishBatch(batchId),
    publicUrl: config.PUBLIC_URL,
    log,
    quota: transferQuota,
  });
  const transferExecutor = new TransferExecutor(
    transfersRepo,
    cloudAccountsRepo,
    stores,
    new TransferProgress(transfersRepo, (message) => publish(db.pool, message), log),
    { publishBatch: (batchId) => transfers.publishBatch(batchId), onBatchFinished },
    transferCopier,
    {
      leaseSeconds: config.TRANSFER_LEASE_SECONDS,
      objectConcurrency: config.TRANSFER_OBJECT_CONCURRENCY,
      jobsPerBatch: config.TRANSFER_JOBS_PER_BATCH,
      outageSeconds: config.TRANSFER_OUTAGE_SECONDS,
      yieldTo: (organizationId, jobId) =>
        transfersRepo.anotherOrganizationWaits(
          organizationId,
          jobId,
          config.TRANSFER_BATCHES_PER_ORG * config.TRANSFER_JOBS_PER_BATCH,
        ),
      claimChunk: 32,
      attempts: 3,
      reservePlanned: (batch, bytes) => transferQuota.reserve(batch, bytes),
      metrics,
    },
    log,
  );
  const gateway = buildGateway(config);
  const billing = new BillingService(
    billingRepo,
    entitlements,
    gateway,
    identity,
    config.BILLING_ENTITLE_ALL,
  );
  const billingRequests = new BillingRequests(
    billingRepo,
    mail,
    (notice) => alerts.bell(notice),
    config.PUBLIC_URL,
    log,
  );
  const billingRoll = new BillingRoll(billingRepo, gateway, log);
  const billingWebhooks = new GatewayWebhooks(billingRepo, gateway);
  const organizations = new OrganizationsService(new OrganizationsRepo(db.orm));
  const access = new AccessService(accessRepo, (message) => publish(db.pool, message));
  const members = new MembersService(
    new MembersRepo(db.orm),
    entitlements,
    mail,
    config.PUBLIC_URL,
    log,
    (message) => publish(db.pool, message),
  );
  const admin = new AdminService(
    instanceOperators,
    new AdminRepo(db.orm, config.OPERATOR_EMAILS),
    new AdminUsageRepo(db.orm),
    members,
  );
  const auditRepo = new AuditRepo(db.orm);
  const audit = new AuditService(auditRepo);
  const financeSettingsRepo = new FinanceSettingsRepo(db.orm);
  const financeSettings = new FinanceSettingsService(financeSettingsRepo, entitlements);
  const financeAlerts = new FinanceAlertsService(
    new FinanceAlertsRepo(db.orm),
    financeSettingsRepo,
    cloudAccountsRepo,
    financeActuals,
    entitlements,
    (notice) => alerts.bell(notice),
    mail,
    enqueueFinanceEvaluation(boss),
    config.PUBLIC_URL,
    log,
  );
  const financeDigest = new FinanceDigest(financeSettingsRepo, auditRepo, mail, config.PUBLIC_URL, log);
  const dashboard = new DashboardService(new DashboardRepo(db.orm));
  const costs = new CostsService(cloudAccountsRepo);
  const encodingRepo = new EncodingRepo(db.orm);
  const encoding = new EncodingService(
    encodingRepo,
    cloudAccountsRepo,
    stores,
    entitlements,
    enqueueEncoding(boss),
    (message) => publish(db.pool, message),
  );
  const encodingRunner = new EncodingRunner(
    encodingRepo,
    cloudAccountsRepo,
    stores,
    entitlements,
    (row) => encoding.publishJob(row),
    log,
    { pollMs: 500 },
    searchIndex,
  );
  const encodingSweep = (now?: Date) =>
    sweepLostJobs(lostEncodingJobs(encodingRepo, encodingRunner, boss, enqueueEncoding(boss)), now);
  const hybrikRepo = new HybrikRepo(db.orm);
  const hybrik = new HybrikService(
    hybrikRepo,
    cloudAccountsRepo,
    stores,
    entitlements,
    enqueueHybrikJob(boss),
  );
  const hybrikRunner = new HybrikRunner(hybrikRepo, cloudAccountsRepo, stores, log, { pollMs: 500 });
  const hybrikSweep = (now?: Date) =>
    sweepLostJobs(lostHybrikJobs(hybrikRepo, boss, enqueueHybrikJob(boss)), now);
  const c2c = new C2cService(transfers, new C2cRepo(db.orm));
  const sync = new SyncService(
    new SyncJobsRepo(db.orm),
    cloudAccountsRepo,
    transfersRepo,
    stores,
    syncCycles,
    log,
  );
  return {
    metrics,
    lifecycle,
    transfers,
    transfersRepo,
    transferJobsPerOrganization: config.TRANSFER_BATCHES_PER_ORG * config.TRANSFER_JOBS_PER_BATCH,
    syncCycles,
    sync,
    transferExecutor,
    transferCopier,
    transferRetention: new TransferRetention(
      new TransferRetentionRepo(db.pool),
      config.TRANSFER_ITEMS_RETENTION_DAYS,
    ),
    auth,
    apiKeys,
    agent,
    agentPackages,
    uploads,
    bucketConfig,
    organizations,
    members,
    admin,
    audit,
    financeAlerts,
    financeSettings,
    financeDigest,
    access,
    dashboard,
    costs,
    encoding,
    encodingRunner,
    encodingSweep,
    hybrik,
    hybrikRunner,
    hybrikSweep,
    c2c,
    objects,
    media,
    mediaRepo,
    mail,
    sharing,
    alerts,
    alertsRepo,
    identity,
    identityRepo,
    sso,
    billingRepo,
    entitlements,
    billing,
    billingRequests,
    billingRoll,
    billingWebhooks,
    stores,
    cloudAccounts,
    cloudAccountsRepo,
    analytics,
    analyticsRepo,
    analyticsCosts,
    financeActuals,
    budgets,
    analyticsIngest,
    analyticsResources,
    buckets,
    inventory,
    searchIndex,
    search,
  };
}

export type Services = ReturnType<typeof buildServices>;
