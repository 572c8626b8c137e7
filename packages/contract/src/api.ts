import { z } from 'zod';
import { messages } from './messages.ts';
import {
  EMAIL_MAX_LENGTH,
  NAME_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_PATTERN,
  EMAIL_PATTERN,
} from './validation.ts';
import { text } from './text.ts';
import { RECOVERY_CODE_SHAPE } from './constants.ts';
import { effectiveAccess } from './access-services.ts';
import { SSO_SERVICES } from './sso.ts';

const email = text({
  error: messages.emailRequired,
  trim: true,
  max: EMAIL_MAX_LENGTH,
  maxMessage: messages.emailInvalid,
})
  .min(1, messages.emailRequired)
  .regex(EMAIL_PATTERN, messages.emailInvalid)
  .transform((v) => v.toLowerCase());
const newPassword = text({
  error: messages.passwordRules,
  max: PASSWORD_MAX_LENGTH,
  maxMessage: messages.passwordRules,
}).regex(PASSWORD_PATTERN, messages.passwordRules);
const anyPassword = text({ error: messages.wrongCredentials, max: PASSWORD_MAX_LENGTH }).min(1);
const name = (msg: string) => text({ error: msg, trim: true, max: NAME_MAX_LENGTH }).min(1, msg);
const optionalText = text({ trim: true, max: NAME_MAX_LENGTH }).optional().nullable();
const requestToken = text({ error: messages.requestTokenInvalid, max: 2048 }).min(
  1,
  messages.requestTokenInvalid,
);
const opaqueToken = text({ max: 2048 }).min(1);
const totpCode = text({ trim: true, max: 6, maxMessage: messages.wrongMfaCode }).regex(
  /^\d{6}$/,
  messages.wrongMfaCode,
);
/** The sign-in MFA step takes the authenticator's current code or one of the recovery codes. */
const mfaCode = text({ trim: true, max: 11, maxMessage: messages.wrongMfaCode }).refine(
  (v) => /^\d{6}$/.test(v) || RECOVERY_CODE_SHAPE.test(v),
  messages.wrongMfaCode,
);
/** Legacy fields sent as a string or a number and not used (login type, referrer ids). */
const looseId = z.union([text({ max: 64 }), z.int()]);

export const requestTokenAnswer = z.object({ token: z.string() });

export const loginBody = z.object({
  requestToken,
  username: email,
  password: anyPassword,
  type: looseId.optional(),
  referrer_id: looseId.optional().nullable(),
});
export const loginAnswer = z.object({
  challenge: z.union([z.literal(0), z.literal(1)]),
  jwtToken: z.string().optional(),
  session: z.string().optional(),
});
export const ssoService = z.enum(SSO_SERVICES);
/** Starts a sign-in at the provider; the answer's URL is where the browser goes next. */
export const oauthStartBody = z.object({ service: ssoService });
export const oauthStartAnswer = z.object({ authorization_url: z.url() });
/**
 * `POST /oauth`: `token` is the single-use code the server's callback handed to the browser, never a provider token,
 * so nothing the browser sends (the spec's `email` included) decides who signs in. Answers like Login.
 */
export const oauthBody = z.object({ service: ssoService, token: opaqueToken });
/** Which sign-in buttons to show: Google when configured, and the name of the /oktalogin provider when one is. */
export const authProvidersAnswer = z.object({
  google: z.boolean(),
  oidc: z.object({ name: z.string() }).nullable(),
});
export const mfaRespondBody = z.object({ requestToken, userCode: mfaCode, session: opaqueToken });
export const jwtAnswer = z.object({ jwtToken: z.string() });
export const forgotPasswordBody = z.object({ username: email, requestToken });
export const resetPasswordBody = z.object({ password: newPassword, resetToken: opaqueToken, requestToken });
export const verifyUserBody = z.object({ verification_token: opaqueToken });
export const resendVerificationBody = z.object({ email: email.optional() }).optional();
export const messageAnswer = z.object({ message: z.string() });

