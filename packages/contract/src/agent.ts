import { z } from 'zod';
import { TRANSFER_PACKAGE_PER_GB } from './billing.ts';
import { BYTES_MAX, COUNT_MAX, text } from './text.ts';

/**
 * The local transfer agent, ftX (spec 001 §1, §2 "ftX local browser" and "Transfer agent screen", §3 ftX item,
 * Local file, Transfer entry, Agent history item; §4 Transfer agent; §7 Agent; §8 Agent; §9 agent constants).
 *
 * Three parties:
 * - the **agent** (apps/agent), a Node process on the user's machine serving http://127.0.0.1:<port> to the browser;
 * - the **browser**, which calls the agent (CORS from the Cumulo origin only) with a connection key;
 * - the **server**, which the agent calls with its device token (`Authorization: Agent <token>`) for signed URLs,
 *   and the browser calls with its session for pairing codes, tickets, devices and history.
 *
 * Pairing: the browser (or /profile, for a headless machine) gets a one-time code from the server; the agent
 * receives it (POST /pair from the page, or `cumulo-agent pair <code>` in a shell), the user confirms in the agent's
 * terminal, and the agent redeems it for a device token the server stores hashed and can revoke.
 * Connecting: the page asks the server for a one-time ticket for its device, hands it to the agent (POST /connect),
 * the agent redeems it with the server and answers a connection key that every later call of the page carries.
 */

// ---------------------------------------------------------------- constants (spec 001 §9, spec 002 §9)

/** Block size of a transfer: every file moves in blocks of 5 MiB (spec: 5242880 bytes). */
export const AGENT_BLOCK_SIZE = 5_242_880;
/** Connections per file ("5 clients"). */
export const AGENT_CLIENTS = 5;
/** Files moved at once by one agent (small files are many; each still uses at most AGENT_CLIENTS connections). */
export const AGENT_PARALLEL_FILES = 8;
/** The agent's default port on 127.0.0.1 (`--port` or CUMULO_AGENT_PORT changes it). */
export const AGENT_DEFAULT_PORT = 47_321;
/** §9: the page polls the agent's heartbeat every 5 s, its transfers every 1 s; launch waits 1 s, then connects. */
export const AGENT_HEARTBEAT_MS = 5000;
export const AGENT_TRANSFER_POLL_MS = 1000;
export const AGENT_LAUNCH_WAIT_MS = 1000;
/** §9: agent history page limit. */
export const AGENT_HISTORY_LIMIT = 100;
/** A pairing code lives 10 minutes and is used once; a connect ticket lives 60 s and is used once. */
export const AGENT_PAIR_CODE_TTL_SECONDS = 600;
export const AGENT_TICKET_TTL_SECONDS = 60;
/** The `service` of the agent's history and summary calls (spec §7: type file_catalyst). */
export const AGENT_SERVICE = 'file_catalyst';
/** The URL scheme that starts an installed agent from the page ("Launch"). */
export const AGENT_URL_SCHEME = 'cumulo-agent';
export const AGENT_LAUNCH_URL = `${AGENT_URL_SCHEME}://launch`;
/** The header the page's calls to the agent carry (the connection key of POST /connect). */
export const AGENT_KEY_HEADER = 'x-cumulo-agent-key';
/** The scheme of the device token on the agent's calls to the server: `Authorization: Agent <token>`. */
export const AGENT_AUTH_SCHEME = 'Agent';
/** Cost of a byte moved through the agent: the transfer package's price per GB, per MB (1024-based). */
export const AGENT_COST_PER_MB = TRANSFER_PACKAGE_PER_GB / 1024;
export const agentCost = (bytes: number) => (bytes / (1024 * 1024)) * AGENT_COST_PER_MB;

export const AGENT_PLATFORMS = ['windows', 'macos', 'linux'] as const;
export type AgentPlatform = (typeof AGENT_PLATFORMS)[number];
export const AGENT_PLATFORM_TITLES: Record<AgentPlatform, string> = {
  windows: 'Windows',
  macos: 'macOS',
  linux: 'Linux',
};

export const AGENT_DIRECTIONS = ['upload', 'download'] as const;
export type AgentDirection = (typeof AGENT_DIRECTIONS)[number];

