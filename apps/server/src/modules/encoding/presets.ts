import type { EncodingPresets } from '@cumulo/contract';

/** What the runner knows of a source before it encodes it (ffprobe). */
export interface SourceProbe {
  /** Seconds. */
  duration: number;
  /** Frames per second of the first video stream; null for audio only. */
  fps: number | null;
  width: number | null;
  height: number | null;
  hasVideo: boolean;
  hasAudio: boolean;
}

/** Where a preset writes: `dir` is the job's temp folder, `base` `<source base name>-<preset slug>`. */
interface PresetTarget {
  dir: string;
  base: string;
}

/** A file a preset writes besides ffmpeg's own (the sprite sheet's WebVTT index). */
interface ExtraFile {
  name: string;
  body: string;
}

interface EncodingPreset {
  name: string;
  /** Names outputs: `<source base name>-<slug>.<ext>`, or the folder `<source base name>-<slug>/` of HLS. */
  slug: string;
  description: string;
  /** What the outputs are, for the presets list (relative to the destination folder, `{name}` the source's). */
  outputs: string[];
  needs: 'video' | 'audio';
  /** ffmpeg's output arguments (after `-i <source>`), writing under `target.dir`. */
  args(probe: SourceProbe, target: PresetTarget): string[];
  /** Files written after ffmpeg succeeded. */
  extras?(probe: SourceProbe, target: PresetTarget): ExtraFile[];
}

interface PresetCategory {
  category: string;
  presets: EncodingPreset[];
}

/** Keyframes every 2 s (at the source's rate), never on scene cuts: renditions then switch on the same frames. */
const GOP_SECONDS = 2;
const gopOf = (probe: SourceProbe) => String(Math.max(1, Math.round((probe.fps ?? 25) * GOP_SECONDS)));

function mp4(height: number, videoBitrate: string): EncodingPreset {
  return {
    name: `MP4 H.264/AAC ${height}p`,
    slug: `${height}p`,
    description: `H.264 video ${height} lines high (${videoBitrate}b/s), AAC audio 128 kb/s, MP4 ready to stream (faststart).`,
    outputs: [`{name}-${height}p.mp4`],
    needs: 'video',
    args: (probe, target) => [
      '-map',
      '0:v:0',
      ...(probe.hasAudio ? ['-map', '0:a:0'] : []),
      '-vf',
      `scale=-2:${height}`,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-b:v',
      videoBitrate,
      '-pix_fmt',
      'yuv420p',
      ...(probe.hasAudio ? ['-c:a', 'aac', '-b:a', '128k'] : []),
      '-movflags',
      '+faststart',
      `${target.dir}/${target.base}.mp4`,
    ],
  };
}

/** The HLS ladder: one rendition per height, aligned keyframes, a master playlist over them. */
const HLS_LADDER = [
  { height: 720, bitrate: '2800k' },
  { height: 480, bitrate: '1400k' },
  { height: 360, bitrate: '800k' },
];

const hls: EncodingPreset = {
  name: 'HLS ladder 720p/480p/360p',
  slug: 'hls',
  description:
    'Three H.264/AAC renditions (720p, 480p, 360p) in 6 s segments with aligned 2 s keyframes, and a master playlist.',
  outputs: ['{name}-hls/master.m3u8', '{name}-hls/<rendition>.m3u8', '{name}-hls/<rendition>_<n>.ts'],
  needs: 'video',
  args: (probe, target) => {
    const gop = gopOf(probe);
    const split = HLS_LADDER.map((_, i) => `[v${i}]`).join('');
    const scales = HLS_LADDER.map((r, i) => `[v${i}]scale=-2:${r.height}[v${i}out]`).join(';');
    const folder = `${target.dir}/${target.base}`;
    const renditions = HLS_LADDER.flatMap((r, i) => [
      '-map',
      `[v${i}out]`,
      ...(probe.hasAudio ? ['-map', '0:a:0'] : []),
      `-b:v:${i}`,
      r.bitrate,
    ]);
    const streamMap = HLS_LADDER.map(
      (r, i) => `v:${i}${probe.hasAudio ? `,a:${i}` : ''},name:${r.height}p`,
    ).join(' ');
    return [
      '-filter_complex',
      `[0:v]split=${HLS_LADDER.length}${split};${scales}`,
      ...renditions,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-pix_fmt',
      'yuv420p',
      '-g',
      gop,
      '-keyint_min',
      gop,
      '-sc_threshold',
      '0',
      ...(probe.hasAudio ? ['-c:a', 'aac', '-b:a', '128k'] : []),
      '-f',
      'hls',
      '-hls_time',
      '6',
      '-hls_playlist_type',
      'vod',
      '-hls_segment_filename',
      `${folder}/%v_%03d.ts`,
      '-master_pl_name',
      'master.m3u8',
      '-var_stream_map',
      streamMap,
      `${folder}/%v.m3u8`,
    ];
  },
};

