// What the worker role builds: the services its job handlers (jobs/register.ts) and its start-up and drain
// (main.ts) use, and nothing else. services.ts builds the web's services on top of these, so every role shares one
// instance of each. Kept apart so that `node main.js worker` loads none of the identity, sign-in, billing-screen,
// resource-discovery or HTTP modules (bench/worker-idle measures it: goal ≤ 80 MB before the first copy).
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Logger } from './logger.ts';
import { SecretBox } from './crypto/keys.ts';
import { MailService } from './mail/mail.service.ts';
import { publish } from './realtime/events.ts';
import { IdentityRepo } from './modules/identity/identity.repo.ts';
import { AgentRepo } from './modules/agent/agent.repo.ts';
import { CloudAccountsRepo } from './modules/cloud-accounts/cloud-accounts.repo.ts';
import { StoreRegistry, guardedConnect } from './modules/cloud-accounts/store-registry.ts';
import { OutboundPolicy, parseAllowList } from './net/outbound-policy.ts';
import { BucketInventory } from './modules/cloud-accounts/bucket-inventory.ts';
import {
  RECOUNT_AFTER_CHANGE_SECONDS,
  enqueueInventory,
} from './modules/cloud-accounts/cloud-accounts.jobs.ts';
import { SearchIndex } from './modules/search/search-index.ts';
import { SearchRepo } from './modules/search/search.repo.ts';
import { AnalyticsRepo } from './modules/analytics/analytics.repo.ts';
import { AnalyticsCostsRepo } from './modules/analytics/analytics-costs.repo.ts';
import { ResourcesRepo } from './modules/analytics/resources.repo.ts';
import { FinanceActuals } from './modules/finance/actuals.ts';
import { IngestRun } from './modules/analytics/ingest/ingest-run.ts';
import { createIngestEngine } from './modules/analytics/ingest/engine.ts';
import { AlertsRepo } from './modules/alerts/alerts.repo.ts';
import { AlertsService } from './modules/alerts/alerts.service.ts';
import { UploadsRepo } from './modules/uploads/uploads.repo.ts';
import { UploadsService } from './modules/uploads/uploads.service.ts';
import { TransfersRepo } from './modules/transfers/transfers.repo.ts';
import { TransferQueueRepo } from './modules/transfers/transfer-queue.repo.ts';
import { TransferPlanningRepo } from './modules/transfers/transfer-planning.repo.ts';
import { TransferRetentionRepo } from './modules/transfers/transfer-retention.repo.ts';
import { TransferRetention } from './modules/transfers/transfer-retention.service.ts';
import { TransfersService } from './modules/transfers/transfers.service.ts';
import { enqueueTransferBatch } from './modules/transfers/transfers.jobs.ts';
import { TransferExecutor } from './modules/transfers/engine/executor.ts';
import { TransferQuota } from './modules/transfers/transfer-quota.ts';
import { TransferProgress } from './modules/transfers/engine/progress.ts';
import { ObjectCopier } from './modules/transfers/engine/object-copier.ts';
import { MemoryBudget } from './modules/transfers/engine/memory-budget.ts';
import { ThrottleGates } from './modules/transfers/engine/throttle.ts';
import { AuditRepo } from './modules/audit/audit.repo.ts';
import { EncodingRepo } from './modules/encoding/encoding.repo.ts';
import { EncodingService } from './modules/encoding/encoding.service.ts';
import { EncodingRunner } from './modules/encoding/encoding-runner.ts';
import { enqueueEncoding, lostEncodingJobs } from './modules/encoding/encoding.jobs.ts';
import { sweepLostJobs } from './jobs/lost-jobs.ts';
import { HybrikRepo } from './modules/hybrik/hybrik.repo.ts';
import { HybrikRunner } from './modules/hybrik/hybrik-runner.ts';
import { enqueueHybrikJob, lostHybrikJobs } from './modules/hybrik/hybrik.jobs.ts';
import { SyncCyclesRepo } from './modules/sync/sync-cycles.repo.ts';
import { SyncCycleService } from './modules/sync/sync-cycles.service.ts';
import { BillingRepo } from './modules/billing/billing.repo.ts';
import { EntitlementsService } from './modules/billing/entitlements.service.ts';
import { BillingRoll } from './modules/billing/billing-roll.service.ts';
import { buildUsageGateway } from './modules/billing/gateways/usage-gateway.ts';
import { FinanceAlertsRepo } from './modules/finance/finance-alerts.repo.ts';
import { FinanceAlertsService } from './modules/finance/finance-alerts.service.ts';
import { FinanceSettingsRepo } from './modules/finance/finance-settings.repo.ts';
import { FinanceDigest } from './modules/finance/finance-digest.ts';
import { enqueueFinanceEvaluation } from './modules/finance/finance.jobs.ts';
import { Metrics } from './modules/metrics/metrics.ts';
import { QueueStatsRepo } from './modules/metrics/queue-stats.repo.ts';
import { Lifecycle } from './runtime/lifecycle.ts';

export interface ServiceDeps {
  config: Config;
  db: Db;
  boss: PgBoss;
  log: Logger;
  masterKey: Buffer;
}