/** Texts of spec 001 §8 Agent (as written) and the screens' own. */
export const agentMessages = {
  proxyFilesFailed: 'Failed to get proxy files',
  launchFirst: 'Please launch the transfer agent first',
  launchBeforeDownload: 'Please launch the transfer agent before downloading!',
  launchBeforeUpload: 'Please launch the transfer agent before trying upload!',
  serverError: 'Error connecting to the transfer server',
  notRunning: 'Transfer agent is not running',
  notActivated: 'Files transfers are not activated for this user',
  cancelFailed: 'Failed to cancel transfer, please try again',
  cancelled: 'Transfers cancelled successfully',
  historyFailed: 'Failed to retrieve transfers history, please try again',
  ftxNotRunning: 'ftX client is not running',
  retryStarted: 'Retry Failed Files started successfully!',
  downloadFailedStarted: 'Download Failed Files started successfully!',
  noContent: 'No content found',
  launchFtx: 'Launch ftX client',
  downloadFtx: 'Download ftX client',
  launchAgent: 'Launch transfer agent',
  noOngoing: 'No Ongoing Transfers',
  noHistoryTitle: 'No Transfer Found',
  noHistory: 'Your transfer history will appear here',
  // Our own texts (the spec is silent on pairing, which the original did without).
  pairTitle: 'Pair this browser with your transfer agent',
  pairConfirmInTerminal: (code: string) =>
    `Confirm code ${code} in the terminal where the transfer agent runs.`,
  paired: 'Transfer agent paired',
  notPaired: 'The transfer agent is not paired with your account. Pair it to use it.',
  deviceRevoked: 'Device revoked. Its agent can no longer act for you.',
  pairCodeInvalid: 'This pairing code is not valid or has expired. Create a new one.',
  /** Not in the spec: the agent on this machine acts for another member of the organisation. */
  pairedWithOther: (email: string) =>
    `The transfer agent on this computer is paired with ${email}. Sign in as ${email}, or pair it with your own account: run "cumulo-agent unpair" in its terminal, restart it, then choose Pair.`,
  ticketInvalid: 'This connection ticket is not valid or has expired.',
  deviceUnknown: 'This device is not paired, or it was revoked. Pair it again.',
  hostRefused: 'Requests to the transfer agent must be addressed to 127.0.0.1, localhost or [::1].',
  originRefused: 'This origin may not use the transfer agent.',
  keyMissing: 'Connect to the transfer agent first: this call has no valid connection key.',
  pathOutside: 'This path is outside the folders added to the transfer agent.',
  readOnlyRoot: 'The list of added folders is changed from the agent’s command line, not from here.',
  fileVanished: (name: string) => `${name} was removed or moved before it could be sent.`,
  diskFull: (name: string) => `Not enough space on the local disk to write ${name}.`,
  noPermission: (name: string) => `The transfer agent has no permission to read or write ${name}.`,
  verifyFailed: (name: string) => `${name} did not verify: its checksum differs from the copy in the bucket.`,
  transferUnknown: 'No transfer with this id.',
  nothingToRetry: 'This transfer has no failed files to retry, was retried already, or is still under way.',
  /** A device token used on a call the agent does not make (the server's allowlist). */
  deviceForbidden: 'A transfer agent may not make this call. Sign in to Cumulo to do this.',
} as const;

// ---------------------------------------------------------------- server API (/api, the browser's session)

/** POST /agent/pairing-codes — a one-time code for pairing an agent (the page's pairing, or /profile's). */
export const agentPairingCode = z.object({
  /** Eight characters of an unambiguous alphabet, shown as XXXX-XXXX; the dash is optional when typed. */
  code: z.string(),
  expires_at: z.string(),
});
export type AgentPairingCode = z.infer<typeof agentPairingCode>;

/** A code as typed: letters and digits with an optional dash, any case. */
export const agentCodeField = text({ max: 16, trim: true }).regex(
  /^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/,
  'A pairing code is 8 letters and digits, such as ABCD-1234.',
);

