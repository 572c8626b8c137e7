import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authenticator } from 'otplib';
import { sql } from 'drizzle-orm';
import { MAIL_LIMIT, messages, RECOVERY_CODE_ALPHABET, SIGN_IN_BACKOFF } from '@cumulo/contract';
import { linkToken, startTestServer, type TestServer } from '../../../test/harness.ts';
import { SignInLimiter, backoffSeconds } from './sign-in-limiter.ts';

const PASSWORD = 'Sunny#day7';
let server: TestServer;
const logLines: string[] = [];
let counter = 0;
/** Each test calls from its own client address, so the per-address limits of one test do not reach the next. */
let clientIp = '10.0.0.1';
beforeEach(() => {
  clientIp = `10.0.${Math.floor(counter / 200)}.${(counter % 200) + 2}`;
  counter++;
});
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${++counter}@example.com`;

/**
 * The TOTP code of the time step `offset` steps from now. Cumulo accepts one step of drift either way and each
 * step only once, so a flow that needs several codes in a row takes them from successive steps.
 */
const codeAt = (secret: string, offset: number) =>
  authenticator.clone({ epoch: Date.now() + offset * 30_000 }).generate(secret);

/** Waits out the last seconds of a step so codes computed now are still valid when they arrive. */
async function awayFromStepEdge() {
  const remaining = authenticator.timeRemaining();
  if (remaining < 3) await new Promise((r) => setTimeout(r, (remaining + 1) * 1000));
}

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token?: string) {
  const res = await server.app.inject({
    method,
    url,
    payload: body === undefined ? undefined : (body as object),
    headers: token ? { authorization: `Bearer ${token}` } : {},
    remoteAddress: clientIp,
  });
  return {
    status: res.statusCode,
    body: res.body ? (res.json() as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

async function requestToken() {
  const res = await call('POST', '/api/authentication/request_token');
  return String(res.body.token);
}

async function login(username: string, password: string) {
  return call('POST', '/api/authentication/Login', {
    requestToken: await requestToken(),
    username,
    password,
  });
}

/** Signs up, follows the e-mailed verification link and signs in; returns the session token. */
async function signUpVerified(email = uniqueEmail('owner'), company = 'Acme') {
  const signup = await call('POST', '/api/users', {
    email,
    password: PASSWORD,
    first_name: 'Ada',
    last_name: 'Lovelace',
    company,
  });
  expect(signup.status).toBe(201);
  const mail = await server.mail.waitFor(email, 'Verify your e-mail');
  const token = linkToken(mail, /http:\/\/cumulo\.test\/verify\/([\w-]+)/);
  expect((await call('PUT', '/api/verify_user', { verification_token: token })).status).toBe(200);
  const res = await login(email, PASSWORD);
  expect(res.body.challenge).toBe(0);
  return { email, jwt: String(res.body.jwtToken) };
}

beforeAll(async () => {
  server = await startTestServer({}, logLines);
});
afterAll(async () => {
  await server?.stop();
});

describe('identity API against embedded PostgreSQL and an SMTP sink', () => {
  it('signs up a new address as Owner of a new organisation, verifies by e-mail and signs in', async () => {
    const email = uniqueEmail('Mixed.Case').toUpperCase();
    const signup = await call('POST', '/api/users', {
      email,
      password: PASSWORD,
      first_name: 'Grace',
      last_name: 'Hopper',
      company: 'Navy Labs',
    });
    expect(signup.status).toBe(201);
    expect(signup.body).toEqual({ email: email.toLowerCase(), message: messages.signupDone });

    const before = await login(email.toLowerCase(), PASSWORD);
    expect(before.status).toBe(403);
    expect(before.body.code).toBe('EMAIL_NOT_VERIFIED');
    expect(before.body.message).toBe(messages.emailNotVerified);

    const mail = await server.mail.waitFor(email.toLowerCase(), 'Verify your e-mail');
    expect(mail.body).toContain('expires after 24 hours');
    const token = linkToken(mail, /http:\/\/cumulo\.test\/verify\/([\w-]+)/);
    const verified = await call('PUT', '/api/verify_user', { verification_token: token });
    expect(verified.status).toBe(200);

    const reused = await call('PUT', '/api/verify_user', { verification_token: token });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe(messages.verifyLinkInvalid);

    const res = await login(email.toLowerCase(), PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.challenge).toBe(0);
    const me = await call('GET', '/api/users/_me', undefined, String(res.body.jwtToken));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      email: email.toLowerCase(),
      first_name: 'Grace',
      company: 'Navy Labs',
      role: { id: 1, title: 'Owner' },
      packages: [],
      userType: 4,
      mfa_enabled: false,
      organization: {
        name: 'Navy Labs',
        is_cbs: false,
        confirmed_wasabi: false,
        confirmed_c2c: false,
        confirmed_ftx: false,
      },
    });
    const info = await call('GET', '/api/user/userinfo', undefined, String(res.body.jwtToken));
    expect(info.body).toEqual(me.body);
    expect(JSON.stringify(me.body)).not.toMatch(/argon2|password/i);
  });

  it('refuses an expired verification link', async () => {
    const email = uniqueEmail('late');
    await call('POST', '/api/users', { email, password: PASSWORD, first_name: 'L', last_name: 'Ate' });
    const token = linkToken(await server.mail.waitFor(email, 'Verify'), /\/verify\/([\w-]+)/);
    await server.db.orm.execute(sql`update user_tokens set expires_at = now() - interval '1 second'`);
    const res = await call('PUT', '/api/verify_user', { verification_token: token });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(messages.verifyLinkInvalid);
  });

  it('resends the verification mail with a new link that replaces the old one', async () => {
    const email = uniqueEmail('resend');
    await call('POST', '/api/users', { email, password: PASSWORD, first_name: 'Re', last_name: 'Send' });
    const first = linkToken(await server.mail.waitFor(email, 'Verify'), /\/verify\/([\w-]+)/);
    const resent = await call('PUT', '/api/resend_verification_email', { email });
    expect(resent.status).toBe(200);
    expect(resent.body.message).toBe(messages.resetEmailSent);
    await expect
      .poll(
        () => server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Verify')).length,
      )
      .toBe(2);
    const mails = server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Verify'));
    const [, secondMail] = mails;
    if (!secondMail) throw new Error('no second verification mail');
    const second = linkToken(secondMail, /\/verify\/([\w-]+)/);
    expect(second).not.toBe(first);
    expect((await call('PUT', '/api/verify_user', { verification_token: first })).status).toBe(400);
    expect((await call('PUT', '/api/verify_user', { verification_token: second })).status).toBe(200);

    const ghost = uniqueEmail('ghost');
    const unknown = await call('PUT', '/api/resend_verification_email', { email: ghost });
    expect(unknown.body).toEqual(resent.body);
    const verifiedAgain = await call('PUT', '/api/resend_verification_email', { email });
    expect(verifiedAgain.body).toEqual(resent.body);
    await new Promise((r) => setTimeout(r, 300));
    expect(server.mail.received.filter((m) => m.to.includes(ghost))).toHaveLength(0);
    expect(
      server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Verify')),
    ).toHaveLength(2);
  });

  it('answers a sign-up of an existing address like a new one, and mails the owner instead', async () => {
    const { email } = await signUpVerified();
    const again = await call('POST', '/api/users', {
      email,
      password: PASSWORD,
      first_name: 'X',
      last_name: 'Y',
    });
    expect(again.status).toBe(201);
    expect(again.body.message).toBe(messages.signupDone);
    await server.mail.waitFor(email, 'You already have a Cumulo account');
  });

  it('rejects wrong passwords and unknown users with the same answer', async () => {
    const { email } = await signUpVerified();
    const wrong = await login(email, 'Wrong#pass1');
    const unknown = await login(uniqueEmail('nobody'), 'Wrong#pass1');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe(messages.wrongCredentials);
    expect(unknown.body.message).toBe(messages.wrongCredentials);
  });

  it('requires a valid request token on the sign-in calls', async () => {
    const missing = await call('POST', '/api/authentication/Login', { username: 'a@b.co', password: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toHaveProperty('requestToken');
    const forged = await call('POST', '/api/authentication/Login', {
      requestToken: 'eyJhbGciOiJIUzI1NiJ9.e30.invalid',
      username: 'a@b.co',
      password: 'x',
    });
    expect(forged.status).toBe(400);
    expect(forged.body.message).toBe(messages.requestTokenInvalid);
  });

  it('slows sign-in per user name with a back-off, and lets the owner in once it has passed', async () => {
    const { email } = await signUpVerified();
    for (let i = 0; i < SIGN_IN_BACKOFF.freePerUser; i++)
      expect((await login(email, 'Wrong#pass1')).status).toBe(401);
    // The free tries are used up: the next one waits the first delay, even with the right password.
    const waiting = await login(email, PASSWORD);
    expect(waiting.status).toBe(429);
    const retryAfter = Number(waiting.headers['retry-after']);
    expect(waiting.body.message).toBe(messages.signInWait(retryAfter));
    expect(retryAfter).toBe(backoffSeconds(SIGN_IN_BACKOFF.freePerUser, SIGN_IN_BACKOFF.freePerUser));
    // A try made while waiting is refused without counting: the wait does not grow.
    expect(Number((await login(email, 'Wrong#pass1')).headers['retry-after'])).toBeLessThanOrEqual(
      retryAfter,
    );

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    const signedIn = await login(email, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.challenge).toBe(0);
    // The success forgot the failures: the free tries are back.
    expect((await login(email, 'Wrong#pass1')).status).toBe(401);
  });

  it("after an attacker's failures, the owner signs in at once through the e-mailed password reset", async () => {
    const { email } = await signUpVerified();
    clientIp = '10.9.9.9';
    for (let i = 0; i < SIGN_IN_BACKOFF.freePerUser; i++)
      expect((await login(email, 'Wrong#pass1')).status).toBe(401);
    expect((await login(email, 'Wrong#pass1')).status).toBe(429);
    // A long attack: further failures counted by another web process (the counters live in PostgreSQL), so the
    // account now waits minutes, far longer than this test.
    const otherProcess = new SignInLimiter(server.db.pool);
    for (let i = 0; i < 8; i++) await otherProcess.recordFailure(email, '10.9.9.9');

    // The owner, from another address, asks for a reset; the reset flow is not held by the back-off.
    clientIp = '10.9.9.10';
    const waiting = await login(email, PASSWORD);
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(60);
    await call('POST', '/api/authentication/forgot_password', {
      username: email,
      requestToken: await requestToken(),
    });
    const mail = await server.mail.waitFor(email, 'Reset your Cumulo password');
    const resetToken = linkToken(mail, /http:\/\/cumulo\.test\/resetpassword\/([\w-]+)/);
    const newPassword = 'Fresh#start8';
    expect(
      (
        await call('POST', '/api/authentication/reset_password', {
          password: newPassword,
          resetToken,
          requestToken: await requestToken(),
        })
      ).status,
    ).toBe(200);
    const signedIn = await login(email, newPassword);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.challenge).toBe(0);
  });

  it("slows an address that fails across many user names, and not another address's sign-ins", async () => {
    const { email } = await signUpVerified();
    const fromAddress = async (ip: string, username: string, password: string) => {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/authentication/Login',
        payload: { requestToken: await requestToken(), username, password },
        remoteAddress: ip,
      });
      return { status: res.statusCode, retryAfter: Number(res.headers['retry-after']) };
    };
    const statuses = [];
    for (let i = 0; i < SIGN_IN_BACKOFF.freePerIp; i++)
      statuses.push((await fromAddress('10.1.1.1', uniqueEmail('spray'), 'Wrong#pass1')).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    // Each user name failed once only; the address is what waits now, for any account.
    const sprayer = await fromAddress('10.1.1.1', email, PASSWORD);
    expect(sprayer.status).toBe(429);
    expect(sprayer.retryAfter).toBeGreaterThan(0);
    expect((await fromAddress('10.1.1.2', email, PASSWORD)).status).toBe(200);
  });

  it('resets a forgotten password through a single-use e-mailed link and ends older sign-ins', async () => {
    const { email, jwt } = await signUpVerified();
    const unknown = await call('POST', '/api/authentication/forgot_password', {
      username: uniqueEmail('ghost'),
      requestToken: await requestToken(),
    });
    const known = await call('POST', '/api/authentication/forgot_password', {
      username: email,
      requestToken: await requestToken(),
    });
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(known.body.message).toBe(messages.resetEmailSent);

    const mail = await server.mail.waitFor(email, 'Reset your Cumulo password');
    const resetToken = linkToken(mail, /http:\/\/cumulo\.test\/resetpassword\/([\w-]+)/);
    const weak = await call('POST', '/api/authentication/reset_password', {
      password: 'short',
      resetToken,
      requestToken: await requestToken(),
    });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual({ password: [messages.passwordRules] });

    const newPassword = 'Brand#new9';
    const reset = await call('POST', '/api/authentication/reset_password', {
      password: newPassword,
      resetToken,
      requestToken: await requestToken(),
    });
    expect(reset.status).toBe(200);
    expect(reset.body.message).toBe(messages.passwordReset);
    const reused = await call('POST', '/api/authentication/reset_password', {
      password: 'Another#one9',
      resetToken,
      requestToken: await requestToken(),
    });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe(messages.resetLinkInvalid);

    expect((await call('GET', '/api/users/_me', undefined, jwt)).status).toBe(401);
    expect((await login(email, PASSWORD)).status).toBe(401);
    expect((await login(email, newPassword)).body.challenge).toBe(0);
    expect(server.mail.received.filter((m) => m.to.includes(uniqueEmail('ghost')))).toHaveLength(0);
  });

  it('sends at most the hourly number of mails to one address, answering every request alike', async () => {
    const { email } = await signUpVerified();
    const answers = [];
    for (let i = 0; i <= MAIL_LIMIT.perAddress; i++) {
      answers.push(
        await call('POST', '/api/authentication/forgot_password', {
          username: email,
          requestToken: await requestToken(),
        }),
      );
    }
    expect(answers.every((a) => a.status === 200 && a.body.message === messages.resetEmailSent)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    // One verification mail plus resets up to the limit.
    const resets = server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Reset'));
    expect(resets).toHaveLength(MAIL_LIMIT.perAddress - 1);
  });

  it('answers 429 when one client address asks for too many mails', async () => {
    const statuses = [];
    for (let i = 0; i <= MAIL_LIMIT.perIp; i++) {
      const res = await call('POST', '/api/authentication/forgot_password', {
        username: uniqueEmail('flood'),
        requestToken: await requestToken(),
      });
      statuses.push(res.status);
      if (res.status === 429) expect(res.body.message).toBe(messages.tooManyMails);
    }
    expect(statuses.slice(0, MAIL_LIMIT.perIp).every((s) => s === 200)).toBe(true);
    expect(statuses[MAIL_LIMIT.perIp]).toBe(429);
  });

  it('refuses an expired reset link, and an older link once a newer one was sent', async () => {
    const { email } = await signUpVerified();
    const ask = async () => {
      const before = server.mail.received.filter(
        (m) => m.to.includes(email) && m.subject.includes('Reset'),
      ).length;
      await call('POST', '/api/authentication/forgot_password', {
        username: email,
        requestToken: await requestToken(),
      });
      await expect
        .poll(
          () =>
            server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Reset')).length,
        )
        .toBe(before + 1);
      const mails = server.mail.received.filter((m) => m.to.includes(email) && m.subject.includes('Reset'));
      const last = mails.at(-1);
      if (!last) throw new Error('no reset mail');
      return linkToken(last, /resetpassword\/([\w-]+)/);
    };
    const reset = async (resetToken: string) =>
      call('POST', '/api/authentication/reset_password', {
        password: 'Brand#new9',
        resetToken,
        requestToken: await requestToken(),
      });
    const older = await ask();
    const newer = await ask();
    expect((await reset(older)).body.message).toBe(messages.resetLinkInvalid);
    await server.db.pool.query(
      "update user_tokens set expires_at = now() - interval '1 second' where kind = 'reset_password'",
    );
    const expired = await reset(newer);
    expect(expired.status).toBe(400);
    expect(expired.body.message).toBe(messages.resetLinkInvalid);
    expect((await login(email, PASSWORD)).body.challenge).toBe(0);
  });

  it('enrols MFA with a TOTP, then signs in through the MFA challenge, and disables it', async () => {
    const { email, jwt } = await signUpVerified();
    await awayFromStepEdge();
    const generated = await call('POST', '/api/user/generate_mfa_token', undefined, jwt);
    expect(generated.status).toBe(200);
    const secret = String(generated.body.secret);
    expect(String(generated.body.qr_code)).toMatch(/^data:image\/png;base64,/);
    expect(String(generated.body.otpauth_url)).toContain('issuer=Cumulo');

    const wrongEnable = await call('POST', '/api/user/set_mfa', { enabled: true, userCode: '000000' }, jwt);
    expect(wrongEnable.status).toBe(400);
    const enabled = await call(
      'POST',
      '/api/user/set_mfa',
      { enabled: true, userCode: codeAt(secret, -1) },
      jwt,
    );
    expect(enabled.body.message).toBe(messages.mfaEnabled);
    const me = await call('GET', '/api/users/_me', undefined, jwt);
    expect(me.body.mfa_enabled).toBe(true);
    expect(JSON.stringify(me.body)).not.toContain(secret);

    const first = await login(email, PASSWORD);
    expect(first.body).toEqual({ challenge: 1, session: expect.any(String) });
    const session = String(first.body.session);
    const wrong = await call('POST', '/api/authentication/mfa_respond', {
      requestToken: await requestToken(),
      userCode: codeAt(secret, 0) === '123456' ? '654321' : '123456',
      session,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe(messages.wrongMfaCode);
    const forged = await call('POST', '/api/authentication/mfa_respond', {
      requestToken: await requestToken(),
      userCode: codeAt(secret, 0),
      session: `${session}x`,
    });
    expect(forged.status).toBe(401);
    const ok = await call('POST', '/api/authentication/mfa_respond', {
      requestToken: await requestToken(),
      userCode: codeAt(secret, 0),
      session,
    });
    expect(ok.status).toBe(200);
    const mfaJwt = String(ok.body.jwtToken);
    expect((await call('GET', '/api/users/_me', undefined, mfaJwt)).status).toBe(200);

    const disabled = await call(
      'POST',
      '/api/user/set_mfa',
      { enabled: false, userCode: codeAt(secret, 1) },
      mfaJwt,
    );
    expect(disabled.body.message).toBe(messages.mfaDisabled);
    expect((await login(email, PASSWORD)).body.challenge).toBe(0);
    // The TOTP secret is sealed at rest.
    const stored = await server.db.pool.query(
      'select mfa_secret, mfa_pending_secret from users where email = $1',
      [email],
    );
    expect(stored.rows[0]).toEqual({ mfa_secret: null, mfa_pending_secret: null });
  });

  it('refuses a TOTP code that was already used, even within its validity', async () => {
    const { email, jwt } = await signUpVerified();
    await awayFromStepEdge();
    const secret = String((await call('POST', '/api/user/generate_mfa_token', undefined, jwt)).body.secret);
    expect(
      (await call('POST', '/api/user/set_mfa', { enabled: true, userCode: codeAt(secret, -1) }, jwt)).status,
    ).toBe(200);
    const respond = async (userCode: string) => {
      const challenge = await login(email, PASSWORD);
      return call('POST', '/api/authentication/mfa_respond', {
        requestToken: await requestToken(),
        userCode,
        session: String(challenge.body.session),
      });
    };
    const code = codeAt(secret, 0);
    expect((await respond(code)).status).toBe(200);
    const replayed = await respond(code);
    expect(replayed.status).toBe(401);
    // Told apart from a wrong code: the user who signs in again within the same 30 s knows to wait.
    expect(replayed.body.message).toBe(messages.mfaCodeAlreadyUsed);
    expect(replayed.body.message).toBe(
      'This code was already used. Wait for the next code from your authenticator app, then enter it.',
    );
    expect((await respond(codeAt(secret, 1))).status).toBe(200);
  });

  describe('MFA recovery codes', () => {
    /** Signs up, enables MFA and returns what the enabling answered. */
    async function enrolled() {
      const { email, jwt } = await signUpVerified();
      await awayFromStepEdge();
      const secret = String((await call('POST', '/api/user/generate_mfa_token', undefined, jwt)).body.secret);
      const enabled = await call(
        'POST',
        '/api/user/set_mfa',
        { enabled: true, userCode: codeAt(secret, -1) },
        jwt,
      );
      expect(enabled.status).toBe(200);
      expect(enabled.body.message).toBe(messages.mfaEnabled);
      const codes = enabled.body.recovery_codes as string[];
      return { email, jwt, secret, codes };
    }

    /** A fresh password step, then the MFA step with `userCode`. */
    async function signInWith(email: string, userCode: string) {
      const challenge = await login(email, PASSWORD);
      expect(challenge.body.challenge).toBe(1);
      return call('POST', '/api/authentication/mfa_respond', {
        requestToken: await requestToken(),
        userCode,
        session: String(challenge.body.session),
      });
    }

    const storedHashes = async (email: string) =>
      (
        await server.db.pool.query<{ code_hash: string; used_at: Date | null }>(
          `select c.code_hash, c.used_at from mfa_recovery_codes c join users u on u.id = c.user_id
           where u.email = $1`,
          [email],
        )
      ).rows;

    it('answers ten distinct codes once at enrolment and stores only their keyed hashes', async () => {
      const { email, jwt, codes } = await enrolled();
      const shape = new RegExp(`^[${RECOVERY_CODE_ALPHABET}]{5}-[${RECOVERY_CODE_ALPHABET}]{5}$`);
      expect(codes).toHaveLength(10);
      for (const code of codes) expect(code).toMatch(shape);
      expect(new Set(codes).size).toBe(10);

      // Later reads tell how many are left, never the codes.
      const status = await call('GET', '/api/user/mfa_recovery_codes', undefined, jwt);
      expect(status.body).toEqual({ remaining: 10 });
      const me = await call('GET', '/api/users/_me', undefined, jwt);
      for (const code of codes) {
        expect(JSON.stringify(me.body)).not.toContain(code.slice(0, 5));
      }

      const rows = await storedHashes(email);
      expect(rows).toHaveLength(10);
      const dump = JSON.stringify(rows);
      for (const code of codes) {
        expect(dump).not.toContain(code);
        expect(dump).not.toContain(code.replace('-', ''));
      }
      for (const row of rows) expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('signs in once with a recovery code, in any case and without the dash, and never again with it', async () => {
      const { email, jwt, codes } = await enrolled();
      const [first = '', second = ''] = codes;
      const used = await signInWith(email, first.toUpperCase());
      expect(used.status).toBe(200);
      expect((await call('GET', '/api/users/_me', undefined, String(used.body.jwtToken))).status).toBe(200);

      const again = await signInWith(email, first);
      expect(again.status).toBe(401);
      expect(again.body.message).toBe(messages.wrongRecoveryCode);
      expect((await signInWith(email, second.replace('-', ''))).status).toBe(200);
      expect((await call('GET', '/api/user/mfa_recovery_codes', undefined, jwt)).body).toEqual({
        remaining: 8,
      });
      expect((await storedHashes(email)).filter((row) => row.used_at !== null)).toHaveLength(2);
    });

    it('spends a code only once when two sign-ins race with it', async () => {
      const { email, codes } = await enrolled();
      const [code = ''] = codes;
      const answers = await Promise.all([signInWith(email, code), signInWith(email, code)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    });

    it('renews the codes with the password or a TOTP code, voiding every earlier one', async () => {
      const { email, jwt, secret, codes: old } = await enrolled();
      expect((await signInWith(email, old[0] ?? '')).status).toBe(200);

      const noProof = await call('POST', '/api/user/mfa_recovery_codes', {}, jwt);
      expect(noProof.status).toBe(400);
      const wrongPassword = await call(
        'POST',
        '/api/user/mfa_recovery_codes',
        { password: 'Wrong#pass1' },
        jwt,
      );
      expect(wrongPassword.status).toBe(400);
      expect(wrongPassword.body.message).toBe(messages.wrongOldPassword);

      const renewed = await call('POST', '/api/user/mfa_recovery_codes', { password: PASSWORD }, jwt);
      expect(renewed.status).toBe(200);
      expect(renewed.body.message).toBe(messages.recoveryCodesRenewed);
      const fresh = renewed.body.recovery_codes as string[];
      expect(fresh).toHaveLength(10);
      expect(fresh.some((code) => old.includes(code))).toBe(false);
      expect((await call('GET', '/api/user/mfa_recovery_codes', undefined, jwt)).body).toEqual({
        remaining: 10,
      });
      expect(await storedHashes(email)).toHaveLength(10);

      const stale = await signInWith(email, old[1] ?? '');
      expect(stale.status).toBe(401);
      expect(stale.body.message).toBe(messages.wrongRecoveryCode);
      expect((await signInWith(email, fresh[0] ?? '')).status).toBe(200);

      const byTotp = await call('POST', '/api/user/mfa_recovery_codes', { userCode: codeAt(secret, 0) }, jwt);
      expect(byTotp.status).toBe(200);
      expect((await signInWith(email, fresh[1] ?? '')).status).toBe(401);
    });

    it('removes the codes when MFA is turned off', async () => {
      const { email, jwt, secret } = await enrolled();
      const disabled = await call(
        'POST',
        '/api/user/set_mfa',
        { enabled: false, userCode: codeAt(secret, 0) },
        jwt,
      );
      expect(disabled.body).toEqual({ message: messages.mfaDisabled });
      expect(await storedHashes(email)).toHaveLength(0);
      expect((await call('GET', '/api/user/mfa_recovery_codes', undefined, jwt)).body).toEqual({
        remaining: 0,
      });
    });

    it('counts wrong recovery codes in the sign-in back-off like wrong TOTP codes', async () => {
      const { email, codes } = await enrolled();
      const challenge = await login(email, PASSWORD);
      const respond = async (userCode: string) =>
        call('POST', '/api/authentication/mfa_respond', {
          requestToken: await requestToken(),
          userCode,
          session: String(challenge.body.session),
        });
      for (let i = 0; i < SIGN_IN_BACKOFF.freePerUser; i++) {
        expect((await respond('zzzzz-zzzzz')).body.message).toBe(messages.wrongRecoveryCode);
      }
      // Even a valid code waits now; it is not spent by the refused try.
      expect((await respond(codes[0] ?? '')).status).toBe(429);
    });
  });

  it('stores the TOTP secret sealed, never in plain text', async () => {
    const { email, jwt } = await signUpVerified();
    const secret = String((await call('POST', '/api/user/generate_mfa_token', undefined, jwt)).body.secret);
    await call('POST', '/api/user/set_mfa', { enabled: true, userCode: authenticator.generate(secret) }, jwt);
    const stored = await server.db.pool.query(
      'select mfa_secret, password_hash from users where email = $1',
      [email],
    );
    expect(stored.rows[0].mfa_secret).toMatch(/^v1\./);
    expect(stored.rows[0].mfa_secret).not.toContain(secret);
    expect(stored.rows[0].password_hash).toMatch(/^\$argon2id\$/);
  });

  it('revokes the token on logout', async () => {
    const { jwt } = await signUpVerified();
    expect((await call('POST', '/api/authentication/logout', undefined, jwt)).status).toBe(204);
    const after = await call('GET', '/api/users/_me', undefined, jwt);
    expect(after.status).toBe(401);
    expect(after.body.message).toBe(messages.signInAgainBody);
  });

  it('changes the password: checks the old one, revokes earlier tokens, hands back a new one', async () => {
    const { email, jwt } = await signUpVerified();
    const bad = await call(
      'PUT',
      '/api/users/_me/change_password',
      { old_password: 'Nope#nope1', new_password: 'Fresh#pass2' },
      jwt,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({ old_password: [messages.wrongOldPassword] });
    const weak = await call(
      'PUT',
      '/api/users/_me/change_password',
      { old_password: PASSWORD, new_password: 'weak' },
      jwt,
    );
    expect(weak.status).toBe(400);
    const ok = await call(
      'PUT',
      '/api/users/_me/change_password',
      { old_password: PASSWORD, new_password: 'Fresh#pass2' },
      jwt,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe(messages.passwordChanged);
    expect((await call('GET', '/api/users/_me', undefined, jwt)).status).toBe(401);
    expect((await call('GET', '/api/users/_me', undefined, String(ok.body.jwtToken))).status).toBe(200);
    expect((await login(email, 'Fresh#pass2')).body.challenge).toBe(0);
  });

  it('counts wrong old passwords on change password in the sign-in back-off, so a stolen session cannot guess', async () => {
    const { jwt } = await signUpVerified();
    const change = (oldPassword: string) =>
      call(
        'PUT',
        '/api/users/_me/change_password',
        { old_password: oldPassword, new_password: 'Fresh#pass2' },
        jwt,
      );
    for (let i = 0; i < SIGN_IN_BACKOFF.freePerUser; i++)
      expect((await change('Guess#pass1')).status).toBe(400);
    // The free tries are used up: the next one waits, even with the right password, and nothing changed.
    const waiting = await change(PASSWORD);
    expect(waiting.status).toBe(429);
    expect(waiting.body.message).toBe(messages.signInWait(Number(waiting.headers['retry-after'])));
    expect((await call('GET', '/api/users/_me', undefined, jwt)).status).toBe(200);
  });

  it('updates the profile name, keeping e-mail and company read-only', async () => {
    const { jwt, email } = await signUpVerified();
    const res = await call(
      'PUT',
      '/api/users/_me',
      { first_name: 'Augusta', last_name: 'King', email: 'x@y.zz', company: 'Other' },
      jwt,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ first_name: 'Augusta', last_name: 'King', email, company: 'Acme' });
    const empty = await call('PUT', '/api/users/_me', { first_name: ' ', last_name: 'King' }, jwt);
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual({ first_name: [messages.firstNameRequired] });
  });

  it('keeps organisations apart: a member of B reading a profile of A gets 404', async () => {
    const a = await signUpVerified(uniqueEmail('alice'), 'Org A');
    const b = await signUpVerified(uniqueEmail('bob'), 'Org B');
    const aMe = await call('GET', '/api/users/_me', undefined, a.jwt);
    const bMe = await call('GET', '/api/users/_me', undefined, b.jwt);
    expect(aMe.body.organization).not.toEqual(bMe.body.organization);
    expect((await call('GET', `/api/users/${String(aMe.body.id)}`, undefined, a.jwt)).status).toBe(200);
    const crossed = await call('GET', `/api/users/${String(aMe.body.id)}`, undefined, b.jwt);
    expect(crossed.status).toBe(404);
    expect(JSON.stringify(crossed.body)).not.toContain(a.email);
    expect((await call('GET', `/api/users/${String(bMe.body.id)}`, undefined, a.jwt)).status).toBe(404);
  });

  it('completes an invitation into the inviting organisation with the invited role', async () => {
    const owner = await signUpVerified(uniqueEmail('inviter'), 'Inviting Org');
    const ownerMe = await call('GET', '/api/users/_me', undefined, owner.jwt);
    const principal = await server.services.auth.verifyBearer(owner.jwt);
    if (!principal) throw new Error('owner token did not verify');
    const invitee = uniqueEmail('invitee');
    const token = await server.services.identity.invite(principal, {
      email: invitee,
      firstName: 'Ivy',
      lastName: 'Tee',
      roleId: 3,
    });
    await server.mail.waitFor(invitee, 'You are invited to Cumulo');
    const decoded = Buffer.from(token, 'base64').toString('utf8').split('//');
    expect(decoded.slice(0, 3)).toEqual([invitee, 'Ivy', 'Tee']);

    const info = await call('GET', `/api/user/signupinfo?token=${encodeURIComponent(token)}`);
    expect(info.body).toEqual({ email: invitee, firstname: 'Ivy', lastname: 'Tee' });
    const done = await call('POST', '/api/user/signup', {
      password: PASSWORD,
      firstname: 'Ivy',
      lastname: 'Tee',
      token,
    });
    expect(done.status).toBe(201);
    expect(done.body.message).toBe(messages.signupDone);
    const again = await call('POST', '/api/user/signup', {
      password: PASSWORD,
      firstname: 'Ivy',
      lastname: 'Tee',
      token,
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(messages.inviteInvalid);

    const res = await login(invitee, PASSWORD);
    const me = await call('GET', '/api/users/_me', undefined, String(res.body.jwtToken));
    expect(me.body.role).toEqual({ id: 3, title: 'User' });
    expect(me.body.organization).toEqual(ownerMe.body.organization);
  });

  it('accepts an invitation through the sign-up call with invite_token', async () => {
    const owner = await signUpVerified(uniqueEmail('inviter2'), 'Second Org');
    const principal = await server.services.auth.verifyBearer(owner.jwt);
    if (!principal) throw new Error('owner token did not verify');
    const invitee = uniqueEmail('invitee2');
    const token = await server.services.identity.invite(principal, {
      email: invitee,
      firstName: 'Al',
      lastName: 'Bo',
      roleId: 2,
    });
    const res = await call('POST', '/api/users', {
      email: invitee,
      password: PASSWORD,
      first_name: 'Al',
      last_name: 'Bo',
      invite_token: token,
    });
    expect(res.status).toBe(201);
    const me = await call(
      'GET',
      '/api/users/_me',
      undefined,
      String((await login(invitee, PASSWORD)).body.jwtToken),
    );
    expect(me.body.role).toEqual({ id: 2, title: 'Admin' });
    expect((me.body.organization as { name: string }).name).toBe('Second Org');
  });

  it('lists the three roles', async () => {
    const { jwt } = await signUpVerified();
    const res = await call('GET', '/api/roles', undefined, jwt);
    expect(res.body).toEqual([
      { id: 1, title: 'Owner' },
      { id: 2, title: 'Admin' },
      { id: 3, title: 'User' },
    ]);
  });

  it('answers malformed and oversized requests with 4xx and field messages, never 500', async () => {
    const badJson = await server.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(badJson.statusCode).toBe(400);
    const wrongTypes = await call('POST', '/api/users', {
      email: 42,
      password: ['x'],
      first_name: {},
      last_name: null,
    });
    expect(wrongTypes.status).toBe(400);
    expect(Object.keys(wrongTypes.body.errors as object).sort()).toEqual([
      'email',
      'first_name',
      'last_name',
      'password',
    ]);
    const longName = await call('POST', '/api/users', {
      email: uniqueEmail('long'),
      password: PASSWORD,
      first_name: 'x'.repeat(5000),
      last_name: 'y',
    });
    expect(longName.status).toBe(400);
    expect(longName.body.errors).toHaveProperty('first_name');
    const huge = await server.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.co', pad: 'z'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toEqual({ message: 'The request is too large.', code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    const badId = await call('GET', '/api/users/not-a-uuid', undefined, (await signUpVerified()).jwt);
    expect(badId.status).toBe(400);
  });

  it('readiness reports the database and the job queue', async () => {
    const res = await call('GET', '/api/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: 'up', jobQueue: 'up' });
  });

  it('never logs a password, password hash, token, TOTP secret or recovery code', async () => {
    const { email, jwt } = await signUpVerified();
    const secret = String((await call('POST', '/api/user/generate_mfa_token', undefined, jwt)).body.secret);
    const enabled = await call(
      'POST',
      '/api/user/set_mfa',
      { enabled: true, userCode: authenticator.generate(secret) },
      jwt,
    );
    const recoveryCodes = enabled.body.recovery_codes as string[];
    const challenge = await login(email, PASSWORD);
    await call('POST', '/api/authentication/mfa_respond', {
      requestToken: await requestToken(),
      userCode: recoveryCodes[0],
      session: String(challenge.body.session),
    });
    await call('POST', '/api/authentication/forgot_password', {
      username: email,
      requestToken: await requestToken(),
    });
    const resetMail = await server.mail.waitFor(email, 'Reset your Cumulo password');
    const resetToken = linkToken(resetMail, /resetpassword\/([\w-]+)/);
    await call('GET', `/api/user/signupinfo?token=${resetToken}`);
    const hashRow = await server.db.pool.query('select password_hash from users where email = $1', [email]);
    const log = logLines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const secretText of [
      PASSWORD,
      jwt,
      secret,
      resetToken,
      String(hashRow.rows[0].password_hash),
      '$argon2id$',
      ...recoveryCodes,
    ]) {
      expect(log).not.toContain(secretText);
    }
  });
});