/** The services of the job handlers, built once per process (the worker role; services.ts for the others). */
export function buildWorkerServices(deps: ServiceDeps) {
  const { config, db, log, masterKey, boss } = deps;
  // One registry per process (GET /metrics, and a worker's METRICS_PORT); the queue gauges read the database.
  const queueStats = new QueueStatsRepo(db.orm);
  const metrics = new Metrics(() => queueStats.queueStats());
  const lifecycle = new Lifecycle();
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
  // Device tokens of the transfer agents are checked by the auth hook (services.ts); an upload asks it too.
  const agentRepo = new AgentRepo(db.orm);
  const mail = new MailService(
    { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR },
    log,
  );
  const identityRepo = new IdentityRepo(db.orm);
  const analyticsRepo = new AnalyticsRepo(db.orm);
  const analyticsCostsRepo = new AnalyticsCostsRepo(db.orm);
  const financeActuals = new FinanceActuals(analyticsCostsRepo);
  const analyticsIngest = new IngestRun(
    analyticsRepo,
    cloudAccountsRepo,
    stores,
    createIngestEngine({ threads: config.ANALYTICS_READ_THREADS }),
    log,
    (state) => metrics.ingestRuns.inc({ outcome: state }),
  );
  const searchRepo = new SearchRepo(db.orm);
  const searchIndex = new SearchIndex(searchRepo, log);
  const inventory = new BucketInventory(
    cloudAccountsRepo,
    stores,
    (message) => publish(db.pool, message),
    log,
    searchIndex,
  );
  const alertsRepo = new AlertsRepo(db.orm);
  const billedMonthsRepo = new ResourcesRepo(db.orm);
  const alerts = new AlertsService(
    alertsRepo,
    cloudAccountsRepo,
    mail,
    (message) => publish(db.pool, message),
    config.PUBLIC_URL,
    log,
    // An account's cost alert compares the billed month the account list shows, once reports are ingested.
    (organizationId) => billedMonthsRepo.newestBilledMonths(organizationId),
  );
  const uploads = new UploadsService(
    new UploadsRepo(db.orm),
    cloudAccountsRepo,
    stores,
    secrets,
    log,
    entitlements,
    searchIndex,
    (organizationId) => agentRepo.ftxConfirmed(organizationId),
    // A completed upload's bucket is counted again shortly, so the dashboard's sizes follow.
    enqueueInventory(boss, { delaySeconds: RECOUNT_AFTER_CHANGE_SECONDS }),
  );
  const transfersRepo = new TransfersRepo(db.orm, db.locks);
  const transferQueueRepo = new TransferQueueRepo(db.orm);
  const transferPlanningRepo = new TransferPlanningRepo(db.orm, db.locks);
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
  // The process-wide pools every copy of this process shares: its copy buffers and each destination's backoff.
  const transferCopier = new ObjectCopier({
    memory: new MemoryBudget(config.TRANSFER_MEMORY_MB * 1024 * 1024),
    gates: new ThrottleGates(),
    streamParts: config.TRANSFER_STREAM_PARTS,
  });
  const syncCyclesRepo = new SyncCyclesRepo(db.orm, db.locks);
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
    transferQueueRepo,
    transferPlanningRepo,
    cloudAccountsRepo,
    stores,
    new TransferProgress(transfersRepo, transferQueueRepo, (message) => publish(db.pool, message), log),
    { publishBatch: (batchId) => transfers.publishBatch(batchId), onBatchFinished },
    transferCopier,
    {
      leaseSeconds: config.TRANSFER_LEASE_SECONDS,
      objectConcurrency: config.TRANSFER_OBJECT_CONCURRENCY,
      jobsPerBatch: config.TRANSFER_JOBS_PER_BATCH,
      outageSeconds: config.TRANSFER_OUTAGE_SECONDS,
      yieldTo: (organizationId, jobId) =>
        transferQueueRepo.anotherOrganizationWaits(
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
  const billingRoll = new BillingRoll(billingRepo, buildUsageGateway(config), log);
  const auditRepo = new AuditRepo(db.orm);
  const financeSettingsRepo = new FinanceSettingsRepo(db.orm);
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
  const hybrikRunner = new HybrikRunner(hybrikRepo, cloudAccountsRepo, stores, log, { pollMs: 500 });
  const hybrikSweep = (now?: Date) =>
    sweepLostJobs(lostHybrikJobs(hybrikRepo, boss, enqueueHybrikJob(boss)), now);
  return {
    metrics,
    lifecycle,
    secrets,
    outbound,
    agentRepo,
    transfers,
    transfersRepo,
    transferQueueRepo,
    transferPlanningRepo,
    transferQuota,
    transferJobsPerOrganization: config.TRANSFER_BATCHES_PER_ORG * config.TRANSFER_JOBS_PER_BATCH,
    syncCycles,
    transferExecutor,
    transferCopier,
    transferRetention: new TransferRetention(
      new TransferRetentionRepo(db.pool),
      config.TRANSFER_ITEMS_RETENTION_DAYS,
    ),
    uploads,
    financeAlerts,
    financeDigest,
    financeSettingsRepo,
    financeActuals,
    analyticsCostsRepo,
    auditRepo,
    encoding,
    encodingRepo,
    encodingRunner,
    encodingSweep,
    hybrikRepo,
    hybrikRunner,
    hybrikSweep,
    mail,
    alerts,
    alertsRepo,
    identityRepo,
    billingRepo,
    entitlements,
    billingRoll,
    stores,
    cloudAccountsRepo,
    analyticsRepo,
    analyticsIngest,
    inventory,
    searchRepo,
    searchIndex,
  };
}

export type WorkerServices = ReturnType<typeof buildWorkerServices>;