/** POST /agent/devices (no session: the code is the proof) — the agent redeems a code for its device token. */
export const redeemAgentCodeBody = z.object({
  code: agentCodeField,
  /** The machine's host name, as the user knows it. */
  name: text({ max: 120, trim: true }).min(1),
  platform: z.enum(AGENT_PLATFORMS),
  version: text({ max: 40 }),
});
export type RedeemAgentCodeBody = z.infer<typeof redeemAgentCodeBody>;
export const redeemAgentCodeAnswer = z.object({
  device_id: z.string(),
  /** Shown once; the server keeps only its hash. */
  token: z.string(),
  user: z.object({ id: z.string(), email: z.string(), first_name: z.string(), last_name: z.string() }),
  organization_name: z.string(),
});
export type RedeemAgentCodeAnswer = z.infer<typeof redeemAgentCodeAnswer>;

/** GET /agent/devices — the caller's paired devices (an Owner or Admin: the organisation's). */
export const agentDevice = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.enum(AGENT_PLATFORMS),
  version: z.string(),
  user_id: z.string(),
  user_email: z.string(),
  created_at: z.string(),
  last_seen_at: z.string().nullable(),
});
export type AgentDevice = z.infer<typeof agentDevice>;
export const agentDevicesAnswer = z.object({ devices: z.array(agentDevice) });
/** DELETE /agent/devices/:id — revokes a device: its token stops working at once. */
export const agentDeviceParams = z.object({ id: z.uuid() });

/** GET /agent/me (device token) — who the agent acts for; 401 once revoked. Also records last_seen_at. */
export const agentMeAnswer = z.object({
  device_id: z.string(),
  name: z.string(),
  user_id: z.string(),
  email: z.string(),
  organization_name: z.string(),
});
export type AgentMeAnswer = z.infer<typeof agentMeAnswer>;

/** POST /agent/tickets (session) — a one-time ticket the page hands to its agent to connect. */
export const agentTicketBody = z.object({ device_id: z.uuid() });
export const agentTicketAnswer = z.object({ ticket: z.string(), expires_at: z.string() });
/** POST /agent/tickets/redeem (device token) — the agent checks a ticket is for it and unused. */
export const redeemAgentTicketBody = z.object({ ticket: text({ max: 200 }).min(1) });
export const redeemAgentTicketAnswer = z.object({ user_id: z.string(), email: z.string() });

/**
 * POST /agent/downloads (device token) — the files under the chosen keys, each with a short-lived signed GET URL,
 * a page at a time (folders are walked recursively; names starting with a dot are left out).
 */
export const agentDownloadBody = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  /** Object keys; a key ending with '/' is a folder. */
  paths: z
    .array(text({ max: 1024 }).min(1))
    .min(1)
    .max(1000),
  /** From the previous page's answer. */
  continuation: text({ max: 4096 }).nullable().optional(),
});
export type AgentDownloadBody = z.infer<typeof agentDownloadBody>;
export const agentDownloadFile = z.object({
  key: z.string(),
  /** Where the file goes under the local folder: the key after the chosen item's parent folder. */
  relative_path: z.string(),
  size: z.number(),
  /** The store's ETag without quotes (an MD5 for a single-part S3 object), null when the store has none. */
  etag: z.string().nullable(),
  url: z.string(),
});
export type AgentDownloadFile = z.infer<typeof agentDownloadFile>;
export const agentDownloadAnswer = z.object({
  files: z.array(agentDownloadFile),
  continuation: z.string().nullable(),
});
export type AgentDownloadAnswer = z.infer<typeof agentDownloadAnswer>;

/** Keys one POST /agent/downloads/urls call signs at most. */
export const AGENT_DOWNLOAD_URL_KEYS_MAX = 500;
/**
 * POST /agent/downloads/urls (device token) — fresh signed GET URLs for files a download already listed, in the
 * order asked: the agent asks for the next files' URLs as its downloads reach them, rather than holding a URL for
 * every listed file or listing a resumed transfer again. Nothing is listed or looked up: a key no longer in the
 * bucket answers 404 to its GET.
 */
export const agentDownloadUrlsBody = agentDownloadBody
  .pick({ cloud_account_id: true, bucket_name: true })
  .extend({
    keys: agentDownloadBody.shape.paths.max(AGENT_DOWNLOAD_URL_KEYS_MAX),
  });
export type AgentDownloadUrlsBody = z.infer<typeof agentDownloadUrlsBody>;
export const agentDownloadUrlsAnswer = z.object({
  urls: z.array(z.object({ key: z.string(), url: z.string() })),
});
export type AgentDownloadUrlsAnswer = z.infer<typeof agentDownloadUrlsAnswer>;

