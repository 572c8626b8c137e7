import { randomUUID } from 'node:crypto';
import {
  HYBRIK_JOBS_LISTED,
  HYBRIK_PROFILE_MAX_BYTES,
  fillDefinitions,
  hybrikMessages,
  isStorableText,
  parseS3Url,
  planHybrikJob,
  type HybrikCreateJobBody,
  type HybrikJob,
  type HybrikJobStatus,
  type HybrikProfile,
  type HybrikSettings,
  type HybrikSettingsBody,
} from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import { authorize, requireService, type Actor } from '../../authz/policy.ts';
import { badRequest, notFound } from '../../errors.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { destinationFolder } from '../encoding/encoding.service.ts';
import type { HybrikProfileRow, HybrikRepo, HybrikSettingsRow } from './hybrik.repo.ts';
import { toHybrikJob, toHybrikProfile, toProfilesBucket } from './hybrik.views.ts';

/** Who calls: a signed-in member (a Principal fits). */
interface HybrikCaller extends Actor {
  organizationId: string;
}

/** A profile file as the multipart upload gave it. */
export interface ProfileFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** Queues the worker job of one profile job (ids only; grouped by organisation for fairness). */
export type EnqueueHybrikJob = (job: { id: string; organizationId: string }) => Promise<void>;

const isJsonFile = (file: ProfileFile) =>
  file.fileName.toLowerCase().endsWith('.json') || file.contentType === 'application/json';

/** Profile jobs (spec 001 §2 Hybrik page, §3 Hybrik profile and job, §7 "hybrik …"), behind the Hybrik package. */
export class HybrikService {
  constructor(
    private readonly repo: HybrikRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly entitlements: Pick<Entitlements, 'may'>,
    private readonly enqueue: EnqueueHybrikJob,
  ) {}

  async settings(caller: HybrikCaller): Promise<HybrikSettings> {
    await this.#allowed(caller);
    const row = await this.repo.settings(caller.organizationId);
    return { hybrik_profiles_bucket: row ? toProfilesBucket(row) : null };
  }

