import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HYBRIK_PROFILE_MAX_BYTES,
  ROLE_ID,
  authzMessages,
  hybrikMessages,
  type HybrikJob,
  type HybrikProfile,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { keysOf, readAll, startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  buyPackage,
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * Profile jobs end to end: the real API on embedded PostgreSQL, s3rver as the store, the job queued in pg-boss and
 * its handler (HybrikRunner) running the element graph with the real ffmpeg.
 */
const run = promisify(execFile);
type Member = Awaited<ReturnType<typeof signedInMember>>;

let server: TestServer;
let s3rver: S3rverServer;
let s3: S3ObjectStore;
let owner: Member;
let user: Member;
let stranger: Member;
let awsId: string;
let workDir: string;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);

/** The profile job of the Hybrik samples, cut down: source → transcode (mp4 320 px) → copy to a second folder. */
const profileJson = (extra: object[] = [], links: object[] = []) => ({
  name: 'Small MP4',
  definitions: { source: 's3://anywhere/in.mp4' },
  payload: {
    elements: [
      {
        uid: 'source_file',
        kind: 'source',
        payload: { kind: 'asset_url', payload: { storage_provider: 's3', url: '{{source}}' } },
      },
      {
        uid: 'transcode_task',
        kind: 'transcode',
        payload: {
          location: { storage_provider: 's3', path: '{{destination}}renders' },
          targets: [
            {
              file_pattern: '{source_basename}_small.mp4',
              existing_files: 'replace',
              container: { kind: 'mp4' },
              video: { codec: 'h264', width: 160, height: 120, bitrate_kb: 200 },
              audio: [{ codec: 'aac', bitrate_kb: 64, channels: 2 }],
            },
          ],
        },
      },
      {
        uid: 'copy_task',
        kind: 'copy',
        payload: { target: { storage_provider: 's3', path: '{{destination}}delivery' } },
      },
      ...extra,
    ],
    connections: [
      { from: [{ element: 'source_file' }], to: { success: [{ element: 'transcode_task' }] } },
      { from: [{ element: 'transcode_task' }], to: { success: [{ element: 'copy_task' }] } },
      ...links,
    ],
  },
});

/** POST /api/hybrik/profiles as the browser sends it: multipart with `source` and `json_file`. */
async function upload(
  member: Member,
  content: string | Buffer,
  fileName = 'profile.json',
  type = 'application/json',
  source = '',
) {
  const form = new FormData();
  form.set('source', source);
  form.set('json_file', new File([content], fileName, { type }));
  const request = new Request('http://cumulo.test/', { method: 'POST', body: form });
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/hybrik/profiles',
    payload: Buffer.from(await request.arrayBuffer()),
    headers: {
      authorization: `Bearer ${member.token}`,
      'content-type': request.headers.get('content-type') ?? '',
    },
  });
  return { status: res.statusCode, body: res.json<{ message: string; profile: HybrikProfile }>() };
}

async function jobsIn(member: Member, filter: string): Promise<HybrikJob[]> {
  const res = await call('GET', `/api/hybrik/jobs?filter=${filter}`, member);
  expect(res.status, res.raw).toBe(200);
  return res.body as HybrikJob[];
}

