/** Role titles of spec 000 §6 with their fixed ids. */
export const ROLES = [
  { id: 1, title: 'Owner' },
  { id: 2, title: 'Admin' },
  { id: 3, title: 'User' },
] as const;
export type RoleTitle = (typeof ROLES)[number]['title'];
export const ROLE_ID = { Owner: 1, Admin: 2, User: 3 } as const;
/** The title of a role id, as lists and the audit trail show it. */
export const roleTitleOf = (id: number): string => ROLES.find((role) => role.id === id)?.title ?? String(id);

/** userType 4 may add every provider (spec 000 §6); new organisations get it. */
export const USER_TYPE_ALL_PROVIDERS = 4;

/** Verification links are valid for 24 hours (spec 000 §9). */
export const VERIFICATION_LINK_TTL_SECONDS = 24 * 60 * 60;
/** Reset links: single use, valid one hour (the spec leaves the lifetime to us). */
export const RESET_LINK_TTL_SECONDS = 60 * 60;
/** Invitations stay valid for 7 days. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60;
/** After verification the page redirects to /login after 5 seconds. */
export const VERIFIED_REDIRECT_MS = 5000;
/** Real-time reconnect delays (spec 000 §4, §9). */
export const REALTIME_RECONNECT_DELAYS_MS = [0, 0, 10000] as const;
/** Request tokens (anti-automation form tokens for the sign-in calls) live 30 minutes. */
export const REQUEST_TOKEN_TTL_SECONDS = 30 * 60;
/** The MFA step of a sign-in must be completed within 5 minutes. */
export const MFA_SESSION_TTL_SECONDS = 5 * 60;
/**
 * MFA recovery codes: ten single-use codes given at enrolment, each 10 characters shown as `xxxxx-xxxxx`, from an
 * alphabet without look-alikes (no 0/o, 1/l/i, u/v), so about 48 bits each and easy to type.
 */
export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_ALPHABET = '23456789abcdefghjkmnpqrstwxyz';
export const RECOVERY_CODE_LENGTH = 10;
/**
 * A recovery code's shape (`xxxxx-xxxxx`, any case, dash or space optional); which ones are valid is the server's.
 * Here, not beside the zod schemas, so the sign-in page can read it without loading zod.
 */
export const RECOVERY_CODE_SHAPE = /^[a-z0-9]{5}[- ]?[a-z0-9]{5}$/i;
/**
 * Sign-in back-off, per user name and per client address: the first failures are free, then each failure makes the
 * next try wait twice as long as the last (1 s, 2 s, 4 s, … up to 15 minutes); a key is forgotten a day after its
 * first failure, and an account's own counters at its successful sign-in or password reset.
 */
export const SIGN_IN_BACKOFF = {
  freePerUser: 5,
  freePerIp: 20,
  firstDelaySeconds: 1,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 24 * 60 * 60,
} as const;
/** Mails a visitor can trigger (reset, verification, sign-up notices): per address and per client address, per hour. */
export const MAIL_LIMIT = { perAddress: 5, perIp: 30, windowSeconds: 60 * 60 } as const;
/** Single sign-ons a client address may start (each holds a pending flow row until it ends or expires). */
export const SSO_START_LIMIT = { perIp: 30, windowSeconds: 10 * 60 } as const;
/** Local-storage key of the stored authorization value. */
export const AUTH_STORAGE_KEY = 'Authorization';
/** Path of the real-time hub. */
export const REALTIME_PATH = '/rm';
/** WebSocket close code of the /rm hub telling a client its sign-in ended (logout, password change). */
export const CLOSE_SIGNED_OUT = 4001;
