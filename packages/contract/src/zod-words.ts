import { z } from 'zod';

/**
 * What a refusal says when a schema gives no words of its own: a field of the wrong type, a missing one, an unknown
 * option. Zod's own texts ("Invalid input: expected string, received number") reached users through the API's 400s;
 * these name the field as a form does. Set once, for every schema of the process, when the contract is imported
 * (the server's and the web app's schemas alike); a schema's own message still comes first.
 */

/** What a value of each type is called. */
const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  null: 'empty',
};

const FORMATS: Record<string, string> = {
  uuid: 'a valid id',
  guid: 'a valid id',
  email: 'a valid email address',
  url: 'a valid URL',
  datetime: 'a valid date and time',
  date: 'a valid date (YYYY-MM-DD)',
  time: 'a valid time',
  ipv4: 'a valid IPv4 address',
  ipv6: 'a valid IPv6 address',
};

/** A property name as a form labels it: 'sourceCloudAccountId' and 'source_cloud_account_id' → 'Source cloud account id'. */
export function fieldLabel(path: readonly PropertyKey[]): string {
  const name = [...path].reverse().find((part): part is string => typeof part === 'string');
  if (name === undefined) return path.length === 0 ? 'The request' : 'This item';
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : 'This field';
}

const plural = (count: number | bigint, one: string) => `${count} ${one}${Number(count) === 1 ? '' : 's'}`;
const listed = (values: readonly unknown[]) =>
  values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');

/** The words of one issue, or undefined to keep zod's (codes that carry their schema's own message). */
export function issueWords(issue: z.core.$ZodRawIssue): string | undefined {
  const label = fieldLabel(issue.path ?? []);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `${label} is required.`;
      return `${label} must be ${KINDS[issue.expected] ?? issue.expected}.`;
    case 'invalid_value':
      return issue.values.length <= 10
        ? `${label} must be one of: ${listed(issue.values)}.`
        : `${label} is not one of the accepted values.`;
    case 'invalid_format':
      return `${label} must be ${FORMATS[issue.format] ?? 'in the expected form'}.`;
    case 'too_small': {
      const min = issue.minimum;
      if (issue.origin === 'string') {
        return Number(min) <= 1
          ? `${label} must not be empty.`
          : `${label} must have at least ${plural(min, 'character')}.`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return Number(min) <= 1
          ? `${label} must not be empty.`
          : `${label} must hold at least ${plural(min, 'item')}.`;
      }
      return `${label} must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(min)}.`;
    }
    case 'too_big': {
      const max = issue.maximum;
      if (issue.origin === 'string') return `${label} must have at most ${plural(max, 'character')}.`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `${label} must hold at most ${plural(max, 'item')}.`;
      return `${label} must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(max)}.`;
    }
    case 'not_multiple_of':
      return `${label} must be a multiple of ${String(issue.divisor)}.`;
    case 'unrecognized_keys':
      return `Unknown ${issue.keys.length === 1 ? 'field' : 'fields'}: ${issue.keys.join(', ')}.`;
    case 'invalid_union':
      return `${label} has none of the accepted forms.`;
    case 'invalid_key':
    case 'invalid_element':
      return `${label} holds a value that is not accepted.`;
    default:
      return undefined;
  }
}

z.config({ customError: issueWords });
