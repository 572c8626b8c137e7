import { messages } from './messages.ts';

/** The error body every API error answers with. */
export interface ApiErrorBody {
  message?: string;
  error?: string;
  errors?: { base?: string[] } & Record<string, string[] | undefined>;
}

/** Spec 000 §8: error text is the response's message, else error, else errors.base[0], else the generic text. */
export function errorText(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as ApiErrorBody;
    if (typeof b.message === 'string' && b.message) return b.message;
    if (typeof b.error === 'string' && b.error) return b.error;
    const base = b.errors?.base?.[0];
    if (typeof base === 'string' && base) return base;
  }
  return messages.generic;
}
