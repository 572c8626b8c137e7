import { z } from 'zod';
import { messages } from './messages.ts';

/**
 * The one rule every string a client sends passes (issue 20): no NUL (PostgreSQL refuses it in text), no lone
 * UTF-16 surrogate (no encoding can store it), and a bounded length. Schemas build their strings with `text()`
 * and add their own rules after it; `input-rule.spec.ts` fails when an input schema holds a string without it.
 */

/** Longest text a field takes when it names no limit of its own. */
export const TEXT_MAX_LENGTH = 4096;
/** The largest byte count a size field takes: exact in a JavaScript number and in a PostgreSQL bigint. */
export const BYTES_MAX = Number.MAX_SAFE_INTEGER;
/** The largest count a field stored in a PostgreSQL integer column takes. */
export const COUNT_MAX = 2_147_483_647;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `value` holds no NUL and no lone surrogate, so every layer down to PostgreSQL can store it. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** The check itself, shared so tests can tell a schema that applies it. */
export const storableTextCheck = z.refine<string>(isStorableText, { message: messages.textInvalid });

export interface TextOptions {
  /** Message when the value is missing or not a string. */
  error?: string;
  /** Longest length after trimming; TEXT_MAX_LENGTH when not given. */
  max?: number;
  /** Message when longer than `max`. */
  maxMessage?: string;
  /** Trim surrounding white space before the length check (and in the parsed value). */
  trim?: boolean;
}

/** A string a client sends: storable (see `isStorableText`) and at most `max` characters; chain field rules after it. */
export function text(options: TextOptions = {}) {
  const max = options.max ?? TEXT_MAX_LENGTH;
  const base = options.error === undefined ? z.string() : z.string({ error: options.error });
  const trimmed = options.trim ? base.trim() : base;
  return trimmed.check(storableTextCheck).max(max, options.maxMessage ?? messages.textTooLong(max));
}
