import path from 'node:path';
import { z } from 'zod';
import { EMAIL_PATTERN, MAIL_LIMIT, PROVIDER_NAMES } from '@cumulo/contract';
import {
  DEFAULT_OUTAGE_SECONDS,
  DEFAULT_READ_THREADS,
  DEFAULT_TRANSFER_MEMORY_MB,
  HEAP_GROWING_PERCENT,
} from './config-defaults.ts';
import { parseAllowList } from './net/outbound-policy.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every environment variable Cumulo reads, with its default. README "Configuration" mirrors this list. */
const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_URL: z.url({ message: 'must be an absolute URL such as http://localhost:8080' }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  MASTER_KEY: z
    .string()
    .refine(
      (v) => Buffer.from(v, 'base64').length === 32,
      'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
    )
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Cumulo <no-reply@cumulo.local>'),
  /** Instance operators besides the first account (modules/admin/README.md): comma-separated, any case. */
  OPERATOR_EMAILS: z
    .string()
    .transform((text, ctx) => {
      const emails = text
        .split(',')
        .map((email) => email.trim().toLowerCase())
        .filter(Boolean);
      const bad = emails.find((email) => !EMAIL_PATTERN.test(email));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `not an e-mail address: ${bad}` });
        return z.NEVER;
      }
      return emails;
    })
    .default([]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  JWT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(12 * 60 * 60),
  TRUST_PROXY: bool.default(false),
  /**
   * Sign-up, verification and password mails one client address may ask for in an hour. Raise it where many people
   * share one address: an office behind one NAT onboarding its staff, a test suite signing up from 127.0.0.1.
   */
  MAIL_LIMIT_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(MAIL_LIMIT.perIp),
  WEB_DIST: z.string().optional(),
  /** The transfer agent's package (apps/agent): its build `dist/cumulo-agent.mjs` and `packaging/<platform>/`. */
  AGENT_DIST_DIR: z.string().optional(),
  /**
   * Wasabi's partner (Account Control) API, which creates Wasabi sub-accounts. Without both values the
   * "create" tab of the Wasabi form explains how to enable it.
   */
  WASABI_PARTNER_URL: z.url({ message: 'must be an absolute URL' }).optional(),
  WASABI_PARTNER_API_KEY: z.string().min(8).optional(),
  /** Sign-in with Google (modules/identity README "Single sign-on"): the OAuth client of Google's console. */
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Google's OpenID issuer; another only to point the Google button at a stand-in provider (tests). */
  GOOGLE_ISSUER: z.url({ message: 'must be an absolute URL' }).default('https://accounts.google.com'),
  /** The /oktalogin provider: any OpenID Connect issuer (Okta, Entra ID, Keycloak…), its client and button name. */
  OIDC_ISSUER: z.url({ message: 'must be an absolute URL such as https://example.okta.com' }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_NAME: z.string().min(1).max(60).default('Single sign-on'),
  /** Payments (modules/billing): `manual` keeps cards as brand and last 4 and an operator marks invoices paid. */
  BILLING_GATEWAY: z.enum(['manual', 'stripe']).default('manual'),
  /** Private installs: every organisation holds every package and no quota is limited. */
  BILLING_ENTITLE_ALL: bool.default(false),
  /** The Stripe gateway's secret key; required when BILLING_GATEWAY=stripe. */
  STRIPE_SECRET_KEY: z.string().min(8).optional(),
  /** The signing secret of Stripe's webhook endpoint (`whsec_…`). */
  STRIPE_WEBHOOK_SECRET: z.string().min(8).optional(),
  /** Another base URL for Stripe's API (the offline mock in tests). */
  STRIPE_API_URL: z.url({ message: 'must be an absolute URL' }).optional(),
  /** Transfer engine: how long a worker's claim on an item lasts without renewal (a killed worker's items return after it). */
  TRANSFER_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
  /** Transfer engine: jobs queued per batch, so several worker processes share one batch. */
  TRANSFER_JOBS_PER_BATCH: z.coerce.number().int().min(1).max(64).default(2),
  /** Transfer engine: batches of one organisation copying at once across all workers; the rest wait their turn. */
  TRANSFER_BATCHES_PER_ORG: z.coerce.number().int().min(1).max(1000).default(2),
  /** Transfer engine: seconds a batch pauses for a source or destination that cannot be reached before it fails. */
  TRANSFER_OUTAGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(DEFAULT_OUTAGE_SECONDS),
  /** Transfer engine: objects copied at once by one batch job. */
  TRANSFER_OBJECT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Transfer engine: MiB of copy buffers one worker process holds at most, whatever the objects in flight. */
  TRANSFER_MEMORY_MB: z.coerce.number().int().min(8).max(65536).default(DEFAULT_TRANSFER_MEMORY_MB),
  /**
   * Transfer engine: which parts copies to S3 stream their parts instead of buffering them (transfers README
   * "A source uploaded in parts"): `mirrored` (copies in the source's own parts) or `always`.
   */
  TRANSFER_STREAM_PARTS: z.enum(['mirrored', 'always']).default('mirrored'),
  /** Days a finished transfer's done, skipped and canceled items are kept; failed items and totals stay for good. */
  TRANSFER_ITEMS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** Billing reports: files of one period read at once in worker threads (at most the cores; ~70 MB each). */
  ANALYTICS_READ_THREADS: z.coerce.number().int().min(1).max(64).default(DEFAULT_READ_THREADS),
  /** Heap growth past live data before V8 collects, in percent (runtime/heap.ts); 0 keeps V8's own policy. */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(HEAP_GROWING_PERCENT),
  /** GET /metrics answers the bearer of this token (README "Operations"); unset, metrics are off (404). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (openssl rand -hex 32)').optional(),
  /** The worker role's own metrics listener (a worker serves no HTTP otherwise); needs METRICS_TOKEN. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** JSON map of provider → endpoint URL that points a provider at another endpoint (tests, private clouds). */
  PROVIDER_ENDPOINTS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a JSON object such as {"aws":"http://127.0.0.1:4568"}',
        });
        return z.NEVER;
      }
    })
    .pipe(
      z.partialRecord(z.enum(PROVIDER_NAMES), z.url({ message: 'each endpoint must be an absolute URL' })),
    )
    .default({}),
  /**
   * Outbound address policy: hosts, addresses and CIDR ranges a tenant may reach although they are loopback,
   * private or link-local (a MinIO on the LAN). Everything else a tenant supplies must be a public address.
   */
  ALLOWED_PRIVATE_ENDPOINTS: z
    .string()
    .superRefine((text, ctx) => {
      try {
        parseAllowList(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      }
    })
    .default(''),
});

export type Config = z.infer<typeof configSchema> & { PUBLIC_URL: string; DATA_DIR: string };

export class ConfigError extends Error {}

/** Reads and validates the environment once; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.BILLING_GATEWAY === 'stripe' && !c.STRIPE_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  STRIPE_SECRET_KEY: required when BILLING_GATEWAY=stripe',
    );
  }
  for (const [set, needs] of [
    ['GOOGLE_CLIENT_ID', ['GOOGLE_CLIENT_SECRET']],
    ['GOOGLE_CLIENT_SECRET', ['GOOGLE_CLIENT_ID']],
    ['OIDC_ISSUER', ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET']],
    ['METRICS_PORT', ['METRICS_TOKEN']],
  ] as const) {
    const missing = c[set] === undefined ? undefined : needs.find((name) => c[name] === undefined);
    if (missing) throw new ConfigError(`Invalid configuration:\n  ${missing}: required when ${set} is set`);
  }
  return {
    ...c,
    DATA_DIR: path.resolve(c.DATA_DIR),
    PUBLIC_URL: (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
  };
}
