import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ENCODING_EVENTS,
  ROLE_ID,
  TRIAL_QUOTAS,
  authzMessages,
  billingMessages,
  mediaMessages,
  type EncodingJob,
  type EncodingJobStatus,
  type EncodingPresets,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { keysOf, readAll, S3RVER_KEY, startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import { EVENTS_CHANNEL } from '../../realtime/events.ts';
import { openSourceRelay } from './source-relay.ts';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * Encoding with presets end to end: the real API and worker roles on embedded PostgreSQL, s3rver as the store, and
 * the real ffmpeg reading the source through its signed URL.
 */
const run = promisify(execFile);
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let server: TestServer;
let s3rver: S3rverServer;
let s3: S3ObjectStore;
let owner: Member;
let user: Member;
let stranger: Member;
let awsId: string;
let strangerAwsId: string;
let workDir: string;
let listener: pg.Client;
/** The `encoding.job` events published on the realtime bus. */
const events: EncodingJob[] = [];

const call = (method: Method, url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);

const connectAws = (member: Member, name: string) => connectS3rverAccount(server, member.token, name);

/** The command lines of the ffmpeg processes still alive that name `output` (Linux /proc). */
async function ffmpegsWriting(output: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('ffmpeg') && cmdline.includes(output)) found.push(cmdline.replaceAll('\0', ' '));
  }
  return found;
}

