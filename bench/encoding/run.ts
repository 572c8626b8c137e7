// bench/encoding: one encoding job against the bare ffmpeg it runs (issue 26 "Performance": a 60 s 1080p clip from
// s3rver to s3rver with the 720p preset, wall time ≤ 1.15 × the bare `ffmpeg` command with the same arguments on a
// local copy of the file). The clip is made once with ffmpeg's test sources (testsrc2 and a sine) and put in a
// bucket of an s3rver in its own process. Per round, taking turns to go first:
// - Cumulo: the product's own EncodingRunner.run on a job written by POST /encoding/encode (the real app, in
//   process, on an embedded PostgreSQL): stat, the source relay, ffprobe, ffmpeg reading the relay, the upload of
//   the output to the destination bucket, the job's Finished. Timed from run() to its end (the queue's pick-up is
//   left out: a worker takes a job within its notify poll);
// - bare: `ffmpeg` with the preset's very arguments on the local file, into a temp folder.
//
//   npm run encoding -w bench [-- --seconds 60 --rounds 3]
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import type { EncodingJob } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { findPreset, probe } from '@cumulo/server';
import { repoRoot, startS3rverProcess } from '../inventory/s3rver-process.ts';
import { signedInBenchMember } from '../shared/bench-member.ts';
import { p50, startBenchApp } from '../shared/bench-app.ts';

const GOAL = 1.15;
const CATEGORY = 'MP4';
const PRESET = 'MP4 H.264/AAC 720p';

const { values: options } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, rounds: { type: 'string', default: '3' } },
});
const seconds = Number(options.seconds);
const rounds = Number(options.rounds);
if (!(seconds >= 1) || !(rounds >= 1)) throw new Error('bad --seconds/--rounds');

const run = promisify(execFile);
const dataDir = path.join(repoRoot, 'bench/.data/encoding');
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-bench-encoding-'));
const clipFile = path.join(dataDir, `clip-1080p-${seconds}s.mp4`);
const s3rverDir = path.join(work, 's3rver');
await fs.mkdir(s3rverDir, { recursive: true });

// The clip: 1080p at 25 fps with stereo AAC, a typical camera master's shape (made once, kept between runs).
await fs.mkdir(dataDir, { recursive: true });
if (!(await fs.stat(clipFile).catch(() => null))) {
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '8M', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-ac', '2', '-movflags', '+faststart', '-f', 'mp4', clipFile + '.part'],
  ]);
  await fs.rename(clipFile + '.part', clipFile);
}
const clipSize = (await fs.stat(clipFile)).size;

const s3rver = await startS3rverProcess(s3rverDir);
const s3 = new S3ObjectStore({
  provider: 'aws',
  accessKeyId: S3RVER_KEY,
  secretAccessKey: S3RVER_KEY,
  endpoint: s3rver.endpoint,
  region: 'us-east-1',
});
await s3.createBucket('masters');
await s3.createBucket('renders');
await s3.write('masters', 'clip.mp4', await fs.readFile(clipFile), { contentType: 'video/mp4' });

const { app, services, db, close } = await startBenchApp(path.join(dataDir, 'app'), {
  PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }),
});

async function api<T>(method: 'GET' | 'POST', url: string, token: string, body?: object): Promise<T> {
  const headers = { authorization: `Bearer ${token}` };
  const res = await app.inject(body ? { method, url, headers, payload: body } : { method, url, headers });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json<T>();
}

const preset = findPreset(CATEGORY, PRESET);
if (!preset) throw new Error(`no preset ${PRESET}`);
const media = await probe(clipFile);
if (!media) throw new Error('the clip is not media');

try {
  const { token } = await signedInBenchMember(services, db);
  const { id: accountId } = await api<{ id: string }>('POST', '/api/cloudaccount/insert', token, {
    cloudType: 1,
    name: 'Bench s3rver',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });

  async function cumulo(round: number): Promise<number> {
    const { jobs } = await api<{ jobs: EncodingJob[] }>('POST', '/api/encoding/encode', token, [
      {
        source: { cloud_account_id: accountId, bucket_name: 'masters', path: 'clip.mp4' },
        presets: [
          {
            category: CATEGORY,
            preset: PRESET,
            destination: { cloud_account_id: accountId, bucket_name: 'renders', path: `round-${round}/` },
          },
        ],
      },
    ]);
    const [job] = jobs;
    if (!job) throw new Error('no job');
    const start = performance.now();
    await services.encodingRunner.run(job.id);
    const ms = performance.now() - start;
    const ended = await api<EncodingJob>('GET', `/api/encoding/jobs/${job.id}`, token);
    if (ended.status !== 'Finished') throw new Error(`job ended ${ended.status}: ${ended.error}`);
    const output = await s3.stat('renders', ended.outputs[0] ?? '');
    if (!output || output.size === 0) throw new Error('no output in the bucket');
    return ms;
  }

  async function bare(round: number): Promise<number> {
    const dir = path.join(work, `bare-${round}`);
    const target = { dir, base: `clip-${preset?.slug ?? ''}` };
    await fs.mkdir(path.join(dir, target.base), { recursive: true });
    const args = preset?.args(media as NonNullable<typeof media>, target) ?? [];
    const start = performance.now();
    await run('ffmpeg', ['-hide_banner', '-nostdin', '-y', '-v', 'error', '-i', clipFile, ...args]);
    const ms = performance.now() - start;
    await fs.rm(dir, { recursive: true, force: true });
    return ms;
  }

  console.log(
    `encoding bench: ${seconds} s 1080p clip (${(clipSize / 1e6).toFixed(1)} MB), preset ${PRESET}, ` +
      `${rounds} round(s), ${os.cpus().length} cores`,
  );
  const cumuloTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['cumulo', 'bare'] as const) : (['bare', 'cumulo'] as const);
    for (const who of order) {
      if (who === 'cumulo') cumuloTimes.push(await cumulo(round));
      else bareTimes.push(await bare(round));
    }
    console.log(
      `  round ${round + 1}: Cumulo job ${((cumuloTimes.at(-1) ?? 0) / 1000).toFixed(2)} s, ` +
        `bare ffmpeg ${((bareTimes.at(-1) ?? 0) / 1000).toFixed(2)} s (first: ${order[0]}; ` +
        `load average ${os.loadavg()[0]?.toFixed(1)})`,
    );
  }
  const ratio = p50(cumuloTimes) / p50(bareTimes);
  console.log(
    `  median: Cumulo ${(p50(cumuloTimes) / 1000).toFixed(2)} s, bare ffmpeg ${(p50(bareTimes) / 1000).toFixed(2)} s` +
      ` → ratio ${ratio.toFixed(3)} (goal ≤ ${GOAL}) ${ratio <= GOAL ? 'PASS' : 'FAIL'}`,
  );
} finally {
  await close();
  await s3.close();
  await s3rver.stop();
  await fs.rm(work, { recursive: true, force: true });
}
