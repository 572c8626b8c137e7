import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { PgBoss } from 'pg-boss';
import { messages } from '@cumulo/contract';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Logger } from './logger.ts';
import { AuthService } from './http/auth.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { watchSlowRequests } from './http/slow-requests.ts';
import { SecretBox } from './crypto/keys.ts';
import { MailService } from './mail/mail.service.ts';
import { RealtimeHub } from './realtime/hub.ts';
import { publish } from './realtime/events.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { IdentityRepo } from './modules/identity/identity.repo.ts';
import { IdentityService } from './modules/identity/identity.service.ts';
import { identityRoutes } from './modules/identity/identity.routes.ts';
import { MailLimiter, SignInLimiter } from './modules/identity/sign-in-limiter.ts';
import { CloudAccountsRepo } from './modules/cloud-accounts/cloud-accounts.repo.ts';
import { CloudAccountsService } from './modules/cloud-accounts/cloud-accounts.service.ts';
import { cloudAccountsRoutes } from './modules/cloud-accounts/cloud-accounts.routes.ts';
import { StoreRegistry } from './modules/cloud-accounts/store-registry.ts';
import { BucketInventory } from './modules/cloud-accounts/bucket-inventory.ts';
import { enqueueInventory } from './modules/cloud-accounts/cloud-accounts.jobs.ts';
import { BucketsService } from './modules/cloud-accounts/buckets.service.ts';
import { WasabiPartnerClient } from './modules/cloud-accounts/wasabi-partner.ts';
import { AlertsRepo } from './modules/alerts/alerts.repo.ts';
import { AlertsService } from './modules/alerts/alerts.service.ts';
import { alertsRoutes } from './modules/alerts/alerts.routes.ts';
import { UploadsRepo } from './modules/uploads/uploads.repo.ts';
import { UploadsService } from './modules/uploads/uploads.service.ts';
import { BucketConfigService } from './modules/uploads/bucket-config.service.ts';
import { uploadsRoutes } from './modules/uploads/uploads.routes.ts';
import { ObjectsService } from './modules/objects/objects.service.ts';
import { objectsRoutes } from './modules/objects/objects.routes.ts';
import { SharingRepo } from './modules/sharing/sharing.repo.ts';
import { SharingService } from './modules/sharing/sharing.service.ts';
import { sharingRoutes } from './modules/sharing/sharing.routes.ts';
import { ShareAccessLimiter } from './modules/sharing/share-access-limiter.ts';
import { TransfersRepo } from './modules/transfers/transfers.repo.ts';
import { TransfersService } from './modules/transfers/transfers.service.ts';
import { transfersRoutes } from './modules/transfers/transfers.routes.ts';
import { enqueueTransferBatch } from './modules/transfers/transfers.jobs.ts';
import { TransferExecutor } from './modules/transfers/engine/executor.ts';
import { TransferProgress } from './modules/transfers/engine/progress.ts';
import { abandonCopy, copyObject } from './modules/transfers/engine/object-copier.ts';
import { OrganizationsRepo } from './modules/organizations/organizations.repo.ts';
import { OrganizationsService } from './modules/organizations/organizations.service.ts';
import { organizationsRoutes } from './modules/organizations/organizations.routes.ts';
import { CostsService } from './modules/transfers/costs.service.ts';
import { costsRoutes } from './modules/transfers/costs.routes.ts';
import { C2cRepo } from './modules/transfers/c2c.repo.ts';
import { C2cService } from './modules/transfers/c2c.service.ts';
import { c2cRoutes } from './modules/transfers/c2c.routes.ts';
import { SyncCyclesRepo } from './modules/sync/sync-cycles.repo.ts';
import { SyncCycleService } from './modules/sync/sync-cycles.service.ts';
import { SyncJobsRepo } from './modules/sync/sync-jobs.repo.ts';
import { SyncService } from './modules/sync/sync.service.ts';
import { syncRoutes } from './modules/sync/sync.routes.ts';

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

