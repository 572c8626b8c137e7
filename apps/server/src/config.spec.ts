import { describe, expect, it } from 'vitest';
import { MAIL_LIMIT } from '@cumulo/contract';
import { ConfigError, loadConfig } from './config.ts';

describe('config', () => {
  it('has a default for every optional variable', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.PUBLIC_URL).toBe('http://localhost:8080');
    expect(config.DATA_DIR).toMatch(/\/data$/);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.MAIL_LIMIT_PER_IP).toBe(MAIL_LIMIT.perIp);
    expect(loadConfig({ MAIL_LIMIT_PER_IP: '500' }).MAIL_LIMIT_PER_IP).toBe(500);
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['PORT', '70000', /PORT/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL: must be a postgres/],
    ['MASTER_KEY', 'c2hvcnQ=', /MASTER_KEY: must be 32 bytes/],
    ['SMTP_URL', 'http://mail', /SMTP_URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['PUBLIC_URL', 'not a url', /PUBLIC_URL/],
    ['MAIL_LIMIT_PER_IP', '0', /MAIL_LIMIT_PER_IP/],
  ])('refuses a bad %s and names it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('reads OPERATOR_EMAILS as lower-cased addresses and names a bad one', () => {
    expect(loadConfig({}).OPERATOR_EMAILS).toEqual([]);
    expect(loadConfig({ OPERATOR_EMAILS: ' Ops@Example.COM, ,b@c.io ' }).OPERATOR_EMAILS).toEqual([
      'ops@example.com',
      'b@c.io',
    ]);
    expect(() => loadConfig({ OPERATOR_EMAILS: 'ops@example.com,not-an-address' })).toThrow(
      /OPERATOR_EMAILS: not an e-mail address: not-an-address/,
    );
  });

  it('bills through the manual gateway by default and refuses Stripe without its secret key', () => {
    expect(loadConfig({}).BILLING_GATEWAY).toBe('manual');
    expect(loadConfig({}).BILLING_ENTITLE_ALL).toBe(false);
    expect(() => loadConfig({ BILLING_GATEWAY: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(
      loadConfig({ BILLING_GATEWAY: 'stripe', STRIPE_SECRET_KEY: 'sk_test_123456' }).BILLING_GATEWAY,
    ).toBe('stripe');
    expect(loadConfig({ BILLING_ENTITLE_ALL: 'true' }).BILLING_ENTITLE_ALL).toBe(true);
  });

  it('takes a single sign-on client only whole: issuer, id and secret together', () => {
    expect(loadConfig({}).GOOGLE_ISSUER).toBe('https://accounts.google.com');
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: 'id' })).toThrow(/GOOGLE_CLIENT_SECRET: required/);
    expect(() => loadConfig({ OIDC_ISSUER: 'https://sso.example.com', OIDC_CLIENT_ID: 'id' })).toThrow(
      /OIDC_CLIENT_SECRET: required/,
    );
    expect(() => loadConfig({ OIDC_ISSUER: 'not a url' })).toThrow(/OIDC_ISSUER/);
    const oidc = loadConfig({
      OIDC_ISSUER: 'https://sso.example.com',
      OIDC_CLIENT_ID: 'id',
      OIDC_CLIENT_SECRET: 'secret',
    });
    expect(oidc.OIDC_NAME).toBe('Single sign-on');
  });

  it('derives PUBLIC_URL from PORT and drops a trailing slash', () => {
    expect(loadConfig({ PORT: '9000' }).PUBLIC_URL).toBe('http://localhost:9000');
    expect(loadConfig({ PUBLIC_URL: 'https://cumulo.example.com/' }).PUBLIC_URL).toBe(
      'https://cumulo.example.com',
    );
  });
});

describe('PROVIDER_ENDPOINTS', () => {
  it('reads a JSON map of provider to endpoint', () => {
    const config = loadConfig({
      PROVIDER_ENDPOINTS: '{"aws":"http://127.0.0.1:4568","azure":"http://127.0.0.1:10000/devstoreaccount1"}',
    });
    expect(config.PROVIDER_ENDPOINTS).toEqual({
      aws: 'http://127.0.0.1:4568',
      azure: 'http://127.0.0.1:10000/devstoreaccount1',
    });
    expect(loadConfig({}).PROVIDER_ENDPOINTS).toEqual({});
  });
  it.each(['not json', '{"dropbox":"http://x"}', '{"aws":"not a url"}'])(
    'refuses %s naming the variable',
    (value) => {
      expect(() => loadConfig({ PROVIDER_ENDPOINTS: value })).toThrow(/PROVIDER_ENDPOINTS/);
    },
  );
});

describe('ALLOWED_PRIVATE_ENDPOINTS', () => {
  it('takes hosts, addresses and CIDR ranges, and refuses anything else naming the variable and the entry', () => {
    expect(
      loadConfig({ ALLOWED_PRIVATE_ENDPOINTS: 'minio.lan,10.0.0.20,10.1.0.0/16' }).ALLOWED_PRIVATE_ENDPOINTS,
    ).toBe('minio.lan,10.0.0.20,10.1.0.0/16');
    expect(loadConfig({}).ALLOWED_PRIVATE_ENDPOINTS).toBe('');
    expect(() => loadConfig({ ALLOWED_PRIVATE_ENDPOINTS: 'minio.lan,http://x' })).toThrow(
      /ALLOWED_PRIVATE_ENDPOINTS: "http:\/\/x"/,
    );
  });
});
