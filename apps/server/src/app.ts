import fs from 'node:fs';
import path from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
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
import { AGENT_URL_SCHEME, messages } from '@cumulo/contract';
import type { Config } from './config.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { watchSlowRequests } from './http/slow-requests.ts';
import { carryRequestId, requestIdOf } from './http/request-id.ts';
import { metricsRoutes, observeRequests } from './modules/metrics/metrics.routes.ts';
import { RealtimeHub } from './realtime/hub.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { identityRoutes } from './modules/identity/identity.routes.ts';
import { membersRoutes } from './modules/members/members.routes.ts';
import { adminRoutes } from './modules/admin/admin.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { accessRoutes } from './modules/access/access.routes.ts';
import { ssoRoutes } from './modules/identity/sso.routes.ts';
import { cloudAccountsRoutes } from './modules/cloud-accounts/cloud-accounts.routes.ts';
import { alertsRoutes } from './modules/alerts/alerts.routes.ts';
import { uploadsRoutes } from './modules/uploads/uploads.routes.ts';
import { objectsRoutes } from './modules/objects/objects.routes.ts';
import { mediaRoutes } from './modules/media/media.routes.ts';
import { sharingRoutes } from './modules/sharing/sharing.routes.ts';
import { transfersRoutes } from './modules/transfers/transfers.routes.ts';
import { organizationsRoutes } from './modules/organizations/organizations.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { agentRoutes } from './modules/agent/agent.routes.ts';
import { costsRoutes } from './modules/transfers/costs.routes.ts';
import { analyticsRoutes } from './modules/analytics/analytics.routes.ts';
import { analyticsResourcesRoutes } from './modules/analytics/resources.routes.ts';
import { budgetsRoutes } from './modules/finance/budgets.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { c2cRoutes } from './modules/transfers/c2c.routes.ts';
import { encodingRoutes } from './modules/encoding/encoding.routes.ts';
import { hybrikRoutes } from './modules/hybrik/hybrik.routes.ts';
import { syncRoutes } from './modules/sync/sync.routes.ts';
import { billingRoutes } from './modules/billing/billing.routes.ts';
import { financeAlertsRoutes } from './modules/finance/finance-alerts.routes.ts';
import { buildServices, type AppDeps, type Services } from './services.ts';

export type { AppDeps, Services };

/** Builds the Fastify instance of the web role (used by main.ts and by the integration tests). */
export async function buildApp(deps: AppDeps, services: Services = buildServices(deps)) {
  const { config } = deps;
  const base = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // The caller's X-Request-Id when sane, else a UUID; logged as `requestId`, as job lines name it (README
    // "Operations").
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
  });
  registerErrorHandler(base);
  watchSlowRequests(base, deps.db.pool, deps.log);
  carryRequestId(base);
  observeRequests(base, services.metrics);
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
        // The ftX pages also call the user's own transfer agent on 127.0.0.1 (apps/agent; its port is the user's).
        connectSrc: [
          "'self'",
          'ws:',
          'wss:',
          'https:',
          'http://127.0.0.1:*',
          ...providerOrigins(config.PROVIDER_ENDPOINTS),
        ],
        // "Launch" opens the agent's cumulo-agent:// link in a hidden frame, so the page stays where it is.
        frameSrc: ["'self'", `${AGENT_URL_SCHEME}:`],
        // The floating player plays a signed GET of the store (<video src>), or HLS through hls.js, which feeds
        // the video a blob: MediaSource and fetches segments under connect-src; its transmuxer is a blob: worker.
        mediaSrc: ["'self'", 'blob:', 'https:', ...providerOrigins(config.PROVIDER_ENDPOINTS)],
        workerSrc: ["'self'", 'blob:'],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 }, preClose: closeSockets });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Cumulo API',
        version: '0.1.0',
        description: [
          'Every call of the product specification.',
          '',
          'A call authenticates with a sign-in session (`Authorization: Bearer <jwtToken>` from',
          '`POST /api/authentication/Login`) or with an API key made on the Access keys page (/security-credentials):',
          'HTTP Basic with the access key as user name and the secret key as password. The key acts as the member',
          'who created it, with their organisation and role; managing keys, the password and MFA needs a session.',
          'Listing the buckets of a cloud account with a key:',
          '',
          '```',
          'curl -u "$ACCESS_KEY:$SECRET_KEY" -H \'content-type: application/json\' \\',
          '  -d \'{"id":"<cloud account id>"}\' https://<host>/api/cloudaccount/list_buckets',
          '```',
        ].join('\n'),
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: {
            type: 'http',
            scheme: 'basic',
            description: 'An API key: the access key as user name, the secret key as password (`curl -u`).',
          },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
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
      await api.register(healthRoutes(deps.db.pool, deps.boss, services.lifecycle));
      await api.register(identityRoutes(services.identity, services.auth));
      await api.register(membersRoutes(services.members, services.auth));
      await api.register(adminRoutes(services.admin, services.auth));
      await api.register(auditRoutes(services.audit, services.auth));
      await api.register(accessRoutes(services.access, services.auth));
      await api.register(ssoRoutes(services.sso, deps.config.PUBLIC_URL, deps.log));
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
      await api.register(mediaRoutes(services.media, services.auth));
      await api.register(searchRoutes(services.search, services.auth));
      await api.register(sharingRoutes(services.sharing, services.auth));
      await api.register(transfersRoutes(services.transfers, services.auth));
      await api.register(organizationsRoutes(services.organizations, services.auth));
      await api.register(dashboardRoutes(services.dashboard, services.auth));
      await api.register(apiKeysRoutes(services.apiKeys, services.auth));
      await api.register(agentRoutes(services.agent, services.agentPackages, services.auth));
      await api.register(costsRoutes(services.costs, services.auth));
      await api.register(analyticsRoutes(services.analytics, services.analyticsCosts, services.auth));
      await api.register(analyticsResourcesRoutes(services.analyticsResources, services.auth));
      await api.register(budgetsRoutes(services.budgets, services.auth));
      await api.register(c2cRoutes(services.c2c, services.auth));
      await api.register(encodingRoutes(services.encoding, services.auth));
      await api.register(hybrikRoutes(services.hybrik, services.auth));
      await api.register(syncRoutes(services.sync, services.auth));
      await api.register(
        financeAlertsRoutes(services.financeAlerts, services.financeSettings, services.auth),
      );
      await api.register(
        billingRoutes(
          {
            billing: services.billing,
            requests: services.billingRequests,
            webhooks: services.billingWebhooks,
          },
          services.auth,
        ),
      );
    },
    { prefix: '/api' },
  );

  // Prometheus scrapes /metrics at the root, not under /api.
  await base.register(metricsRoutes(services.metrics, config.METRICS_TOKEN));
  serveWebApp(base, deps.webDist);
  return { app: base, hub, services };
}

/** How long a closing /rm client gets to answer the closing handshake before its connection is cut. */
export const SOCKET_CLOSE_MS = 2000;

/**
 * Closes every open WebSocket (the /rm hub) when the server closes, as the plugin's default does, but cuts those
 * that do not answer within SOCKET_CLOSE_MS: `ws` would wait 30 s for each, holding the shutdown (SIGTERM) open.
 */
function closeSockets(this: FastifyInstance, done: () => void) {
  const server = this.websocketServer;
  for (const client of server.clients) {
    client.close(1001, 'server shutting down');
    setTimeout(() => client.terminate(), SOCKET_CLOSE_MS).unref();
  }
  server.close(() => done());
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