/** The services every role shares, built once per process. */
export function buildServices(deps: Pick<AppDeps, 'config' | 'db' | 'log' | 'masterKey' | 'boss'>) {
  const { config, db, log, masterKey, boss } = deps;
  const auth = new AuthService(masterKey, db.orm, config.JWT_TTL_SECONDS);
  const mail = new MailService(
    { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR },
    log,
  );
  const identityRepo = new IdentityRepo(db.orm);
  const secrets = new SecretBox(masterKey);
  const identity = new IdentityService(
    identityRepo,
    auth,
    new SignInLimiter(db.pool),
    new MailLimiter(db.pool),
    mail,
    secrets,
    config.PUBLIC_URL,
    log,
    (message) => publish(db.pool, message),
  );
  const stores = new StoreRegistry(secrets);
  const cloudAccountsRepo = new CloudAccountsRepo(db.orm);
  const cloudAccounts = new CloudAccountsService(
    cloudAccountsRepo,
    stores,
    secrets,
    config.PROVIDER_ENDPOINTS,
    async (principal) => (await identity.profile(principal)).userType,
    enqueueInventory(boss),
    log,
    new WasabiPartnerClient(config.WASABI_PARTNER_URL, config.WASABI_PARTNER_API_KEY),
  );
  const buckets = new BucketsService(cloudAccountsRepo, stores, enqueueInventory(boss), log);
  const inventory = new BucketInventory(
    cloudAccountsRepo,
    stores,
    (message) => publish(db.pool, message),
    log,
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
  );
  const objects = new ObjectsService(cloudAccountsRepo, stores, log);
  const uploads = new UploadsService(new UploadsRepo(db.orm), cloudAccountsRepo, stores, secrets, log);
  const bucketConfig = new BucketConfigService(cloudAccountsRepo, stores, log);
  const transfersRepo = new TransfersRepo(db.orm, db.pool, db.locks);
  const transfers = new TransfersService(
    transfersRepo,
    cloudAccountsRepo,
    stores,
    enqueueTransferBatch(boss, config.TRANSFER_JOBS_PER_BATCH),
    (message) => publish(db.pool, message),
    log,
  );
  const transferCopier = {
    copyObject: (task: Parameters<typeof copyObject>[0]) => copyObject(task),
    abandonCopy,
  };
  const syncCycles = new SyncCycleService({
    repo: new SyncCyclesRepo(db.orm, db.pool, db.locks),
    accounts: cloudAccountsRepo,
    stores,
    alertsRepo,
    mail,
    boss,
    publish: (message) => publish(db.pool, message),
    enqueueBatch: enqueueTransferBatch(boss, config.TRANSFER_JOBS_PER_BATCH),
    publishBatch: (batchId) => transfers.publishBatch(batchId),
    publicUrl: config.PUBLIC_URL,
    log,
  });
  const transferExecutor = new TransferExecutor(
    transfersRepo,
    cloudAccountsRepo,
    stores,
    new TransferProgress(transfersRepo, (message) => publish(db.pool, message), log),
    // A finished batch of a sync cycle moves its cycle on (the sync sweep catches what this misses).
    async (batchId) => {
      await transfers.publishBatch(batchId);
      await syncCycles.onBatchFinished(batchId);
    },
    transferCopier,
    {
      leaseSeconds: config.TRANSFER_LEASE_SECONDS,
      objectConcurrency: config.TRANSFER_OBJECT_CONCURRENCY,
      jobsPerBatch: config.TRANSFER_JOBS_PER_BATCH,
      claimChunk: 32,
      attempts: 3,
    },
    log,
  );
  const organizations = new OrganizationsService(new OrganizationsRepo(db.orm));
  const costs = new CostsService(cloudAccountsRepo);
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
    transfers,
    transfersRepo,
    syncCycles,
    sync,
    transferExecutor,
    transferCopier,
    auth,
    uploads,
    bucketConfig,
    organizations,
    costs,
    c2c,
    objects,
    mail,
    sharing,
    alerts,
    alertsRepo,
    identity,
    identityRepo,
    stores,
    cloudAccounts,
    cloudAccountsRepo,
    buckets,
    inventory,
  };
}

