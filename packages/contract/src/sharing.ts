import { z } from 'zod';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, PASSWORD_MAX_LENGTH } from './validation.ts';
import { BYTES_MAX, text } from './text.ts';

/**
 * Sharing (spec 001 §3 "Share item" / "Share options", §7 share_by_email_files and share_by_slack_files, §8, §9).
 * A share link opens Cumulo's own /sharing/{token} page, which checks expiry and password and hands out a
 * short-lived signed URL per download: the link can outlive a provider's presign cap (7 days on S3) and be revoked.
 */

/** §9 "Share expiration default": 604800 s (7 days). */
export const SHARE_EXPIRATION_DEFAULT_SECONDS = 604_800;
/** The shortest link worth sending: one hour. */
export const SHARE_EXPIRATION_MIN_SECONDS = 3_600;
/**
 * Links live at most a year: a forgotten link to private data should not work forever, and a year covers every
 * real hand-over (an audit, a season of footage) while a longer need can simply be shared again.
 */
export const SHARE_EXPIRATION_MAX_SECONDS = 365 * 86_400;
/** How long the signed URL handed out for one download stays valid: long enough to start, too short to pass on. */
export const SHARE_DOWNLOAD_URL_TTL_SECONDS = 300;
export const SHARE_MAX_FILES = 100;
export const SHARE_MAX_RECIPIENTS = 50;
/** Failed password tries per share and client address, per window, before the link answers 429 there. */
export const SHARE_ACCESS_LIMIT = { perShareIp: 10, perIp: 100, windowSeconds: 15 * 60 } as const;
/** Shares per page of the organisation's list. */
export const SHARE_LIST_PAGE_SIZE = 50;

/** The expirations the share dialog offers; "custom" takes a number of days. */
export const SHARE_EXPIRATION_PRESETS = [
  { label: '1 day', seconds: 86_400 },
  { label: '7 days', seconds: SHARE_EXPIRATION_DEFAULT_SECONDS },
  { label: '30 days', seconds: 30 * 86_400 },
  { label: '90 days', seconds: 90 * 86_400 },
] as const;

export const sharingMessages = {
  /** §8 "Share success". */
  shared: 'files shared successfully',
  expired: 'This link has expired.',
  revoked: 'This link was revoked.',
  wrongPassword: 'Wrong password.',
  passwordRequired: 'This link is protected: enter its password.',
  unknownLink: 'This link does not exist. Check that it was copied completely.',
  tooManyTries: 'Too many wrong passwords for this link. Please wait a few minutes and try again.',
  filesRequired: 'Please select files to share.',
  tooManyFiles: `Share at most ${SHARE_MAX_FILES} files at once.`,
  /** §5 "Share by e-mail needs at least one recipient". */
  recipientsRequired: 'Add at least one recipient.',
  tooManyRecipients: `Send to at most ${SHARE_MAX_RECIPIENTS} recipients at once.`,
  recipientInvalid: 'Every recipient must be a valid e-mail address.',
  expirationRange: 'The link must stay valid between 1 hour and 365 days.',
  passwordTooLong: `The password can have at most ${PASSWORD_MAX_LENGTH} characters.`,
  oneAccount: 'The files of one share must come from one cloud account.',
  aclPrivate: 'Shared files stay private: acl must be "private".',
  fileNotShared: 'This file is not part of this share.',
  fileGone: 'This file is no longer available.',
  revokeDone: 'Link revoked.',
  revokeConfirm: 'Revoke this link? Recipients will no longer be able to download the files.',
  noChatChannel:
    'No chat channel is set up for your organisation. An Owner or Admin can add one on the Shared Files page.',
  unknownChannel: 'This chat channel is not set up for your organisation.',
  chatUnreachable: 'The chat service could not be reached. Please check the webhook URL.',
  chatWebhookSaved: 'Chat channel saved.',
  chatWebhookRemoved: 'Chat channel removed.',
  webhookUrlInvalid: 'Enter the incoming-webhook URL (http or https).',
  /** The outbound address policy: a webhook must be a public https:// URL unless the operator allows its host. */
  webhookUrlNotAllowed: 'Enter a public https:// webhook URL: this address is not allowed.',
  channelNameRequired: 'Enter the channel name.',
  mailFailed: 'The e-mail could not be sent. Please try again.',
} as const;

/** The chat service's own refusal, with its HTTP status. */
export const chatRefused = (status: number) =>
  `The chat service refused the message (HTTP ${status}). Please check the webhook URL.`;

/** §3 Share item: name (the object's path), size, acl (always private), bucket_name, cloud_account_id. */
export const shareItem = z.object({
  // An object key exactly as sent: a key may start or end with a space, and a trimmed one names another object.
  name: text({ max: 1024 }).min(1, sharingMessages.filesRequired),
  size: z.number().int().nonnegative().max(BYTES_MAX).optional(),
  acl: z.literal('private', { error: sharingMessages.aclPrivate }).default('private'),
  bucket_name: text({ trim: true, max: 255 }).min(1),
  cloud_account_id: z.uuid(),
});
export type ShareItem = z.infer<typeof shareItem>;

const shareFiles = z
  .array(shareItem, { error: sharingMessages.filesRequired })
  .min(1, sharingMessages.filesRequired)
  .max(SHARE_MAX_FILES, sharingMessages.tooManyFiles)
  .refine((files) => new Set(files.map((f) => f.cloud_account_id)).size === 1, sharingMessages.oneAccount);

