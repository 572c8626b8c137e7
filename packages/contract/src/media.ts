import { z } from 'zod';
import { text } from './text.ts';

/* ------------------------------------------------------------------------------------------------------------------
 * Media (issue 26; spec 001 §2 Cloud bucket browser, Encoding and hybrik pages, Dialogs; §3 Encode item, Encoding
 * job, Metadata entry; §4 Encoding job; §5; §7 "Sharing, encoding, billing"; §8; §9). This part: encoding with
 * presets, media info and custom metadata. Profile jobs (/hybrik) and media search come later in the issue.
 * ---------------------------------------------------------------------------------------------------------------- */

/** Encoding price (spec 001 §9): per GB of source, per preset, shown as size in GB × price with 3 decimals. */
export const ENCODING_PRICE_PER_GB = 0.5;
/** The job list keeps at most this many finished jobs in view and polls every second (spec 001 §4, §9). */
export const ENCODING_FINISHED_KEPT = 20;
export const ENCODING_POLL_MS = 1000;
/** Realtime events on /rm, to members with the encoding ACL. */
export const ENCODING_EVENTS = {
  /** data: `EncodingJob` — a job changed status or progress (progress at most every 500 ms per job). */
  job: 'encoding.job',
} as const;
/** How long a signed URL an encode or a probe reads its source through lives: a job never outlives it by more. */
export const MEDIA_SOURCE_URL_MINUTES = 60;
/** The floating video player's smallest window (spec 001 §2 Dialogs: "minimum size 100x50"), in CSS pixels. */
export const PLAYER_MIN_WIDTH = 100;
export const PLAYER_MIN_HEIGHT = 50;
/** The largest HLS playlist the playback proxy reads and rewrites (a 24 h VOD of 1 s segments is about 2 MB). */
export const MEDIA_PLAYLIST_MAX_BYTES = 4 * 1024 * 1024;
/** The most items and presets one encode request takes. */
export const ENCODE_ITEMS_MAX = 100;
export const ENCODE_PRESETS_MAX = 20;

/** Spec 001 §3 "Encoding job" statuses. */
export const ENCODING_JOB_STATUSES = ['New', 'Processing', 'Finished', 'Stopped', 'Error'] as const;
export type EncodingJobStatus = (typeof ENCODING_JOB_STATUSES)[number];

export const mediaMessages = {
  /* Spec 001 §4, §5, §8, as written. */
  processing: 'Processing...',
  done: 'Done',
  queued: 'You files have been adding to the queue successfully',
  cancelled: 'Cancelled successfully',
  destinationRequired: 'Please select a destination path',
  presetRequired: (source: string, preset: string, destination: string) =>
    `Please select a preset for ${source} (${preset}) and ${destination}`,
  fileRequired: 'Please select a file to encode',
  /* Texts the spec leaves to us ("not shown"). */
  unknownPreset: (category: string, preset: string) => `There is no preset ${preset} in ${category}.`,
  notMedia: (path: string) => `${path} is not a video or audio file Cumulo can read.`,
  sourceGone: (path: string, reason: string) => `${path} could not be read: ${reason}`,
  /** The source was read and encoded; writing the output to the destination failed. */
  outputNotWritten: (where: string, reason: string) =>
    `The output could not be written to ${where}: ${reason}`,
  /** The reason of `sourceGone` when the store answers that there is no such object. */
  objectMissing: 'the object does not exist',
  tooManyItems: `Encode at most ${ENCODE_ITEMS_MAX} files at once.`,
  tooManyPresets: `Choose at most ${ENCODE_PRESETS_MAX} presets for one file.`,
  workerLost:
    'The worker encoding this file stopped before it finished, three times. Start the encode again.',
  notCancellable: 'Only a job that is waiting or running can be cancelled.',
  notRemovable: 'A job that is waiting or running must be cancelled before it is removed.',
  metadataNameRequired: 'Enter a name for the metadata.',
  metadataExists: (name: string) => `This file already has metadata named ${name}.`,
  playbackExpired: 'This playback link has expired; press Play again.',
  playlistTooLarge: (path: string) =>
    `${path} is larger than ${MEDIA_PLAYLIST_MAX_BYTES / 1024 / 1024} MB, too large for a playlist.`,
} as const;

const bucketText = text({ trim: true, max: 255 }).min(1, mediaMessages.destinationRequired);
const keyText = text({ max: 1024 });

/** An object in a connected account. */
export const mediaLocation = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: bucketText,
  path: keyText.min(1, mediaMessages.fileRequired),
});
export type MediaLocation = z.infer<typeof mediaLocation>;

/** Where an output goes: `path` is a folder (ending with '/') or empty for the bucket's top. */
export const encodeDestination = z.object({
  cloud_account_id: z.uuid({ error: mediaMessages.destinationRequired }),
  bucket_name: bucketText,
  path: keyText.default(''),
});

/** Spec 001 §3 "Encode item": one source and its presets, each with a destination. */
export const encodeItem = z.object({
  source: mediaLocation,
  presets: z
    .array(
      z.object({
        category: text({ max: 100 }),
        preset: text({ max: 100 }),
        destination: encodeDestination,
      }),
    )
    .min(1, mediaMessages.destinationRequired)
    .max(ENCODE_PRESETS_MAX, mediaMessages.tooManyPresets),
});
export type EncodeItem = z.infer<typeof encodeItem>;

/** POST /encoding/encode: the spec's list of items; each preset of each item becomes one job. */
export const encodeBody = z
  .array(encodeItem, { error: mediaMessages.fileRequired })
  .min(1, mediaMessages.fileRequired)
  .max(ENCODE_ITEMS_MAX, mediaMessages.tooManyItems);
