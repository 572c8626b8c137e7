import { messages } from '@cumulo/contract';

export type FieldErrors = Record<string, string[]>;

/** An error whose message is safe to show users; the HTTP layer maps it once (see http/error-handler.ts). */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, errors?: FieldErrors) =>
  new AppError(400, 'BAD_REQUEST', message, errors ?? { base: [message] });
export const unauthorized = (message: string = messages.signInAgainBody) =>
  new AppError(401, 'UNAUTHORIZED', message);
export const forbidden = (message: string = messages.forbidden, code = 'FORBIDDEN') =>
  new AppError(403, code, message);
export const notFound = (message: string = messages.notFound) => new AppError(404, 'NOT_FOUND', message);
export const tooManyRequests = (retryAfterSeconds: number, message: string = messages.tooManyAttempts) =>
  new AppError(429, 'TOO_MANY_REQUESTS', message, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
