import { NETWORK_ERROR_CODES, networkMessage } from '../shared.ts';
import { StorageError, type Provider, type StorageErrorCode } from '../../object-store.ts';

interface SdkErrorShape {
  name: string;
  message: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  /** InvalidObjectState's fields: where the archived object lies. */
  StorageClass?: string;
  AccessTier?: string;
}

const CODE_BY_S3_ERROR: Record<string, StorageErrorCode> = {
  InvalidAccessKeyId: 'InvalidCredentials',
  SignatureDoesNotMatch: 'InvalidCredentials',
  InvalidToken: 'InvalidCredentials',
  ExpiredToken: 'InvalidCredentials',
  AccessDenied: 'AccessDenied',
  AllAccessDisabled: 'AccessDenied',
  Forbidden: 'AccessDenied',
  NoSuchBucket: 'BucketNotFound',
  NoSuchKey: 'ObjectNotFound',
  // An upload id the provider no longer knows (aborted or completed elsewhere): the object upload is gone.
  NoSuchUpload: 'ObjectNotFound',
  BucketAlreadyExists: 'BucketAlreadyExists',
  BucketAlreadyOwnedByYou: 'BucketAlreadyExists',
  InvalidBucketName: 'InvalidBucketName',
  SlowDown: 'Throttled',
  Throttling: 'Throttled',
  ThrottlingException: 'Throttled',
  TooManyRequests: 'Throttled',
  RequestLimitExceeded: 'Throttled',
  RequestThrottled: 'Throttled',
  ServiceUnavailable: 'Throttled',
  // GetObject of an archived object that was not restored; CopyObject names the same refusal either way.
  InvalidObjectState: 'Archived',
  ObjectNotInActiveTierError: 'Archived',
};

/** Whether an S3 error code asks the client to slow down (SlowDown, Throttling, ServiceUnavailable, …). */
export function isThrottlingCode(code: string): boolean {
  return CODE_BY_S3_ERROR[code] === 'Throttled';
}

/** Whether an error means no answer arrived at all: a socket error or a timeout. */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return NETWORK_ERROR_CODES.has((error as { code?: string }).code ?? '') || error.name === 'TimeoutError';
}

/** Shown when a HEAD answer carries no body, so the provider gave no message of its own. */
const FALLBACK_MESSAGES: Record<StorageErrorCode, string> = {
  InvalidCredentials: 'The access key or secret key is not valid',
  AccessDenied: 'Access denied',
  BucketNotFound: 'The bucket does not exist',
  ObjectNotFound: 'The object does not exist',
  BucketAlreadyExists: 'A bucket with this name already exists',
  InvalidBucketName: 'The bucket name is not valid',
  Throttled: 'The provider is throttling requests; please try again later',
  Unsupported: 'The provider does not support this operation',
  Network: 'The provider could not be reached',
  Archived: 'The object is archived: restore it before reading or copying it',
  Unknown: 'The provider answered with an error',
};

function isSdkError(error: unknown): error is SdkErrorShape {
  return error instanceof Error;
}

/** The HTTP status of an SDK error, or null when no answer arrived. */
export function httpStatusOf(error: unknown): number | null {
  return isSdkError(error) ? (error.$metadata?.httpStatusCode ?? null) : null;
}

/** An abort requested by the caller passes through unchanged so callers can tell it from a failure. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

function codeOf(error: SdkErrorShape, status: number | null, onHead: boolean): StorageErrorCode {
  const byName = CODE_BY_S3_ERROR[error.name];
  if (byName) return byName;
  if (status === 404) return onHead ? 'ObjectNotFound' : 'BucketNotFound';
  if (status === 403) return 'AccessDenied';
  if (status === 503 || status === 429) return 'Throttled';
  if (status === null && isNetworkError(error)) {
    return 'Network';
  }
  return 'Unknown';
}

/**
 * Maps an AWS SDK error to the one StorageError of the contract, keeping the provider's own message. `onHead`
 * says a bodiless 404 means a missing object (HeadObject) rather than a missing bucket.
 */
export function toStorageError(error: unknown, provider: Provider, onHead = false): StorageError {
  if (error instanceof StorageError) return error;
  if (!isSdkError(error)) return new StorageError('Unknown', String(error), provider, null, { cause: error });
  const status = httpStatusOf(error);
  const code = codeOf(error, status, onHead);
  // No answer arrived: the socket's text ("connect ECONNREFUSED 127.0.0.1:4568") says nothing to a user.
  if (code === 'Network') {
    const message = networkMessage(error.name === 'TimeoutError' ? error.name : error.code);
    return new StorageError(code, message, provider, status, { cause: error });
  }
  // S3 says "The operation is not valid for the object's storage class", which names neither the class nor the cure.
  if (code === 'Archived') {
    return new StorageError(code, archivedMessage(error), provider, status, { cause: error });
  }
  // Bodiless answers (HEAD) surface as the SDK's placeholder names rather than a provider message.
  const placeholder = !error.message || error.message === 'UnknownError' || error.message === error.name;
  const message = placeholder ? FALLBACK_MESSAGES[code] : error.message;
  return new StorageError(code, message, provider, status, { cause: error });
}

/** What an archived object's refusal tells a user: where the object lies, and what to do. */
function archivedMessage(error: SdkErrorShape): string {
  const where = [error.StorageClass, error.AccessTier].filter(Boolean).join(', ');
  return where
    ? `The object is archived (${where}): restore it before reading or copying it`
    : FALLBACK_MESSAGES.Archived;
}