function audio(
  name: string,
  slug: string,
  ext: string,
  codec: string[],
  description: string,
): EncodingPreset {
  return {
    name,
    slug,
    description,
    outputs: [`{name}-${slug}.${ext}`],
    needs: 'audio',
    args: (_probe, target) => ['-map', '0:a:0', '-vn', ...codec, `${target.dir}/${target.base}.${ext}`],
  };
}

const thumbnail: EncodingPreset = {
  name: 'Thumbnail',
  slug: 'thumbnail',
  description: 'One JPEG frame, 640 pixels wide, from a tenth into the video (at most 10 s in).',
  outputs: ['{name}-thumbnail.jpg'],
  needs: 'video',
  args: (probe, target) => [
    '-ss',
    String(Math.min(10, probe.duration / 10)),
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    '-vf',
    'scale=640:-2',
    '-q:v',
    '3',
    `${target.dir}/${target.base}.jpg`,
  ],
};

/** The sprite sheet: up to SPRITE_COLUMNS × SPRITE_ROWS frames of SPRITE_WIDTH pixels, evenly over the video. */
const SPRITE_COLUMNS = 5;
const SPRITE_ROWS = 5;
const SPRITE_WIDTH = 160;

function spriteLayout(probe: SourceProbe) {
  const interval = Math.max(1, probe.duration / (SPRITE_COLUMNS * SPRITE_ROWS));
  const aspect = probe.width && probe.height ? probe.height / probe.width : 9 / 16;
  const height = Math.max(2, Math.round((SPRITE_WIDTH * aspect) / 2) * 2);
  const frames = Math.min(SPRITE_COLUMNS * SPRITE_ROWS, Math.max(1, Math.ceil(probe.duration / interval)));
  return { interval, height, frames };
}

const vttTime = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
};

const sprite: EncodingPreset = {
  name: 'Sprite sheet',
  slug: 'sprite',
  description: `Up to ${SPRITE_COLUMNS * SPRITE_ROWS} frames in one JPEG (${SPRITE_COLUMNS}×${SPRITE_ROWS}, ${SPRITE_WIDTH} px wide each) and a WebVTT index of their positions (#xywh=) for a player's seek bar.`,
  outputs: ['{name}-sprite.jpg', '{name}-sprite.vtt'],
  needs: 'video',
  args: (probe, target) => {
    const { interval, height } = spriteLayout(probe);
    return [
      '-map',
      '0:v:0',
      '-vf',
      `fps=1/${interval},scale=${SPRITE_WIDTH}:${height},tile=${SPRITE_COLUMNS}x${SPRITE_ROWS}`,
      '-frames:v',
      '1',
      '-q:v',
      '4',
      `${target.dir}/${target.base}.jpg`,
    ];
  },
  extras: (probe, target) => {
    const { interval, height, frames } = spriteLayout(probe);
    const cues = Array.from({ length: frames }, (_, i) => {
      const x = (i % SPRITE_COLUMNS) * SPRITE_WIDTH;
      const y = Math.floor(i / SPRITE_COLUMNS) * height;
      const end = Math.min(probe.duration, (i + 1) * interval);
      return `${vttTime(i * interval)} --> ${vttTime(end)}\n${target.base}.jpg#xywh=${x},${y},${SPRITE_WIDTH},${height}`;
    });
    return [{ name: `${target.base}.vtt`, body: `WEBVTT\n\n${cues.join('\n\n')}\n` }];
  },
};

/** The preset catalogue (spec 001 §7 "encoding.presets"): categories of named presets. */
const PRESET_CATALOGUE: PresetCategory[] = [
  { category: 'MP4', presets: [mp4(1080, '5000k'), mp4(720, '2800k'), mp4(480, '1400k')] },
  { category: 'HLS', presets: [hls] },
  {
    category: 'Audio',
    presets: [
      audio(
        'AAC 128 kb/s',
        'aac',
        'm4a',
        ['-c:a', 'aac', '-b:a', '128k'],
        'The audio track as AAC in an M4A file.',
      ),
      audio(
        'MP3 192 kb/s',
        'mp3',
        'mp3',
        ['-c:a', 'libmp3lame', '-b:a', '192k'],
        'The audio track as an MP3 file.',
      ),
    ],
  },
  { category: 'Images', presets: [thumbnail, sprite] },
];

export function findPreset(category: string, name: string): EncodingPreset | undefined {
  return PRESET_CATALOGUE.find((c) => c.category === category)?.presets.find((p) => p.name === name);
}

/** GET /encoding/presets. */
export function presetList(): EncodingPresets {
  return {
    transcode_presets: PRESET_CATALOGUE.map(({ category, presets }) => ({
      category,
      presets: presets.map(({ name, description, outputs }) => ({ name, description, outputs })),
    })),
  };
}