/** A tiny test clip (testsrc2 and a sine) of `seconds` at `size`, as an MP4 with its index first. */
async function clip(name: string, seconds: number, size: string): Promise<Buffer> {
  const file = path.join(workDir, name);
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=25`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
    ...['-movflags', '+faststart', file],
  ]);
  return fs.readFile(file);
}

const encodeItem = (
  source: string,
  presets: Array<[string, string]>,
  destination = 'renders',
  folder = 'out/',
) => ({
  source: { cloud_account_id: awsId, bucket_name: 'media', path: source },
  presets: presets.map(([category, preset]) => ({
    category,
    preset,
    destination: { cloud_account_id: awsId, bucket_name: destination, path: folder },
  })),
});

async function job(id: string, member: Member = owner): Promise<EncodingJob> {
  const res = await call('GET', `/api/encoding/jobs/${id}`, member);
  expect(res.status, res.raw).toBe(200);
  return res.body as EncodingJob;
}

/** Polls a job until `done` says so, keeping every status and progress it passed through. */
async function watch(id: string, done: (job: EncodingJob) => boolean, timeoutMs = 60_000) {
  const seen: Array<{ status: EncodingJobStatus; progress: number }> = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await job(id);
    const last = seen.at(-1);
    if (!last || last.status !== current.status || last.progress !== current.progress) {
      seen.push({ status: current.status, progress: current.progress });
    }
    if (done(current)) return { job: current, seen };
    if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ended = (j: EncodingJob) => ['Finished', 'Stopped', 'Error'].includes(j.status);

async function encode(member: Member, body: unknown) {
  const res = await call('POST', '/api/encoding/encode', member, body);
  expect(res.status, res.raw).toBe(200);
  const answer = res.body as { message: string; jobs: EncodingJob[] };
  expect(answer.message).toBe(mediaMessages.queued);
  return answer.jobs;
}

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-encoding-test-'));
  s3rver = await startS3rver();
  server = await startTestServer(
    { PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) },
    undefined,
    {
      jobs: true,
    },
  );
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  listener = new pg.Client({ connectionString: server.databaseUrl });
  await listener.connect();
  listener.on('notification', (message) => {
    const event = JSON.parse(message.payload ?? '{}') as { type?: string; data?: EncodingJob };
    if (event.type === ENCODING_EVENTS.job && event.data) events.push(event.data);
  });
  await listener.query(`listen ${EVENTS_CHANNEL}`);
  awsId = await connectAws(owner, 'Media AWS');
  strangerAwsId = await connectAws(stranger, 'Other AWS');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket('media');
  await s3.createBucket('renders');
  const [small, long] = await Promise.all([clip('small.mp4', 4, '640x360'), clip('long.mp4', 60, '640x360')]);
  await s3.write('media', 'clips/small.mp4', small, { contentType: 'video/mp4' });
  await s3.write('media', 'clips/long.mp4', long, { contentType: 'video/mp4' });
  await s3.write('media', 'notes.txt', Buffer.from('not a video, only words\n'.repeat(50)));
}, 120_000);

afterAll(async () => {
  await listener?.end();
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe('encoding with presets (API, worker, s3rver, real ffmpeg)', () => {
  it('lists the preset catalogue by category', async () => {
    const res = await call('GET', '/api/encoding/presets', user);
    expect(res.status).toBe(200);
    const { transcode_presets } = res.body as EncodingPresets;
    expect(transcode_presets.map((c) => c.category)).toEqual(['MP4', 'HLS', 'Audio', 'Images']);
    const names = transcode_presets.flatMap((c) => c.presets.map((p) => p.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'MP4 H.264/AAC 1080p',
        'MP4 H.264/AAC 480p',
        'HLS ladder 720p/480p/360p',
        'Thumbnail',
      ]),
    );
  });

  it('encodes a clip to a 480p MP4 and a thumbnail, New → Processing → Finished, readable outputs in the bucket', async () => {
    const jobs = await encode(user, [
      encodeItem('clips/small.mp4', [
        ['MP4', 'MP4 H.264/AAC 480p'],
        ['Images', 'Thumbnail'],
      ]),
    ]);
    expect(jobs.map((j) => [j.status, j.progress])).toEqual([
      ['New', 0],
      ['New', 0],
    ]);
    const [mp4Job, thumbJob] = jobs as [EncodingJob, EncodingJob];
    const mp4 = await watch(mp4Job.id, ended);
    expect(mp4.job.status, mp4.job.error ?? '').toBe('Finished');
    expect(mp4.job.progress).toBe(100);
    expect(mp4.job.finished).not.toBeNull();
    expect(mp4.job.outputs).toEqual(['out/small-480p.mp4']);
    // The realtime bus told its way: Processing with rising progress, then Finished at 100. NOTIFY is delivered
    // after the commit the poll above saw, so on a loaded machine the last message may still be on its way.
    const toldOf = () => events.filter((e) => e.id === mp4Job.id).map((e) => [e.status, e.progress] as const);
    await vi.waitFor(() => expect(toldOf().at(-1)).toEqual(['Finished', 100]), { timeout: 10_000 });
    const told = toldOf();
    expect(told[0]).toEqual(['Processing', 0]);
    const percents = told.map(([, progress]) => progress);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    const thumb = await watch(thumbJob.id, ended);
    expect(thumb.job.status, thumb.job.error ?? '').toBe('Finished');
    expect(thumb.job.outputs).toEqual(['out/small-thumbnail.jpg']);
    expect(await keysOf(s3, 'renders', 'out/')).toEqual(['out/small-480p.mp4', 'out/small-thumbnail.jpg']);

    const local = path.join(workDir, 'out.mp4');
    await fs.writeFile(local, await readAll(s3, 'renders', 'out/small-480p.mp4'));
    const { stdout } = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', local]);
    const streams = (JSON.parse(stdout) as { streams: Array<{ codec_name: string; height?: number }> })
      .streams;
    expect(streams.map((s) => s.codec_name).sort()).toEqual(['aac', 'h264']);
    expect(streams.find((s) => s.codec_name === 'h264')?.height).toBe(480);
    const jpeg = await readAll(s3, 'renders', 'out/small-thumbnail.jpg');
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));

    // Listed with the organisation's jobs; a finished job can be removed, and says so in the audit trail.
    const list = await call('GET', '/api/encoding/jobs', owner);
    expect((list.body as EncodingJob[]).map((j) => j.id)).toEqual(
      expect.arrayContaining([mp4Job.id, thumbJob.id]),
    );
    expect((await call('DELETE', `/api/encoding/jobs/${thumbJob.id}`, user)).status).toBe(200);
    expect((await call('GET', `/api/encoding/jobs/${thumbJob.id}`, owner)).status).toBe(404);
    const { rows } = await server.db.pool.query<{ type: string }>(
      `select type from audits where entity = 'Encoding job' and resource_id = $1 order by created_at`,
      [thumbJob.id],
    );
    expect(rows.map((r) => r.type)).toEqual(['Added', 'Deleted']);
  }, 90_000);

  it('a running HLS job is cancelled (ffmpeg killed, no output left); a waiting one too; a source deleted before its job runs ends in Error', async () => {
    const [hls] = (await encode(owner, [
      encodeItem('clips/long.mp4', [['HLS', 'HLS ladder 720p/480p/360p']], 'renders', 'hls/'),
    ])) as [EncodingJob];
    const [big] = (await encode(owner, [
      encodeItem('clips/long.mp4', [['MP4', 'MP4 H.264/AAC 1080p']], 'renders', 'big/'),
    ])) as [EncodingJob];
    const running = await watch(hls.id, (j) => j.status === 'Processing' && j.progress > 0);
    expect(running.job.progress).toBeLessThan(100);
    // The progress rises while it runs.
    const later = await watch(hls.id, (j) => j.progress > running.job.progress || ended(j));
    expect(later.job.status).toBe('Processing');
    const [commandLine = ''] = await ffmpegsWriting('long-hls');
    // ffmpeg reads a loopback address of the worker: no key, no signed URL of the provider on its command line.
    expect(commandLine).toMatch(/-i http:\/\/127\.0\.0\.1:\d+\/[\w-]{43}\/long\.mp4 /);
    expect(commandLine).not.toContain(S3RVER_KEY);
    expect(commandLine).not.toMatch(/X-Amz|Signature/i);
    expect((await watch(big.id, (j) => j.status !== 'New')).job.status).toBe('Processing');

    // Both of the organisation's encoding slots are taken: these wait, New.
    await s3.write('media', 'clips/doomed.mp4', await fs.readFile(path.join(workDir, 'small.mp4')));
    const [doomed] = (await encode(owner, [encodeItem('clips/doomed.mp4', [['Images', 'Thumbnail']])])) as [
      EncodingJob,
    ];
    const [waiting] = (await encode(user, [encodeItem('clips/small.mp4', [['Images', 'Sprite sheet']])])) as [
      EncodingJob,
    ];
    await s3.deleteMany('media', ['clips/doomed.mp4']);
    expect((await job(doomed.id)).status).toBe('New');
    expect((await call('POST', `/api/encoding/cancel/${waiting.id}`, user)).body).toEqual({
      message: mediaMessages.cancelled,
    });
    expect((await job(waiting.id)).status).toBe('Stopped');

    // A User may not cancel another member's job.
    const refused = await call('POST', `/api/encoding/cancel/${hls.id}`, user);
    expect(refused.status).toBe(403);
    expect((refused.body as { message: string }).message).toBe(authzMessages.othersEncoding);
    // Nor may another organisation see or touch it.
    expect((await call('POST', `/api/encoding/cancel/${hls.id}`, stranger)).status).toBe(404);
    expect((await call('GET', `/api/encoding/jobs/${hls.id}`, stranger)).status).toBe(404);
    expect((await call('DELETE', `/api/encoding/jobs/${hls.id}`, stranger)).status).toBe(404);
    const notRemovable = await call('DELETE', `/api/encoding/jobs/${hls.id}`, owner);
    expect(notRemovable.status).toBe(400);
    expect(notRemovable.body).toMatchObject({ message: mediaMessages.notRemovable });

    for (const id of [hls.id, big.id]) {
      expect((await call('POST', `/api/encoding/cancel/${id}`, owner)).body).toEqual({
        message: mediaMessages.cancelled,
      });
    }
    for (const id of [hls.id, big.id]) {
      const stopped = await watch(id, ended);
      expect(stopped.job.status).toBe('Stopped');
      expect(stopped.job.outputs).toEqual([]);
    }
    const again = await call('POST', `/api/encoding/cancel/${hls.id}`, owner);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ message: mediaMessages.notCancellable });

    // The slots free up: the job whose source was deleted runs and names it.
    const gone = await watch(doomed.id, ended);
    expect(gone.job.status).toBe('Error');
    expect(gone.job.error).toBe(mediaMessages.sourceGone('clips/doomed.mp4', mediaMessages.objectMissing));
    // The workers noticed the cancels, killed ffmpeg, and nothing of the ladder or the film reached the bucket.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await keysOf(s3, 'renders', 'hls/')).toEqual([]);
    expect(await keysOf(s3, 'renders', 'big/')).toEqual([]);
    expect(await ffmpegsWriting('long-hls')).toEqual([]);
    expect(await ffmpegsWriting('long-1080p')).toEqual([]);
  }, 120_000);

  it("the source relay answers ranges of the object while the job runs, and the store's words once it is gone", async () => {
    const bytes = await fs.readFile(path.join(workDir, 'small.mp4'));
    await s3.write('media', 'clips/relayed.mp4', bytes);
    const relay = await openSourceRelay(s3, 'media', 'clips/relayed.mp4', bytes.length);
    try {
      const head = await fetch(relay.url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect(head.headers.get('accept-ranges')).toBe('bytes');
      const middle = await fetch(relay.url, { headers: { range: 'bytes=100-199' } });
      expect(middle.status).toBe(206);
      expect(middle.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
      expect(Buffer.from(await middle.arrayBuffer())).toEqual(bytes.subarray(100, 200));
      const tail = await fetch(relay.url, { headers: { range: 'bytes=-16' } });
      expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 16));
      expect((await fetch(relay.url, { headers: { range: `bytes=${bytes.length}-` } })).status).toBe(416);
      const whole = await fetch(relay.url);
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
      // Another path on the same port (a guessed or stale token) reads nothing.
      const other = relay.url.replace(/\/[\w-]{43}\//, `/${'A'.repeat(43)}/`);
      expect((await fetch(other)).status).toBe(404);

      expect(relay.lastError()).toBeNull();
      await s3.deleteMany('media', ['clips/relayed.mp4']);
      const gone = await fetch(relay.url, { headers: { range: 'bytes=0-99' } });
      expect(gone.status).toBe(502);
      expect(relay.lastError()).toBeTruthy();
      expect(await gone.text()).toBe(relay.lastError());
    } finally {
      await relay.close();
    }
    // Closed with its job: the address answers nothing any more.
    await expect(fetch(relay.url)).rejects.toThrow();
  });

  it('a source that is not media ends the job in Error with notMedia', async () => {
    const [text] = (await encode(owner, [encodeItem('notes.txt', [['MP4', 'MP4 H.264/AAC 480p']])])) as [
      EncodingJob,
    ];
    const notMedia = await watch(text.id, ended);
    expect(notMedia.job.status).toBe('Error');
    expect(notMedia.job.error).toBe(mediaMessages.notMedia('notes.txt'));
  }, 60_000);

  it('a destination that refuses the output ends the job in Error naming the destination, not the source', async () => {
    // s3rver refuses a key holding '//' (answering that the bucket does not exist): a stand-in for a destination
    // whose keys are read-only or whose bucket went away while the job waited.
    const [refused] = (await encode(owner, [
      encodeItem('clips/small.mp4', [['MP4', 'MP4 H.264/AAC 480p']], 'renders', 'a//b/'),
    ])) as [EncodingJob];
    const failed = await watch(refused.id, ended);
    expect(failed.job.status).toBe('Error');
    expect(failed.job.error).toMatch(/^The output could not be written to renders\/a\/\/b\/.+: /);
    expect(failed.job.error).not.toContain('could not be read');
  }, 60_000);

  it('writes the HLS ladder under a folder with its master playlist, and a sprite sheet with its WebVTT index', async () => {
    const jobs = await encode(owner, [
      encodeItem(
        'clips/small.mp4',
        [
          ['HLS', 'HLS ladder 720p/480p/360p'],
          ['Images', 'Sprite sheet'],
        ],
        'renders',
        'ladder/',
      ),
    ]);
    for (const created of jobs) {
      const done = await watch(created.id, ended);
      expect(done.job.status, done.job.error ?? '').toBe('Finished');
    }
    const keys = await keysOf(s3, 'renders', 'ladder/');
    expect(keys).toEqual(
      expect.arrayContaining([
        'ladder/small-hls/master.m3u8',
        'ladder/small-hls/720p.m3u8',
        'ladder/small-hls/480p.m3u8',
        'ladder/small-hls/360p.m3u8',
        'ladder/small-sprite.jpg',
        'ladder/small-sprite.vtt',
      ]),
    );
    expect(keys.some((key) => /^ladder\/small-hls\/360p_\d{3}\.ts$/.test(key))).toBe(true);
    const master = (await readAll(s3, 'renders', 'ladder/small-hls/master.m3u8')).toString();
    expect(master).toContain('#EXT-X-STREAM-INF');
    expect(master).toContain('720p.m3u8');
    const vtt = (await readAll(s3, 'renders', 'ladder/small-sprite.vtt')).toString();
    expect(vtt.startsWith('WEBVTT')).toBe(true);
    expect(vtt).toContain('00:00:00.000 --> 00:00:01.000\nsmall-sprite.jpg#xywh=0,0,160,90');
  }, 60_000);

  it('the sweep ends a job whose queue job can no longer run, and sends a job that was never sent', async () => {
    const [template] = (await encode(owner, [encodeItem('clips/small.mp4', [['Images', 'Thumbnail']])])) as [
      EncodingJob,
    ];
    await watch(template.id, ended);
    // Rows as a crash leaves them: one Processing whose worker died on every try (the queue keeps no job that may
    // run it), one New whose send never happened (the process stopped right after the rows' commit).
    const copy = async (status: EncodingJobStatus, folder: string) => {
      const { rows } = await listener.query<{ id: string }>(
        `insert into encoding_jobs (organization_id, user_id, source_cloud_account_id, source_bucket, source_path,
           source_size, destination_cloud_account_id, destination_bucket, destination_path, category, preset, status,
           created_at, started_at)
         select organization_id, user_id, source_cloud_account_id, source_bucket, source_path, source_size,
           destination_cloud_account_id, destination_bucket, $2, category, preset, $3, now() - interval '10 minutes',
           case when $3 = 'Processing' then now() - interval '9 minutes' end
         from encoding_jobs where id = $1 returning id`,
        [template.id, folder, status],
      );
      return rows[0]?.id ?? '';
    };
    const dead = await copy('Processing', 'dead/');
    const lost = await copy('New', 'lost/');
    // A job asked for just now is left alone, whatever its queue says.
    const [fresh] = (await encode(owner, [
      encodeItem('clips/small.mp4', [['Images', 'Thumbnail']], 'renders', 'fresh/'),
    ])) as [EncodingJob];

    expect(await server.services.encodingSweep()).toEqual({ abandoned: 1, resent: 1 });
    const abandoned = await job(dead);
    expect(abandoned.status).toBe('Error');
    expect(abandoned.error).toBe(mediaMessages.workerLost);
    const resent = await watch(lost, ended);
    expect(resent.job.status, resent.job.error ?? '').toBe('Finished');
    expect(await keysOf(s3, 'renders', 'lost/')).toEqual(['lost/small-thumbnail.jpg']);
    expect((await watch(fresh.id, ended)).job.status).toBe('Finished');
    // Nothing is left to sweep.
    expect(await server.services.encodingSweep()).toEqual({ abandoned: 0, resent: 0 });
  }, 60_000);

  it('refuses unknown presets, missing sources, other organisations and what passes the encoding quota', async () => {
    const unknown = await call('POST', '/api/encoding/encode', owner, [
      encodeItem('clips/small.mp4', [['MP4', 'MP4 8K']]),
    ]);
    expect(unknown.status).toBe(400);
    expect((unknown.body as { message: string }).message).toBe(mediaMessages.unknownPreset('MP4', 'MP4 8K'));

    // Bad input is a 400 in words, never a 5xx.
    const nul = await call('POST', '/api/encoding/encode', owner, [
      encodeItem('clips/\u0000.mp4', [['MP4', 'MP4 H.264/AAC 480p']]),
    ]);
    expect(nul.status).toBe(400);
    expect((await call('POST', '/api/encoding/encode', owner, [])).body).toMatchObject({
      message: mediaMessages.fileRequired,
    });
    expect((await call('GET', '/api/encoding/jobs/not-an-id', owner)).status).toBe(400);

    const missing = await call('POST', '/api/encoding/encode', owner, [
      encodeItem('clips/none.mp4', [['MP4', 'MP4 H.264/AAC 480p']]),
    ]);
    expect(missing.status).toBe(404);

    // Another organisation's account, as source or as destination, is not found.
    const foreignSource = encodeItem('clips/small.mp4', [['MP4', 'MP4 H.264/AAC 480p']]);
    foreignSource.source.cloud_account_id = strangerAwsId;
    expect((await call('POST', '/api/encoding/encode', owner, [foreignSource])).status).toBe(404);
    const foreignDestination = encodeItem('clips/small.mp4', [['MP4', 'MP4 H.264/AAC 480p']]);
    for (const preset of foreignDestination.presets) preset.destination.cloud_account_id = strangerAwsId;
    expect((await call('POST', '/api/encoding/encode', owner, [foreignDestination])).status).toBe(404);
    expect((await call('GET', '/api/encoding/jobs', stranger)).body).toEqual([]);

    // In trial: what is left of the encoding quota is less than the source × its two presets.
    const { size } = (await s3.stat('media', 'clips/small.mp4')) ?? { size: 0 };
    const organizationId = owner.principal.organizationId;
    const left = (await server.services.entitlements.remaining(organizationId, 'encoding')).remaining;
    await server.services.entitlements.reserve(
      organizationId,
      'encoding',
      'test:fill',
      left - Math.round(size * 1.5),
    );
    const jobsBefore = ((await call('GET', '/api/encoding/jobs', owner)).body as EncodingJob[]).length;
    const overQuota = await call('POST', '/api/encoding/encode', owner, [
      encodeItem('clips/small.mp4', [
        ['MP4', 'MP4 H.264/AAC 480p'],
        ['MP4', 'MP4 H.264/AAC 720p'],
      ]),
    ]);
    expect(overQuota.status).toBe(403);
    expect((overQuota.body as { title: string }).title).toBe(billingMessages.encodingQuotaTitle);
    expect(((await call('GET', '/api/encoding/jobs', owner)).body as EncodingJob[]).length).toBe(jobsBefore);
    // The refused request held nothing: one preset still fits.
    expect(TRIAL_QUOTAS.encoding).toBeGreaterThan(size);
    const [fits] = (await encode(owner, [
      encodeItem('clips/small.mp4', [['Audio', 'AAC 128 kb/s']], 'renders', 'audio/'),
    ])) as [EncodingJob];
    const audio = await watch(fits.id, ended);
    expect(audio.job.status, audio.job.error ?? '').toBe('Finished');
    expect(await keysOf(s3, 'renders', 'audio/')).toEqual(['audio/small-aac.m4a']);
  }, 60_000);
});