/** Creates a job as `member`, checks pg-boss holds it (grouped by organisation), then runs its handler. */
async function runJob(member: Member, profileId: string, source: string, before?: () => Promise<void>) {
  const res = await call('POST', '/api/hybrik/jobs', member, {
    profile_id: profileId,
    cloud_account_id: awsId,
    account_type: 'aws',
    definitions: { source },
  });
  expect(res.status, res.raw).toBe(200);
  const answer = res.body as { message: string; job: HybrikJob };
  expect(answer.message).toBe(hybrikMessages.jobCreated);
  expect((await jobsIn(member, 'queued')).map((job) => job.id)).toContain(answer.job.id);
  const queued = await server.db.pool.query<{ group_id: string }>(
    `select group_id from pgboss.job where name = 'hybrik.job' and data->>'jobId' = $1`,
    [answer.job.id],
  );
  expect(queued.rows).toEqual([{ group_id: member.principal.organizationId }]);
  await before?.();
  await server.services.hybrikRunner.run(answer.job.id);
  return answer.job.id;
}

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-hybrik-test-'));
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  awsId = await connectS3rverAccount(server, owner.token, 'Media AWS');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket('media');
  await s3.createBucket('hybrik');
  const file = path.join(workDir, 'clip.mp4');
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast'],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
  ]);
  await s3.write('media', 'clips/clip.mp4', await fs.readFile(file), { contentType: 'video/mp4' });
  await s3.write('media', 'clips/doomed.mp4', await fs.readFile(file), { contentType: 'video/mp4' });
}, 120_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe('Hybrik profile jobs (API, pg-boss, s3rver, real ffmpeg)', () => {
  it('refuses an organisation without the Hybrik package (403), then takes it once bought', async () => {
    const res = await call('GET', '/api/hybrik/profiles', owner);
    expect(res.status).toBe(403);
    expect((res.body as { message: string }).message).toBe(hybrikMessages.packageRequired);
    await buyPackage(server, owner, 'hybrik');
    expect((await call('GET', '/api/hybrik/profiles', user)).status).toBe(200);
  });

  it('keeps the profiles bucket: an Owner sets it, a User may not', async () => {
    const body = {
      hybrik_profiles_bucket: { cloud_account_id: awsId, bucket_name: 'hybrik', path: 'cumulo' },
    };
    expect((await call('PUT', '/api/hybrik/settings', user, body)).status).toBe(403);
    const res = await call('PUT', '/api/hybrik/settings', owner, body);
    expect(res.status, res.raw).toBe(200);
    expect((res.body as { message: string }).message).toBe(hybrikMessages.settingsSaved);
    expect((await call('GET', '/api/hybrik/settings', user)).body).toEqual({
      hybrik_profiles_bucket: { cloud_account_id: awsId, bucket_name: 'hybrik', path: 'cumulo/' },
    });
  });

  it('refuses bad profile files in words: not JSON, too large, an unsupported element, a cycle', async () => {
    expect((await upload(owner, 'name: x', 'profile.txt', 'text/plain')).body.message).toBe(
      hybrikMessages.jsonOnly,
    );
    const broken = await upload(owner, '{"name": "x",');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/^The file is not valid JSON: /);
    const large = await upload(owner, JSON.stringify({ pad: 'x'.repeat(HYBRIK_PROFILE_MAX_BYTES) }));
    expect(large).toEqual({
      status: 400,
      body: expect.objectContaining({ message: hybrikMessages.tooLarge }),
    });
    const watermark = await upload(
      owner,
      JSON.stringify(profileJson([{ uid: 'wm', kind: 'watermark', payload: {} }])),
    );
    expect(watermark.status).toBe(400);
    expect(watermark.body.message).toBe(
      'The element kind "watermark" is not supported; Cumulo runs source, transcode and copy elements.',
    );
    const cycle = await upload(
      owner,
      JSON.stringify(
        profileJson(
          [],
          [{ from: [{ element: 'copy_task' }], to: { success: [{ element: 'transcode_task' }] } }],
        ),
      ),
    );
    expect(cycle.body.message).toBe(hybrikMessages.cycle(['transcode_task', 'copy_task', 'transcode_task']));
    // What PostgreSQL cannot store (a NUL in the name, a lone surrogate as a definition) is refused in words.
    const nul = await upload(owner, JSON.stringify({ ...profileJson(), name: 'Small\u0000MP4' }));
    expect(nul).toEqual({
      status: 400,
      body: expect.objectContaining({ message: hybrikMessages.unstorableText('job.name') }),
    });
    const surrogate = profileJson();
    const lone = await upload(
      owner,
      JSON.stringify({ ...surrogate, definitions: { ...surrogate.definitions, title: 'cut \ud800' } }),
    );
    expect(lone.body.message).toBe(hybrikMessages.unstorableText('job.definitions.title'));
    const badName = await upload(
      owner,
      JSON.stringify(profileJson()),
      'profile.json',
      'application/json',
      'a\u0000b',
    );
    expect(badName.body.message).toBe(hybrikMessages.unstorableText('source'));
    expect((await upload(user, JSON.stringify(profileJson()))).status).toBe(403);
    expect(await keysOf(s3, 'hybrik')).toEqual([]);
  });

  it('runs source → transcode → copy as a User, to completed, with the outputs in the bucket', async () => {
    const uploaded = await upload(owner, JSON.stringify(profileJson()));
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.message).toBe(hybrikMessages.profileUploaded);
    const profile = uploaded.body.profile;
    expect(profile).toMatchObject({ name: 'Small MP4', definitions: { source: 's3://anywhere/in.mp4' } });
    expect(await keysOf(s3, 'hybrik')).toEqual([`cumulo/${profile.id}.json`]);
    expect((await call('GET', '/api/hybrik/profiles', user)).body).toEqual([profile]);

    const id = await runJob(user, profile.id, 's3://media/clips/clip.mp4');
    const [completed] = await jobsIn(user, 'completed');
    expect(completed).toMatchObject({ id, name: 'Small MP4', progress: 100, error: null });
    expect(completed?.end_time).not.toBeNull();
    expect(completed?.outputs).toEqual([
      's3://hybrik/cumulo/renders/clip_small.mp4',
      's3://hybrik/cumulo/delivery/clip_small.mp4',
    ]);
    // keysOf answers in key order, and where the profile's UUID falls in it is chance.
    expect(await keysOf(s3, 'hybrik', 'cumulo/')).toEqual(
      [`cumulo/${profile.id}.json`, 'cumulo/delivery/clip_small.mp4', 'cumulo/renders/clip_small.mp4'].sort(),
    );
    const output = path.join(workDir, 'out.mp4');
    await fs.writeFile(output, await readAll(s3, 'hybrik', 'cumulo/renders/clip_small.mp4'));
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_name,width',
      '-of',
      'csv=p=0',
      output,
    ]);
    expect(stdout.trim().split('\n').sort()).toEqual(['aac', 'h264,160']);
  }, 60_000);

  it('fails a job whose source disappeared before it ran, with the reason, and writes nothing', async () => {
    const [profile] = (await call('GET', '/api/hybrik/profiles', owner)).body as HybrikProfile[];
    const before = await keysOf(s3, 'hybrik');
    const id = await runJob(user, profile?.id ?? '', 's3://media/clips/doomed.mp4', () =>
      s3.deleteMany('media', ['clips/doomed.mp4']).then(() => undefined),
    );
    const [failed] = await jobsIn(owner, 'failed');
    expect(failed).toMatchObject({
      id,
      error: hybrikMessages.sourceGone('clips/doomed.mp4', hybrikMessages.objectMissing),
    });
    expect(await keysOf(s3, 'hybrik')).toEqual(before);
    const missing = await call('POST', '/api/hybrik/jobs', user, {
      profile_id: profile?.id,
      cloud_account_id: awsId,
      definitions: { source: 's3://media/clips/doomed.mp4' },
    });
    expect(missing.status).toBe(404);
  });

  it('cancels a queued job: its creator or an Owner may, another User may not; the worker then leaves it', async () => {
    const [profile] = (await call('GET', '/api/hybrik/profiles', owner)).body as HybrikProfile[];
    const res = await call('POST', '/api/hybrik/jobs', owner, {
      profile_id: profile?.id,
      cloud_account_id: awsId,
      definitions: { source: 's3://media/clips/clip.mp4' },
    });
    const id = (res.body as { job: HybrikJob }).job.id;
    const refused = await call('POST', `/api/hybrik/jobs/${id}/cancel`, user);
    expect(refused.status).toBe(403);
    expect((refused.body as { message: string }).message).toBe(authzMessages.othersHybrikJob);
    const cancelled = await call('POST', `/api/hybrik/jobs/${id}/cancel`, owner);
    expect(cancelled.body).toEqual({ message: hybrikMessages.jobCancelled });
    await server.services.hybrikRunner.run(id);
    expect((await jobsIn(owner, 'failed')).find((job) => job.id === id)).toMatchObject({
      error: hybrikMessages.cancelledError,
      outputs: [],
    });
    const again = await call('POST', `/api/hybrik/jobs/${id}/cancel`, owner);
    expect(again.status).toBe(400);
    expect((again.body as { message: string }).message).toBe(hybrikMessages.notCancellable);
  });

  it("answers 404 for another organisation's profile, and lets only an Owner or Admin delete one", async () => {
    await buyPackage(server, stranger, 'hybrik');
    const [profile] = (await call('GET', '/api/hybrik/profiles', owner)).body as HybrikProfile[];
    expect((await call('GET', '/api/hybrik/profiles', stranger)).body).toEqual([]);
    expect((await call('DELETE', `/api/hybrik/profiles/${profile?.id}`, stranger)).status).toBe(404);
    expect(
      (
        await call('POST', '/api/hybrik/jobs', stranger, {
          profile_id: profile?.id,
          cloud_account_id: awsId,
          definitions: { source: 's3://media/clips/clip.mp4' },
        })
      ).status,
    ).toBe(404);
    expect(await jobsIn(stranger, 'completed')).toEqual([]);
    expect((await call('DELETE', `/api/hybrik/profiles/${profile?.id}`, user)).status).toBe(403);
    const res = await call('DELETE', `/api/hybrik/profiles/${profile?.id}`, owner);
    expect(res.status, res.raw).toBe(200);
    expect((await call('GET', '/api/hybrik/profiles', owner)).body).toEqual([]);
    expect(await keysOf(s3, 'hybrik', 'cumulo/')).not.toContain(`cumulo/${profile?.id}.json`);
    const audit = await server.db.pool.query<{ entity: string; type: string }>(
      `select entity, type from audits where organization_id = $1 and entity like 'Hybrik%' order by created_at`,
      [owner.principal.organizationId],
    );
    expect(audit.rows.map((row) => `${row.entity} ${row.type}`)).toEqual([
      'Hybrik settings Added',
      'Hybrik profile Added',
      'Hybrik job Added',
      'Hybrik job Added',
      'Hybrik job Added',
      'Hybrik job Modified',
      'Hybrik profile Deleted',
    ]);
  });

  it('the sweep ends a job whose queue job can no longer run, and sends one that was never sent', async () => {
    const { profile } = (await upload(owner, JSON.stringify(profileJson()))).body;
    const create = async () => {
      const res = await call('POST', '/api/hybrik/jobs', owner, {
        profile_id: profile.id,
        cloud_account_id: awsId,
        definitions: { source: 's3://media/clips/clip.mp4' },
      });
      expect(res.status, res.raw).toBe(200);
      return (res.body as { job: HybrikJob }).job.id;
    };
    const [dead, lost, fresh] = [await create(), await create(), await create()];
    const sql = (text: string, id: string) => server.db.pool.query(text, [id]);
    // As a crash leaves them: one active for minutes whose queue job failed on every try (its worker died), one
    // queued for minutes whose send never happened.
    await sql(
      `update hybrik_jobs set status = 'active', started_at = now() - interval '9 minutes' where id = $1`,
      dead,
    );
    await sql(
      `update pgboss.job set state = 'failed' where name = 'hybrik.job' and data->>'jobId' = $1`,
      dead,
    );
    await sql(`update hybrik_jobs set created_at = now() - interval '9 minutes' where id = $1`, lost);
    await sql(`delete from pgboss.job where name = 'hybrik.job' and data->>'jobId' = $1`, lost);

    expect(await server.services.hybrikSweep()).toEqual({ abandoned: 1, resent: 1 });
    expect((await jobsIn(owner, 'failed')).find((job) => job.id === dead)).toMatchObject({
      error: hybrikMessages.workerLost,
    });
    const resent = await sql(
      `select group_id from pgboss.job where name = 'hybrik.job' and data->>'jobId' = $1`,
      lost,
    );
    expect(resent.rows).toEqual([{ group_id: owner.principal.organizationId }]);
    // The fresh job, and the re-sent one, wait for a worker: nothing more to sweep.
    expect((await jobsIn(owner, 'queued')).map((job) => job.id)).toEqual(
      expect.arrayContaining([lost, fresh]),
    );
    expect(await server.services.hybrikSweep()).toEqual({ abandoned: 0, resent: 0 });
    for (const id of [lost, fresh]) await call('POST', `/api/hybrik/jobs/${id}/cancel`, owner);
  });
});