export type Services = ReturnType<typeof buildServices>;

/** Builds the Fastify instance of the web role (used by main.ts and by the integration tests). */
export async function buildApp(deps: AppDeps, services: Services = buildServices(deps)) {
  const { config } = deps;
  const base = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
  });
  registerErrorHandler(base);
  watchSlowRequests(base, deps.db.pool, deps.log);
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // antd writes its CSS-in-JS styles inline.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        // Direct uploads PUT the file's parts from the browser straight to the store (S3 presigned URLs, Azure
        // SAS, GCS sessions): every https store, plus the endpoints PROVIDER_ENDPOINTS points at (plain http in
        // tests and private deployments).
        connectSrc: ["'self'", 'ws:', 'wss:', 'https:', ...providerOrigins(config.PROVIDER_ENDPOINTS)],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Cumulo API',
        version: '0.1.0',
        description: 'Every call of the product specification.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });

  const hub = new RealtimeHub(deps.databaseUrl, services.auth, deps.log);
  await hub.start();
  hub.register(app);
  app.addHook('onClose', async () => {
    await hub.stop();
    await services.stores.closeAll();
  });

  await app.register(
    async (api) => {
      await api.register(healthRoutes(deps.db.pool, deps.boss));
      await api.register(identityRoutes(services.identity, services.auth));
      await api.register(cloudAccountsRoutes(services.cloudAccounts, services.buckets, services.auth));
      await api.register(alertsRoutes(services.alerts, services.auth));
      await api.register(
        uploadsRoutes(
          services.uploads,
          services.bucketConfig,
          services.auth,
          new URL(config.PUBLIC_URL).origin,
        ),
      );
      await api.register(objectsRoutes(services.objects, services.auth));
      await api.register(sharingRoutes(services.sharing, services.auth));
      await api.register(transfersRoutes(services.transfers, services.auth));
      await api.register(organizationsRoutes(services.organizations, services.auth));
      await api.register(costsRoutes(services.costs, services.auth));
      await api.register(c2cRoutes(services.c2c, services.auth));
      await api.register(syncRoutes(services.sync, services.auth));
    },
    { prefix: '/api' },
  );

  serveWebApp(base, deps.webDist);
  return { app: base, hub, services };
}

/** The origins of the configured provider endpoint overrides, for the CSP's connect-src. */
function providerOrigins(endpoints: Config['PROVIDER_ENDPOINTS']): string[] {
  return [...new Set(Object.values(endpoints).map((endpoint) => new URL(endpoint).origin))];
}

/**
 * Serves the built SPA when there is one; unknown non-API GETs of client routes get index.html so deep links
 * load. Everything else unknown answers the JSON 404.
 */
function serveWebApp(app: FastifyInstance, webDist: string | null) {
  const indexHtml = webDist ? path.join(webDist, 'index.html') : null;
  const hasWebApp = indexHtml !== null && fs.existsSync(indexHtml);
  if (hasWebApp && webDist) {
    void app.register(fastifyStatic, { root: webDist, wildcard: false, index: false, maxAge: '1h' });
  }
  app.setNotFoundHandler((request, reply) => {
    const isApi = request.url.startsWith('/api/') || request.url === '/api';
    // Client routes (no file extension) get the app; a missing asset file stays a 404.
    const isClientRoute = !/\.[a-z0-9]+$/i.test(request.url.split('?')[0] ?? '');
    if (hasWebApp && indexHtml && request.method === 'GET' && !isApi && isClientRoute) {
      return reply.header('cache-control', 'no-cache').type('text/html').send(fs.createReadStream(indexHtml));
    }
    return reply.status(404).send({ message: messages.notFound });
  });
}
