import { z } from 'zod';
import { isStorableText, text } from './text.ts';

/* ------------------------------------------------------------------------------------------------------------------
 * Profile jobs, "Hybrik" (issue 26 point 2; spec 001 §2 Encoding and hybrik pages, Dialogs; §3 Hybrik profile and
 * job; §4; §5; §7 "hybrik …"; §8; §9). A profile is a job JSON in Hybrik's shape; Cumulo runs the subset of it made
 * of source, transcode and copy elements with ffmpeg on its own workers.
 * ---------------------------------------------------------------------------------------------------------------- */

/** A profile file is JSON under 1 MB (spec 001 §5, §9). */
export const HYBRIK_PROFILE_MAX_BYTES = 1024 * 1024;
/** The job tabs refresh every second (spec 001 §4, §9). */
export const HYBRIK_POLL_MS = 1000;
/** The most jobs one tab lists, newest first. */
export const HYBRIK_JOBS_LISTED = 100;
/** Spec 001 §4: jobs grouped queued, active, completed, failed — a job's status is its group. */
export const HYBRIK_JOB_STATUSES = ['queued', 'active', 'completed', 'failed'] as const;
export type HybrikJobStatus = (typeof HYBRIK_JOB_STATUSES)[number];
/** The element kinds Cumulo runs; any other kind in a profile is refused, naming it. */
export const HYBRIK_ELEMENT_KINDS = ['source', 'transcode', 'copy'] as const;
export const HYBRIK_CONTAINERS = ['mp4', 'mov', 'mkv', 'webm', 'mpegts', 'hls', 'mp3', 'm4a'] as const;
export const HYBRIK_VIDEO_CODECS = ['h264', 'h265', 'hevc', 'vp9'] as const;
export const HYBRIK_AUDIO_CODECS = ['aac', 'heaac_v1', 'heaac_v2', 'mp3', 'opus'] as const;

export const hybrikMessages = {
  /* Spec 001 §5 and §8, as written. */
  jsonOnly: 'You can only upload JSON file.',
  tooLarge: 'File must be smaller that 1MB.',
  jobCreated: 'Job created successfully.',
  jobFailed: 'Unable to start the job, please try again later.',
  profileUploaded: 'Profile file uploaded successfully.',
  profileDeleteFailed: 'An error occured while deleting this profile.',
  settingsSaved: 'hybrik JSON configurations successfully updated.',
  settingsFailedTitle: 'Something Went Wrong',
  settingsFailedText: 'Please try again later.',
  /* Texts the spec leaves to us. */
  packageRequired: 'Profile jobs need the Hybrik package. Subscribe to it on the pricing page.',
  profileDeleted: 'Profile deleted.',
  jobCancelled: 'Job cancelled.',
  /** The error a cancelled job shows in the Failed Jobs tab. */
  cancelledError: 'The job was cancelled.',
  workerLost: 'The worker running this job stopped before it finished, three times. Create the job again.',
  notCancellable: 'Only a queued or active job can be cancelled.',
  fileRequired: 'Choose a JSON profile file to upload.',
  notJson: (reason: string) => `The file is not valid JSON: ${reason}`,
  settingsRequired: 'Choose the output bucket in Settings first: profiles are kept there.',
  unsupportedKind: (kind: string) =>
    `The element kind "${kind}" is not supported; Cumulo runs source, transcode and copy elements.`,
  badElement: (where: string, reason: string) => `${where}: ${reason}`,
  duplicateUid: (uid: string) => `Two elements have the uid "${uid}".`,
  unknownUid: (uid: string) => `A connection names the element "${uid}", which the job does not have.`,
  sourceMissing: 'The job has no source element: a job starts from one source.',
  oneSource: 'The job has more than one source element; Cumulo runs jobs with one source.',
  cycle: (uids: string[]) => `The connections go round in a circle (${uids.join(' → ')}); a job must end.`,
  unreachable: (uid: string) => `The element "${uid}" is not connected to the source.`,
  transcodeInput: (uid: string) =>
    `The transcode "${uid}" must take the source as its input; Cumulo does not chain transcodes.`,
  oneAsset: 'A source takes one asset URL in Cumulo.',
  notS3: (provider: string) =>
    `The storage provider "${provider}" is not supported; Cumulo reads and writes s3:// URLs of your connected accounts.`,
  badUrl: (url: string) => `"${url}" is not an s3://bucket/key URL.`,
  unstorableText: (path: string) =>
    `${path} holds a character that cannot be stored (a NUL or a lone surrogate); remove it and upload again.`,
  undefinedPlaceholder: (name: string) => `The job uses {{${name}}}, which its definitions do not give.`,
  unknownBucket: (bucket: string) =>
    `The bucket "${bucket}" is neither the source's bucket nor the output bucket of Settings.`,
  noLocation: (uid: string) => `The transcode "${uid}" has no location and the job no destination.`,
  noStreams: (pattern: string) => `The target "${pattern}" has neither video nor audio.`,
  videoInAudioContainer: (pattern: string, container: string) =>
    `The target "${pattern}" has video, which a ${container} file cannot hold.`,
  sourceGone: (path: string, reason: string) => `${path} could not be read: ${reason}`,
  objectMissing: 'the object does not exist',
  notMedia: (path: string) => `${path} is not a video or audio file Cumulo can read.`,
} as const;