export const signupBody = z.object({
  email,
  password: newPassword,
  first_name: name(messages.firstNameRequired),
  last_name: name(messages.lastNameRequired),
  company: optionalText,
  referrer_id: looseId.optional().nullable(),
  promo_code: text({ max: 64 }).optional().nullable(),
  invite_token: text({ max: 2048 }).optional().nullable(),
});
export const signupAnswer = z.object({ email: z.string(), message: z.string() });
export const signupInfoQuery = z.object({ token: opaqueToken });
export const signupInfoAnswer = z.object({ email: z.string(), firstname: z.string(), lastname: z.string() });
export const signupCompletionBody = z.object({
  password: newPassword,
  firstname: name(messages.firstNameRequired),
  lastname: name(messages.lastNameRequired),
  token: opaqueToken,
});

export const updateProfileBody = z.object({
  first_name: name(messages.firstNameRequired),
  last_name: name(messages.lastNameRequired),
  slack_on_sidebar: z.boolean().optional(),
  slack_on_popup: z.boolean().optional(),
});
export const changePasswordBody = z.object({ old_password: anyPassword, new_password: newPassword });
export const changePasswordAnswer = z.object({ message: z.string(), jwtToken: z.string() });
export const generateMfaAnswer = z.object({
  secret: z.string(),
  otpauth_url: z.string(),
  qr_code: z.string(),
});
export const setMfaBody = z.object({ enabled: z.boolean(), userCode: totpCode });
/** Enabling answers the recovery codes, the only time they are ever sent; disabling answers the message alone. */
export const setMfaAnswer = z.object({ message: z.string(), recovery_codes: z.array(z.string()).optional() });
export const recoveryCodesStatus = z.object({ remaining: z.number() });
/** New recovery codes need the current password or a current authenticator code. */
export const renewRecoveryCodesBody = z
  .object({ password: anyPassword.optional(), userCode: totpCode.optional() })
  .refine((v) => v.password !== undefined || v.userCode !== undefined, messages.recoveryCodesNeedProof);
export const recoveryCodesAnswer = z.object({ message: z.string(), recovery_codes: z.array(z.string()) });

export const role = z.object({ id: z.number(), title: z.string() });
export const quotaItem = z.object({ used: z.number(), total: z.number() });
export const userProfile = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  company: z.string().nullable(),
  pictureUrl: z.string().nullable(),
  created_at: z.string(),
  activation_date: z.string().nullable(),
  active: z.boolean(),
  role,
  packages: z.array(z.object({ title: z.string() })),
  has_billing_info: z.boolean(),
  /** Spec 001 §6: /S3Direct is open to organisations in trial or with the native-S3 package. */
  in_trial: z.boolean(),
  package: z.object({ has_s3_native: z.boolean() }),
  referrer_id: z.string().nullable(),
  slack_on_sidebar: z.boolean(),
  slack_on_popup: z.boolean(),
  mfa_enabled: z.boolean(),
  userType: z.number(),
  organization: z.object({
    id: z.string(),
    name: z.string(),
    is_cbs: z.boolean(),
    confirmed_wasabi: z.boolean(),
    confirmed_c2c: z.boolean(),
    confirmed_ftx: z.boolean(),
  }),
  /** `services`/`permissions`: the caller's effective ACL, so the web hides the areas turned off. */
  acl: effectiveAccess.extend({ has_wasabi: z.boolean() }),
  quota: z.record(z.string(), quotaItem),
  /** An operator of this Cumulo (issue 28): sees the admin reports over every organisation. */
  operator: z.boolean(),
});
export type UserProfile = z.infer<typeof userProfile>;
/** GET /api/health (liveness): the process answers; nothing else is checked. */
export const livenessAnswer = z.object({ status: z.literal('ok') });
/** GET /api/ready (readiness): database and job queue reachable, and the process not shutting down. */
export const healthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'draining']),
  database: z.enum(['up', 'down']),
  jobQueue: z.enum(['up', 'down']),
  version: z.string(),
});

/** Envelope of every message on the /rm hub. */
export const realtimeMessage = z.object({ type: z.string(), data: z.unknown() });
export type RealtimeMessage = z.infer<typeof realtimeMessage>;
