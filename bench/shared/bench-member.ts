import { randomBytes } from 'node:crypto';
import type { Db, Principal, buildServices } from '@cumulo/server';

/**
 * A new member with their own organisation, signed up and verified through the real identity service, then signed
 * in: the Principal a bench acts as, and its bearer token for calls through the app.
 */
export async function signedInBenchMember(
  services: Pick<ReturnType<typeof buildServices>, 'identity' | 'auth'>,
  db: Db,
): Promise<{ principal: Principal; token: string }> {
  const email = `bench.${randomBytes(3).toString('hex')}@example.com`;
  const password = 'Bench#mark7';
  await services.identity.signup(
    { email, password, first_name: 'Bench', last_name: 'Mark' },
    { ip: '127.0.0.1' },
  );
  await db.pool.query('update users set email_verified_at = now() where email = $1', [email]);
  const login = await services.identity.login(email, password, { ip: '127.0.0.1' });
  if (login.challenge !== 0) throw new Error('unexpected MFA challenge');
  const principal = await services.auth.verifyBearer(login.jwtToken);
  if (!principal) throw new Error('bench sign-in failed');
  return { principal, token: login.jwtToken };
}
