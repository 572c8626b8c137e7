import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SourceProbe } from './presets.ts';

/** Formats ffmpeg reads from any bytes (text shown as a terminal screen): such a "video" is no media. */
const TEXT_FORMATS = new Set(['tty', 'bin', 'xbin', 'adf', 'idf']);
const STDERR_KEPT = 2000;

interface ProbeStream {
  codec_type?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  width?: number;
  height?: number;
}
interface ProbeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: ProbeStream[];
}

function rate(text: string | undefined): number | null {
  const [num, den] = (text ?? '').split('/').map(Number);
  if (!num || !den || !Number.isFinite(num / den)) return null;
  return num / den;
}

/** What ffprobe tells of `url`; null when it is not audio or video ffmpeg can read (or cannot be read at all). */
export async function probe(url: string): Promise<SourceProbe | null> {
  const { code, stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    url,
  ]);
  if (code !== 0) return null;
  let parsed: ProbeOutput;
  try {
    parsed = JSON.parse(stdout) as ProbeOutput;
  } catch {
    return null;
  }
  const formats = (parsed.format?.format_name ?? '').split(',');
  if (formats.some((format) => TEXT_FORMATS.has(format))) return null;
  const duration = Number(parsed.format?.duration);
  if (!Number.isFinite(duration) || duration <= 0) return null;
  const streams = parsed.streams ?? [];
  const video = streams.find((stream) => stream.codec_type === 'video');
  const hasAudio = streams.some((stream) => stream.codec_type === 'audio');
  if (!video && !hasAudio) return null;
  return {
    duration,
    fps: video ? (rate(video.avg_frame_rate) ?? rate(video.r_frame_rate)) : null,
    width: video?.width ?? null,
    height: video?.height ?? null,
    hasVideo: video !== undefined,
    hasAudio,
  };
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

export interface FfmpegProgress {
  /** Percent, one decimal. */
  percent: number;
  /** Seconds left at the current speed; null while unknown. */
  timeLeft: number | null;
}

interface FfmpegRun {
  /** Resolves when ffmpeg ended: ok, killed (a cancel), or failed with the end of its error output. */
  done: Promise<{ outcome: 'ok' } | { outcome: 'killed' } | { outcome: 'failed'; reason: string }>;
  /** SIGKILLs ffmpeg's whole process group. */
  kill(): void;
}

/**
 * Runs ffmpeg on `input` with a preset's output arguments, reporting progress from `-progress pipe:1`
 * (`out_time_us` over the probed duration, the time left from `speed`).
 */
export function encode(
  input: string,
  outputArgs: string[],
  duration: number,
  onProgress: (progress: FfmpegProgress) => void,
): FfmpegRun {
  const child = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-y',
      '-v',
      'error',
      '-progress',
      'pipe:1',
      '-nostats',
      '-i',
      input,
      ...outputArgs,
    ],
    // Its own process group, so that a cancel kills it with anything it started.
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let killed = false;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  let outTime = 0;
  let speed: number | null = null;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [key, value = ''] = line.split('=', 2);
    if (key === 'out_time_us') {
      const micros = Number(value);
      if (Number.isFinite(micros) && micros >= 0) outTime = micros / 1e6;
    } else if (key === 'speed') {
      const parsed = Number.parseFloat(value);
      speed = Number.isFinite(parsed) && parsed > 0 ? parsed : null;
    } else if (key === 'progress') {
      const percent = Math.min(100, Math.round((outTime / duration) * 1000) / 10);
      const left = Math.max(0, duration - outTime);
      onProgress({ percent, timeLeft: speed ? Math.round((left / speed) * 10) / 10 : null });
    }
  });
  const done = new Promise<Awaited<FfmpegRun['done']>>((resolve) => {
    child.on('error', (error) => resolve({ outcome: 'failed', reason: error.message }));
    child.on('close', (code) => {
      if (killed) resolve({ outcome: 'killed' });
      else if (code === 0) resolve({ outcome: 'ok' });
      else resolve({ outcome: 'failed', reason: lastLine(stderr) || `ffmpeg exited with ${code}` });
    });
  });
  return {
    done,
    kill() {
      if (killed || child.exitCode !== null || child.pid === undefined) return;
      killed = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    },
  };
}

const lastLine = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1) ?? '';
