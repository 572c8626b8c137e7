import pg from 'pg';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { createLogger, maskUrl, serializeError } from './logger.ts';

const TOKEN = 'k3Yq9wZb1X_rT7uV-0aBcDeFgHiJkLmNoPqRsTuVwXy';

describe('maskUrl', () => {
  it.each([
    [`/api/sharing/${TOKEN}`, '/api/sharing/***'],
    [`/api/sharing/${TOKEN}/download?file=a.csv`, '/api/sharing/***/download?file=a.csv'],
    [`/sharing/${TOKEN}`, '/sharing/***'],
    [`/resetpassword/${TOKEN}`, '/resetpassword/***'],
    [`/verify/short-token`, '/verify/***'],
    [`/api/anything/${TOKEN}/more`, '/api/anything/***/more'],
    [`/signup?token=${TOKEN}&x=1`, '/signup?token=***&x=1'],
    [`/api/user/signupinfo?token=${TOKEN}`, '/api/user/signupinfo?token=***'],
    ['/rm?access_token=eyJhbGciOi.eyJzdWIi.sig', '/rm?access_token=***'],
    ['/api/verify_user?verification_token=abc', '/api/verify_user?verification_token=***'],
    [
      '/b/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=abcdef&X-Amz-Security-Token=t',
      '/b/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Security-Token=***',
    ],
    ['/c/blob?sv=2024&sig=abc%3D&se=2026', '/c/blob?sv=2024&sig=***&se=2026'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it('keeps ids and ordinary paths readable', () => {
    const id = '0b6f2c0e-5f0e-4c53-9a57-1d2e3f4a5b6c';
    expect(maskUrl(`/api/shares/${id}`)).toBe(`/api/shares/${id}`);
    expect(maskUrl('/api/objects/list?bucket=reports&prefix=q1/')).toBe(
      '/api/objects/list?bucket=reports&prefix=q1/',
    );
  });
});

describe('serializeError', () => {
  it('drops the bound values of a failed query from fields, message and stack, keeping the SQL', () => {
    const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA';
    const cause = Object.assign(new pg.DatabaseError('value too long', 0, 'error'), {
      detail: `Failing row contains (ada@example.com, ${hash}).`,
      code: '22001',
      table: 'users',
    });
    const error = new DrizzleQueryError(
      'insert into "users" values ($1, $2)',
      ['ada@example.com', hash],
      cause,
    );
    const serialized = serializeError(error);
    const text = JSON.stringify(serialized);
    expect(text).not.toContain(hash);
    expect(text).not.toContain('ada@example.com');
    expect(serialized).not.toHaveProperty('params');
    expect(serialized.message).toContain('insert into "users" values ($1, $2)');
  });

  it("drops PostgreSQL's echo of a rejected value", () => {
    const error = new pg.DatabaseError(`invalid input syntax for type uuid: "${TOKEN}"`, 0, 'error');
    expect(JSON.stringify(serializeError(error))).not.toContain(TOKEN);
  });
});

describe('createLogger', () => {
  it("never prints a card's number or security code, at the top of a logged object or in a card payload", () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    log.info({
      card: { full_number: '4242424242424242', cvv: '123', number: '4242424242424242', cvc: '123' },
    });
    log.info({ body: { credit_card_attributes: { full_number: '4000056655665556', cvv: '321' } } });
    const text = lines.join('');
    expect(text).not.toMatch(/4242424242424242|4000056655665556|"123"|"321"/);
    expect(text.split('[redacted]').length - 1).toBe(6);
  });
});