const listOf = (values: readonly string[]) => values.join(', ');

/* The job JSON subset. Unknown fields are kept (a Hybrik profile carries many), unknown element kinds refused. */

const jsonText = z.string().max(4096);
const storageProvider = jsonText.optional();
const asset = z.object({ storage_provider: storageProvider, url: jsonText });
const sourcePayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('asset_url'), payload: asset }),
  z.object({ kind: z.literal('asset_urls'), payload: z.array(asset).length(1, hybrikMessages.oneAsset) }),
]);
const location = z.object({ storage_provider: storageProvider, path: jsonText });
const positive = z.number().positive().max(100_000);
const videoTrack = z.object({
  codec: jsonText,
  width: z.number().int().positive().max(16_384).optional(),
  height: z.number().int().positive().max(16_384).optional(),
  bitrate_kb: positive.optional(),
  frame_rate: positive.optional(),
});
const audioTrack = z.object({
  codec: jsonText,
  bitrate_kb: positive.optional(),
  channels: z.number().int().positive().max(16).optional(),
  sample_rate: z.number().int().positive().max(192_000).optional(),
});
const target = z.object({
  file_pattern: jsonText.min(1),
  existing_files: jsonText.optional(),
  container: z.object({ kind: jsonText }),
  video: videoTrack.optional(),
  audio: z.union([z.array(audioTrack).max(1), audioTrack]).optional(),
});
export type HybrikTarget = z.infer<typeof target>;
const transcodePayload = z.object({ location: location.optional(), targets: z.array(target).min(1).max(20) });
const copyPayload = z.object({ target: location.extend({ file_pattern: jsonText.optional() }) });

const element = z.object({ uid: jsonText.min(1), kind: jsonText, payload: z.unknown() });
const connection = z.object({
  from: z.array(z.object({ element: jsonText })).min(1),
  to: z.object({ success: z.array(z.object({ element: jsonText })).default([]) }),
});
const jobShape = z.object({
  name: jsonText.min(1),
  definitions: z.record(z.string(), z.union([jsonText, z.number(), z.boolean()])).optional(),
  payload: z.object({
    elements: z.array(element).min(1).max(100),
    connections: z.array(connection).max(500).default([]),
  }),
});

export type HybrikElement =
  | { uid: string; kind: 'source'; url: string; provider: string | undefined }
  | { uid: string; kind: 'transcode'; location: string | undefined; targets: HybrikTarget[] }
  | { uid: string; kind: 'copy'; path: string; filePattern: string | undefined };

/** A profile's job, checked: its elements in the order they run, each with the uids it takes its input from. */
export interface HybrikJobPlan {
  name: string;
  definitions: Record<string, string>;
  /** Source first, then every element after all of its inputs. */
  elements: HybrikElement[];
  inputs: Record<string, string[]>;
}

