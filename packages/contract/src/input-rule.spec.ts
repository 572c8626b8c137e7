import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contract from './index.ts';
import { inputRuleViolations } from './input-rule.ts';
import { text } from './text.ts';

/** Every schema of the contract a client's request is parsed with: by convention named …Body, …Query or …Params. */
const inputSchemas = Object.entries(contract as Record<string, unknown>).filter(
  (entry): entry is [string, z.ZodType] =>
    /(Body|Query|Params)$/.test(entry[0]) && entry[1] instanceof z.ZodType,
);

describe('the input rule (issue 20: no 500 on odd text or numbers)', () => {
  it('finds the request schemas of the contract', () => {
    expect(inputSchemas.map(([name]) => name)).toEqual(
      expect.arrayContaining(['signupBody', 'loginBody', 'insertAccountBody', 'c2cMoveBody', 'listingQuery']),
    );
  });

  it.each(inputSchemas)('%s bounds every string with text() and every number', (_, schema) => {
    expect(inputRuleViolations(schema)).toEqual([]);
  });

  it('tells a bare string, an unbounded number and a bare string in a union', () => {
    const schema = z.object({
      name: z.string().max(10),
      size: z.number(),
      tags: z.array(z.union([z.string(), text()])),
      ok: text({ max: 5 }),
    });
    expect(inputRuleViolations(schema)).toEqual([
      'name: string without text()',
      'size: number without a finite minimum',
      'size: number without a finite maximum',
      'tags[]|0: string without text()',
      'tags[]|0: string without a maximum length',
    ]);
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', '\udfff'],
  ])('refuses %s with the shared message, and takes emoji and accents', (_, value) => {
    const issues = contract.signupBody.safeParse({
      email: 'ada@example.com',
      password: 'Secret12',
      first_name: value,
      last_name: 'Lovelace',
    }).error?.issues;
    expect(issues?.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['first_name', contract.messages.textInvalid],
    ]);
    expect(text().parse('Zoë 😀 ../../etc %00')).toBe('Zoë 😀 ../../etc %00');
  });

  it('refuses text beyond the limit with the length in the message', () => {
    expect(text({ max: 3 }).safeParse('abcd').error?.issues[0]?.message).toBe(
      contract.messages.textTooLong(3),
    );
    expect(text().safeParse('x'.repeat(contract.TEXT_MAX_LENGTH + 1)).success).toBe(false);
  });

  it('refuses 1e308 as a calculator size with a 400 message, not a NaN or Infinity estimate', () => {
    const body = contract.calculateCostBody.safeParse({
      sourceCloudAccountId: '00000000-0000-4000-8000-000000000000',
      destinationCloudAccountId: '00000000-0000-4000-8000-000000000000',
      size: 1e308,
    });
    expect(body.error?.issues[0]?.message).toBe(contract.transferMessages.calculatorSizeMax);
  });
});
