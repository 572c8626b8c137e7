import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  abortUploadAnswer,
  bucketCorsAnswer,
  bucketCorsQuery,
  completeUploadAnswer,
  completeUploadBatchAnswer,
  completeUploadBatchBody,
  completeUploadBody,
  messageAnswer,
  s3SignedUrl,
  s3SignerQuery,
  signPartsAnswer,
  signPartsQuery,
  startUploadBatchAnswer,
  startUploadBatchBody,
  startUploadBody,
  storageUploadBody,
  text,
  updateBucketConfigAnswer,
  updateBucketConfigBody,
  uploadReportBody,
  uploadSession,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { UploadsService } from './uploads.service.ts';
import { uploadOrigins, type BucketConfigService } from './bucket-config.service.ts';

/** The direct-upload calls of spec 001 §7 (signer, report, bucket config) and the session calls around them. */
export function uploadsRoutes(
  service: UploadsService,
  bucketConfig: BucketConfigService,
  auth: AuthService,
  appOrigin: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['uploads'];
    const member = { preHandler: auth.requireAuth };
    const sessionParams = z.object({ session_id: z.uuid() });

    app.post(
      '/transfers/uploads',
      { ...member, schema: { tags, body: startUploadBody, response: { 200: uploadSession } } },
      async (request) => {
        const origins = uploadOrigins(appOrigin, request.headers.origin, request.host);
        // The browser's own origin when it is this app's, so a GCS session answers CORS to the page using it.
        return service.start(principalOf(request), request.body, origins.at(-1) ?? appOrigin);
      },
    );

    app.post(
      '/transfers/uploads/batch',
      {
        ...member,
        schema: {
          tags,
          description: 'Sessions and signed PUT URLs for up to 100 small files (one part each) at once.',
          body: startUploadBatchBody,
          response: { 200: startUploadBatchAnswer },
        },
      },
      async (request) => service.startBatch(principalOf(request), request.body),
    );

    app.post(
      '/transfers/uploads/batch/complete',
      {
        ...member,
        schema: {
          tags,
          description: "Checks and completes up to 100 of the caller's one-PUT upload sessions.",
          body: completeUploadBatchBody,
          response: { 200: completeUploadBatchAnswer },
        },
      },
      async (request) => service.completeBatch(principalOf(request), request.body.session_ids),
    );

    app.get(
      '/transfers/url_signer_v4',
      {
        ...member,
        schema: {
          tags,
          description: 'Short-lived URLs the browser PUTs the given parts of an upload session to.',
          querystring: signPartsQuery,
          response: { 200: signPartsAnswer },
        },
      },
      async (request) =>
        service.sign(
          principalOf(request),
          request.query.session_id,
          request.query.part_numbers.split(',').map(Number),
        ),
    );

    app.post(
      '/transfers/uploads/:session_id/complete',
      {
        ...member,
        schema: {
          tags,
          params: sessionParams,
          body: completeUploadBody,
          response: { 200: completeUploadAnswer },
        },
      },
      async (request) =>
        service.complete(principalOf(request), request.params.session_id, request.body.parts),
    );

    app.delete(
      '/transfers/uploads/:session_id',
      { ...member, schema: { tags, params: sessionParams, response: { 200: abortUploadAnswer } } },
      async (request) => service.abort(principalOf(request), request.params.session_id),
    );

    app.put(
      '/transfers/update_bucket_config',
      {
        ...member,
        schema: {
          tags,
          body: updateBucketConfigBody,
          response: { 200: updateBucketConfigAnswer, 400: updateBucketConfigAnswer },
        },
      },
      async (request, reply) => {
        const origins = uploadOrigins(appOrigin, request.headers.origin, request.host);
        const { ok, ...answer } = await bucketConfig.update(principalOf(request), request.body, origins);
        return reply.status(ok ? 200 : 400).send(answer);
      },
    );

    app.get(
      '/transfers/bucket_config',
      {
        ...member,
        schema: {
          tags,
          description:
            "Whether the bucket's CORS rules let this app's pages upload, and whether the caller may apply them.",
          querystring: bucketCorsQuery,
          response: { 200: bucketCorsAnswer },
        },
      },
      async (request) => {
        const origins = uploadOrigins(appOrigin, request.headers.origin, request.host);
        return bucketConfig.corsReadiness(principalOf(request), request.query, origins.at(-1) ?? appOrigin);
      },
    );

    app.post(
      '/storage/:id/content/upload',
      {
        ...member,
        schema: {
          tags,
          description:
            'Starts (or resumes) an upload session into the storage "{cloudAccountId}/{bucketName}", as ' +
            'POST /transfers/uploads does; the parts are then signed by GET /transfers/url_signer_v4.',
          params: z.object({ id: text({ max: 400 }) }),
          body: storageUploadBody,
          response: { 200: uploadSession },
        },
      },
      async (request) => {
        const origins = uploadOrigins(appOrigin, request.headers.origin, request.host);
        return service.startInStorage(
          principalOf(request),
          request.params.id,
          request.body,
          origins.at(-1) ?? appOrigin,
        );
      },
    );

    app.get(
      '/transfers/s3_url_signer_v4',
      {
        ...member,
        schema: {
          tags,
          description:
            'One Signature V4 presigned URL (GET or single-request PUT) of one object of an S3-family account.',
          querystring: s3SignerQuery,
          response: { 200: s3SignedUrl },
        },
      },
      async (request) => service.signS3(principalOf(request), request.query),
    );

    app.post(
      '/transfers/report',
      { ...member, schema: { tags, body: uploadReportBody, response: { 201: messageAnswer } } },
      async (request, reply) =>
        reply.status(201).send(await service.report(principalOf(request), request.body)),
    );
  };
}
