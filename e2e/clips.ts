import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A test clip of `seconds` made with ffmpeg's test sources: a 320×240 picture at 25 fps and a 440 Hz tone, as
 * H.264/AAC in MP4 (Debian's Chromium plays both) with its index first and a keyframe every second (so it also cuts
 * into 1 s HLS segments). Tiny: a few hundred KB for a few seconds.
 */
export function testClip(seconds: number): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-e2e-clip-'));
  const file = path.join(dir, 'clip.mp4');
  try {
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', String(seconds), '-shortest'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
      ...['-movflags', '+faststart', file],
    ]);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
