import {
  type SsoService,
  type authProvidersAnswer,
  type loginAnswer,
  type signupAnswer,
  type signupInfoAnswer,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import {
  booleanField,
  numberField,
  objectField,
  optionalStringField,
  stringField,
} from '../../api/answers.ts';

export type LoginAnswer = ReturnType<typeof loginAnswer.parse>;
export type SignupInfo = ReturnType<typeof signupInfoAnswer.parse>;
export type SignupAnswer = ReturnType<typeof signupAnswer.parse>;

/** The short-lived form token every sign-in call carries; a fresh one per call (spec 000 §7). */
async function fetchRequestToken(): Promise<string> {
  return stringField(await api.post('/authentication/request_token', undefined, { silent: true }), 'token');
}

export async function signIn(input: {
  username: string;
  password: string;
  referrerId?: string;
}): Promise<LoginAnswer> {
  const requestToken = await fetchRequestToken();
  const answer = await api.post(
    '/authentication/Login',
    { requestToken, username: input.username, password: input.password, referrer_id: input.referrerId },
    { silent: true },
  );
  return {
    challenge: numberField(answer, 'challenge') === 1 ? 1 : 0,
    jwtToken: optionalStringField(answer, 'jwtToken'),
    session: optionalStringField(answer, 'session'),
  };
}

export type AuthProviders = ReturnType<typeof authProvidersAnswer.parse>;

/** Which single sign-on buttons this server offers (GET /api/authentication/providers), read by hand (answers.ts). */
export async function fetchAuthProviders(): Promise<AuthProviders> {
  const answer = await api.get('/authentication/providers', { silent: true });
  const oidc = objectField(answer, 'oidc');
  return {
    google: booleanField(answer, 'google'),
    oidc: oidc === null ? null : { name: stringField(oidc, 'name') },
  };
}

/** Starts a single sign-on; the answer is the provider's page, where the browser goes next. */
export async function startSso(service: SsoService): Promise<string> {
  return stringField(await api.post('/oauth/start', { service }, { silent: true }), 'authorization_url');
}

/** POST /api/oauth with the single-use code the callback put in /login's fragment; answers like Login. */
export async function signInWithSso(input: { service: SsoService; token: string }): Promise<LoginAnswer> {
  const answer = await api.post('/oauth', input, { silent: true });
  return {
    challenge: numberField(answer, 'challenge') === 1 ? 1 : 0,
    jwtToken: optionalStringField(answer, 'jwtToken'),
    session: optionalStringField(answer, 'session'),
  };
}

export async function respondToMfa(input: { userCode: string; session: string }): Promise<string> {
  const requestToken = await fetchRequestToken();
  const answer = await api.post(
    '/authentication/mfa_respond',
    { requestToken, userCode: input.userCode, session: input.session },
    { silent: true },
  );
  return stringField(answer, 'jwtToken');
}

export async function requestPasswordReset(email: string): Promise<void> {
  const requestToken = await fetchRequestToken();
  await api.post(
    '/authentication/forgot_password',
    { username: email.trim(), requestToken },
    { silent: true },
  );
}

export async function resetPassword(input: { password: string; resetToken: string }): Promise<void> {
  const requestToken = await fetchRequestToken();
  await api.post(
    '/authentication/reset_password',
    { password: input.password, resetToken: input.resetToken, requestToken },
    { silent: true },
  );
}

export async function resendVerificationEmail(email: string): Promise<void> {
  await api.put('/resend_verification_email', { email: email.trim() }, { silent: true });
}

const verifications = new Map<string, Promise<void>>();

/**
 * PUT /api/verify_user. A verification token is single-use, so one page load sends it once even when
 * React (StrictMode) runs the effect twice: the same promise is handed back for the same token.
 */
export function verifyAccount(token: string): Promise<void> {
  let pending = verifications.get(token);
  if (!pending) {
    pending = api.put('/verify_user', { verification_token: token }, { silent: true }).then(() => undefined);
    verifications.set(token, pending);
  }
  return pending;
}

export interface SignupPayload {
  email: string;
  password: string;
  first_name: string;
  last_name: string;
  company: string | null;
  referrer_id: string | null;
  promo_code: string | null;
  invite_token: string | null;
}

export async function signUp(payload: SignupPayload): Promise<SignupAnswer> {
  const answer = await api.post('/users', payload, { silent: true });
  return { email: stringField(answer, 'email'), message: stringField(answer, 'message') };
}

export async function fetchSignupInfo(token: string): Promise<SignupInfo> {
  const answer = await api.get('/user/signupinfo', { query: { token }, silent: true });
  return {
    email: stringField(answer, 'email'),
    firstname: stringField(answer, 'firstname'),
    lastname: stringField(answer, 'lastname'),
  };
}

export async function completeSignup(payload: {
  password: string;
  firstname: string;
  lastname: string;
  token: string;
}): Promise<void> {
  await api.post('/user/signup', payload, { silent: true });
}
