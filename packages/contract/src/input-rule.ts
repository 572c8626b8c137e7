import type { z } from 'zod';
import { storableTextCheck } from './text.ts';

/** String formats whose own pattern admits only a few ASCII characters in a bounded length. */
const STRICT_FORMATS = new Set(['uuid', 'guid', 'datetime', 'date', 'time']);
/** Formats whose pattern is ASCII-only but whose length is the schema's to bound. */
const ASCII_FORMATS = new Set(['email']);

interface Check {
  _zod: {
    def: { check: string; maximum?: number; length?: number; value?: number | bigint; format?: string };
  };
}
interface Node {
  _zod: { def: Record<string, unknown> & { type: string; checks?: Check[] } };
}

/** The bounds a schema's checks set: [lowest, highest] of its length (strings) or value (numbers). */
function boundsOf(checks: Check[]): { min: number; max: number } {
  let min = -Infinity;
  let max = Infinity;
  for (const { _zod } of checks) {
    const { check, maximum, length, value, format } = _zod.def;
    if (check === 'max_length' && maximum !== undefined) max = Math.min(max, maximum);
    if (check === 'length_equals' && length !== undefined) max = Math.min(max, length);
    if (check === 'less_than' && value !== undefined) max = Math.min(max, Number(value));
    if (check === 'greater_than' && value !== undefined) min = Math.max(min, Number(value));
    if (check === 'number_format' && (format === 'safeint' || format === 'int32' || format === 'uint32')) {
      min = Math.max(
        min,
        format === 'safeint' ? Number.MIN_SAFE_INTEGER : format === 'int32' ? -(2 ** 31) : 0,
      );
      max = Math.min(max, format === 'safeint' ? Number.MAX_SAFE_INTEGER : 2 ** 32);
    }
  }
  return { min, max };
}

/**
 * Where a request schema breaks the input rule of issue 20: a string not built with `text()` (or a strict
 * format), a string or number without bounds, an unchecked value. '' paths are the root; `[]` an array's items,
 * `|n` a union's n-th option. Run over every request schema by `input-rule.spec.ts`.
 */
export function inputRuleViolations(schema: z.ZodType): string[] {
  const found: string[] = [];
  walk(schema as unknown as Node, '', found, new Set());
  return found;
}

function walk(node: Node, path: string, found: string[], seen: Set<Node>) {
  if (seen.has(node)) return;
  seen.add(node);
  const { def } = node._zod;
  // A format schema (z.int(), z.email()) is itself the check of its format.
  const checks =
    typeof def.check === 'string' ? [node as unknown as Check, ...(def.checks ?? [])] : (def.checks ?? []);
  const at = path || '(root)';
  const child = (value: unknown, suffix: string) => {
    const named = path !== '' && /^\w/.test(suffix);
    walk(value as Node, named ? `${path}.${suffix}` : `${path}${suffix}`, found, seen);
  };
  switch (def.type) {
    case 'string': {
      const format = typeof def.format === 'string' ? def.format : null;
      if (format !== null && STRICT_FORMATS.has(format)) return;
      if (
        !(format !== null && ASCII_FORMATS.has(format)) &&
        !checks.some((check) => check === storableTextCheck)
      )
        found.push(`${at}: string without text()`);
      if (!Number.isFinite(boundsOf(checks).max)) found.push(`${at}: string without a maximum length`);
      return;
    }
    case 'number': {
      const { min, max } = boundsOf(checks);
      if (min < -Number.MAX_SAFE_INTEGER) found.push(`${at}: number without a finite minimum`);
      if (max > Number.MAX_SAFE_INTEGER) found.push(`${at}: number without a finite maximum`);
      return;
    }
    case 'any':
    case 'unknown':
      found.push(`${at}: unchecked value`);
      return;
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, unknown>)) child(value, key);
      return;
    case 'array':
      child(def.element, '[]');
      return;
    case 'union':
      (def.options as unknown[]).forEach((option, index) => child(option, `|${index}`));
      return;
    case 'record':
      child(def.keyType, '{key}');
      child(def.valueType, '{value}');
      return;
    case 'intersection':
      child(def.left, '');
      child(def.right, '');
      return;
    case 'pipe':
      child(def.in, '');
      child(def.out, '');
      return;
    case 'lazy':
      child((def.getter as () => unknown)(), '');
      return;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      child(def.innerType, '');
      return;
    default:
      // literal, enum, boolean, null, transform, …: nothing free-form to bound.
      return;
  }
}