/**
 * POST /agent/history (device token) — the agent reports an ended transfer (idempotent on transfer_id); the
 * server prices it (AGENT_COST_PER_MB) and counts its bytes against the `fc` quota.
 */
export const agentHistoryReport = z.object({
  transfer_id: z.uuid(),
  direction: z.enum(AGENT_DIRECTIONS),
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  /** The top-level names the user chose (at most 100 kept). */
  files: z.array(text({ max: 1024 })).max(100),
  files_count: z.number().int().nonnegative().max(COUNT_MAX),
  size: z.number().int().nonnegative().max(BYTES_MAX),
  is_directory: z.boolean(),
});
export type AgentHistoryReport = z.infer<typeof agentHistoryReport>;

/** GET /transfers/history?limit&page&service (spec 002 §7) — the agent's history, newest first. */
export const agentHistoryQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(AGENT_HISTORY_LIMIT).default(AGENT_HISTORY_LIMIT),
  service: z.literal(AGENT_SERVICE).default(AGENT_SERVICE),
});
/** Spec 001 §3 "Agent history item". */
export const agentHistoryItem = z.object({
  id: z.string(),
  bucket: z.string(),
  cost: z.number(),
  date: z.string(),
  direction: z.enum(AGENT_DIRECTIONS),
  size: z.number(),
  files: z.array(z.string()),
  files_count: z.number(),
  is_directory: z.boolean(),
});
export type AgentHistoryItem = z.infer<typeof agentHistoryItem>;
export const agentHistoryAnswer = z.object({ transfers: z.array(agentHistoryItem), count: z.number() });
export type AgentHistoryAnswer = z.infer<typeof agentHistoryAnswer>;

/** GET /transfers/summary?start_date&end_date&service — files moved (count), their size and cost (spec 001 §2 cards). */
export const agentSummaryQuery = z.object({
  start_date: z.iso.datetime({ offset: true }),
  end_date: z.iso.datetime({ offset: true }),
  service: z.literal(AGENT_SERVICE).default(AGENT_SERVICE),
});
export const agentSummaryAnswer = z.object({ count: z.number(), size: z.number(), cost: z.number() });
export type AgentSummaryAnswer = z.infer<typeof agentSummaryAnswer>;

/** GET /agent/download/:platform (public) — the agent build for a platform, as a zip. */
export const agentDownloadParams = z.object({ platform: z.enum(AGENT_PLATFORMS) });

// ---------------------------------------------------------------- the agent's own API (http://127.0.0.1:<port>)

/** GET /heartbeat (no key needed): is it running, and is it paired. */
export const agentHeartbeat = z.object({
  running: z.literal(true),
  version: z.string(),
  platform: z.enum(AGENT_PLATFORMS),
  paired: z.boolean(),
  /** Set when paired: the page asks the server for a ticket for this device. */
  device_id: z.string().nullable(),
  /** A pairing waiting for the user to confirm in the terminal. */
  pairing: z.boolean(),
});
export type AgentHeartbeat = z.infer<typeof agentHeartbeat>;

/** POST /pair {code}: the agent asks its user to confirm in its terminal, then redeems the code. */
export const agentPairBody = z.object({ code: agentCodeField });
/** POST /connect {ticket} → {data: {connectionKey}} (spec §7 connect). */
export const agentConnectBody = z.object({ ticket: text({ max: 200 }).min(1) });
export const agentConnectAnswer = z.object({ data: z.object({ connectionKey: z.string() }) });

/**
 * Spec 001 §3 "Local file (agent)" (`checked` is the page's). Paths are the agent's virtual paths: '/' lists the
 * added folders, '/<folder name>/sub/file' a file inside one.
 */
export const agentLocalFile = z.object({
  name: z.string(),
  path: z.string(),
  /** -1 for a folder (spec §3 ftX item). */
  size: z.number(),
  isFile: z.boolean(),
  isDirectory: z.boolean(),
  modified: z.string().nullable(),
});
export type AgentLocalFile = z.infer<typeof agentLocalFile>;
/**
 * GET /files?path&skip&limit (spec §7 ftx.files), and `search`: only the names that contain it, whatever their
 * case (the Local File System panel's search box, as the bucket browser's).
 */
