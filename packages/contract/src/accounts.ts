import { z } from 'zod';
import { INSERT_CLOUD_TYPE } from './providers.ts';
import { text } from './text.ts';

/** Inline messages of the account forms (spec 000 §5). */
export const accountFormMessages = {
  accessKey: 'Access Key is required.',
  secretKey: 'Secret Key is required.',
  field: 'Field is required.',
  serviceAccount: 'Service Accounts Key is required.',
  name: "It's always good to give a name to your cloud service, so you can organize them better.",
  /** Every connection failure to an account's endpoint, whatever the port did (so it cannot scan ports). */
  unreachable:
    'Cumulo could not connect to this cloud service. Check the service URL, the region and the keys, and try again.',
} as const;

/**
 * A connected account's store that stopped answering (502): its keys were checked when it was connected, so the
 * advice is to wait and then look at the address. One text for every kind of failure, as the form's.
 */
export const connectedAccountMessages = {
  unreachable:
    "Cumulo could not connect to this cloud service. It may be down or out of reach: try again in a few minutes, and if it lasts, check the account's service URL and region.",
} as const;

const required = (message: string, max = 4096) => text({ error: message, trim: true, max }).min(1, message);

/** POST /cloudaccount/insert (spec 000 §7, onboarding variant; cloudType numbering 1, 2, 4, 8, 16). */
export const insertAccountBody = z.object({
  cloudType: z.union(
    Object.values(INSERT_CLOUD_TYPE).map((n) => z.literal(n)),
    { error: 'Choose a provider.' },
  ),
  name: required(accountFormMessages.name, 100),
  accessKey: text({ trim: true, max: 1024 }).optional(),
  secretKey: text({ trim: true, max: 4096 }).optional(),
  serviceUrl: text({ trim: true, max: 2048 }).optional(),
  credentialsData: text({ max: 64 * 1024 }).optional(),
  region: text({ trim: true, max: 64 }).optional(),
  /** Generic S3 advanced area: request signing. V2 is offered by the spec but refused: providers retired it. */
  signatureVersion: z.enum(['v4', 'v2']).optional(),
  /** The bucket (or `bucket/prefix`) AWS delivers its billing reports to, saved with the account (spec "billing_bucket"). */
  billingBucket: text({ trim: true, max: 255 }).optional(),
});
export type InsertAccountBody = z.infer<typeof insertAccountBody>;

/** POST /cloud_accounts/ — the legacy create the spec names for backblaze (account_type_id 6). */
export const legacyCreateAccountBody = z.object({
  cloud_account: z.object({
    account_type_id: z.literal(6, { error: 'Only Backblaze accounts use this call.' }),
    project_name: required(accountFormMessages.name, 100),
    info: z.object({
      access_key: required(accountFormMessages.accessKey),
      secret_key: required(accountFormMessages.secretKey),
      region: required(accountFormMessages.field, 64),
    }),
  }),
});

/** POST /wasabi_sub_accounts (spec 000 §7). */
export const wasabiSubAccountBody = z.object({
  acct_name: z.email({ error: 'Enter the e-mail address of the new Wasabi account.' }).max(254),
  password: text({ max: 128 }).min(8, 'The password needs at least 8 characters.'),
  project_name: required(accountFormMessages.name, 100),
});

export const updateAccountBody = z.object({
  cloud_account: z.object({
    project_name: required(accountFormMessages.name, 100).optional(),
    billing_bucket: text({ trim: true, max: 255 }).nullable().optional(),
  }),
});
export const billingBucketBody = z.object({ billing_bucket: text({ trim: true, max: 255 }).nullable() });
export const accountIdBody = z.object({ id: z.uuid() });
export const accountIdQuery = z.object({ id: z.uuid() });

export const storageView = z.object({
  id: z.string(),
  name: z.string(),
  bucket_name: z.string(),
  region: z.string().nullable(),
  creationDate: z.string().nullable(),
  size: z.number(),
  object_count: z.number(),
  /** Estimated monthly storage cost in USD from the price table. */
  cost: z.number(),
  cloud_account_id: z.string(),
  /** State of the bucket's inventory job: pending, running, done or failed. */
  inventory_status: z.string(),
  inventoried_at: z.string().nullable(),
});

/** GET /storages and GET /storage/{id}: a bucket of the inventory with its account's provider and name. */
export const storageListItem = storageView.extend({ provider: z.string(), project_name: z.string() });
export type StorageListItem = z.infer<typeof storageListItem>;

export const cloudAccountView = z.object({
  id: z.string(),
  name: z.string(),
  project_name: z.string(),
  provider: z.string(),
  cloudType: z.number(),
  account_type_id: z.number(),
  serviceUrl: z.string().nullable(),
  endpoint: z.string().nullable(),
  billing_bucket: z.string().nullable(),
  /**
   * Why the last billing-report ingestion could not read the billing bucket; null when it could. Optional only so
   * the web's account fixtures need no change until the analytics screens read it.
   */
  billing_error: z.string().nullable().optional(),
  /**
   * What the account costs a month: the billed total of the newest month its billing reports hold (every product,
   * credits and tax included; `cost_month` names it), else the storage estimate of its buckets (`cost_month` null).
   */
  total_cost: z.number(),
  cost_month: z.string().nullable().optional(),
  total_bytes_used: z.number(),
  bucket_count: z.number(),
  storages: z.array(storageView),
  info: z.object({
    access_key: z.string(),
    secret_key: z.string(),
    region: z.string().nullable(),
    endpoint: z.string().nullable(),
  }),
  created_at: z.string(),
});
export type CloudAccountView = z.infer<typeof cloudAccountView>;

export const liveBucket = z.object({
  name: z.string(),
  region: z.string().nullable(),
  creationDate: z.string().nullable(),
});

/**
 * GET /cloud_accounts/{id}/users: a member who can use the account. `can_manage`: their role may also rename,
 * re-key or remove it (`account.update`).
 */
export const accountMember = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  role: z.object({ id: z.number(), title: z.string() }),
  can_manage: z.boolean(),
});
export type AccountMember = z.infer<typeof accountMember>;

/** How a secret is shown: never its value, only that one is set (plus the last characters of key ids). */
export const MASK = '••••';
