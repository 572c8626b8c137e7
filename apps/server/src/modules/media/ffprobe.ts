import { execFile, type ExecFileException } from 'node:child_process';
import { z } from 'zod';
import { isStorableText } from '@cumulo/contract';
import type { ProbedSections } from '../../db/schema/index.ts';

/** How long one probe may read before it is stopped: ffprobe reads headers, not the whole file. */
const PROBE_TIMEOUT_MS = 30_000;
/** The most ffprobe may print: a file with thousands of streams or huge tags is cut, not held in memory. */
const PROBE_OUTPUT_MAX = 4 * 1024 * 1024;

/** What a probe found: the sections, or that the bytes are not media, or that they could not be read. */
type ProbeOutcome =
  { kind: 'media'; sections: ProbedSections } | { kind: 'notMedia' } | { kind: 'unreadable'; reason: string };

const numeric = z.union([z.string(), z.number()]).optional();
const ffprobeOutput = z.object({
  format: z
    .object({
      format_name: z.string().optional(),
      format_long_name: z.string().optional(),
      duration: numeric,
      size: numeric,
      bit_rate: numeric,
      nb_streams: z.number().optional(),
      tags: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        codec_long_name: z.string().optional(),
        profile: z.string().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        avg_frame_rate: z.string().optional(),
        r_frame_rate: z.string().optional(),
        pix_fmt: z.string().optional(),
        bit_rate: numeric,
        duration: numeric,
        channels: z.number().optional(),
        channel_layout: z.string().optional(),
        sample_rate: numeric,
        disposition: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
});
type FfprobeOutput = z.infer<typeof ffprobeOutput>;
type Stream = FfprobeOutput['streams'][number];

/**
 * Formats ffprobe recognises in bytes that are not video or audio: `tty` shows a text file as an "ANSI art"
 * video, so a `.txt` would otherwise pass as media.
 */
const NOT_MEDIA_FORMATS = new Set(['tty']);

/**
 * Runs ffprobe on a URL (a short-lived signed URL of the object: the account keys never reach a command line).
 * One instance per process; tests watch `probe` to see whether a read probed.
 */
export class Ffprobe {
  constructor(private readonly binary = 'ffprobe') {}

  probe(url: string): Promise<ProbeOutcome> {
    // Only the protocols a signed URL needs: a crafted playlist cannot make ffprobe open local files.
    const args = [
      '-v',
      'error',
      '-protocol_whitelist',
      'http,https,tcp,tls,crypto',
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      url,
    ];
    return new Promise((resolve) => {
      execFile(
        this.binary,
        args,
        { timeout: PROBE_TIMEOUT_MS, maxBuffer: PROBE_OUTPUT_MAX, windowsHide: true },
        (error, stdout, stderr) => {
          if (error) {
            resolve(failureOf(error, String(stderr)));
            return;
          }
          resolve(outcomeOf(String(stdout)));
        },
      );
    });
  }
}

function failureOf(error: ExecFileException, stderr: string): ProbeOutcome {
  if (error.killed)
    return { kind: 'unreadable', reason: `reading it took longer than ${PROBE_TIMEOUT_MS / 1000} s` };
  if (error.code === 'ENOENT')
    return { kind: 'unreadable', reason: 'ffprobe is not installed on the server' };
  // ffprobe says why on stderr; an HTTP or network failure is the store's, anything else the bytes'.
  const said = stderr.trim().split('\n').at(-1) ?? '';
  if (/Server returned|Connection|timed out|resolve|HTTP error/i.test(said)) {
    return { kind: 'unreadable', reason: said.replace(/^.*?: /, '') };
  }
  return { kind: 'notMedia' };
}

function outcomeOf(stdout: string): ProbeOutcome {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    return { kind: 'notMedia' };
  }
  const parsed = ffprobeOutput.safeParse(json);
  if (!parsed.success) return { kind: 'notMedia' };
  const { format, streams } = parsed.data;
  // Cover art is a video stream of an audio file; it is not the file's video.
  const video = streams.filter((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const audio = streams.filter((s) => s.codec_type === 'audio');
  if (NOT_MEDIA_FORMATS.has(format?.format_name ?? '') || video.length + audio.length === 0) {
    return { kind: 'notMedia' };
  }
  return {
    kind: 'media',
    sections: {
      general: compact({
        format_name: format?.format_name,
        format_long_name: format?.format_long_name,
        duration: numberOf(format?.duration),
        size: numberOf(format?.size),
        bit_rate: numberOf(format?.bit_rate),
        stream_count: format?.nb_streams ?? streams.length,
        ...tagsOf(format?.tags),
      }),
      video: video.map(videoSection),
      audio: audio.map(audioSection),
    },
  };
}

function videoSection(stream: Stream): Record<string, string | number> {
  return compact({
    codec: stream.codec_name,
    codec_long_name: stream.codec_long_name,
    profile: stream.profile,
    width: stream.width,
    height: stream.height,
    frame_rate: rateOf(stream.avg_frame_rate) ?? rateOf(stream.r_frame_rate),
    pixel_format: stream.pix_fmt,
    bit_rate: numberOf(stream.bit_rate),
    duration: numberOf(stream.duration),
  });
}

function audioSection(stream: Stream): Record<string, string | number> {
  return compact({
    codec: stream.codec_name,
    codec_long_name: stream.codec_long_name,
    profile: stream.profile,
    channels: stream.channels,
    channel_layout: stream.channel_layout,
    sample_rate: numberOf(stream.sample_rate),
    bit_rate: numberOf(stream.bit_rate),
    duration: numberOf(stream.duration),
  });
}

/** ffprobe prints numbers as strings ("4.000000"); a section shows them as numbers. */
function numberOf(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** "30000/1001" → 29.97 (three decimals); "0/0" (unknown) → undefined. */
function rateOf(value: string | undefined): number | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!match) return undefined;
  const [numerator, denominator] = [Number(match[1]), Number(match[2])];
  if (!numerator || !denominator) return undefined;
  return Math.round((numerator / denominator) * 1000) / 1000;
}

/** The container's tags (title, encoder, …) as `tags.<name>` entries of the general section. */
function tagsOf(tags: Record<string, unknown> | undefined): Record<string, string | undefined> {
  const entries: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(tags ?? {})) {
    if ((typeof value === 'string' || typeof value === 'number') && isStorableText(name)) {
      entries[`tags.${name}`] = String(value);
    }
  }
  return entries;
}

function compact(section: Record<string, string | number | undefined>): Record<string, string | number> {
  const kept: Record<string, string | number> = {};
  // A tag holding a NUL or a lone surrogate cannot be stored in jsonb: it is left out rather than failing the read.
  for (const [name, value] of Object.entries(section)) {
    if (value !== undefined && (typeof value === 'number' || isStorableText(value))) kept[name] = value;
  }
  return kept;
}
