import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  mediaMessages,
  objectMessages,
  type MediaInfo,
  type MediaPlayback,
  type MetadataEntry,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * Media info, playback and custom metadata through the real API on embedded PostgreSQL, s3rver and the real
 * ffprobe, with clips made by ffmpeg's test sources.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let server: TestServer;
let s3rver: S3rverServer;
let s3: S3ObjectStore;
let owner: Member;
let stranger: Member;
let awsId: string;
let strangersAwsId: string;
let workDir: string;
let clip: Buffer;
let smallClip: Buffer;

const BUCKET = 'media';
const call = (method: Method, url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);
const query = (accountId: string, key: string) =>
  `cloud_account_id=${accountId}&bucket_name=${BUCKET}&path=${encodeURIComponent(key)}`;

/** A clip from ffmpeg's test sources: `seconds` of testsrc2 at `size` with a stereo 440 Hz tone, MP4 faststart. */
async function makeClip(name: string, size: string, seconds: number): Promise<Buffer> {
  const file = path.join(workDir, name);
  await promisify(execFile)('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=25`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '2'],
    ...['-movflags', '+faststart', file],
  ]);
  return fs.readFile(file);
}

/**
 * An HLS folder made from `source` without encoding: a master playlist over one variant in v0/ of fMP4 segments
 * (so the variant names its init section in EXT-X-MAP). Answers the files by their key under the folder.
 */
async function makeHlsFolder(source: string, name: string): Promise<Map<string, Buffer>> {
  const dir = path.join(workDir, name);
  await promisify(execFile)('ffmpeg', [
    ...['-v', 'error', '-y', '-i', path.join(workDir, source), '-map', '0:v', '-map', '0:a', '-c', 'copy'],
    ...['-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4'],
    ...['-var_stream_map', 'v:0,a:0', '-master_pl_name', 'master.m3u8'],
    ...['-hls_segment_filename', path.join(dir, 'v%v', 'seg%d.m4s'), path.join(dir, 'v%v', 'index.m3u8')],
  ]);
  const files = new Map<string, Buffer>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file).split(path.sep).join('/'), await fs.readFile(file));
  }
  return files;
}

/** A request without any Authorization header, as hls.js makes it. */
const anonymous = (url: string) => server.app.inject({ method: 'GET', url });