function firstIssue(where: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return hybrikMessages.badElement(path ? `${where}.${path}` : where, issue?.message ?? 'invalid');
}

function checkTarget(where: string, spec: HybrikTarget): string | null {
  const container = spec.container.kind;
  if (!(HYBRIK_CONTAINERS as readonly string[]).includes(container)) {
    return `${where}: the container kind "${container}" is not supported; Cumulo writes ${listOf(HYBRIK_CONTAINERS)}.`;
  }
  const audio = Array.isArray(spec.audio) ? spec.audio[0] : spec.audio;
  if (!spec.video && !audio) return hybrikMessages.noStreams(spec.file_pattern);
  if (spec.video && (container === 'mp3' || container === 'm4a')) {
    return hybrikMessages.videoInAudioContainer(spec.file_pattern, container);
  }
  if (spec.video && !(HYBRIK_VIDEO_CODECS as readonly string[]).includes(spec.video.codec)) {
    return `${where}: the video codec "${spec.video.codec}" is not supported; Cumulo encodes ${listOf(HYBRIK_VIDEO_CODECS)}.`;
  }
  if (audio && !(HYBRIK_AUDIO_CODECS as readonly string[]).includes(audio.codec)) {
    return `${where}: the audio codec "${audio.codec}" is not supported; Cumulo encodes ${listOf(HYBRIK_AUDIO_CODECS)}.`;
  }
  return null;
}

function checkProvider(where: string, provider: string | undefined): string | null {
  return provider === undefined || provider === 's3' ? null : `${where}: ${hybrikMessages.notS3(provider)}`;
}

/**
 * Where a JSON value holds a key or a string PostgreSQL cannot store (a NUL, a lone surrogate: `isStorableText`),
 * as a path ('job.payload.elements.0.uid'); null when it holds none. The job JSON is kept as JSONB and its name as
 * text, so such a profile is refused in words before anything is written.
 */
