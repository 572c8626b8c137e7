import { randomUUID } from 'node:crypto';
import {
  authzMessages,
  isS3Family,
  objectMessages,
  transferMessages,
  storageIdParts,
  uploadMessages,
  uploadPartSize,
  type CompleteUploadBatchAnswer,
  type S3SignedUrl,
  type S3SignerQuery,
  type StartUploadBatchAnswer,
  type StartUploadBatchBody,
  type StartUploadBody,
  type StorageUploadBody,
  type UploadMode,
  type UploadReportBody,
  type UploadSession,
  type UploadedPart,
  type QuotaKey,
} from '@cumulo/contract';
import type { DirectUploadRef, ObjectStore, Provider } from '@cumulo/storage';
import type { SecretBox } from '../../crypto/keys.ts';
import { authorize, mayAct, requireService, requireWithin } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, forbidden, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { InventoryJob } from '../cloud-accounts/cloud-accounts.jobs.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { UploadSessionRow, UploadsRepo } from './uploads.repo.ts';
import type { SearchIndex } from '../search/search-index.ts';

/** How long a signed part URL stays valid: enough for a slow 5 GiB part, short enough to be useless if leaked. */
const SIGNED_PART_SECONDS = 60 * 60;
/** A session nobody signed, resumed or completed for this long is aborted by the sweep. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
const SWEEP_BATCH = 100;
/** Objects of a batch checked at the same time on completion, when the listing did not find them. */
const BATCH_STAT_CONCURRENCY = 16;
/** A batch's objects are looked up in at most 2 listing pages of 1000 keys under their common prefix. */
const LISTED_CHECK_PAGE = 1000;
const LISTED_CHECK_PAGES = 2;

export const uploadErrors = {
  unsupported: 'Direct upload is not available for this cloud account.',
  inactive: 'This upload is no longer active. Pick the file again to start over.',
  alreadyComplete: 'This upload is already complete.',
  partRange: (total: number) => `Part numbers must be between 1 and ${total}.`,
  missingParts: (parts: number[]) => `The upload is missing parts ${parts.join(', ')}.`,
  missingEtag: (part: number) => `Part ${part} has no ETag; upload it again.`,
  sizeMismatch: (actual: number, expected: number) =>
    `The uploaded file has ${actual} bytes instead of ${expected}; the upload was discarded. Please try again.`,
  notUploaded: 'The file did not reach the bucket. Please try again.',
  notS3:
    'This cloud account does not speak the S3 API, so it has no Signature V4 URLs; use the upload calls.',
} as const;

/**
 * What the session keeps sealed in `provider_upload_id`: the provider's handle (a GCS session URI is a bearer
 * credential) and the choices made at start that signing still needs.
 */
interface SessionHandle {
  uploadId: string;
  acl?: string;
  accelerate?: boolean;
  /** The quota the upload counts against, and its reservation (README "Quota"); absent: not metered. */
  quota?: QuotaKey;
  /** `upload:<session id>` for a session of its own; `upload-batch:<uuid>` for every session of one batch call. */
  quotaRef?: string;
}

const BATCH_REF = 'upload-batch:';

/**
 * The quota a direct upload counts against: an accelerated one (AWS only) s3_acceleration; one to a Wasabi account
 * wasabi (the /wasabi screen uploads only there, and which screen asked does not reach the server); any other
 * S3-family store s3_native. Azure and Google uploads have no quota of their own in the spec: null.
 */
function uploadQuotaOf(provider: Provider, accelerate: boolean): QuotaKey | null {
  if (accelerate) return 's3_acceleration';
  if (provider === 'wasabi') return 'wasabi';
  return isS3Family(provider) ? 's3_native' : null;
}

/** Which way the browser sends a file of this size to this provider. */
function uploadModeOf(provider: Provider, size: number, partSize: number): UploadMode {
  if (size <= partSize) return 'single';
  if (provider === 'azure') return 'azure-blocks';
  if (provider === 'google') return 'gcs-resumable';
  return 's3-multipart';
}

const partsTotalOf = (size: number, partSize: number) => Math.max(1, Math.ceil(size / partSize));

