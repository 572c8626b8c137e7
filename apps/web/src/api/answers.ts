import { messages } from '@cumulo/contract';
import { ApiError } from './client.ts';

/*
 * Readers for the few answer fields the sign-in screens use. These screens are the first load, so they check
 * the answer shape by hand instead of pulling the contract's zod schemas (~26 KB gzip) into that load; the
 * signed-in screens parse with the schemas.
 */

function malformed(body: unknown): ApiError {
  return new ApiError(200, messages.generic, body);
}

function field(body: unknown, key: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
}

export function stringField(body: unknown, key: string): string {
  const value = field(body, key);
  if (typeof value !== 'string') throw malformed(body);
  return value;
}

export function optionalStringField(body: unknown, key: string): string | undefined {
  const value = field(body, key);
  return typeof value === 'string' ? value : undefined;
}

export function booleanField(body: unknown, key: string): boolean {
  const value = field(body, key);
  if (typeof value !== 'boolean') throw malformed(body);
  return value;
}

/** An object or null; anything else is malformed. */
export function objectField(body: unknown, key: string): object | null {
  const value = field(body, key);
  if (value === null) return null;
  if (!value || typeof value !== 'object') throw malformed(body);
  return value;
}

export function numberField(body: unknown, key: string): number {
  const value = field(body, key);
  if (typeof value !== 'number') throw malformed(body);
  return value;
}