const recipient = text({
  error: sharingMessages.recipientInvalid,
  trim: true,
  max: EMAIL_MAX_LENGTH,
  maxMessage: sharingMessages.recipientInvalid,
})
  .regex(EMAIL_PATTERN, sharingMessages.recipientInvalid)
  .transform((v) => v.toLowerCase());

/** An empty password field means "no password". */
const sharePassword = text({ max: PASSWORD_MAX_LENGTH, maxMessage: sharingMessages.passwordTooLong })
  .nullable()
  .optional()
  .transform((v) => (v ? v : null));

const expiration = z
  .number({ error: sharingMessages.expirationRange })
  .int(sharingMessages.expirationRange)
  .min(SHARE_EXPIRATION_MIN_SECONDS, sharingMessages.expirationRange)
  .max(SHARE_EXPIRATION_MAX_SECONDS, sharingMessages.expirationRange)
  .default(SHARE_EXPIRATION_DEFAULT_SECONDS);

/** POST /transfers/share_files_by_email — §7 share_by_email_files {files, recipients, password, expiration}. */
export const shareByEmailBody = z.object({
  files: shareFiles,
  recipients: z
    .array(recipient, { error: sharingMessages.recipientsRequired })
    .min(1, sharingMessages.recipientsRequired)
    .max(SHARE_MAX_RECIPIENTS, sharingMessages.tooManyRecipients)
    .transform((list) => [...new Set(list)]),
  password: sharePassword,
  expiration,
});
export type ShareByEmailBody = z.input<typeof shareByEmailBody>;

/** POST /transfers/share_files_by_chat — §7 share_by_slack_files (files, channel); password and expiration as by e-mail. */
export const shareByChatBody = z.object({
  files: shareFiles,
  channel: text({ trim: true, max: 100 }).optional(),
  password: sharePassword,
  expiration,
});
export type ShareByChatBody = z.input<typeof shareByChatBody>;

export const SHARE_STATUSES = ['active', 'expired', 'revoked'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

/** One share of the organisation's list: never the token, its hash or the password hash. */
export const shareListItem = z.object({
  id: z.string(),
  files: z.array(
    z.object({ name: z.string(), size: z.number(), bucket_name: z.string(), cloud_account_id: z.string() }),
  ),
  channel: z.enum(['email', 'chat']),
  /** E-mail addresses, or the chat channel's name for a chat share. */
  recipients: z.array(z.string()),
  created_by: z.string().nullable(),
  created_by_id: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  revoked: z.boolean(),
  revoked_at: z.string().nullable(),
  status: z.enum(SHARE_STATUSES),
  has_password: z.boolean(),
  download_count: z.number(),
});
export type ShareListItem = z.infer<typeof shareListItem>;

export const shareListQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(SHARE_LIST_PAGE_SIZE),
});
export const shareListAnswer = z.object({
  items: z.array(shareListItem),
  total: z.number(),
  page: z.number(),
  page_size: z.number(),
});
export type ShareListAnswer = z.infer<typeof shareListAnswer>;

/** GET /sharing/{token}: what the signed-out page shows before any download. */
export const publicShareView = z.object({
  /** `index` is the file's place in the share: two files of one path in two buckets are two files. */
  files: z.array(z.object({ index: z.number().int(), path: z.string(), name: z.string(), size: z.number() })),
  expires_at: z.string(),
  password_required: z.boolean(),
  shared_by: z.string().nullable(),
});
export type PublicShareView = z.infer<typeof publicShareView>;

/** POST /sharing/{token}/download. */
export const shareDownloadBody = z.object({
  path: text({ max: 1024 }).min(1),
  /** The file's `index` in the public view; without it the first file of that path (links of older pages). */
  index: z.number().int().min(0).max(10_000).optional(),
  password: text({ max: PASSWORD_MAX_LENGTH }).optional().nullable(),
});
export type ShareDownloadBody = z.infer<typeof shareDownloadBody>;
export const shareDownloadAnswer = z.object({ url: z.string(), expires_in: z.number() });
export type ShareDownloadAnswer = z.infer<typeof shareDownloadAnswer>;

/** PUT /organizations/_me/chat_webhook: an incoming-webhook URL (Slack, Mattermost, Teams-compatible). */
export const chatWebhookBody = z.object({
  url: text({
    error: sharingMessages.webhookUrlInvalid,
    trim: true,
    max: 2048,
    maxMessage: sharingMessages.webhookUrlInvalid,
  })
    .regex(/^https?:\/\/[^\s/?#]+/i, sharingMessages.webhookUrlInvalid)
    .refine((v) => URL.canParse(v), sharingMessages.webhookUrlInvalid),
  channel_name: text({ error: sharingMessages.channelNameRequired, trim: true, max: 80 }).min(
    1,
    sharingMessages.channelNameRequired,
  ),
});
export type ChatWebhookBody = z.infer<typeof chatWebhookBody>;

/** The webhook as the screens see it: the URL is a credential, so only its host and last 4 characters show. */
export const chatWebhookView = z.object({
  configured: z.boolean(),
  channel_name: z.string().nullable(),
  url_masked: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type ChatWebhookView = z.infer<typeof chatWebhookView>;

/** §7 "slack channels list": the organisation's one configured channel, or none. */
export const chatChannelsAnswer = z.object({ channels: z.array(z.object({ name: z.string() })) });
export type ChatChannelsAnswer = z.infer<typeof chatChannelsAnswer>;
