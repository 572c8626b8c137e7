import { StorageError } from '@cumulo/storage';
import { AppError } from '../../http/errors.ts';

/**
 * A provider refusal becomes the answer the screens show in their 'Something Went Wrong' popup: the provider's
 * own message, 400 for a refusal, 502 when the provider could not be reached or kept throttling.
 */
export function providerError(error: unknown): AppError {
  if (error instanceof StorageError) {
    const status = error.code === 'Network' || error.code === 'Throttled' ? 502 : 400;
    return new AppError(status, `CLOUD_${error.code.toUpperCase()}`, error.message);
  }
  return new AppError(502, 'CLOUD_UNKNOWN', error instanceof Error ? error.message : String(error));
}