/**
 * Direct browser uploads (spec 001 §4 "Direct upload", §7): the server opens, signs, completes and aborts; the
 * bytes go from the browser to the store. A session is keyed by the local file's fingerprint so the same file
 * picked again after a reload resumes from the parts the provider already holds.
 */
export class UploadsService {
  constructor(
    private readonly repo: UploadsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly registry: StoreRegistry,
    private readonly secrets: SecretBox,
    private readonly log: Logger,
    /** Direct uploads count against their quota (README "Quota"); absent: nothing is metered. */
    private readonly entitlements?: Entitlements,
    /** The media-search index: a completed upload enters it. */
    private readonly searchIndex?: Pick<SearchIndex, 'upsertObjects'>,
    /** Whether an organisation confirmed the ftX charge, which a transfer agent's uploads need (README "ftX"). */
    private readonly ftxConfirmed?: (organizationId: string) => Promise<boolean>,
    /** Counts a bucket again after uploads completed into it (the cloud-accounts inventory, one bucket). */
    private readonly recount: (job: InventoryJob) => Promise<void> = async () => undefined,
  ) {}

  /**
   * Who may open uploads: a browser or API key needs `upload.start` (the uploads ACL); a transfer agent's device
   * needs `agent.transfer` (the ftX ACL) and its organisation's confirmed ftX charge.
   */
  async #authorizeStart(principal: Principal) {
    if (!principal.deviceId) {
      authorize(principal, 'upload.start');
      return;
    }
    authorize(principal, 'agent.transfer');
    if (!(await this.ftxConfirmed?.(principal.organizationId))) {
      throw forbidden(transferMessages.ftxChargeNotConfirmed, 'CHARGE_NOT_CONFIRMED');
    }
  }

  /**
   * An upload over an existing object replaces it, losing what it held: for a member who may not delete objects
   * (role User, `object.delete`), as much a delete as one. Refused before anything is opened, naming the files;
   * the keys are asked for with a HEAD each, only for such members.
   */
  async #refuseReplacing(principal: Principal, store: ObjectStore, bucket: string, keys: string[]) {
    if (mayAct(principal, 'object.delete')) return;
    const taken: string[] = [];
    const queue = [...new Set(keys)];
    const next = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        try {
          if (await store.stat(bucket, key)) taken.push(key);
        } catch (error) {
          throw providerError(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_STAT_CONCURRENCY, queue.length) }, next));
    if (taken.length > 0) throw forbidden(authzMessages.replaceNeedsApprover(taken.sort()));
  }

  /** Asks for the bucket's recount; the upload is done whatever happens to that request. */
  async #recount(principal: Principal, accountId: string, bucket: string) {
    await this.recount({ organizationId: principal.organizationId, accountId, bucket }).catch(
      (error: unknown) => {
        this.log.warn(
          { err: error, accountId, bucket },
          'bucket recount after an upload could not be queued',
        );
      },
    );
  }

  /** The ACL the later calls of a session check: the agent's uploads are ftX's. */
  #requireUploads(principal: Principal) {
    requireService(principal, principal.deviceId ? 'ftx' : 'uploads');
  }

  /** POST /transfers/uploads. `origin` is the browser's, for providers whose sessions answer CORS per origin. */
  async start(principal: Principal, body: StartUploadBody, origin: string): Promise<UploadSession> {
    await this.#authorizeStart(principal);
    requireWithin(principal, 'max_upload_size', body.size);
    const account = await this.#account(principal, body.cloud_account_id);
    const store = await this.registry.storeFor(account);
    await this.#refuseReplacing(principal, store, body.bucket_name, [body.key]);
    const direct = this.#direct(store);
    const partSize = uploadPartSize(body.size);
    const mode = uploadModeOf(account.provider, body.size, partSize);
    const partsTotal = partsTotalOf(body.size, partSize);
    const accelerate = body.s3Acceleration === true && account.provider === 'aws';
    // 'private' is every store's default; sending it would be refused by buckets that disable ACLs.
    const acl = body.acl && body.acl !== 'private' ? body.acl : undefined;
    const answer = (row: UploadSessionRow, finished: UploadedPart[], resumed: boolean): UploadSession => ({
      session_id: row.id,
      mode,
      part_size: partSize,
      parts_total: partsTotal,
      finished_parts: finished,
      resumed,
    });

    const previous = await this.repo.findResumable({
      organizationId: principal.organizationId,
      cloudAccountId: account.id,
      bucketName: body.bucket_name,
      objectKey: body.key,
      fingerprint: body.fingerprint,
      size: body.size,
    });
    // A batch's session is one PUT with nothing to resume, and it shares its batch's handle: a fresh session.
    const previousHandle = previous && this.#handleOf(previous);
    if (previous && previousHandle?.quotaRef?.startsWith(BATCH_REF)) {
      await this.#discard(store, previous, previousHandle);
    } else if (previous && previousHandle && previous.partSize === partSize) {
      const handle = previousHandle;
      const resealed = this.secrets.seal(JSON.stringify({ ...handle, accelerate }));
      if (mode === 'single') {
        await this.repo.touch(previous.id, { providerUploadId: resealed });
        return answer(previous, [], false);
      }
      try {
        const held = await direct.listParts(this.#ref(previous, handle));
        const finished = held.filter(
          (part) =>
            part.partNumber <= partsTotal &&
            part.size === expectedPartSize(part.partNumber, body.size, partSize),
        );
        await this.repo.touch(previous.id, { providerUploadId: resealed });
        return answer(
          previous,
          finished.map((part) => ({ part_number: part.partNumber, size: part.size, etag: part.etag })),
          true,
        );
      } catch (error) {
        // The provider no longer knows the upload (expired, aborted elsewhere) or cannot list its parts: start
        // over rather than fail the user's upload.
        this.log.warn({ err: error, sessionId: previous.id }, 'upload session could not be resumed');
        await this.#discard(store, previous, handle);
      }
    }

    // The file's size is held before the provider opens anything: a refusal leaves nothing behind.
    const sessionId = randomUUID();
    const quota = this.#reservable(principal, account, accelerate);
    const metered = quota ? { quota, quotaRef: `upload:${sessionId}` } : {};
    if (quota)
      await this.entitlements?.reserve(principal.organizationId, quota, `upload:${sessionId}`, body.size);
    let uploadId = '';
    if (mode !== 'single') {
      try {
        uploadId = await direct.start(body.bucket_name, body.key, {
          size: body.size,
          partSize,
          contentType: body.content_type,
          acl,
          origin,
        });
      } catch (error) {
        await this.#settle(principal.organizationId, { uploadId, ...metered }, 0);
        throw providerError(error);
      }
    }
    const handle: SessionHandle = { uploadId, acl, accelerate, ...metered };
    const row = await this.repo.insertSession({
      id: sessionId,
      organizationId: principal.organizationId,
      userId: principal.userId,
      cloudAccountId: account.id,
      bucketName: body.bucket_name,
      objectKey: body.key,
      fingerprint: body.fingerprint,
      size: body.size,
      partSize,
      contentType: body.content_type ?? null,
      providerUploadId: this.secrets.seal(JSON.stringify(handle)),
    });
    return answer(row, [], false);
  }

  /** POST /storage/{id}/content/upload: `start` with the account and bucket of the storage id. */
  async startInStorage(
    principal: Principal,
    storageId: string,
    body: StorageUploadBody,
    origin: string,
  ): Promise<UploadSession> {
    const parts = storageIdParts(storageId);
    if (!parts) throw badRequest(objectMessages.storageIdInvalid, { id: [objectMessages.storageIdInvalid] });
    return this.start(
      principal,
      { ...body, cloud_account_id: parts.accountId, bucket_name: parts.bucketName },
      origin,
    );
  }

  /**
   * GET /transfers/s3_url_signer_v4: one presigned URL of one object of an S3-family account. A PUT writes data,
   * so it is an upload (`upload.start`); a GET is a read, like a download link.
   */
  async signS3(principal: Principal, query: S3SignerQuery): Promise<S3SignedUrl> {
    if (query.method === 'PUT') authorize(principal, 'upload.start');
    const account = await this.#account(principal, query.cloud_account_id);
    if (!isS3Family(account.provider)) throw badRequest(uploadErrors.notS3);
    const store = await this.registry.storeFor(account);
    if (query.method === 'PUT') await this.#refuseReplacing(principal, store, query.bucket_name, [query.key]);
    const contentType = query.method === 'PUT' ? query.content_type : undefined;
    try {
      const url = await store.signedUrl(query.bucket_name, query.key, {
        method: query.method,
        expiresInSeconds: SIGNED_PART_SECONDS,
        contentType,
      });
      return {
        url,
        method: query.method,
        headers: contentType ? { 'content-type': contentType } : {},
        expires_in: SIGNED_PART_SECONDS,
      };
    } catch (error) {
      throw providerError(error);
    }
  }

  /**
   * POST /transfers/uploads/batch: sessions for many small files (each one PUT) and their signed URLs in one round
   * trip, so a folder of thousands of files costs a call per hundred files rather than three per file. A small
   * file has nothing to resume, so no earlier session is looked up; a retried file goes through `start`.
   */
  async startBatch(principal: Principal, body: StartUploadBatchBody): Promise<StartUploadBatchAnswer> {
    await this.#authorizeStart(principal);
    for (const file of body.files) requireWithin(principal, 'max_upload_size', file.size);
    const account = await this.#account(principal, body.cloud_account_id);
    const store = await this.registry.storeFor(account);
    await this.#refuseReplacing(
      principal,
      store,
      body.bucket_name,
      body.files.map((file) => file.key),
    );
    const direct = this.#direct(store);
    const accelerate = body.s3Acceleration === true && account.provider === 'aws';
    const acl = body.acl && body.acl !== 'private' ? body.acl : undefined;
    // The whole batch is held in one reservation, refused whole; its last session to end settles it.
    const quota = this.#reservable(principal, account, accelerate);
    const quotaRef = `${BATCH_REF}${randomUUID()}`;
    if (quota) {
      const total = body.files.reduce((sum, file) => sum + file.size, 0);
      await this.entitlements?.reserve(principal.organizationId, quota, quotaRef, total);
    }
    const sealed = this.secrets.seal(
      JSON.stringify({
        uploadId: '',
        acl,
        accelerate,
        ...(quota ? { quota, quotaRef } : {}),
      } satisfies SessionHandle),
    );
    const rows = await this.#insertBatch(
      principal.organizationId,
      quota && { quota, quotaRef },
      body.files.map((file) => ({
        organizationId: principal.organizationId,
        userId: principal.userId,
        cloudAccountId: account.id,
        bucketName: body.bucket_name,
        objectKey: file.key,
        fingerprint: file.fingerprint,
        size: file.size,
        partSize: uploadPartSize(file.size),
        contentType: file.content_type ?? null,
        providerUploadId: sealed,
      })),
    );
    // RETURNING gives the rows in insertion order in practice; matching by key does not depend on it.
    const byKey = new Map<string, UploadSessionRow[]>();
    for (const row of rows) byKey.set(row.objectKey, [...(byKey.get(row.objectKey) ?? []), row]);
    const sessionOf = (key: string) => {
      const row = byKey.get(key)?.shift();
      if (!row) throw new Error('upload session batch lost a row');
      return row.id;
    };
    try {
      // Signed forms where the provider has them (a form POST needs no CORS preflight), each bound to its file's
      // key and size; the accelerate endpoint is signed per file.
      const form =
        direct.signForm && !accelerate
          ? await direct.signForm(body.bucket_name, {
              files: body.files.map((file) => ({ key: file.key, size: file.size })),
              expiresInSeconds: SIGNED_PART_SECONDS,
              acl,
            })
          : null;
      if (form) {
        return {
          files: body.files.map((file, i) => ({
            session_id: sessionOf(file.key),
            key: file.key,
            url: form.url,
            method: 'POST' as const,
            headers: {},
            fields: form.perFile[i] ?? {},
          })),
          form_fields: form.fields,
        };
      }
      const files = await Promise.all(
        body.files.map(async (file) => {
          const sessionId = sessionOf(file.key);
          const target = await direct.signSingle(body.bucket_name, file.key, {
            expiresInSeconds: SIGNED_PART_SECONDS,
            accelerate,
            contentType: file.content_type,
            acl,
          });
          return {
            session_id: sessionId,
            key: file.key,
            url: target.url,
            method: 'PUT' as const,
            headers: target.headers,
            fields: {},
          };
        }),
      );
      return { files, form_fields: null };
    } catch (error) {
      throw providerError(error);
    }
  }

  /**
   * POST /transfers/uploads/batch/complete: each object must be in the bucket with its file's size, as `complete`
   * checks for one file. Only the caller's own sessions: any other id answers 404 for the whole call.
   */
  async completeBatch(principal: Principal, sessionIds: string[]): Promise<CompleteUploadBatchAnswer> {
    if (principal.deviceId) authorize(principal, 'agent.transfer');
    else authorize(principal, 'upload.start');
    const ids = [...new Set(sessionIds)];
    const sessions = await this.repo.findOwnSessions(principal.organizationId, principal.userId, ids);
    if (sessions.length !== ids.length) throw notFound();
    const accountIds = [...new Set(sessions.map((session) => session.cloudAccountId))];
    const stores = new Map<string, ObjectStore>();
    for (const id of accountIds) {
      stores.set(id, await this.registry.storeFor(await this.#account(principal, id)));
    }
    const outcome = new Map<string, string | null>();
    const completed: string[] = [];
    const groups = new Map<string, UploadSessionRow[]>();
    for (const session of sessions) {
      const group = `${session.cloudAccountId}/${session.bucketName}`;
      groups.set(group, [...(groups.get(group) ?? []), session]);
    }
    for (const members of groups.values()) {
      const first = members[0];
      const store = first && stores.get(first.cloudAccountId);
      if (!first || !store) throw new Error('store of a batch session missing');
      const sizes = await this.#listedSizes(store, first.bucketName, members);
      const queue = [...members];
      const worker = async () => {
        for (let session = queue.shift(); session; session = queue.shift()) {
          outcome.set(
            session.id,
            await this.#checkSingle(store, session, sizes.get(session.objectKey), completed),
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCH_STAT_CONCURRENCY, queue.length) }, worker));
    }
    await this.repo.finishMany(completed, 'complete');
    const ended = new Set(completed);
    const buckets = new Map(
      sessions
        .filter((session) => ended.has(session.id))
        .map((session) => [`${session.cloudAccountId}/${session.bucketName}`, session] as const),
    );
    for (const session of buckets.values())
      await this.#recount(principal, session.cloudAccountId, session.bucketName);
    await this.#settleEnded(sessions.filter((session) => ended.has(session.id)));
    for (const session of sessions.filter((s) => ended.has(s.id))) {
      await this.searchIndex?.upsertObjects(
        principal.organizationId,
        session.cloudAccountId,
        session.bucketName,
        [
          {
            key: session.objectKey,
            size: session.size,
            lastModified: null,
            contentType: session.contentType,
          },
        ],
      );
    }
    return {
      files: sessions.map((session) => ({
        session_id: session.id,
        key: session.objectKey,
        error: outcome.get(session.id) ?? null,
      })),
    };
  }

  /**
   * The sizes of the batch's objects from one listing of their common prefix (a request or two instead of one
   * HEAD per file); keys the first pages do not reach are left to a HEAD each.
   */
  async #listedSizes(store: ObjectStore, bucket: string, sessions: UploadSessionRow[]) {
    const wanted = new Set(sessions.map((session) => session.objectKey));
    const sizes = new Map<string, number>();
    let pages = 0;
    try {
      for await (const page of store.list(bucket, {
        prefix: commonPrefix([...wanted]),
        pageSize: LISTED_CHECK_PAGE,
      })) {
        for (const object of page.objects) if (wanted.has(object.key)) sizes.set(object.key, object.size);
        pages += 1;
        if (sizes.size === wanted.size || pages >= LISTED_CHECK_PAGES) break;
      }
    } catch (error) {
      this.log.warn({ err: error, bucket }, 'batch upload listing failed; checking each object');
    }
    return sizes;
  }

  /** Null when a one-PUT upload is in the bucket with its size (added to `completed`); otherwise why not. */
  async #checkSingle(
    store: ObjectStore,
    session: UploadSessionRow,
    listedSize: number | undefined,
    completed: string[],
  ): Promise<string | null> {
    if (session.status === 'complete') return null;
    if (session.status !== 'active') return uploadErrors.inactive;
    if (uploadModeOf(store.provider, session.size, session.partSize) !== 'single')
      return uploadMessages.failed;
    let size = listedSize;
    if (size === undefined) {
      try {
        size = (await store.stat(session.bucketName, session.objectKey))?.size;
      } catch (error) {
        this.log.warn({ err: error, sessionId: session.id }, 'batch upload check failed');
        return uploadMessages.failed;
      }
    }
    if (size === undefined) return uploadErrors.notUploaded;
    if (size !== session.size) {
      await store.deleteMany(session.bucketName, [session.objectKey]).catch((error: unknown) => {
        this.log.warn({ err: error, sessionId: session.id }, 'could not delete a mis-sized upload');
      });
      if (await this.repo.finish(session.id, 'aborted'))
        await this.#settleSession(session, this.#handleOf(session), 0);
      return uploadErrors.sizeMismatch(size, session.size);
    }
    completed.push(session.id);
    return null;
  }

  /** GET /transfers/url_signer_v4 */
  async sign(principal: Principal, sessionId: string, partNumbers: number[]) {
    this.#requireUploads(principal);
    const { session, store, handle } = await this.#active(principal, sessionId);
    const direct = this.#direct(store);
    const total = partsTotalOf(session.size, session.partSize);
    const outside = partNumbers.find((part) => part < 1 || part > total);
    if (outside !== undefined) throw badRequest(uploadErrors.partRange(total));
    const options = { expiresInSeconds: SIGNED_PART_SECONDS, accelerate: handle.accelerate === true };
    try {
      const targets =
        uploadModeOf(store.provider, session.size, session.partSize) === 'single'
          ? [
              await direct.signSingle(session.bucketName, session.objectKey, {
                ...options,
                contentType: session.contentType ?? undefined,
                acl: handle.acl,
              }),
            ]
          : await direct.signParts(this.#ref(session, handle), [...new Set(partNumbers)], options);
      await this.repo.touch(session.id);
      return {
        parts: targets.map((target) => ({
          part_number: target.partNumber,
          url: target.url,
          method: 'PUT' as const,
          headers: target.headers,
        })),
      };
    } catch (error) {
      throw providerError(error);
    }
  }

  /** POST /transfers/uploads/{id}/complete: assembles the object, then checks it has the file's size. */
  async complete(
    principal: Principal,
    sessionId: string,
    parts: Array<{ part_number: number; etag: string | null }>,
  ) {
    this.#requireUploads(principal);
    const { session, store, handle } = await this.#active(principal, sessionId);
    const direct = this.#direct(store);
    const mode = uploadModeOf(store.provider, session.size, session.partSize);
    let etag: string | null = null;
    if (mode !== 'single') {
      const total = partsTotalOf(session.size, session.partSize);
      const reported = new Map(parts.map((part) => [part.part_number, part.etag]));
      const missing = Array.from({ length: total }, (_, i) => i + 1).filter((n) => !reported.has(n));
      if (missing.length > 0) throw badRequest(uploadErrors.missingParts(missing.slice(0, 20)));
      if (reported.size !== total) throw badRequest(uploadErrors.partRange(total));
      if (mode === 's3-multipart') {
        const noEtag = [...reported].find(([, value]) => !value);
        if (noEtag) throw badRequest(uploadErrors.missingEtag(noEtag[0]));
      }
      try {
        ({ etag } = await direct.complete(
          this.#ref(session, handle),
          [...reported].map(([partNumber, value]) => ({ partNumber, etag: value })),
          { contentType: session.contentType ?? undefined },
        ));
      } catch (error) {
        throw providerError(error);
      }
    }
    let object;
    try {
      object = await store.stat(session.bucketName, session.objectKey);
    } catch (error) {
      throw providerError(error);
    }
    if (!object) throw badRequest(uploadErrors.notUploaded);
    if (object.size !== session.size) {
      // A wrong object must not stay under the user's name looking like their file.
      await store.deleteMany(session.bucketName, [session.objectKey]).catch((error: unknown) => {
        this.log.warn({ err: error, sessionId }, 'could not delete a mis-sized upload');
      });
      await this.#discard(store, session, handle);
      throw badRequest(uploadErrors.sizeMismatch(object.size, session.size));
    }
    if (await this.repo.finish(session.id, 'complete')) {
      await this.#settleSession(session, handle, object.size);
      await this.#recount(principal, session.cloudAccountId, session.bucketName);
    }
    await this.searchIndex?.upsertObjects(
      principal.organizationId,
      session.cloudAccountId,
      session.bucketName,
      [object],
    );
    return { key: session.objectKey, size: object.size, etag: etag ?? object.etag };
  }

  /** DELETE /transfers/uploads/{id}: nothing partial stays with the provider. */
  async abort(principal: Principal, sessionId: string) {
    const session = await this.repo.findSession(principal.organizationId, sessionId);
    if (!session) throw notFound();
    if (!principal.deviceId) authorize(principal, 'upload.abort', { createdBy: session.userId });
    else {
      // A device stops only its member's own uploads, under the ftX ACL.
      authorize(principal, 'agent.transfer');
      if (session.userId !== principal.userId) throw forbidden(authzMessages.othersUpload);
    }
    if (session.status === 'complete') throw badRequest(uploadErrors.alreadyComplete);
    if (session.status === 'aborted') return { message: uploadMessages.cancelled };
    const account = await this.#account(principal, session.cloudAccountId);
    const store = await this.registry.storeFor(account);
    const handle = this.#handleOf(session);
    if (uploadModeOf(store.provider, session.size, session.partSize) !== 'single') {
      try {
        await this.#direct(store).abort(this.#ref(session, handle));
      } catch (error) {
        // The session stays active: the sweep tries again later.
        throw providerError(error);
      }
    }
    if (await this.repo.finish(session.id, 'aborted')) await this.#settleSession(session, handle, 0);
    return { message: uploadMessages.cancelled };
  }

  /** The pg-boss sweep: aborts sessions left without activity for a day. Safe to run twice. */
  async sweepAbandoned(now = new Date()): Promise<{ aborted: number; failed: number }> {
    const stale = await this.repo.stale(new Date(now.getTime() - ABANDONED_AFTER_MS), SWEEP_BATCH);
    let aborted = 0;
    let failed = 0;
    for (const session of stale) {
      const account = await this.accounts.find(session.organizationId, session.cloudAccountId);
      if (!account) {
        if (await this.repo.finish(session.id, 'aborted'))
          await this.#settleSession(session, this.#handleOf(session), 0);
        continue;
      }
      const store = await this.registry.storeFor(account);
      if (await this.#discard(store, session, this.#handleOf(session))) aborted += 1;
      else failed += 1;
    }
    return { aborted, failed };
  }

  /** POST /transfers/report: one row per uploaded file or directory. */
  async report(principal: Principal, body: UploadReportBody) {
    authorize(principal, 'upload.start');
    const entries = body.s3_direct.files;
    for (const accountId of new Set(entries.map((entry) => entry.cloud_account_id))) {
      await this.#account(principal, accountId);
    }
    const count = await this.repo.insertReports(
      entries.map((entry) => ({
        organizationId: principal.organizationId,
        userId: principal.userId,
        cloudAccountId: entry.cloud_account_id,
        bucketName: entry.bucket_name,
        name: entry.name,
        contentType: 'is_directory' in entry ? null : (entry.contentType ?? null),
        size: entry.size,
        durationMs: Math.min(Math.round(entry.duration), 2_147_483_647),
        isDirectory: 'is_directory' in entry,
        fileCount: 'is_directory' in entry ? entry.file_count : null,
        s3Acceleration: body.s3_direct.s3Acceleration === true,
      })),
    );
    return { message: `${count} upload${count === 1 ? '' : 's'} recorded` };
  }

  /** Aborts with the provider (best effort) and ends the session; true when the provider confirmed. */
  async #discard(store: ObjectStore, session: UploadSessionRow, handle: SessionHandle): Promise<boolean> {
    const direct = store.capabilities.directUpload;
    const single = uploadModeOf(store.provider, session.size, session.partSize) === 'single';
    if (direct && !single) {
      try {
        await direct.abort(this.#ref(session, handle));
      } catch (error) {
        this.log.warn({ err: error, sessionId: session.id }, 'upload could not be aborted with the provider');
        return false;
      }
    }
    if (await this.repo.finish(session.id, 'aborted')) await this.#settleSession(session, handle, 0);
    return true;
  }

  /** A batch's sessions in one statement; a batch that could not be written holds nothing. */
  async #insertBatch(
    organizationId: string,
    metered: { quota: QuotaKey; quotaRef: string } | null,
    values: Parameters<UploadsRepo['insertSessions']>[0],
  ): Promise<UploadSessionRow[]> {
    try {
      return await this.repo.insertSessions(values);
    } catch (error) {
      if (metered) await this.#settle(organizationId, { uploadId: '', ...metered }, 0);
      throw error;
    }
  }

  /** The quota an upload counts against, when anything is metered: a transfer agent's uploads count as ftX's. */
  #reservable(principal: Principal, account: CloudAccountRow, accelerate: boolean): QuotaKey | null {
    if (!this.entitlements) return null;
    return principal.deviceId ? 'fc' : uploadQuotaOf(account.provider, accelerate);
  }

  /**
   * A session ended (complete with `usedBytes`, or aborted with 0): a session of its own settles its reservation;
   * one of a batch settles the batch's once none of its sessions is still active, to the bytes they completed.
   */
  async #settleSession(session: UploadSessionRow, handle: SessionHandle, usedBytes: number): Promise<void> {
    if (!handle.quotaRef?.startsWith(BATCH_REF)) {
      await this.#settle(session.organizationId, handle, usedBytes);
      return;
    }
    const batch = await this.repo.batchState(session);
    if (batch.active === 0) await this.#settle(session.organizationId, handle, batch.completedBytes);
  }

  /** Sessions a batch completion ended: each distinct reservation among them settled once. */
  async #settleEnded(sessions: UploadSessionRow[]): Promise<void> {
    // The sessions of one batch share one sealed handle: it is opened, and the batch settled, once.
    const batches = new Set<string>();
    for (const session of sessions) {
      if (batches.has(session.providerUploadId)) continue;
      const handle = this.#handleOf(session);
      if (handle.quotaRef?.startsWith(BATCH_REF)) batches.add(session.providerUploadId);
      await this.#settleSession(session, handle, session.size);
    }
  }

  async #settle(organizationId: string, handle: SessionHandle, usedBytes: number): Promise<void> {
    if (!this.entitlements || !handle.quota || !handle.quotaRef) return;
    await this.entitlements.settle(organizationId, handle.quota, handle.quotaRef, usedBytes);
  }

  async #active(principal: Principal, sessionId: string) {
    const session = await this.repo.findSession(principal.organizationId, sessionId);
    if (!session) throw notFound();
    if (session.status !== 'active') throw badRequest(uploadErrors.inactive);
    const account = await this.#account(principal, session.cloudAccountId);
    return { session, store: await this.registry.storeFor(account), handle: this.#handleOf(session) };
  }

  async #account(principal: Principal, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(principal.organizationId, id);
    if (!account) throw notFound();
    return account;
  }

  #direct(store: ObjectStore) {
    const direct = store.capabilities.directUpload;
    if (!direct) throw badRequest(uploadErrors.unsupported);
    return direct;
  }

  #handleOf(session: UploadSessionRow): SessionHandle {
    return JSON.parse(this.secrets.open(session.providerUploadId)) as SessionHandle;
  }

  #ref(session: UploadSessionRow, handle: SessionHandle): DirectUploadRef {
    return {
      bucket: session.bucketName,
      key: session.objectKey,
      uploadId: handle.uploadId,
      size: session.size,
      partSize: session.partSize,
    };
  }
}

/** The longest start every key shares ('' when none). */
function commonPrefix(keys: string[]): string {
  let prefix = keys[0] ?? '';
  for (const key of keys) {
    let i = 0;
    while (i < prefix.length && i < key.length && prefix[i] === key[i]) i += 1;
    prefix = prefix.slice(0, i);
  }
  // Never half of a surrogate pair: the listing would ask for a prefix no key has.
  return /[\uD800-\uDBFF]$/.test(prefix) ? prefix.slice(0, -1) : prefix;
}

/** Every part has the part size but the last, which holds the rest. */
function expectedPartSize(partNumber: number, size: number, partSize: number): number {
  return Math.min(partSize, size - (partNumber - 1) * partSize);
}
