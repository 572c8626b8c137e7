import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who may read /metrics: nobody when METRICS_TOKEN is unset (404: metrics are off), the bearer of the token
 * otherwise (401 for anyone else). Compared as SHA-256 digests, in constant time whatever the lengths.
 */
export function metricsAccess(
  token: string | undefined,
  authorization: string | undefined,
): 'off' | 'denied' | 'allowed' {
  if (!token) return 'off';
  const match = /^Bearer (.+)$/i.exec(authorization ?? '');
  if (!match?.[1]) return 'denied';
  const given = createHash('sha256').update(match[1]).digest();
  const wanted = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, wanted) ? 'allowed' : 'denied';
}

export const metricsDenied = 'A valid metrics token is required: Authorization: Bearer <METRICS_TOKEN>.';
