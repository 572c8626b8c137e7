import { roleMay, uploadMessages } from '@cumulo/contract';
import type { CorsRule } from '@cumulo/storage';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { recordAudit } from '../audit/audit.writer.ts';
import type { AuditChange } from '@cumulo/contract';

export const bucketConfigMessages = {
  updated: 'Bucket configuration updated',
  accelerationUnsupported: 'Transfer acceleration is available only for AWS S3 buckets.',
  lifecycleUnsupported: 'This provider does not let Cumulo clean up incomplete uploads.',
} as const;

/** What the browser's PUTs of parts need: write the parts, read the ETag of each (S3 completes with them). */
const UPLOAD_CORS_METHODS = ['PUT', 'GET', 'HEAD', 'POST'];

/**
 * The origins the browser uploads from: the app's public origin, and the origin the request came from when it is
 * this very server reached under another name (a second host name, a port in development). Any other origin is
 * not trusted with a CORS rule.
 */
export function uploadOrigins(appOrigin: string, requestOrigin: string | undefined, requestHost: string) {
  const origins = [appOrigin];
  if (requestOrigin) {
    try {
      const origin = new URL(requestOrigin);
      if (origin.host === requestHost && origin.origin !== appOrigin) origins.push(origin.origin);
    } catch {
      // A malformed Origin header adds nothing.
    }
  }
  return origins;
}

interface BucketConfigRequest {
  cloud_account_id: string;
  bucket_name: string;
  cors?: boolean;
  s3Acceleration?: boolean;
  cleanup_incomplete_multipart?: boolean;
}

interface BucketConfigAnswer {
  ok: boolean;
  message: string;
  cors: string | null;
  s3_acceleration: string | null;
}

/** PUT /transfers/update_bucket_config/ (spec 001 §7): the settings a direct upload relies on. */
export class BucketConfigService {
  constructor(
    private readonly accounts: CloudAccountsRepo,
    private readonly registry: StoreRegistry,
    private readonly log: Logger,
  ) {}

  /**
   * GET /transfers/bucket_config: whether a CORS rule already lets `origin` PUT to the bucket and read ETag, asked
   * before the first upload so the page applies it or offers Apply before any file fails.
   */
  async corsReadiness(
    principal: Principal,
    body: { cloud_account_id: string; bucket_name: string },
    origin: string,
  ): Promise<{ cors_ready: boolean | null; may_apply: boolean }> {
    authorize(principal, 'upload.start');
    const account = await this.accounts.find(principal.organizationId, body.cloud_account_id);
    if (!account) throw notFound();
    const mayApply = roleMay(principal.role, 'bucket.configure');
    const caps = (await this.registry.storeFor(account)).capabilities;
    if (!caps.cors) return { cors_ready: null, may_apply: mayApply };
    try {
      const rules = await caps.cors.getCors(body.bucket_name);
      return { cors_ready: rules.some((rule) => letsUpload(rule, origin)), may_apply: mayApply };
    } catch (error) {
      // Reading may be refused (no permission) while uploading works: the page then finds out by trying.
      this.log.warn(
        { accountId: account.id, bucket: body.bucket_name, err: error },
        'CORS rules not readable',
      );
      return { cors_ready: null, may_apply: mayApply };
    }
  }

  async update(
    principal: Principal,
    body: BucketConfigRequest,
    origins: string[],
  ): Promise<BucketConfigAnswer> {
    authorize(principal, 'bucket.configure');
    const account = await this.accounts.find(principal.organizationId, body.cloud_account_id);
    if (!account) throw notFound();
    const caps = (await this.registry.storeFor(account)).capabilities;
    const bucket = body.bucket_name;
    const context = { accountId: account.id, bucket };
    let cors: string | null = null;
    let acceleration: string | null = null;
    let lifecycle: string | null = null;
    // What was really changed on the provider, for the bucket's audit entry (initial where it was read first).
    const applied: AuditChange[] = [];

    if (body.cors) {
      try {
        if (!caps.cors) throw new Error(`${account.provider} has no CORS settings Cumulo can change`);
        const rule: CorsRule = {
          allowedOrigins: origins,
          allowedMethods: UPLOAD_CORS_METHODS,
          allowedHeaders: ['*'],
          exposeHeaders: ['ETag'],
          maxAgeSeconds: 3600,
        };
        // The configuration is replaced as a whole: keep the bucket's other rules, replace an earlier one of ours.
        const current = await caps.cors.getCors(bucket);
        const others = current.filter((existing) => !sameOrigins(existing.allowedOrigins, origins));
        await caps.cors.putCors(bucket, [...others, rule]);
        applied.push({
          property: 'uploadCorsRule',
          value: origins.join(', '),
          initial: others.length < current.length ? origins.join(', ') : null,
        });
      } catch (error) {
        this.log.warn({ ...context, err: error }, 'CORS rule for uploads not applied');
        cors = uploadMessages.corsFailed;
      }
    }
    if (body.s3Acceleration) {
      if (!caps.accelerate) {
        acceleration = bucketConfigMessages.accelerationUnsupported;
      } else {
        try {
          await caps.accelerate.putAccelerate(bucket, true);
          applied.push({ property: 'transferAcceleration', value: 'Enabled', initial: null });
        } catch (error) {
          acceleration = messageOf(error);
        }
      }
    }
    if (body.cleanup_incomplete_multipart) {
      if (!caps.lifecycle) {
        lifecycle = bucketConfigMessages.lifecycleUnsupported;
      } else {
        try {
          await caps.lifecycle.putAbortIncompleteUploads(bucket, 1);
          applied.push({ property: 'abortIncompleteUploadsAfterDays', value: '1', initial: null });
        } catch (error) {
          lifecycle = messageOf(error);
        }
      }
    }
    if (applied.length > 0) {
      // The change is the provider's, not a row of ours: the entry is written once the provider took it.
      await recordAudit(this.accounts.orm, principal, {
        entity: 'Bucket',
        type: 'Modified',
        resource: bucket,
        resourceId: `${account.id}/${bucket}`,
        changes: applied,
      });
    }
    const failure = cors ?? acceleration ?? lifecycle;
    return {
      ok: failure === null,
      message: failure ?? bucketConfigMessages.updated,
      cors,
      s3_acceleration: acceleration,
    };
  }
}

/** The rule lets a page of `origin` PUT with any header and read the ETag of the answer. */
function letsUpload(rule: CorsRule, origin: string): boolean {
  const has = (list: string[], value: string) =>
    list.some((entry) => entry === '*' || entry.toLowerCase() === value.toLowerCase());
  return (
    has(rule.allowedOrigins, origin) &&
    has(rule.allowedMethods, 'PUT') &&
    rule.allowedHeaders.includes('*') &&
    has(rule.exposeHeaders, 'ETag')
  );
}

function sameOrigins(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((origin) => b.includes(origin));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