  /** "update user hybrik_profiles_bucket": the account is the organisation's and the bucket exists (else 404). */
  async saveSettings(caller: HybrikCaller, body: HybrikSettingsBody) {
    await this.#allowed(caller);
    authorize(caller, 'hybrik.manage');
    const wanted = body.hybrik_profiles_bucket;
    const account = await this.#account(caller, wanted.cloud_account_id);
    const store = await this.stores.storeFor(account);
    if (!(await this.#headBucket(store, wanted.bucket_name))) throw notFound();
    const before = await this.repo.settings(caller.organizationId);
    const row = await this.repo.transaction(async (tx) => {
      const saved = await tx.saveSettings({
        organizationId: caller.organizationId,
        cloudAccountId: account.id,
        bucket: wanted.bucket_name,
        path: destinationFolder(wanted.path),
      });
      await recordAudit(tx.orm, caller, {
        entity: 'Hybrik settings',
        type: before ? 'Modified' : 'Added',
        resource: `${saved.bucket}/${saved.path}`,
        changes: changesOf(before ? settingsAudit(before) : null, settingsAudit(saved)),
      });
      return saved;
    });
    return { message: hybrikMessages.settingsSaved, hybrik_profiles_bucket: toProfilesBucket(row) };
  }

  async profiles(caller: HybrikCaller): Promise<HybrikProfile[]> {
    await this.#allowed(caller);
    return (await this.repo.profiles(caller.organizationId)).map(toHybrikProfile);
  }

  /** "create profile (multipart: source, json_file)": checked as JSON, its size and the job subset, then kept. */
  async uploadProfile(caller: HybrikCaller, file: ProfileFile | null, source: string | null) {
    await this.#allowed(caller);
    authorize(caller, 'hybrik.manage');
    if (!file) throw badRequest(hybrikMessages.fileRequired);
    if (!isJsonFile(file)) throw badRequest(hybrikMessages.jsonOnly);
    if (file.bytes.length >= HYBRIK_PROFILE_MAX_BYTES) throw badRequest(hybrikMessages.tooLarge);
    let json: unknown;
    try {
      json = JSON.parse(file.bytes.toString('utf8'));
    } catch (error) {
      throw badRequest(hybrikMessages.notJson(error instanceof Error ? error.message : String(error)));
    }
    const planned = planHybrikJob(json);
    if ('error' in planned) throw badRequest(planned.error);
    if (source && !isStorableText(source)) throw badRequest(hybrikMessages.unstorableText('source'));
    const settings = await this.repo.settings(caller.organizationId);
    if (!settings) throw badRequest(hybrikMessages.settingsRequired);
    const account = await this.#account(caller, settings.cloudAccountId);
    const store = await this.stores.storeFor(account);
    const id = randomUUID();
    const objectKey = `${settings.path}${id}.json`;
    try {
      await store.write(settings.bucket, objectKey, file.bytes, {
        size: file.bytes.length,
        contentType: 'application/json',
      });
    } catch (error) {
      if (error instanceof StorageError)
        throw badRequest(`${settings.bucket}/${objectKey}: ${error.message}`);
      throw error;
    }
    const name = source?.trim() || planned.plan.name;
    const row = await this.repo.transaction(async (tx) => {
      const created = await tx.insertProfile({
        id,
        organizationId: caller.organizationId,
        userId: caller.userId,
        name,
        definitions: planned.plan.definitions,
        cloudAccountId: account.id,
        bucket: settings.bucket,
        objectKey,
        size: file.bytes.length,
      });
      await recordAudit(tx.orm, caller, {
        entity: 'Hybrik profile',
        type: 'Added',
        resource: name,
        resourceId: id,
        changes: changesOf(null, { name, object: `${settings.bucket}/${objectKey}` }),
      });
      return created;
    });
    return { message: hybrikMessages.profileUploaded, profile: toHybrikProfile(row) };
  }

  /** Removes the profile's object, then its row; jobs it started keep their own copy of the job. */
  async deleteProfile(caller: HybrikCaller, id: string) {
    await this.#allowed(caller);
    authorize(caller, 'hybrik.manage');
    const profile = await this.repo.profile(caller.organizationId, id);
    if (!profile) throw notFound();
    const account = await this.accounts.find(caller.organizationId, profile.cloudAccountId);
    if (account) {
      try {
        await (await this.stores.storeFor(account)).deleteMany(profile.bucket, [profile.objectKey]);
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        if (error.code !== 'BucketNotFound' && error.code !== 'ObjectNotFound') {
          throw badRequest(`${hybrikMessages.profileDeleteFailed} ${error.message}`);
        }
      }
    }
    await this.repo.transaction(async (tx) => {
      if (!(await tx.deleteProfile(caller.organizationId, id))) throw notFound();
      await recordAudit(tx.orm, caller, {
        entity: 'Hybrik profile',
        type: 'Deleted',
        resource: profile.name,
        resourceId: profile.id,
        changes: changesOf({ name: profile.name, object: `${profile.bucket}/${profile.objectKey}` }, null),
      });
    });
    return { message: hybrikMessages.profileDeleted };
  }

  async jobs(caller: HybrikCaller, filter: HybrikJobStatus): Promise<HybrikJob[]> {
    await this.#allowed(caller);
    return (await this.repo.jobs(caller.organizationId, filter, HYBRIK_JOBS_LISTED)).map(toHybrikJob);
  }

  /**
   * "createJob": the profile's JSON from its bucket, the request's definitions over the profile's (the selected
   * file as `source`, the output folder as `destination` when not given), every check before the row is written.
   */
  async createJob(caller: HybrikCaller, body: HybrikCreateJobBody) {
    await this.#allowed(caller);
    authorize(caller, 'hybrik.run');
    const profile = await this.repo.profile(caller.organizationId, body.profile_id);
    if (!profile) throw notFound();
    const settings = await this.repo.settings(caller.organizationId);
    if (!settings) throw badRequest(hybrikMessages.settingsRequired);
    const sourceAccount = await this.#account(caller, body.cloud_account_id);
    const outputAccount = await this.#account(caller, settings.cloudAccountId);
    const sourceUrl = body.definitions.source ?? '';
    const source = parseS3Url(sourceUrl);
    if (!source || source.key === '') throw badRequest(hybrikMessages.badUrl(sourceUrl));
    await this.#requireSource(sourceAccount, source.bucket, source.key);

    const json = await this.#profileJson(profile);
    const definitions = {
      destination: `s3://${settings.bucket}/${settings.path}`,
      destination_path: `s3://${settings.bucket}/${settings.path}`,
      ...profile.definitions,
      ...body.definitions,
    };
    const filled = fillDefinitions(withSource(json, sourceUrl), definitions);
    if ('error' in filled) throw badRequest(filled.error);
    const planned = planHybrikJob(filled.value);
    if ('error' in planned) throw badRequest(planned.error);
    for (const element of planned.plan.elements) {
      const target =
        element.kind === 'transcode'
          ? (element.location ?? planned.plan.definitions.destination)
          : element.kind === 'copy'
            ? element.path
            : undefined;
      if (target === undefined) continue;
      const parsed = parseS3Url(target);
      if (!parsed) throw badRequest(hybrikMessages.badUrl(target));
      if (parsed.bucket !== settings.bucket && parsed.bucket !== source.bucket) {
        throw badRequest(hybrikMessages.unknownBucket(parsed.bucket));
      }
    }

    const row = await this.repo.transaction(async (tx) => {
      const created = await tx.insertJob({
        organizationId: caller.organizationId,
        userId: caller.userId,
        profileId: profile.id,
        name: planned.plan.name,
        job: filled.value,
        sourceCloudAccountId: sourceAccount.id,
        sourceBucket: source.bucket,
        sourcePath: source.key,
        outputCloudAccountId: outputAccount.id,
        outputBucket: settings.bucket,
      });
      await recordAudit(tx.orm, caller, {
        entity: 'Hybrik job',
        type: 'Added',
        resource: `${planned.plan.name} (${source.bucket}/${source.key})`,
        resourceId: created.id,
        changes: changesOf(null, { profile: profile.name, source: sourceUrl }),
      });
      return created;
    });
    await this.enqueue({ id: row.id, organizationId: row.organizationId });
    return { message: hybrikMessages.jobCreated, job: toHybrikJob(row) };
  }

  /** queued or active → failed ('The job was cancelled.'); a running worker sees it within its poll and stops. */
  async cancel(caller: HybrikCaller, id: string) {
    await this.#allowed(caller);
    const job = await this.repo.job(caller.organizationId, id);
    if (!job) throw notFound();
    authorize(caller, 'hybrik.cancel', { createdBy: job.userId });
    const cancelled = await this.repo.transaction(async (tx) => {
      const row = await tx.cancel(caller.organizationId, id, hybrikMessages.cancelledError);
      if (!row) return undefined;
      await recordAudit(tx.orm, caller, {
        entity: 'Hybrik job',
        type: 'Modified',
        resource: `${job.name} (${job.sourceBucket}/${job.sourcePath})`,
        resourceId: job.id,
        changes: changesOf({ status: job.status }, { status: row.status }),
      });
      return row;
    });
    if (!cancelled) throw badRequest(hybrikMessages.notCancellable);
    return { message: hybrikMessages.jobCancelled };
  }

  /** Every call: the encoding ACL and the Hybrik package. */
  async #allowed(caller: HybrikCaller) {
    requireService(caller, 'encoding');
    await requirePackage(this.entitlements, caller.organizationId, 'hybrik', hybrikMessages.packageRequired);
  }

  async #account(caller: HybrikCaller, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(caller.organizationId, id);
    if (!account) throw notFound();
    return account;
  }

