import path from 'node:path';
import type { HybrikTarget } from '@cumulo/contract';

/** Each container's file extension (Hybrik's `{default_extension}`) and ffmpeg muxer. */
const CONTAINERS: Record<string, { extension: string; format: string }> = {
  mp4: { extension: 'mp4', format: 'mp4' },
  mov: { extension: 'mov', format: 'mov' },
  mkv: { extension: 'mkv', format: 'matroska' },
  webm: { extension: 'webm', format: 'webm' },
  mpegts: { extension: 'ts', format: 'mpegts' },
  hls: { extension: 'm3u8', format: 'hls' },
  mp3: { extension: 'mp3', format: 'mp3' },
  m4a: { extension: 'm4a', format: 'ipod' },
};

// x265 logs its own statistics to stderr whatever ffmpeg's -v says; a failure's last line must be ffmpeg's.
const X265_QUIET = ['-x265-params', 'log-level=error'];

const VIDEO_ENCODERS: Record<string, string[]> = {
  h264: ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
  h265: ['-c:v', 'libx265', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-tag:v', 'hvc1', ...X265_QUIET],
  hevc: ['-c:v', 'libx265', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-tag:v', 'hvc1', ...X265_QUIET],
  vp9: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
};

// Debian's ffmpeg has no HE-AAC encoder (libfdk_aac is non-free): heaac targets get AAC-LC, which every player reads.
const AUDIO_ENCODERS: Record<string, string[]> = {
  aac: ['-c:a', 'aac'],
  heaac_v1: ['-c:a', 'aac'],
  heaac_v2: ['-c:a', 'aac'],
  mp3: ['-c:a', 'libmp3lame'],
  opus: ['-c:a', 'libopus'],
};

/** The source's file name without its extension, and its extension without the dot. */
function sourceParts(key: string): { basename: string; extension: string } {
  const name = key.split('/').filter(Boolean).at(-1) ?? 'output';
  const dot = name.lastIndexOf('.');
  return dot > 0
    ? { basename: name.slice(0, dot), extension: name.slice(dot + 1) }
    : { basename: name, extension: '' };
}

/**
 * A file pattern with Hybrik's placeholders filled in, as a relative path with no '..' (it becomes an object key
 * under the target folder and a file in the job's temp folder).
 */
export function fileName(pattern: string, sourceKey: string, defaultExtension: string): string {
  const { basename, extension } = sourceParts(sourceKey);
  const filled = pattern
    .replaceAll('{source_basename}', basename)
    .replaceAll('{source_extension}', extension)
    .replaceAll('{default_extension}', defaultExtension)
    .replaceAll('%s', basename);
  const parts = filled.split('/').filter((part) => part !== '' && part !== '.' && part !== '..');
  return parts.length > 0 ? parts.join('/') : `${basename}.${defaultExtension}`;
}

function defaultExtension(target: HybrikTarget): string {
  return CONTAINERS[target.container.kind]?.extension ?? 'bin';
}

/** A target's output file: its pattern filled in; an HLS playlist always ends with .m3u8, as players expect. */
export function targetFileName(target: HybrikTarget, sourceKey: string): string {
  const name = fileName(target.file_pattern, sourceKey, defaultExtension(target));
  return target.container.kind === 'hls' && !name.endsWith('.m3u8') ? `${name}.m3u8` : name;
}

/**
 * ffmpeg's output arguments for one target, writing `<dir>/<name>` (HLS: the playlist and its segments beside it).
 * The contract's `planHybrikJob` refused unknown containers and codecs already.
 */
export function targetArgs(target: HybrikTarget, dir: string, name: string): string[] {
  const container = CONTAINERS[target.container.kind] ?? { extension: 'mp4', format: 'mp4' };
  const args: string[] = [];
  const video = target.video;
  if (video) {
    args.push(...(VIDEO_ENCODERS[video.codec] ?? VIDEO_ENCODERS.h264 ?? []));
    if (video.width || video.height) {
      // -2 keeps the aspect ratio with an even size, which the encoders need.
      args.push('-vf', `scale=${video.width ?? -2}:${video.height ?? -2}`);
    }
    if (video.bitrate_kb) args.push('-b:v', `${Math.round(video.bitrate_kb)}k`);
    if (video.frame_rate) args.push('-r', String(video.frame_rate));
  } else {
    args.push('-vn');
  }
  const audio = Array.isArray(target.audio) ? target.audio[0] : target.audio;
  if (audio) {
    args.push(...(AUDIO_ENCODERS[audio.codec] ?? AUDIO_ENCODERS.aac ?? []));
    if (audio.bitrate_kb) args.push('-b:a', `${Math.round(audio.bitrate_kb)}k`);
    if (audio.channels) args.push('-ac', String(audio.channels));
    if (audio.sample_rate) args.push('-ar', String(audio.sample_rate));
  } else {
    args.push('-an');
  }
  const output = path.join(dir, name);
  if (container.format === 'hls') {
    const segments = path.join(path.dirname(output), `${path.basename(name, path.extname(name))}_%05d.ts`);
    args.push('-f', 'hls', '-hls_time', '6', '-hls_playlist_type', 'vod', '-hls_segment_filename', segments);
  } else {
    if (container.format === 'mp4' || container.format === 'mov' || container.format === 'ipod') {
      args.push('-movflags', '+faststart');
    }
    args.push('-f', container.format);
  }
  args.push(output);
  return args;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
  '.webm': 'video/webm',
  '.ts': 'video/mp2t',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
};

export const contentTypeOf = (file: string) =>
  CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