function unstorableTextIn(value: unknown, path: string): string | null {
  if (typeof value === 'string') return isStorableText(value) ? null : path;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableTextIn(item, `${path}.${index}`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) return path;
      const found = unstorableTextIn(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Checks a profile's job JSON against the subset Cumulo runs (on upload, and again once its definitions are filled
 * in) and orders its elements. Answers the plan, or the first problem in words.
 */
export function planHybrikJob(value: unknown): { plan: HybrikJobPlan } | { error: string } {
  const unstorable = unstorableTextIn(value, 'job');
  if (unstorable) return { error: hybrikMessages.unstorableText(unstorable) };
  const shape = jobShape.safeParse(value);
  if (!shape.success) return { error: firstIssue('job', shape.error) };
  const job = shape.data;
  const elements = new Map<string, HybrikElement>();
  for (const [index, raw] of job.payload.elements.entries()) {
    const where = `element "${raw.uid}"`;
    if (elements.has(raw.uid)) return { error: hybrikMessages.duplicateUid(raw.uid) };
    let parsed: HybrikElement;
    if (raw.kind === 'source') {
      const payload = sourcePayload.safeParse(raw.payload);
      if (!payload.success)
        return { error: firstIssue(`${where} (elements.${index}).payload`, payload.error) };
      const first = payload.data.kind === 'asset_url' ? payload.data.payload : payload.data.payload[0];
      if (!first) return { error: hybrikMessages.oneAsset };
      parsed = { uid: raw.uid, kind: 'source', url: first.url, provider: first.storage_provider };
      const provider = checkProvider(where, first.storage_provider);
      if (provider) return { error: provider };
    } else if (raw.kind === 'transcode') {
      const payload = transcodePayload.safeParse(raw.payload);
      if (!payload.success)
        return { error: firstIssue(`${where} (elements.${index}).payload`, payload.error) };
      for (const spec of payload.data.targets) {
        const problem = checkTarget(where, spec);
        if (problem) return { error: problem };
      }
      const provider = checkProvider(where, payload.data.location?.storage_provider);
      if (provider) return { error: provider };
      parsed = {
        uid: raw.uid,
        kind: 'transcode',
        location: payload.data.location?.path,
        targets: payload.data.targets,
      };
    } else if (raw.kind === 'copy') {
      const payload = copyPayload.safeParse(raw.payload);
      if (!payload.success)
        return { error: firstIssue(`${where} (elements.${index}).payload`, payload.error) };
      const provider = checkProvider(where, payload.data.target.storage_provider);
      if (provider) return { error: provider };
      parsed = {
        uid: raw.uid,
        kind: 'copy',
        path: payload.data.target.path,
        filePattern: payload.data.target.file_pattern,
      };
    } else {
      return { error: hybrikMessages.unsupportedKind(raw.kind) };
    }
    elements.set(raw.uid, parsed);
  }

  const sources = [...elements.values()].filter((item) => item.kind === 'source');
  if (sources.length === 0) return { error: hybrikMessages.sourceMissing };
  if (sources.length > 1) return { error: hybrikMessages.oneSource };

  const inputs: Record<string, string[]> = {};
  const next = new Map<string, string[]>();
  for (const link of job.payload.connections) {
    for (const end of [...link.from, ...link.to.success]) {
      if (!elements.has(end.element)) return { error: hybrikMessages.unknownUid(end.element) };
    }
    for (const from of link.from) {
      for (const to of link.to.success) {
        next.set(from.element, [...(next.get(from.element) ?? []), to.element]);
        inputs[to.element] = [...(inputs[to.element] ?? []), from.element];
      }
    }
  }
  const order = orderFrom(next, [...elements.keys()]);
  if ('cycle' in order) return { error: hybrikMessages.cycle(order.cycle) };
  const reachable = reachableFrom(next, sources[0]?.uid ?? '');
  for (const uid of elements.keys()) {
    if (!reachable.has(uid)) return { error: hybrikMessages.unreachable(uid) };
  }
  const sourceUid = sources[0]?.uid;
  for (const item of elements.values()) {
    if (item.kind === 'transcode' && (inputs[item.uid] ?? []).some((uid) => uid !== sourceUid)) {
      return { error: hybrikMessages.transcodeInput(item.uid) };
    }
  }
  const definitions = Object.fromEntries(
    Object.entries(job.definitions ?? {}).map(([key, entry]) => [key, String(entry)]),
  );
  return {
    plan: {
      name: job.name,
      definitions,
      elements: order.order.flatMap((uid) => elements.get(uid) ?? []),
      inputs,
    },
  };
}

/** Kahn's order of the graph; a cycle answers the uids on it. */
function orderFrom(next: Map<string, string[]>, uids: string[]): { order: string[] } | { cycle: string[] } {
  const incoming = new Map(uids.map((uid) => [uid, 0]));
  for (const targets of next.values()) {
    for (const uid of targets) incoming.set(uid, (incoming.get(uid) ?? 0) + 1);
  }
  const ready = uids.filter((uid) => incoming.get(uid) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const uid = ready.shift() ?? '';
    order.push(uid);
    for (const target of next.get(uid) ?? []) {
      const left = (incoming.get(target) ?? 0) - 1;
      incoming.set(target, left);
      if (left === 0) ready.push(target);
    }
  }
  if (order.length === uids.length) return { order };
  const stuck = uids.filter((uid) => !order.includes(uid));
  return { cycle: [...stuck, stuck[0] ?? ''] };
}

function reachableFrom(next: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const uid of next.get(queue.shift() ?? '') ?? []) {
      if (!seen.has(uid)) {
        seen.add(uid);
        queue.push(uid);
      }
    }
  }
  return seen;
}

/** Replaces every `{{name}}` in the job's strings with its definition; a name without one is an error. */
export function fillDefinitions(
  value: unknown,
  definitions: Record<string, string>,
): { value: unknown } | { error: string } {
  let missing: string | null = null;
  const fill = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) => {
        const found = definitions[name];
        if (found === undefined) {
          missing ??= name;
          return whole;
        }
        return found;
      });
    }
    if (Array.isArray(node)) return node.map(fill);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, fill(entry)]));
    }
    return node;
  };
  // Definitions may name others ("destination_path": "s3://…/{{profile_name}}"): fill them among themselves first.
  const own = fill(definitions) as Record<string, string>;
  missing = null;
  const filled = fill({ ...(value as object), definitions: own });
  return missing === null ? { value: filled } : { error: hybrikMessages.undefinedPlaceholder(missing) };
}