export const agentFilesQuery = z.object({
  path: text({ max: 4096 }).default('/'),
  search: text({ max: 255 }).default(''),
  skip: z.coerce.number().int().min(0).max(COUNT_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export const agentFilesAnswer = z.object({ items: z.array(agentLocalFile), total: z.number() });
export type AgentFilesAnswer = z.infer<typeof agentFilesAnswer>;

/** The cloud side of a transfer. */
export const agentRemote = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  /** Folder in the bucket: '' or 'a/b/'. */
  path: text({ max: 1024 }),
});
export type AgentRemote = z.infer<typeof agentRemote>;
/** POST /upload {paths, remoteDirectory} (spec §7 upload): local files and folders into a bucket folder. */
export const agentUploadBody = z.object({
  paths: z
    .array(text({ max: 4096 }).min(1))
    .min(1)
    .max(1000),
  remoteDirectory: agentRemote,
});
/** POST /download {remotePaths, localPath} (spec §7 download): objects and folders (keys ending '/') to a folder. */
export const agentDownloadRequest = z.object({
  remotePaths: z
    .array(text({ max: 1024 }).min(1))
    .min(1)
    .max(1000),
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  localPath: text({ max: 4096 }).min(1),
});
export const agentTransferStarted = z.object({ transferID: z.string() });
/** POST /cancel {transferID}; POST /retry {transferID} starts a new transfer of its failed files. */
export const agentCancelBody = z.object({ transferID: text({ max: 64 }).min(1) });
/** POST /delete {path}, POST /mkdir {path} (spec §7 delete file, create directory). */
export const agentPathBody = z.object({ path: text({ max: 4096 }).min(1) });
/** POST /share {paths, recipients} (spec §7 share): shares objects already in the bucket by e-mail. */
export const agentShareBody = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  paths: z
    .array(text({ max: 1024 }).min(1))
    .min(1)
    .max(100),
  recipients: z
    .array(text({ max: 320 }).min(3))
    .min(1)
    .max(50),
});

export const AGENT_TRANSFER_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type AgentTransferStatus = (typeof AGENT_TRANSFER_STATUSES)[number];
export const AGENT_FILE_STATUSES = ['pending', 'running', 'verified', 'failed', 'cancelled'] as const;

/** One file of a transfer (the running ones and the failed ones are listed; the rest are counted). */
export const agentFileTransfer = z.object({
  file: z.string(),
  size: z.number(),
  transferred: z.number(),
  status: z.enum(AGENT_FILE_STATUSES),
  error: z.string().nullable(),
});
/** Spec 001 §3 "Transfer entry (agent)", plus the counts the panel shows. */
export const agentTransfer = z.object({
  transferID: z.string(),
  status: z.enum(AGENT_TRANSFER_STATUSES),
  currentFilename: z.string(),
  rateAverageInKBperSecond: z.number(),
  transferDirection: z.enum(AGENT_DIRECTIONS),
  /** Milliseconds; -1 while unknown. */
  timeRemaining: z.number(),
  percent: z.number(),
  bucket: z.string(),
  /** The top-level names chosen (at most 100): what the row is called once no file of it is running. */
  items: z.array(z.string()).default([]),
  totalBytes: z.number(),
  transferredBytes: z.number(),
  filesTotal: z.number(),
  filesDone: z.number(),
  /**
   * False while the files are still being found (a download's listing, an upload's walk of its folders), and for a
   * transfer that ended before they all were: filesTotal, totalBytes and percent then count only the files found so
   * far. True from an agent that does not say.
   */
  listedWhole: z.boolean().default(true),
  /** True once the agent restarted and picked the transfer up again from its state file. */
  resumed: z.boolean(),
  /** Its failed files were retried (Retry Failed Files): a transfer is retried once; the retry has a row of its own. */
  retried: z.boolean().default(false),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  transferErrors: z.array(z.object({ file: z.string(), error: z.string() })),
  fileTransfers: z.array(agentFileTransfer),
});
export type AgentTransfer = z.infer<typeof agentTransfer>;
/** GET /status → {data: {allTransfers}} (spec §7 status). */
export const agentStatusAnswer = z.object({ data: z.object({ allTransfers: z.array(agentTransfer) }) });
export type AgentStatusAnswer = z.infer<typeof agentStatusAnswer>;

/** Every refusal of the agent: `{ message }` with 400, 401 (no or bad key), 403 (Host, Origin, path) or 404. */
export const agentError = z.object({ message: z.string() });