  async #headBucket(store: ObjectStore, bucket: string) {
    try {
      return await store.headBucket(bucket);
    } catch (error) {
      if (error instanceof StorageError) throw badRequest(`${bucket}: ${error.message}`);
      throw error;
    }
  }

  async #requireSource(account: CloudAccountRow, bucket: string, key: string) {
    const store = await this.stores.storeFor(account);
    try {
      if (!(await store.stat(bucket, key))) {
        throw notFound(hybrikMessages.sourceGone(key, hybrikMessages.objectMissing));
      }
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      if (error.code === 'BucketNotFound') throw notFound();
      throw badRequest(hybrikMessages.sourceGone(key, error.message));
    }
  }

  /** The profile's JSON as its bucket holds it now. */
  async #profileJson(profile: HybrikProfileRow): Promise<unknown> {
    const where = `${profile.bucket}/${profile.objectKey}`;
    const account = await this.accounts.find(profile.organizationId, profile.cloudAccountId);
    if (!account) throw badRequest(hybrikMessages.sourceGone(where, hybrikMessages.objectMissing));
    const store = await this.stores.storeFor(account);
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of await store.read(profile.bucket, profile.objectKey)) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        size += bytes.length;
        if (size >= HYBRIK_PROFILE_MAX_BYTES) throw badRequest(hybrikMessages.tooLarge);
        chunks.push(bytes);
      }
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      if (error instanceof StorageError) throw badRequest(hybrikMessages.sourceGone(where, error.message));
      if (error instanceof SyntaxError) throw badRequest(hybrikMessages.notJson(error.message));
      throw error;
    }
  }
}

const settingsAudit = (row: HybrikSettingsRow) => ({
  cloud_account_id: row.cloudAccountId,
  bucket_name: row.bucket,
  path: row.path,
});

/** The job JSON with its source element reading `url`: a profile runs on the file it is started on. */
function withSource(json: unknown, url: string): unknown {
  if (!json || typeof json !== 'object') return json;
  const job = json as { payload?: { elements?: unknown } };
  const elements = job.payload?.elements;
  if (!Array.isArray(elements)) return json;
  const replaced = elements.map((item: unknown) => {
    const element = item as { kind?: unknown; payload?: { kind?: unknown; payload?: unknown } };
    if (element.kind !== 'source' || !element.payload) return item;
    const inner = element.payload.payload;
    const asset = (value: unknown) => ({ ...(value as object), url });
    return {
      ...element,
      payload: {
        ...element.payload,
        payload: Array.isArray(inner) ? inner.map(asset) : asset(inner),
      },
    };
  });
  return { ...job, payload: { ...job.payload, elements: replaced } };
}
