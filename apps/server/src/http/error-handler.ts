import { messages } from '@cumulo/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { QuotaExceeded } from '../modules/billing/entitlements.ts';
import { AppError, type FieldErrors } from '../errors.ts';

/** Maps every error to `{ message, errors? }`: typed errors as they are, bad input as 400, the rest as the generic text. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      if (error.headers) void reply.headers(error.headers);
      return reply
        .status(error.statusCode)
        .send({ message: error.message, code: error.code, errors: error.errors });
    }
    if (error instanceof QuotaExceeded) {
      // Spec 001 §5: the quota modal shows the title and what is left; `remaining` is in bytes.
      return reply.status(403).send({
        message: error.message,
        code: 'QUOTA_EXCEEDED',
        title: error.title,
        quota: error.quota,
        remaining: error.remainingBytes,
      });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors: FieldErrors = {};
      for (const issue of error.validation) {
        const params = issue.params as { issue?: { path?: PropertyKey[] } } | undefined;
        // Dotted as the forms read it ('0.first_name' of a list of rows), from the issue's path or the JSON pointer.
        const field =
          params?.issue?.path?.map(String).join('.') ||
          issue.instancePath.replace(/^\//, '').replaceAll('/', '.') ||
          'base';
        (errors[field] ??= []).push(issue.message ?? 'Invalid value.');
      }
      const first = Object.values(errors)[0]?.[0] ?? 'Invalid request.';
      return reply.status(400).send({ message: first, code: 'VALIDATION', errors });
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: malformed JSON, body too large, wrong content type.
      return reply
        .status(status)
        .send({ message: clientErrorText(error as FastifyError), code: (error as FastifyError).code });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ message: messages.generic });
  });
}

function clientErrorText(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type: send JSON.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    default:
      return error.message || 'Invalid request.';
  }
}