/** An `s3://bucket/key` URL's parts; null when it is not one. */
export function parseS3Url(url: string): { bucket: string; key: string } | null {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url.trim());
  if (!match?.[1]) return null;
  return { bucket: match[1], key: match[2] ?? '' };
}

/* API shapes. */

/** The user's `hybrik_profiles_bucket` (spec 001 §3 User): where profiles are kept and outputs go by default. */
export const hybrikProfilesBucket = z.object({
  cloud_account_id: z.uuid({ error: 'Choose a cloud account.' }),
  bucket_name: text({ trim: true, max: 255 }).min(1, 'Choose a bucket.'),
  path: text({ max: 1024 }).default(''),
});
export type HybrikProfilesBucket = z.infer<typeof hybrikProfilesBucket>;
/** PUT /hybrik/settings ("update user hybrik_profiles_bucket"). */
export const hybrikSettingsBody = z.object({ hybrik_profiles_bucket: hybrikProfilesBucket });
export type HybrikSettingsBody = z.infer<typeof hybrikSettingsBody>;
export const hybrikSettings = z.object({ hybrik_profiles_bucket: hybrikProfilesBucket.nullable() });
export type HybrikSettings = z.infer<typeof hybrikSettings>;

/** Spec 001 §3 "Hybrik profile". */
export const hybrikProfile = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  /** The profile's `definitions` (source, destination, …) as its JSON gives them. */
  definitions: z.record(z.string(), z.string()),
  /** Where the profile's JSON is kept: `s3://bucket/key` of the profiles bucket. */
  object: z.string(),
});
export type HybrikProfile = z.infer<typeof hybrikProfile>;
export const hybrikProfiles = z.array(hybrikProfile);

/** Spec 001 §3 "Hybrik job". */
export const hybrikJob = z.object({
  id: z.string(),
  name: z.string(),
  profile_id: z.string().nullable(),
  status: z.enum(HYBRIK_JOB_STATUSES),
  creation_time: z.string(),
  end_time: z.string().nullable(),
  /** Percent, 0–100. */
  progress: z.number(),
  error: z.string().nullable(),
  /** `s3://bucket/key` of each file the job wrote. */
  outputs: z.array(z.string()),
});
export type HybrikJob = z.infer<typeof hybrikJob>;
export const hybrikJobs = z.array(hybrikJob);

/** GET /hybrik/jobs?filter= ("fetch jobs by filter"). */
export const hybrikJobsQuery = z.object({ filter: z.enum(HYBRIK_JOB_STATUSES) });

const definitionText = text({ max: 2048 });
/**
 * POST /hybrik/jobs (spec 001 §7 "createJob {profile_id, definitions, cloud_account_id, account_type, endpoint}").
 * `cloud_account_id` is the source's account; the server knows its type and endpoint, so those two are accepted
 * and not used. `definitions` fill the profile's `{{…}}` placeholders: `source` the file (`s3://bucket/key`),
 * `destination` the output folder (the profiles bucket when absent).
 */
export const hybrikCreateJobBody = z.object({
  profile_id: z.uuid({ error: 'Choose a profile.' }),
  cloud_account_id: z.uuid({ error: 'Choose the source account.' }),
  account_type: text({ max: 100 }).optional(),
  endpoint: text({ max: 2048 }).optional(),
  definitions: z
    .record(text({ max: 100 }), definitionText)
    .refine((value) => Object.keys(value).length <= 50, 'At most 50 definitions.')
    .refine((value) => typeof value.source === 'string', 'Choose the file to run the profile on.'),
});
export type HybrikCreateJobBody = z.infer<typeof hybrikCreateJobBody>;
export const hybrikCreateJobAnswer = z.object({ message: z.string(), job: hybrikJob });
export const hybrikProfileAnswer = z.object({ message: z.string(), profile: hybrikProfile });