async function rows(table: string): Promise<number> {
  const { rows: found } = await server.db.pool.query<{ count: string }>(`select count(*) from ${table}`);
  return Number(found[0]?.count);
}

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-media-'));
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  const connect = (member: Member, name: string) => connectS3rverAccount(server, member.token, name);
  awsId = await connect(owner, 'Media AWS');
  strangersAwsId = await connect(stranger, 'Stranger AWS');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket(BUCKET);
  [clip, smallClip] = await Promise.all([
    makeClip('clip.mp4', '320x240', 3),
    makeClip('small.mp4', '160x120', 2),
  ]);
  await s3.write(BUCKET, 'clips/clip.mp4', clip, {
    contentType: 'video/mp4',
    metadata: { origin: 'lab' },
  });
  await s3.write(BUCKET, 'notes.txt', Buffer.from('Shot list\n1. wide\n2. close-up\n'), {
    contentType: 'text/plain',
  });
}, 120_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe('media info, playback and custom metadata (real API, s3rver, ffprobe, PostgreSQL)', () => {
  it('answers what the clip is, probes each version of it once, and probes again after an overwrite', async () => {
    const probe = vi.spyOn(server.services.media.ffprobe, 'probe');
    const url = `/api/media/info?${query(awsId, 'clips/clip.mp4')}`;
    const first = await call('GET', url, owner);
    expect(first.status, first.raw).toBe(200);
    const info = first.body as MediaInfo;
    expect(info.general).toMatchObject({ size: clip.length, stream_count: 2 });
    expect(String(info.general.format_name)).toContain('mp4');
    expect(Number(info.general.duration)).toBeCloseTo(3, 0);
    expect(info.video).toHaveLength(1);
    expect(info.video[0]).toMatchObject({
      codec: 'h264',
      width: 320,
      height: 240,
      frame_rate: 25,
      pixel_format: 'yuv420p',
    });
    expect(info.audio).toHaveLength(1);
    expect(info.audio[0]).toMatchObject({
      codec: 'aac',
      channels: 2,
      channel_layout: 'stereo',
      sample_rate: 44100,
    });
    expect(info.s3_metadata).toMatchObject({
      content_type: 'video/mp4',
      size: clip.length,
      'metadata.origin': 'lab',
    });
    expect(typeof info.s3_metadata.etag).toBe('string');
    expect(info.metadata).toEqual([]);
    expect(probe).toHaveBeenCalledTimes(1);
    // ffprobe read a short-lived signed URL of the object, not the bucket with the account's keys.
    expect(probe.mock.calls[0]?.[0]).toMatch(/\/media\/clips\/clip\.mp4\?.*X-Amz-Signature=/);
    expect(probe.mock.calls[0]?.[0]).toContain('X-Amz-Expires=3600');

    const second = await call('GET', url, owner);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(info);
    expect(probe).toHaveBeenCalledTimes(1);

    await s3.write(BUCKET, 'clips/clip.mp4', smallClip, { contentType: 'video/mp4' });
    const overwritten = await call('GET', url, owner);
    expect(overwritten.status, overwritten.raw).toBe(200);
    expect(probe).toHaveBeenCalledTimes(2);
    const small = overwritten.body as MediaInfo;
    expect(small.video[0]).toMatchObject({ width: 160, height: 120 });
    expect(Number(small.general.duration)).toBeCloseTo(2, 0);
    expect(small.general.size).toBe(smallClip.length);
    expect(await rows('media_probes')).toBe(1);
    await s3.write(BUCKET, 'clips/clip.mp4', clip, { contentType: 'video/mp4' });
    probe.mockRestore();
  });

  it('answers a text file with the not-media message, and a missing object with 404 in words', async () => {
    const probe = vi.spyOn(server.services.media.ffprobe, 'probe');
    for (let read = 0; read < 2; read++) {
      const res = await call('GET', `/api/media/info?${query(awsId, 'notes.txt')}`, owner);
      expect(res.status, res.raw).toBe(400);
      expect((res.body as { message: string }).message).toBe(mediaMessages.notMedia('notes.txt'));
    }
    // "Not media" is kept per version too.
    expect(probe).toHaveBeenCalledTimes(1);
    probe.mockRestore();

    for (const call_ of ['info', 'play']) {
      const res = await call('GET', `/api/media/${call_}?${query(awsId, 'clips/gone.mp4')}`, owner);
      expect(res.status, res.raw).toBe(404);
      expect((res.body as { message: string }).message).toBe(objectMessages.objectMissing('clips/gone.mp4'));
    }
  });

  it('adds, lists and deletes custom metadata, refusing a second entry of the same name', async () => {
    const location = { cloud_account_id: awsId, bucket_name: BUCKET, path: 'clips/clip.mp4' };
    const added = await call('POST', '/api/metadata/add', owner, {
      ...location,
      name: ' Scene ',
      value: 'Opening',
    });
    expect(added.status, added.raw).toBe(201);
    const entry = added.body as MetadataEntry;
    expect(entry).toMatchObject({
      name: 'Scene',
      value: 'Opening',
      category: 'Custom',
      cloud: awsId,
      storage: BUCKET,
      path: 'clips/clip.mp4',
    });
    const again = await call('POST', '/api/metadata/add', owner, {
      ...location,
      name: 'Scene',
      value: 'Other',
    });
    expect(again.status).toBe(400);
    expect((again.body as { message: string }).message).toBe(mediaMessages.metadataExists('Scene'));
    const second = await call('POST', '/api/metadata/add', owner, { ...location, name: 'Reel', value: '7' });
    expect(second.status).toBe(201);

    const all = await call('GET', `/api/metadata/all?${query(awsId, 'clips/clip.mp4')}`, owner);
    expect(all.status).toBe(200);
    expect((all.body as MetadataEntry[]).map((e) => [e.name, e.value])).toEqual([
      ['Scene', 'Opening'],
      ['Reel', '7'],
    ]);
    const info = await call('GET', `/api/media/info?${query(awsId, 'clips/clip.mp4')}`, owner);
    expect((info.body as MediaInfo).metadata).toEqual(all.body);

    const missing = await call('POST', '/api/metadata/add', owner, {
      ...location,
      path: 'nope.mp4',
      name: 'a',
      value: 'b',
    });
    expect(missing.status).toBe(404);

    const deleted = await call('DELETE', `/api/metadata/${entry.id}`, owner);
    expect(deleted.status, deleted.raw).toBe(200);
    expect((await call('DELETE', `/api/metadata/${entry.id}`, owner)).status).toBe(404);
    const left = await call('GET', `/api/metadata/all?${query(awsId, 'clips/clip.mp4')}`, owner);
    expect((left.body as MetadataEntry[]).map((e) => e.name)).toEqual(['Reel']);

    const { rows: audits } = await server.db.pool.query<{ type: string; resource: string }>(
      `select type, resource from audits where entity = 'Metadata' order by created_at`,
    );
    expect(audits).toEqual([
      { type: 'Added', resource: `${BUCKET}/clips/clip.mp4: Scene` },
      { type: 'Added', resource: `${BUCKET}/clips/clip.mp4: Reel` },
      { type: 'Deleted', resource: `${BUCKET}/clips/clip.mp4: Scene` },
    ]);
  });

  it('plays the clip from a signed URL that serves its bytes; a playlist plays as HLS', async () => {
    const res = await call('GET', `/api/media/play?${query(awsId, 'clips/clip.mp4')}`, owner);
    expect(res.status, res.raw).toBe(200);
    const playback = res.body as MediaPlayback;
    expect(playback.kind).toBe('file');
    const minutes = (Date.parse(playback.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(55);
    expect(minutes).toBeLessThanOrEqual(60);
    const fetched = await fetch(playback.url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(clip)).toBe(true);

    // The page may play it: the CSP lets media come from the stores, and hls.js feed a blob: MediaSource.
    const page = await server.app.inject({ method: 'GET', url: '/api/health' });
    const directives = String(page.headers['content-security-policy']).split(';');
    const mediaSrc = directives.find((d) => d.trim().startsWith('media-src'));
    expect(mediaSrc?.trim().split(/\s+/)).toEqual(
      expect.arrayContaining(["'self'", 'blob:', 'https:', s3rver.endpoint]),
    );
    expect(directives.find((d) => d.trim().startsWith('worker-src'))?.trim()).toBe("worker-src 'self' blob:");

    await s3.write(BUCKET, 'hls/master.m3u8', Buffer.from('#EXTM3U\n'), {
      contentType: 'application/vnd.apple.mpegurl',
    });
    const hls = await call('GET', `/api/media/play?${query(awsId, 'hls/master.m3u8')}`, owner);
    expect((hls.body as MediaPlayback).kind).toBe('hls');
  });

  it('plays an HLS folder of a private bucket through the playlist proxy: variants proxied, segments signed', async () => {
    const folder = await makeHlsFolder('small.mp4', 'ep1');
    for (const [key, bytes] of folder) await s3.write(BUCKET, `shows/ep1/${key}`, bytes);
    await s3.write(BUCKET, 'shows/ep2/index.m3u8', Buffer.from('#EXTM3U\n#EXT-X-ENDLIST\n'));

    const res = await call('GET', `/api/media/play?${query(awsId, 'shows/ep1/master.m3u8')}`, owner);
    expect(res.status, res.raw).toBe(200);
    const playback = res.body as MediaPlayback;
    expect(playback.kind).toBe('hls');
    expect(playback.url).toMatch(/^\/api\/media\/hls\/[\w-]+\.[\w-]+\/master\.m3u8$/);
    const token = playback.url.split('/')[4] ?? '';

    const master = await anonymous(playback.url);
    expect(master.statusCode, master.body).toBe(200);
    expect(master.headers['content-type']).toContain('application/vnd.apple.mpegurl');
    expect(master.headers['cache-control']).toBe('no-store');
    const variantUrl = master.body.split('\n').find((line) => line && !line.startsWith('#'));
    expect(variantUrl).toBe(`/api/media/hls/${token}/v0/index.m3u8`);

    const variant = await anonymous(variantUrl ?? '');
    expect(variant.statusCode, variant.body).toBe(200);
    const init = /#EXT-X-MAP:URI="([^"]+)"/.exec(variant.body)?.[1] ?? '';
    const segments = variant.body.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(segments.length).toBeGreaterThan(0);
    for (const [uri, key] of [[init, 'v0/init.mp4'], ...segments.map((s, i) => [s, `v0/seg${i}.m4s`])]) {
      // A signed GET of the store: the bucket is private, and no byte of the video passes through Cumulo.
      expect(uri).toMatch(new RegExp(`/${BUCKET}/shows/ep1/${key}\\?.*X-Amz-Signature=`));
      const fetched = await fetch(uri ?? '');
      expect(fetched.status, key).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).equals(folder.get(key ?? '') ?? Buffer.alloc(0))).toBe(
        true,
      );
    }

    // Only playlists under the token's folder: a segment, a sibling folder, steps out of it → 404.
    const base = `/api/media/hls/${token}`;
    for (const outside of [
      `${base}/v0/init.mp4`,
      `${base}/..%2Fep2%2Findex.m3u8`,
      `${base}/%2e%2e/ep2/index.m3u8`,
      `${base}/v0//index.m3u8`,
      `${base}/v0/missing.m3u8`,
    ]) {
      expect((await anonymous(outside)).statusCode, outside).toBe(404);
    }
    // A token changed by one character, or another's signature on it, opens nothing.
    const [body = '', mac = ''] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), f: 'shows/' }),
    ).toString('base64url');
    for (const tampered of [`${forged}.${mac}`, `${body}.${mac.slice(0, -2)}AA`, 'nonsense']) {
      expect((await anonymous(`/api/media/hls/${tampered}/master.m3u8`)).statusCode, tampered).toBe(404);
    }
    // Once its minutes are over the link says so.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61 * 60_000);
    const expired = await anonymous(playback.url);
    vi.useRealTimers();
    expect(expired.statusCode).toBe(403);
    expect((expired.json() as { message: string }).message).toBe(mediaMessages.playbackExpired);

    // Another organisation's token, for its own account on the same bucket, reads only its own folder.
    await s3.write(BUCKET, 'shows/theirs/index.m3u8', Buffer.from('#EXTM3U\n#EXT-X-ENDLIST\n'));
    const theirs = await call(
      'GET',
      `/api/media/play?${query(strangersAwsId, 'shows/theirs/index.m3u8')}`,
      stranger,
    );
    const theirUrl = (theirs.body as MediaPlayback).url;
    expect((await anonymous(theirUrl)).statusCode).toBe(200);
    const theirBase = theirUrl.slice(0, theirUrl.lastIndexOf('/'));
    for (const outside of [`${theirBase}/..%2Fep1%2Fmaster.m3u8`, `${theirBase}/%2E%2E/ep1/master.m3u8`]) {
      expect((await anonymous(outside)).statusCode, outside).toBe(404);
    }
  });

  it("answers 404 for another organisation's account and entries, and changes nothing of them", async () => {
    const ownEntry = await call('POST', '/api/metadata/add', owner, {
      cloud_account_id: awsId,
      bucket_name: BUCKET,
      path: 'clips/clip.mp4',
      name: 'Owner only',
      value: 'x',
    });
    expect(ownEntry.status).toBe(201);
    const id = (ownEntry.body as MetadataEntry).id;
    for (const url of [
      `/api/media/info?${query(awsId, 'clips/clip.mp4')}`,
      `/api/media/play?${query(awsId, 'clips/clip.mp4')}`,
      `/api/metadata/all?${query(awsId, 'clips/clip.mp4')}`,
    ]) {
      expect((await call('GET', url, stranger)).status, url).toBe(404);
    }
    const add = await call('POST', '/api/metadata/add', stranger, {
      cloud_account_id: awsId,
      bucket_name: BUCKET,
      path: 'clips/clip.mp4',
      name: 'Intruder',
      value: 'x',
    });
    expect(add.status).toBe(404);
    expect((await call('DELETE', `/api/metadata/${id}`, stranger)).status).toBe(404);
    // The stranger's own account on the same bucket sees none of the owner's entries.
    const theirs = await call(
      'GET',
      `/api/metadata/all?${query(strangersAwsId, 'clips/clip.mp4')}`,
      stranger,
    );
    expect(theirs.body).toEqual([]);
    const mine = await call('GET', `/api/metadata/all?${query(awsId, 'clips/clip.mp4')}`, owner);
    expect((mine.body as MetadataEntry[]).map((e) => e.name)).toEqual(['Reel', 'Owner only']);
  });

  it('refuses bad input with 400, never a 5xx', async () => {
    const base = {
      cloud_account_id: awsId,
      bucket_name: BUCKET,
      path: 'clips/clip.mp4',
      name: 'n',
      value: 'v',
    };
    for (const body of [
      { ...base, path: 'clips/\u0000clip.mp4' },
      { ...base, name: 'bad\uD800name' },
      { ...base, value: 'v'.repeat(2000) },
      { ...base, name: '   ' },
      { ...base, cloud_account_id: 'not-a-uuid' },
    ]) {
      const res = await call('POST', '/api/metadata/add', owner, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    for (const url of [
      `/api/media/info?cloud_account_id=${awsId}&bucket_name=${BUCKET}&path=a%00b.mp4`,
      `/api/media/play?cloud_account_id=${awsId}&bucket_name=${BUCKET}&path=`,
      `/api/metadata/all?cloud_account_id=${awsId}&bucket_name=${BUCKET}&path=${'p'.repeat(2000)}`,
    ]) {
      expect((await call('GET', url, owner)).status, url).toBe(400);
    }
    expect((await call('DELETE', '/api/metadata/not-a-uuid', owner)).status).toBe(400);
  });

  it("a deleted object's custom metadata and kept probe go with it", async () => {
    expect(await rows('media_metadata')).toBeGreaterThan(0);
    const res = await call('DELETE', '/api/transfers/delete_object', owner, {
      cloud_account_id: awsId,
      bucket_name: BUCKET,
      paths: ['clips/'],
    });
    expect(res.status, res.raw).toBe(200);
    const { rows: left } = await server.db.pool.query(
      `select path from media_metadata union all select path from media_probes where path like 'clips/%'`,
    );
    expect(left).toEqual([]);
  });
});
