import { accountFormMessages, connectedAccountMessages } from '@cumulo/contract';
import { StorageError } from '@cumulo/storage';
import { AppError } from '../../errors.ts';
import { OutboundRefusedError } from '../../net/outbound-policy.ts';

/**
 * The one answer to a connection that failed before a provider answered: refused by the outbound address policy,
 * a closed port, a timeout, a TLS or HTTP server that is not S3. One text and one status for all of them, so the
 * answers cannot tell a closed port from an open one (cloud-accounts README "What a failed connection says").
 * While connecting an account the endpoint is the form's input, so the answer is 400 (no 5xx for any request
 * body); a connected account's provider that stops answering is the upstream's failure, 502, whose text asks the
 * user to wait rather than to check keys that were checked when the account was connected.
 */
export function endpointUnreachable(status: 400 | 502 = 502): AppError {
  const message = status === 400 ? accountFormMessages.unreachable : connectedAccountMessages.unreachable;
  return new AppError(status, 'CLOUD_UNREACHABLE', message);
}

function refusedByPolicy(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof OutboundRefusedError) return true;
  }
  return false;
}

/**
 * A provider refusal becomes the answer the screens show in their 'Something Went Wrong' popup: the provider's
 * own message and 400 for a refusal, 502 while it kept throttling, and the one generic text when no provider
 * answered at all (the socket's own text would name the port's state).
 */
export function providerError(error: unknown): AppError {
  if (!(error instanceof StorageError) || error.code === 'Network' || refusedByPolicy(error)) {
    return endpointUnreachable();
  }
  const status = error.code === 'Throttled' ? 502 : 400;
  return new AppError(status, `CLOUD_${error.code.toUpperCase()}`, error.message);
}

/**
 * The answer to the credential check of a service URL the tenant typed: only what a real S3 service can say
 * (the key is unknown or its signature is wrong, from the S3 error's own code) and what Cumulo refuses before
 * connecting are told apart. Any other outcome, including an HTTP answer that is not S3's, is the generic text.
 */
export function endpointCheckError(error: unknown): AppError {
  if (
    error instanceof StorageError &&
    (error.code === 'InvalidCredentials' || error.code === 'Unsupported') &&
    !refusedByPolicy(error)
  ) {
    return providerError(error);
  }
  return endpointUnreachable(400);
}