export type EncodeBody = z.infer<typeof encodeBody>;

/** GET /encoding/presets (spec 001 §7 "encoding.presets returns transcode_presets[{category, presets[{name}]}]"). */
export const encodingPresets = z.object({
  transcode_presets: z.array(
    z.object({
      category: z.string(),
      presets: z.array(z.object({ name: z.string(), description: z.string(), outputs: z.array(z.string()) })),
    }),
  ),
});
export type EncodingPresets = z.infer<typeof encodingPresets>;

/** Spec 001 §3 "Encoding job". */
export const encodingJob = z.object({
  id: z.string(),
  /** The source object's id in the product: `{cloud_account_id}/{bucket}/{path}`. */
  media_id: z.string(),
  status: z.enum(ENCODING_JOB_STATUSES),
  /** Percent, 0–100 with one decimal. */
  progress: z.number(),
  /** Seconds left at the current speed, null while unknown. */
  time_left: z.number().nullable(),
  /** When the job ended (ISO 8601), null while it runs. */
  finished: z.string().nullable(),
  error: z.string().nullable(),
  preset: z.object({ category: z.string(), name: z.string() }),
  source: z.object({ cloud_account_id: z.string(), bucket_name: z.string(), path: z.string() }),
  destination: z.object({ cloud_account_id: z.string(), bucket_name: z.string(), path: z.string() }),
  /** The keys the job wrote (the playlist and segments of HLS, one file otherwise); empty until it finished. */
  outputs: z.array(z.string()),
  /** The member who started it (null once that member is gone): a User may cancel and remove only these. */
  created_by: z.string().nullable(),
  created_at: z.string(),
});
export type EncodingJob = z.infer<typeof encodingJob>;

export const encodeAnswer = z.object({ message: z.string(), jobs: z.array(encodingJob) });

/** GET /encoding/jobs: the jobs waiting or running, then at most ENCODING_FINISHED_KEPT ended ones, newest first. */
export const encodingJobs = z.array(encodingJob);

/* Media info (spec 001 §3 "Metadata entry": sections general, video, audio, s3_metadata, metadata). */

/** GET /media/info?cloud_account_id&bucket_name&path. */
export const mediaInfoQuery = mediaLocation;

const section = z.record(z.string(), z.union([z.string(), z.number()]));

/** Spec 001 §3 "Metadata entry". */
export const metadataEntry = z.object({
  id: z.string(),
  name: z.string(),
  value: z.string(),
  category: z.literal('Custom'),
  cloud: z.string(),
  storage: z.string(),
  path: z.string(),
});
export type MetadataEntry = z.infer<typeof metadataEntry>;

export const mediaInfo = z.object({
  /** Container: format, duration (s), size (bytes), bit rate, … */
  general: section,
  /** One section per video stream: codec, width, height, frame rate, … */
  video: z.array(section),
  audio: z.array(section),
  /** The object's own metadata in the store: content type, ETag or version, last modified, user metadata. */
  s3_metadata: section,
  /** The custom metadata members added. */
  metadata: z.array(metadataEntry),
});
export type MediaInfo = z.infer<typeof mediaInfo>;

/** POST /metadata/add (spec 001 §7 "metadata add/delete/all"). */
export const addMetadataBody = mediaLocation.extend({
  name: text({ max: 100, trim: true }).min(1, mediaMessages.metadataNameRequired),
  value: text({ max: 1000, trim: true }),
});
export type AddMetadataBody = z.infer<typeof addMetadataBody>;

/** GET /metadata/all?cloud_account_id&bucket_name&path. */
export const metadataQuery = mediaLocation;

/** The endings of the files the player offers to play: video, audio, and HLS playlists (`.m3u8`). */
export const PLAYABLE_EXTENSIONS: ReadonlySet<string> = new Set([
  ...[
    'mp4',
    'm4v',
    'mov',
    'webm',
    'mkv',
    'ogv',
    'avi',
    'wmv',
    'flv',
    'mpg',
    'mpeg',
    'ts',
    'm2ts',
    'mts',
    'mxf',
  ],
  ...['3gp', '3g2', 'm3u8', 'mp3', 'm4a', 'aac', 'wav', 'flac', 'ogg', 'oga', 'opus', 'weba', 'aif', 'aiff'],
]);

/**
 * Whether Play is offered on a file (spec 001 §2 "video play"): a media ending, or no ending at all (nothing says
 * it is not media). A text file, an image or an archive is not offered, since playing it could only fail.
 */
export function isPlayable(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return true;
  return PLAYABLE_EXTENSIONS.has(base.slice(dot + 1).toLowerCase());
}

/**
 * GET /media/play?cloud_account_id&bucket_name&path: a short-lived URL and how to play it. `file`: a signed GET of
 * the object. `hls` (a .m3u8): a path of this API (`/api/media/hls/{token}/{name}`) that serves the playlist with
 * its segments signed, so a folder in a private bucket plays; both live MEDIA_SOURCE_URL_MINUTES.
 */
export const mediaPlayback = z.object({
  url: z.string(),
  kind: z.enum(['hls', 'file']),
  expires_at: z.string(),
});
export type MediaPlayback = z.infer<typeof mediaPlayback>;

/** The encoding price of `bytes` with `presets` presets (spec 001 §9): GB × 0.5 per preset, to 3 decimals. */
export function encodingPrice(bytes: number, presets: number): number {
  return Math.round((bytes / 1024 ** 3) * ENCODING_PRICE_PER_GB * presets * 1000) / 1000;
}
