import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shareByEmailBody } from './sharing.ts';
import { fieldLabel } from './zod-words.ts';

const wordsOf = (schema: z.ZodType, value: unknown) =>
  schema.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];

describe('the words of a refusal whose schema gives none', () => {
  it('names the field and what it must be, instead of the library text', () => {
    const file = { cloud_account_id: crypto.randomUUID(), bucket_name: 'b', path: 'a.txt', name: 'a.txt' };
    const share = { files: [file] };
    expect(wordsOf(shareByEmailBody, { ...share, recipients: ['a@b.co'], password: 12345 })).toEqual([
      'Password must be text.',
    ]);
    const body = z.strictObject({
      sourceCloudAccountId: z.uuid(),
      count: z.number().int().min(2).max(9),
      kind: z.enum(['copy', 'move']),
      tags: z.array(z.string()).min(1),
      name: z.string().min(3),
      flag: z.boolean(),
    });
    expect(
      wordsOf(body, { sourceCloudAccountId: 'x', count: 1.5, kind: 'zip', tags: [], name: 'ab', extra: 1 }),
    ).toEqual([
      'Source cloud account id must be a valid id.',
      'Count must be a whole number.',
      'Kind must be one of: copy, move.',
      'Tags must not be empty.',
      'Name must have at least 3 characters.',
      'Flag is required.',
      'Unknown field: extra.',
    ]);
    expect(wordsOf(body.shape.count, 10)).toEqual(['The request must be at most 9.']);
    expect(wordsOf(z.array(z.object({ first_name: z.string() })), [{ first_name: null }])).toEqual([
      'First name must be text.',
    ]);
  });

  it("keeps a schema's own words", () => {
    expect(wordsOf(z.string({ error: 'Please enter a name.' }), 3)).toEqual(['Please enter a name.']);
    expect(wordsOf(z.number().min(1, 'At least one, please.'), 0)).toEqual(['At least one, please.']);
  });

  it('labels a path by its last property name', () => {
    expect(fieldLabel(['files', 0, 'bucket_name'])).toBe('Bucket name');
    expect(fieldLabel(['recipients', 2])).toBe('Recipients');
    expect(fieldLabel([0])).toBe('This item');
    expect(fieldLabel([])).toBe('The request');
  });
});
