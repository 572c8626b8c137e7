import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_STATUS,
  ROLE_ID,
  mediaSearchMessages,
  type EncodingJob,
  type MediaSearchAnswer,
  type MetadataEntry,
  type TransferStarted,
  type MediaSearchRequest,
  type UserAcl,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  buyPackage,
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let other: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let otherAwsId: string;
let s3: S3ObjectStore;

const BUCKET = 'media-lib';
/** The seeded bucket: name → size. */
const OBJECTS: Record<string, number> = {
  'clips/holiday_beach.mp4': 5000,
  'clips/holiday_city.mov': 1200,
  'clips/archive/old_beach.mp4': 300,
  'audio/theme_song.mp3': 800,
  'docs/readme.txt': 10,
};

const connect = (token: string, name: string) => connectS3rverAccount(server, token, name);

const search = async (body: MediaSearchRequest | object, token = owner.token) =>
  callApi(server, 'POST', '/api/media/search', token, body);
/** The keys a search answers, in its order. */
const keysOf = async (body: MediaSearchRequest | object, token = owner.token) => {
  const res = await search(body, token);
  expect(res.status, res.raw).toBe(200);
  return (res.body as MediaSearchAnswer).results.map((r) => r.key);
};
const filter = (field: string, comparator: string, value: string | number) => ({
  context: { filters: [{ type: 'statement', field, comparator, value }] },
});

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  other = await signedInMember(server, 'other');
  await buyPackage(server, owner, 'litemam');
  await buyPackage(server, other, 'litemam');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket(BUCKET);
  for (const [key, size] of Object.entries(OBJECTS)) {
    await s3.write(BUCKET, key, Buffer.alloc(size, 1), {
      size,
      contentType: key.endsWith('.mp4') ? 'video/mp4' : undefined,
      metadata: key.endsWith('holiday_beach.mp4') ? { camera: 'gopro' } : undefined,
    });
  }
  awsId = await connect(owner.token, 'Lab AWS');
  otherAwsId = await connect(other.token, 'Their AWS');
  // The real inventory walks the bucket and fills the index (each organisation's walk, its own rows).
  await server.services.inventory.run(owner.principal.organizationId, awsId);
  await server.services.inventory.run(other.principal.organizationId, otherAwsId);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

