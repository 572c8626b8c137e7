import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type TransferStarted } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  connectS3rverAccount,
  signedInMember,
  startTestServer,
  type TestServer,
  s3rverStore,
} from '../../test/harness.ts';
import { QUEUES } from '../jobs/boss.ts';

/**
 * Request ids: every answer carries one (the caller's X-Request-Id when it is a sane short token), the request's
 * log lines name it, and the jobs the request sends carry it in their data, so the log lines of those jobs (a
 * real transfer, run by the worker role in this process against s3rver) name it too. The log is pino's JSON,
 * captured as the process writes it.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
let s3rver: S3rverServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;
const logLines: string[] = [];

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) }, logLines, {
    jobs: true,
  });
  owner = await signedInMember(server, 'traced');
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  store = s3rverStore(s3rver.endpoint);
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

function logged(): Array<Record<string, unknown>> {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('request ids', () => {
  it('echoes a sane X-Request-Id, and answers a new one in place of a missing or unsafe one', async () => {
    const given = await server.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'lb-7f3a.42:z_1' },
    });
    expect(given.headers['x-request-id']).toBe('lb-7f3a.42:z_1');

    const none = await server.app.inject({ method: 'GET', url: '/api/health' });
    expect(none.headers['x-request-id']).toMatch(UUID);
    for (const unsafe of ['has spaces', 'x'.repeat(65), 'new\\nline', '{"json":1}', '<script>']) {
      const res = await server.app.inject({
        method: 'GET',
        url: '/api/health',
        headers: { 'x-request-id': unsafe },
      });
      expect(res.headers['x-request-id'], unsafe).toMatch(UUID);
    }
    // The request's own log lines name it.
    const lines = logged().filter((line) => line.requestId === 'lb-7f3a.42:z_1');
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'request completed']),
    );
  });

  it('is carried into the jobs a request starts, whose log lines name it', async () => {
    const accountId = await connectS3rverAccount(server, owner.token, 'Traced lab');
    await store.createBucket('traced-src');
    await store.createBucket('traced-dst');
    for (const key of ['one.bin', 'two.bin'])
      await store.write('traced-src', key, randomBytes(2000), { size: 2000 });

    const requestId = `transfer-${randomBytes(6).toString('hex')}`;
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/transfer/transfer',
      headers: { authorization: `Bearer ${owner.token}`, 'x-request-id': requestId },
      payload: {
        sourceCloudAccountId: accountId,
        sourceBucket: 'traced-src',
        destinationCloudAccountId: accountId,
        destinationBucket: 'traced-dst',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-request-id']).toBe(requestId);
    const batchId = (res.json() as TransferStarted).batch.id;

    // The jobs the request sent (TRANSFER_JOBS_PER_BATCH, 2) carry its id in their data. A job the transfers
    // sweep may add for the batch meanwhile was sent by no request, and carries none.
    const { rows: jobs } = await server.db.pool.query<{ id: string; data: Record<string, unknown> }>(
      `select id, data from pgboss.job where name = $1 and data->>'batchId' = $2 order by created_on`,
      [QUEUES.transfersBatch, batchId],
    );
    const requestJobs = jobs.filter((job) => job.data.requestId === requestId);
    expect(requestJobs).toHaveLength(2);
    expect(jobs.slice(0, 2)).toEqual(requestJobs);
    for (const job of requestJobs) expect(job.data).toEqual({ batchId, requestId });
    for (const job of jobs.slice(2)) expect(job.data).toEqual({ batchId });
    const requestJobIds = requestJobs.map((job) => job.id);

    const deadline = Date.now() + 60_000;
    let finished: Record<string, unknown> | undefined;
    while (!finished) {
      if (Date.now() > deadline) throw new Error("the request's transfer jobs never finished");
      finished = logged().find(
        (line) => line.msg === 'transfer job finished' && requestJobIds.includes(String(line.jobId)),
      );
      if (!finished) await new Promise((r) => setTimeout(r, 100));
    }
    while ((await server.services.transfersRepo.statusOf(batchId)) !== BATCH_STATUS.completed) {
      if (Date.now() > deadline) throw new Error('the transfer never completed');
      await new Promise((r) => setTimeout(r, 100));
    }

    // The job's log lines name the request, the queue and the job.
    expect(finished).toMatchObject({
      requestId,
      job: QUEUES.transfersBatch,
      batchId,
      copied: expect.any(Number),
    });
    const jobLines = logged().filter(
      (line) => line.job === QUEUES.transfersBatch && line.jobId === finished.jobId,
    );
    expect(jobLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['job started', 'transfer job finished', 'job finished']),
    );
    for (const line of jobLines) expect(line.requestId).toBe(requestId);
  });

  it('leaves a job sent outside any request without one', async () => {
    // The sweeps the worker role sends at start-up were sent by no request; they run within a poll or two.
    const deadline = Date.now() + 20_000;
    let sweeps: Array<Record<string, unknown>> = [];
    while (sweeps.length === 0) {
      if (Date.now() > deadline) throw new Error('no transfers sweep ran');
      await new Promise((r) => setTimeout(r, 200));
      sweeps = logged().filter((line) => line.job === QUEUES.transfersSweep);
    }
    for (const line of sweeps) {
      expect(line).toMatchObject({ job: QUEUES.transfersSweep, jobId: expect.stringMatching(UUID) });
      expect(line).not.toHaveProperty('requestId');
    }
  });
});
