import {
  BUCKET_CREATION_PROVIDERS,
  BUCKET_PERMISSIONS,
  bucketMessages,
  bucketNameMessages,
  type CreateBucketBody,
} from '@cumulo/contract';
import { StorageError, type AclGrant, type ObjectStore } from '@cumulo/storage';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import { providerError } from './provider-error.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from './cloud-accounts.repo.ts';
import type { InventoryJob } from './cloud-accounts.jobs.ts';
import type { StoreRegistry } from './store-registry.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';

/** S3's predefined groups, the grantees of the screen's "public" and "system" read permissions. */
export const ALL_USERS_GROUP = 'http://acs.amazonaws.com/groups/global/AllUsers';
export const LOG_DELIVERY_GROUP = 'http://acs.amazonaws.com/groups/s3/LogDelivery';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The Create New Bucket calls (spec 000 §7): the name check and the creation with settings and grants. */
export class BucketsService {
  constructor(
    private readonly repo: CloudAccountsRepo,
    private readonly registry: StoreRegistry,
    private readonly enqueueInventory: (job: InventoryJob) => Promise<void>,
    private readonly log: Logger,
  ) {}

  /**
   * GET /cloud_accounts/{id}/storages/exists. Bucket names are global on AWS, Wasabi and Google, so a bucket
   * another customer owns (403 on HEAD) counts as taken too.
   */
  async exists(principal: Principal, accountId: string, bucketName: string) {
    const account = await this.#account(principal, accountId);
    const taken = await this.#taken(await this.registry.storeFor(account), bucketName);
    return { exists: taken, message: taken ? bucketNameMessages.taken : null };
  }

  /** POST /cloud_accounts/{id}/storages */
  async create(principal: Principal, accountId: string, body: CreateBucketBody) {
    authorize(principal, 'bucket.create');
    const account = await this.#account(principal, accountId);
    if (!BUCKET_CREATION_PROVIDERS.includes(account.provider)) {
      throw badRequest('Buckets can be created here only in AWS and Wasabi accounts.');
    }
    const store = await this.registry.storeFor(account);
    const name = body.bucket_name;
    if (await this.#taken(store, name)) throw badRequest(bucketNameMessages.taken);
    try {
      await store.createBucket(name, { region: body.region });
    } catch (error) {
      if (error instanceof StorageError && error.code === 'BucketAlreadyExists') {
        throw badRequest(bucketNameMessages.taken);
      }
      throw providerError(error);
    }
    this.log.info({ accountId, bucket: name }, 'bucket created');

    // The bucket exists from here on: what follows reports problems as warnings, it never fails the creation.
    const warnings: string[] = [];
    const copied = body.config_bucket
      ? await this.#copySettings(store, body.config_bucket, name, warnings)
      : [];
    const grants = requestedGrants(body);
    if (grants.length > 0) {
      const acl = store.capabilities.acl;
      if (!acl) {
        warnings.push(bucketMessages.aclUnsupported(account.provider));
      } else {
        try {
          // PutBucketAcl replaces the policy: keep what the bucket has (the owner's FULL_CONTROL) and add ours.
          const current = await acl.getBucketAcl(name);
          await acl.putBucketAcl(name, [...current, ...grants]);
        } catch (error) {
          warnings.push(
            `The bucket was created, but its permissions could not be applied: ${messageOf(error)}`,
          );
        }
      }
    }
    await this.repo.transaction(async (tx) => {
      await tx.syncBucket(principal.organizationId, account.id, {
        name,
        region: body.region,
        createdOn: new Date(),
      });
      await recordAudit(tx.orm, principal, {
        entity: 'Bucket',
        type: 'Added',
        resource: name,
        resourceId: `${account.id}/${name}`,
        changes: changesOf(null, {
          name,
          region: body.region,
          account: account.name,
          settingsCopiedFrom: body.config_bucket || null,
          settingsCopied: copied.join(', ') || null,
          grants: grants.length || null,
        }),
      });
    });
    await this.enqueueInventory({ organizationId: principal.organizationId, accountId: account.id });
    return {
      message: bucketMessages.created(name),
      bucket_name: name,
      region: body.region,
      copied,
      warning: warnings.length ? warnings.join(' ') : null,
    };
  }

  async #account(principal: Principal, id: string): Promise<CloudAccountRow> {
    const account = await this.repo.find(principal.organizationId, id);
    if (!account) throw notFound();
    return account;
  }

  async #taken(store: ObjectStore, name: string): Promise<boolean> {
    try {
      return (await store.headBucket(name)) !== null;
    } catch (error) {
      if (error instanceof StorageError && error.code === 'AccessDenied') return true;
      throw providerError(error);
    }
  }

  /** Copies the settings Cumulo can read and write on both buckets; returns the names of those copied. */
  async #copySettings(store: ObjectStore, from: string, to: string, warnings: string[]): Promise<string[]> {
    const caps = store.capabilities;
    const copied: string[] = [];
    const step = async (label: string, run: () => Promise<boolean>) => {
      try {
        if (await run()) copied.push(label);
      } catch (error) {
        warnings.push(`The ${label} settings of ${from} could not be copied: ${messageOf(error)}`);
      }
    };
    if (caps.cors) {
      const cors = caps.cors;
      await step('CORS', async () => {
        const rules = await cors.getCors(from);
        if (rules.length) await cors.putCors(to, rules);
        return rules.length > 0;
      });
    }
    if (caps.versioning) {
      const versioning = caps.versioning;
      await step('versioning', async () => {
        const state = await versioning.getVersioning(from);
        if (state === 'enabled') await versioning.putVersioning(to, true);
        return state === 'enabled';
      });
    }
    if (caps.tags) {
      const tags = caps.tags;
      await step('tags', async () => {
        const set = await tags.getBucketTags(from);
        if (Object.keys(set).length) await tags.putBucketTags(to, set);
        return Object.keys(set).length > 0;
      });
    }
    if (caps.accelerate) {
      const accelerate = caps.accelerate;
      await step('transfer acceleration', async () => {
        const on = await accelerate.getAccelerate(from);
        if (on) await accelerate.putAccelerate(to, true);
        return on;
      });
    }
    return copied;
  }
}

/** The screen's users and public/system permissions as ACL grants. */
export function requestedGrants(body: CreateBucketBody): AclGrant[] {
  const grants: AclGrant[] = [];
  for (const entry of body.users ?? []) {
    const grantee: AclGrant['grantee'] = EMAIL.test(entry.user)
      ? { type: 'email', email: entry.user }
      : { type: 'user', id: entry.user };
    for (const permission of BUCKET_PERMISSIONS) {
      if (entry.permissions[permission]) grants.push({ grantee, permission });
    }
  }
  if (body.public?.permissions.READ) {
    grants.push({ grantee: { type: 'group', uri: ALL_USERS_GROUP }, permission: 'READ' });
  }
  if (body.system?.permissions.READ) {
    grants.push({ grantee: { type: 'group', uri: LOG_DELIVERY_GROUP }, permission: 'READ' });
  }
  return grants;
}

function messageOf(error: unknown) {
  return error instanceof Error ? error.message : String(error);
}