describe('media search over the index the inventory filled', () => {
  it('finds by a part of the name (trigram), most similar first, with the count and the spec file result', async () => {
    const res = await search({ keyword: 'beach' });
    expect(res.status).toBe(200);
    const answer = res.body as MediaSearchAnswer;
    expect(answer.count).toBe(2);
    expect(answer.results.map((r) => r.key)).toEqual([
      'clips/archive/old_beach.mp4',
      'clips/holiday_beach.mp4',
    ]);
    expect(answer.results[1]).toMatchObject({
      name: 'holiday_beach.mp4',
      bucket_name: BUCKET,
      cloud_account_id: awsId,
      path: 'clips/',
      key: 'clips/holiday_beach.mp4',
      project_name: 'Lab AWS',
      metadata: { size: 5000 },
      selected: false,
    });
    // A part inside a word (not a whole word) still matches: 'contains', not a word search; the shorter name is
    // the more similar.
    expect(await keysOf({ keyword: 'olida' })).toEqual(['clips/holiday_city.mov', 'clips/holiday_beach.mp4']);
    // A typed '%' is a letter, not a wildcard.
    expect(await keysOf({ keyword: '%' })).toEqual([]);
  });

  it('searches by location: the keyword over the whole key, inside the cloud, bucket and path asked', async () => {
    expect(
      await keysOf({ keyword: 'archive', config: { query_type: 'proxy_files_location', limit: 20 } }),
    ).toEqual(['clips/archive/old_beach.mp4']);
    expect(await keysOf({ keyword: 'archive' })).toEqual([]); // by name, no name holds it
    const inClips = await keysOf({
      keyword: '',
      config: {
        query_type: 'location',
        cloud_account_id: awsId,
        bucket_name: BUCKET,
        path: 'clips/',
        limit: 20,
      },
    });
    expect(inClips.sort()).toEqual([
      'clips/archive/old_beach.mp4',
      'clips/holiday_beach.mp4',
      'clips/holiday_city.mov',
    ]);
    expect(await keysOf({ keyword: 'beach', config: { bucket: 'another-bucket', limit: 20 } })).toEqual([]);

    // The whole key, whatever part of it the keyword spans: folder only, folder into name, any case.
    const byLocation = async (keyword: string) =>
      (await keysOf({ keyword, config: { query_type: 'location', limit: 20 } })).sort();
    expect(await byLocation('Clips/ARCHIVE/')).toEqual(['clips/archive/old_beach.mp4']);
    expect(await byLocation('archive/old_b')).toEqual(['clips/archive/old_beach.mp4']);
    expect(await byLocation('ps/holiday_')).toEqual(['clips/holiday_beach.mp4', 'clips/holiday_city.mov']);
    expect(await byLocation('ps/old')).toEqual([]);
    expect(await byLocation('/')).toHaveLength(Object.keys(OBJECTS).length);
    // A folder marker's key ends with a '/' its name lacks: found by it too.
    const org = owner.principal.organizationId;
    await server.services.searchIndex.upsertObjects(org, awsId, BUCKET, [
      { key: 'edits/cut/', size: 0, lastModified: null, contentType: null },
    ]);
    expect(await byLocation('its/cut/')).toEqual(['edits/cut/']);
    expect(await byLocation('cut/')).toEqual(['edits/cut/']);
    await server.services.searchIndex.removeObjects(org, awsId, BUCKET, ['edits/cut/']);
  });

  it('filters with each comparator; a value of digits compares as a number', async () => {
    // No keyword: by name.
    expect(await keysOf({ keyword: '', ...filter('type', 'match', 'MP4') })).toEqual([
      'clips/holiday_beach.mp4',
      'clips/archive/old_beach.mp4',
    ]);
    expect((await keysOf({ keyword: '', ...filter('type', 'does not match', 'mp4') })).sort()).toEqual([
      'audio/theme_song.mp3',
      'clips/holiday_city.mov',
      'docs/readme.txt',
    ]);
    expect(await keysOf({ keyword: '', ...filter('path', 'contains', 'archive') })).toEqual([
      'clips/archive/old_beach.mp4',
    ]);
    expect(
      (await keysOf({ keyword: 'holiday', ...filter('name', 'does not contain', 'beach') })).sort(),
    ).toEqual(['clips/holiday_city.mov']);
    // '01200' is all digits: the number 1200, equal to the size, though not equal as text.
    expect(await keysOf({ keyword: '', ...filter('size', 'match', '01200') })).toEqual([
      'clips/holiday_city.mov',
    ]);
    expect((await keysOf({ keyword: '', ...filter('size', 'greater than', '1000') })).sort()).toEqual([
      'clips/holiday_beach.mp4',
      'clips/holiday_city.mov',
    ]);
    expect(await keysOf({ keyword: '', ...filter('size', 'less than', 100) })).toEqual(['docs/readme.txt']);
    expect(await keysOf({ keyword: '', ...filter('account', 'match', 'lab aws') })).toHaveLength(5);
  });

  it('filters and finds by user, custom and media info metadata', async () => {
    const org = owner.principal.organizationId;
    // What an upload's completion records: the object's stat, user metadata included.
    const stat = await s3.stat(BUCKET, 'clips/holiday_beach.mp4');
    if (!stat) throw new Error('seeded object missing');
    await server.services.searchIndex.upsertObjects(org, awsId, BUCKET, [stat]);
    await server.services.searchIndex.setCustomMetadata(org, awsId, BUCKET, 'clips/holiday_city.mov', {
      project: 'Summer Reel',
    });
    await server.services.searchIndex.setMediaInfo(org, awsId, BUCKET, 'clips/archive/old_beach.mp4', {
      general: { duration: '4.000' },
      video: { codec: 'h264' },
    });
    expect(await keysOf({ keyword: '', ...filter('metadata.camera', 'match', 'GoPro') })).toEqual([
      'clips/holiday_beach.mp4',
    ]);
    expect(await keysOf({ keyword: '', ...filter('metadata.project', 'contains', 'summer') })).toEqual([
      'clips/holiday_city.mov',
    ]);
    expect(await keysOf({ keyword: '', ...filter('metadata.video.codec', 'match', 'h264') })).toEqual([
      'clips/archive/old_beach.mp4',
    ]);
    expect(await keysOf({ keyword: '', ...filter('metadata.general.duration', 'match', '4') })).toEqual([
      'clips/archive/old_beach.mp4',
    ]);
    // The keyword finds a custom metadata value too (full-text), and 'does not contain' leaves it out.
    expect(await keysOf({ keyword: 'reel' })).toEqual(['clips/holiday_city.mov']);
    expect(
      await keysOf({ keyword: 'holiday', ...filter('metadata.project', 'does not contain', 'reel') }),
    ).toEqual(['clips/holiday_beach.mp4']);
    // A later walk (listings carry no metadata) keeps what the index knew.
    await server.services.inventory.run(org, awsId);
    expect(await keysOf({ keyword: '', ...filter('metadata.camera', 'match', 'gopro') })).toEqual([
      'clips/holiday_beach.mp4',
    ]);
  });

  it('answers 20, 50 or 100 results at a time and counts every match', async () => {
    const org = owner.principal.organizationId;
    const many = Array.from({ length: 30 }, (_, i) => ({
      key: `bulk/take_${String(i).padStart(2, '0')}.mp4`,
      size: 1,
      lastModified: null,
      contentType: null,
    }));
    await server.services.searchIndex.upsertObjects(org, awsId, BUCKET, many);
    const first = await search({ keyword: 'take_' });
    expect((first.body as MediaSearchAnswer).results).toHaveLength(20);
    expect((first.body as MediaSearchAnswer).count).toBe(30);
    const fifty = await search({ keyword: 'take_', config: { limit: 50 } });
    expect((fifty.body as MediaSearchAnswer).results).toHaveLength(30);
    const odd = await search({ keyword: 'take_', config: { limit: 30 } });
    expect(odd).toMatchObject({ status: 400, body: { message: mediaSearchMessages.limit } });
    await server.services.searchIndex.removePrefix(org, awsId, BUCKET, 'bulk/');
    expect(await keysOf({ keyword: 'take_' })).toEqual([]);
  });

  it('refuses unsafe filters with a 400 in words', async () => {
    const bad: Array<[object, string]> = [
      [
        filter('name; drop table search_objects', 'match', 'x'),
        mediaSearchMessages.unknownField('name; drop table search_objects'),
      ],
      [
        filter("metadata.a') or ('1'='1", 'match', 'x'),
        mediaSearchMessages.unknownField("metadata.a') or ('1'='1"),
      ],
      [filter('name', 'match', 'x'.repeat(300)), mediaSearchMessages.valueTooLong],
      [filter('name', 'like', 'x'), mediaSearchMessages.unknownComparator],
      [filter('name', 'greater than', 'abc'), mediaSearchMessages.numberOnly('greater than')],
      [filter('name', 'greater than', '5'), mediaSearchMessages.numberField('name')],
      [filter('name', 'match', ''), mediaSearchMessages.filterIncomplete],
      [
        {
          context: {
            filters: [
              {
                type: 'group',
                filters: [{ type: 'statement', field: 'name', comparator: 'match', value: 'x' }],
              },
            ],
          },
        },
        mediaSearchMessages.filterType,
      ],
      [
        {
          context: {
            filters: Array.from({ length: 11 }, () => filter('name', 'match', 'x').context.filters[0]),
          },
        },
        mediaSearchMessages.tooManyFilters,
      ],
      [{ keyword: 'a\u0000b' }, ''],
    ];
    for (const [body, message] of bad) {
      const res = await search({ keyword: '', ...body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      if (message) expect(res.raw).toContain(JSON.stringify(message).slice(1, -1));
    }
    // A pasted paragraph is cut to the longest keyword, not refused.
    expect((await search({ keyword: 'beach'.repeat(100) })).status).toBe(200);
  });

  it('keeps each organisation to its own objects', async () => {
    expect(await keysOf({ keyword: 'beach' }, other.token)).toEqual([
      'clips/archive/old_beach.mp4',
      'clips/holiday_beach.mp4',
    ]);
    const theirs = await search(
      { keyword: 'beach', config: { cloud_account_id: awsId, limit: 20 } },
      other.token,
    );
    expect(theirs.body).toMatchObject({ count: 0, results: [] });
    const res = await search({ keyword: 'beach' }, other.token);
    expect((res.body as MediaSearchAnswer).results.every((r) => r.cloud_account_id === otherAwsId)).toBe(
      true,
    );
  });

  it('refuses an organisation without the LiteMAM package, and a member whose media search ACL is off (403)', async () => {
    const unpaid = await signedInMember(server, 'unpaid');
    const res = await search({ keyword: 'beach' }, unpaid.token);
    expect(res).toMatchObject({
      status: 403,
      body: { code: 'PACKAGE_REQUIRED', message: mediaSearchMessages.packageRequired },
    });
    const user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
    expect(await keysOf({ keyword: 'holiday_beach' }, user.token)).toEqual(['clips/holiday_beach.mp4']);
    const acls = await callApi(
      server,
      'GET',
      `/api/user_access_levels/user_acls/${user.principal.userId}`,
      owner.token,
    );
    const acl = (acls.body as UserAcl[]).find((a) => a.service === 'media_search');
    if (!acl) throw new Error('no media_search ACL');
    const off = await callApi(server, 'PUT', `/api/user_access_levels/${acl.id}`, owner.token, {
      user_access_level: { enabled: false },
    });
    expect(off.status, off.raw).toBe(200);
    expect(await search({ keyword: 'beach' }, user.token)).toMatchObject({
      status: 403,
      body: { code: 'SERVICE_OFF' },
    });
  });

  it('drops a deleted object from the index, by delete and by the next inventory', async () => {
    const del = await callApi(server, 'DELETE', '/api/transfers/delete_object', owner.token, {
      cloud_account_id: awsId,
      bucket_name: BUCKET,
      paths: ['clips/holiday_city.mov'],
    });
    expect(del.status, del.raw).toBe(200);
    expect(await keysOf({ keyword: 'holiday' })).toEqual(['clips/holiday_beach.mp4']);
    // Deleted behind the product's back: the next walk of the bucket removes it.
    await s3.deleteMany(BUCKET, ['audio/theme_song.mp3']);
    expect(await keysOf({ keyword: 'theme' })).toEqual(['audio/theme_song.mp3']);
    await server.services.inventory.run(owner.principal.organizationId, awsId);
    expect(await keysOf({ keyword: 'theme' })).toEqual([]);
    // The other organisation's rows of the same bucket stay.
    expect(await keysOf({ keyword: 'theme' }, other.token)).toEqual(['audio/theme_song.mp3']);
  });
});

/**
 * The other parts' hooks (search README "Fresh"): media info (the real ffprobe), custom metadata, the transfer
 * engine (run here in this process, as a worker runs its job) and the encoding runner (the real ffmpeg).
 */
describe('the index kept fresh by probes, custom metadata, transfers and encodes', () => {
  const SRC = 'hooks-src';
  const CLIP = 'reels/teaser.mp4';
  const inBucket = (bucket: string, body: object = {}) => ({
    keyword: '',
    ...body,
    config: { bucket, limit: 20 as const },
  });
  const resultsOf = async (body: MediaSearchRequest) => {
    const res = await search(body);
    expect(res.status, res.raw).toBe(200);
    return (res.body as MediaSearchAnswer).results;
  };
  const location = { cloud_account_id: '', bucket_name: SRC, path: CLIP };

  /** Starts a transfer and runs its batch to the end in this process (no worker role here). */
  const transferred = async (body: Record<string, unknown>) => {
    const res = await callApi(server, 'POST', '/api/transfer/transfer', owner.token, body);
    expect(res.status, res.raw).toBe(200);
    const { batch } = res.body as TransferStarted;
    await server.services.transferExecutor.run(batch.id);
    const status = await server.services.transfersRepo.statusOf(batch.id);
    expect(status).toBe(BATCH_STATUS.completed);
  };

  beforeAll(async () => {
    location.cloud_account_id = awsId;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-search-test-'));
    const file = path.join(dir, 'teaser.mp4');
    await promisify(execFile)('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
      ...['-movflags', '+faststart', file],
    ]);
    const body = await fs.readFile(file);
    await fs.rm(dir, { recursive: true, force: true });
    for (const bucket of [SRC, 'hooks-dst', 'hooks-moved']) await s3.createBucket(bucket);
    await s3.write(SRC, CLIP, body, { size: body.length, contentType: 'video/mp4' });
    await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
      owner.principal.organizationId,
    ]);
  }, 60_000);

  it('a probed clip enters the index with its media info, filterable by metadata.video.codec', async () => {
    // Never walked: the probe's own stat puts the object in the index.
    expect(await resultsOf(inBucket(SRC))).toEqual([]);
    const info = await callApi(
      server,
      'GET',
      `/api/media/info?${new URLSearchParams(location).toString()}`,
      owner.token,
    );
    expect(info.status, info.raw).toBe(200);
    const [clip] = await resultsOf(inBucket(SRC, filter('metadata.video.codec', 'match', 'h264')));
    expect(clip).toMatchObject({
      key: CLIP,
      metadata: { content_type: 'video/mp4', media_info: { video: { codec: 'h264', width: 320 } } },
    });
    expect(await resultsOf(inBucket(SRC, filter('metadata.audio.codec', 'match', 'h264')))).toEqual([]);
  });

  it('a custom metadata value finds its file by keyword and by metadata.<name>, until it is deleted', async () => {
    const added = await callApi(server, 'POST', '/api/metadata/add', owner.token, {
      ...location,
      name: 'client',
      value: 'Aurora Films',
    });
    expect(added.status, added.raw).toBe(201);
    expect((await resultsOf({ keyword: 'aurora' })).map((r) => r.key)).toEqual([CLIP]);
    const [found] = await resultsOf(inBucket(SRC, filter('metadata.client', 'contains', 'films')));
    expect(found?.metadata.custom).toEqual({ client: 'Aurora Films' });
    // Adding the entry kept the media info the probe recorded.
    expect(found?.metadata.media_info).toMatchObject({ video: { codec: 'h264' } });
    const removed = await callApi(
      server,
      'DELETE',
      `/api/metadata/${(added.body as MetadataEntry).id}`,
      owner.token,
    );
    expect(removed.status, removed.raw).toBe(200);
    expect(await resultsOf({ keyword: 'aurora' })).toEqual([]);
    expect(await resultsOf(inBucket(SRC, filter('metadata.client', 'contains', 'films')))).toEqual([]);
  });

  it('a label named with capitals or spaces is found by metadata.<its name in lower case>', async () => {
    const ids: string[] = [];
    for (const [name, value] of [
      ['Scene', 'Opening titles'],
      ['Shot Type', 'Close-up'],
    ]) {
      const added = await callApi(server, 'POST', '/api/metadata/add', owner.token, {
        ...location,
        name,
        value,
      });
      expect(added.status, added.raw).toBe(201);
      ids.push((added.body as MetadataEntry).id);
    }
    const keys = async (field: string, value: string) =>
      (await resultsOf(inBucket(SRC, filter(field, 'match', value)))).map((r) => r.key);
    expect(await keys('metadata.scene', 'Opening titles')).toEqual([CLIP]);
    expect(await keys('metadata.shot type', 'close-up')).toEqual([CLIP]);
    expect(await keys('metadata.scene', 'Close-up')).toEqual([]);
    // The label keeps the name it was given.
    const [found] = await resultsOf(inBucket(SRC, filter('metadata.scene', 'match', 'Opening titles')));
    expect(found?.metadata.custom).toMatchObject({ Scene: 'Opening titles', 'Shot Type': 'Close-up' });
    for (const id of ids) {
      expect((await callApi(server, 'DELETE', `/api/metadata/${id}`, owner.token)).status).toBe(200);
    }
  });

  it("a transfer's copies are findable at the destination with their source's type and media info; a move's sources leave", async () => {
    await transferred({
      sourceCloudAccountId: awsId,
      sourceBucket: SRC,
      sourcePath: 'reels/',
      destinationCloudAccountId: awsId,
      destinationBucket: 'hooks-dst',
    });
    const [copy] = await resultsOf(inBucket('hooks-dst', { keyword: 'teaser' }));
    expect(copy).toMatchObject({
      bucket_name: 'hooks-dst',
      metadata: { content_type: 'video/mp4', media_info: { video: { codec: 'h264' } } },
    });
    expect(copy?.metadata.last_modified).not.toBeNull();
    const copiedKey = copy?.key ?? '';
    await transferred({
      sourceCloudAccountId: awsId,
      sourceBucket: 'hooks-dst',
      sourcePath: '',
      destinationCloudAccountId: awsId,
      destinationBucket: 'hooks-moved',
      operation: 'move',
    });
    expect(await resultsOf(inBucket('hooks-dst'))).toEqual([]);
    expect((await resultsOf(inBucket('hooks-moved', { keyword: 'teaser' }))).map((r) => r.key)).toEqual([
      copiedKey,
    ]);
  });

  it("an encode's outputs enter the index when the job finishes", async () => {
    const res = await callApi(server, 'POST', '/api/encoding/encode', owner.token, [
      {
        source: location,
        presets: [
          {
            category: 'Images',
            preset: 'Thumbnail',
            destination: { cloud_account_id: awsId, bucket_name: 'hooks-dst', path: 'thumbs/' },
          },
        ],
      },
    ]);
    expect(res.status, res.raw).toBe(200);
    const [job] = (res.body as { jobs: EncodingJob[] }).jobs;
    if (!job) throw new Error('no encoding job');
    await server.services.encodingRunner.run(job.id);
    expect(await resultsOf(inBucket('hooks-dst', { keyword: 'thumbnail' }))).toMatchObject([
      { key: 'thumbs/teaser-thumbnail.jpg', metadata: { content_type: 'image/jpeg' } },
    ]);
  });
});
