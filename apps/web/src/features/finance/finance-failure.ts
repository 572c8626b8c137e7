import { ApiError } from '../../api/client.ts';

/**
 * What a finance form says when saving fails (spec 002 §8): the server's own words for a refusal it explained
 * (a 4xx with a message, such as 'A product named Backups already exists.'), else the screen's fallback toast.
 * A 5xx or a lost connection carries nothing a member can act on, so the fallback reads better there.
 */
export function refusalOr(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) return fallback;
  const body: unknown = error.body;
  const explained =
    body !== null && typeof body === 'object' && 'message' in body && typeof body.message === 'string';
  return explained ? error.message : fallback;
}
