import { messages } from './messages.ts';

/*
 * Single sign-on words and names the sign-in page needs. No zod here: /login's first load reads this module, and
 * the schemas (api.ts) would bring zod (~25 KB gzipped) into it.
 */

/** Single sign-on: Google (spec 000 §7 `POST /oauth`, service Google) or the operator's OIDC provider (/oktalogin). */
export const SSO_SERVICES = ['Google', 'OIDC'] as const;
export type SsoService = (typeof SSO_SERVICES)[number];

/** Why a single sign-on came back refused: `/login#sso_error=CODE`; the page shows the message, never URL text. */
export const SSO_ERROR_MESSAGES = {
  SSO_FAILED: messages.ssoFailed,
  SSO_NOT_CONFIGURED: messages.ssoNotConfigured,
  SSO_EMAIL_NOT_VERIFIED: messages.ssoEmailNotVerified,
  SSO_ACCOUNT_NOT_CONFIRMED: messages.ssoAccountNotConfirmed,
  INACTIVE: messages.accountDeactivated,
  SOMETHING_WENT_WRONG: messages.generic,
} as const;
export type SsoErrorCode = keyof typeof SSO_ERROR_MESSAGES;
