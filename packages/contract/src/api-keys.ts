import { z } from 'zod';

/** An access key: 'CK' and 18 upper-case base32 characters (90 random bits), the public half of an API key. */
export const API_KEY_ACCESS_KEY_PATTERN = /^CK[A-Z2-7]{18}$/;
/** A secret: 43 base64url characters (256 random bits), shown once at creation. */
export const API_KEY_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** last_used_at is written at most this often per key, so a busy script does not write on every call. */
export const API_KEY_LAST_USED_RESOLUTION_SECONDS = 60;

export const apiKeyMessages = {
  deleted: 'Key deleted successfully!',
  /* Texts the spec leaves to us ("not shown"). */
  created: 'Key created successfully!',
  activated: 'Key activated successfully!',
  deactivated: 'Key deactivated successfully!',
  shownOnce:
    'This is the only time the secret key is shown. Copy it now and keep it somewhere safe: it cannot be shown again.',
  sessionOnly: 'API keys cannot do this. Sign in with your password to manage keys, your password or MFA.',
} as const;

/** One key in GET /apikey/ListApiKey (spec 002 §3 "API key"): never its secret. */
export const apiKeyView = z.object({
  id: z.string(),
  access_key: z.string(),
  created_date: z.string(),
  last_used: z.string().nullable(),
  active: z.boolean(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;
export const apiKeyList = z.array(apiKeyView);

/** POST /apikey/CreateKey: the new key with its secret, the only answer that ever holds it. */
export const createdApiKey = apiKeyView.extend({ secret_key: z.string(), message: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKey>;

/** DELETE /apikey/DeleteApiKey?id. */
export const apiKeyIdQuery = z.object({ id: z.uuid() });

/** PUT /apikey/UpdateApiKey?id {active}: not in the spec; turns a key off and on again without deleting it. */
export const updateApiKeyBody = z.object({ active: z.boolean() });
