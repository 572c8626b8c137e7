// The services of the roles that serve HTTP (web, start), built once per process: the worker's own
// (worker-services.ts: repositories, the transfer engine, the sync cycles, what the job handlers use) and the web's
// on top of them, sharing their instances. Kept apart from app.ts so that tests and tools can build them without
// Fastify; the worker role imports worker-services.ts alone.
import path from 'node:path';
import type { PgBoss } from 'pg-boss';
import { enqueueFinanceEvaluation } from './modules/finance/finance.jobs.ts';
import { MAIL_LIMIT, SIGN_IN_BACKOFF, SSO_START_LIMIT, messages } from '@cumulo/contract';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Logger } from './logger.ts';
import { AuthService } from './http/auth.ts';
import { publish } from './realtime/events.ts';
import { IdentityService } from './modules/identity/identity.service.ts';
import { AddressLimiter, MailLimiter, SignInLimiter } from './modules/identity/sign-in-limiter.ts';
import { ApiKeysRepo } from './modules/api-keys/api-keys.repo.ts';
import { ApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { AgentService, PairingLimiter } from './modules/agent/agent.service.ts';
import { AgentPackages } from './modules/agent/agent-package.ts';
import { serverRoot } from './runtime/paths.ts';
import { deriveKey } from './crypto/keys.ts';
import { buildWorkerServices, type ServiceDeps } from './worker-services.ts';
import { SsoService, type SsoOptions } from './modules/identity/sso.service.ts';
import { CloudAccountsService } from './modules/cloud-accounts/cloud-accounts.service.ts';
import { SearchService } from './modules/search/search.service.ts';
import {
  RECOUNT_AFTER_CHANGE_SECONDS,
  enqueueInventory,
} from './modules/cloud-accounts/cloud-accounts.jobs.ts';
import { AnalyticsService } from './modules/analytics/analytics.service.ts';
import { AnalyticsCostsService } from './modules/analytics/analytics-costs.service.ts';
import { enqueueIngest } from './modules/analytics/analytics.jobs.ts';
import { BudgetsRepo } from './modules/finance/budgets.repo.ts';
import { BudgetsService } from './modules/finance/budgets.service.ts';
import { ResourcesRepo } from './modules/analytics/resources.repo.ts';
import { ResourcesService } from './modules/analytics/resources.service.ts';
import { awsResourceApis } from './modules/analytics/resource-api.ts';
import { BucketsService } from './modules/cloud-accounts/buckets.service.ts';
import { WasabiPartnerClient } from './modules/cloud-accounts/wasabi-partner.ts';
import { recordAudit } from './modules/audit/audit.writer.ts';
import { BucketConfigService } from './modules/uploads/bucket-config.service.ts';
import { ObjectsService } from './modules/objects/objects.service.ts';
import { MediaRepo } from './modules/media/media.repo.ts';
import { MediaService } from './modules/media/media.service.ts';
import { Ffprobe } from './modules/media/ffprobe.ts';
import { PlaybackTokens } from './modules/media/playback-token.ts';
import { SharingRepo } from './modules/sharing/sharing.repo.ts';
import { SharingService } from './modules/sharing/sharing.service.ts';
import { ShareAccessLimiter } from './modules/sharing/share-access-limiter.ts';
import { OrganizationsRepo } from './modules/organizations/organizations.repo.ts';
import { OrganizationsService } from './modules/organizations/organizations.service.ts';
import { MembersRepo } from './modules/members/members.repo.ts';
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
import { HybrikService } from './modules/hybrik/hybrik.service.ts';
import { enqueueHybrikJob } from './modules/hybrik/hybrik.jobs.ts';
import { C2cRepo } from './modules/transfers/c2c.repo.ts';
import { C2cService } from './modules/transfers/c2c.service.ts';
import { SyncJobsRepo } from './modules/sync/sync-jobs.repo.ts';
import { SyncService } from './modules/sync/sync.service.ts';
import { BillingService } from './modules/billing/billing.service.ts';
import { BillingRequests } from './modules/billing/billing-requests.service.ts';
import { GatewayWebhooks } from './modules/billing/billing-webhooks.service.ts';
import { buildGateway } from './modules/billing/gateways/build-gateway.ts';
import { FinanceSettingsService } from './modules/finance/finance-settings.service.ts';

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

/** The services of the roles that serve HTTP: the worker's (worker-services.ts) and the web's on top of them. */
export function buildServices(deps: ServiceDeps) {
  const { config, db, log, masterKey, boss } = deps;
  const worker = buildWorkerServices(deps);
  const { entitlements, billingRepo, cloudAccountsRepo, secrets, outbound, stores, agentRepo, mail } = worker;
  const { identityRepo, analyticsRepo, analyticsCostsRepo, financeActuals, searchRepo, searchIndex } = worker;
  const { alerts, transfers, transfersRepo, syncCycles, financeSettingsRepo, auditRepo } = worker;
  const gateway = buildGateway(config);
  // Keys are checked by the auth hook, so they are built before it; their failed tries have counters of their own.
  const apiKeys = new ApiKeysService(
    new ApiKeysRepo(db.orm),
    new SignInLimiter(db.pool, SIGN_IN_BACKOFF, 'apikey-'),
    deriveKey(masterKey, 'api-key-secrets'),
  );
  const accessRepo = new AccessRepo(db.orm);
  // Device tokens of the transfer agents are checked by the auth hook too.
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
  const auth = new AuthService(masterKey, config.JWT_TTL_SECONDS, accessRepo, apiKeys, agent);
  const instanceOperators = new InstanceOperatorsRepo(db.orm, config.OPERATOR_EMAILS);
  const identity = new IdentityService(
    identityRepo,
    auth,
    new SignInLimiter(db.pool),
    new MailLimiter(db.pool, { ...MAIL_LIMIT, perIp: config.MAIL_LIMIT_PER_IP }),
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
  const analyticsCosts = new AnalyticsCostsService(analyticsCostsRepo, cloudAccountsRepo, entitlements);
  const budgets = new BudgetsService(
    new BudgetsRepo(db.orm),
    cloudAccountsRepo,
    financeActuals,
    entitlements,
    enqueueFinanceEvaluation(boss),
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
  const search = new SearchService(searchRepo, entitlements);
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
  const recountSoon = enqueueInventory(boss, { delaySeconds: RECOUNT_AFTER_CHANGE_SECONDS });
  const objects = new ObjectsService(
    cloudAccountsRepo,
    stores,
    log,
    (actor, event) => recordAudit(db.orm, actor, event),
    // A deleted object leaves its custom metadata, its kept probe and the media-search index; its bucket is
    // counted again shortly, so the dashboard's sizes follow (uploads do the same, worker-services.ts).
    async (account, bucket, keys) => {
      await mediaRepo.forgetObjects(account.organizationId, account.id, bucket, keys);
      await searchIndex.removeObjects(account.organizationId, account.id, bucket, keys);
      await recountSoon({ organizationId: account.organizationId, accountId: account.id, bucket }).catch(
        (error: unknown) =>
          log.warn({ err: error, bucket }, 'bucket recount after a delete could not be queued'),
      );
    },
  );
  const bucketConfig = new BucketConfigService(cloudAccountsRepo, stores, log);
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
  const audit = new AuditService(auditRepo);
  const financeSettings = new FinanceSettingsService(financeSettingsRepo, entitlements);
  const dashboard = new DashboardService(new DashboardRepo(db.orm));
  const costs = new CostsService(cloudAccountsRepo);
  const hybrik = new HybrikService(
    worker.hybrikRepo,
    cloudAccountsRepo,
    stores,
    entitlements,
    enqueueHybrikJob(boss),
  );
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
    ...worker,
    sync,
    auth,
    apiKeys,
    agent,
    agentPackages,
    bucketConfig,
    organizations,
    members,
    admin,
    audit,
    financeSettings,
    access,
    dashboard,
    costs,
    hybrik,
    c2c,
    objects,
    media,
    mediaRepo,
    sharing,
    identity,
    sso,
    billing,
    billingRequests,
    billingWebhooks,
    cloudAccounts,
    analytics,
    analyticsCosts,
    budgets,
    analyticsResources,
    buckets,
    search,
  };
}

export type Services = ReturnType<typeof buildServices>;
