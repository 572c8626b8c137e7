import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, messages, type TransferStarted } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  signedInMember,
  startTestServer,
  type TestServer,
  s3rverStore,
} from '../../../test/harness.ts';
import { ConfigError, loadConfig } from '../../config.ts';
import type { PgBoss } from 'pg-boss';
import { QUEUES, startBoss } from '../../jobs/boss.ts';
import { createLogger } from '../../logger.ts';
import { listenForMetrics } from './metrics-listener.ts';
import { metricsDenied } from './metrics-access.ts';

/**
 * GET /metrics as Prometheus scrapes it: off without METRICS_TOKEN, the token's bearer only, the request histogram
 * by route pattern, the transfer counters moving with a real transfer (s3rver → s3rver, the worker role in
 * process), the queue gauges read from pg-boss's table, and a worker's METRICS_PORT listener.
 */
const TOKEN = 'metrics-token-0123456789abcdef';
/** The worker listener's ports (a second one: fetch keeps the first one's closed connections in its pool). */
const LISTENER_PORT = 8301;
const OFF_LISTENER_PORT = 8302;

let plain: TestServer;
let server: TestServer;
let s3rver: S3rverServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;

beforeAll(async () => {
  s3rver = await startS3rver();
  [plain, server] = await Promise.all([
    startTestServer(),
    startTestServer(
      { PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }), METRICS_TOKEN: TOKEN },
      undefined,
      { jobs: true },
    ),
  ]);
  owner = await signedInMember(server, 'metrics');
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  store = s3rverStore(s3rver.endpoint);
});
afterAll(async () => {
  await store?.close();
  await Promise.all([plain?.stop(), server?.stop()]);
  await s3rver?.stop();
});

/** Scrapes `target`; `authorization` '' sends no Authorization header. */
async function scrape(target = server, authorization = `Bearer ${TOKEN}`) {
  return target.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: authorization ? { authorization } : {},
  });
}

/** The value of one series in a scrape (0 when it is absent). */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics', () => {
  it('is off (404) when METRICS_TOKEN is not configured', async () => {
    const res = await scrape(plain);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: messages.notFound });
    expect((await scrape(plain, '')).statusCode).toBe(404);
  });

  it('answers 401 to a caller without the token or with another one', async () => {
    for (const authorization of [
      '',
      'Bearer wrong-token-0123456789abcdef',
      `Bearer ${TOKEN}x`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`,
      TOKEN,
    ]) {
      const res = await scrape(server, authorization);
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json()).toEqual({ message: metricsDenied });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('serves the Prometheus text format to the bearer, with the histogram of a route just called by its pattern', async () => {
    const secret = randomBytes(24).toString('base64url');
    const share = await server.app.inject({ method: 'GET', url: `/api/sharing/${secret}` });
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const series = `cumulo_http_request_duration_seconds_count{method="GET",route="/api/sharing/:token",status_code="${share.statusCode}"}`;
    expect(valueOf(res.body, series)).toBe(1);
    expect(res.body).toContain('# TYPE cumulo_http_request_duration_seconds histogram');
    expect(res.body).toContain(
      `cumulo_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/sharing/:token",status_code="${share.statusCode}"} 1`,
    );
    // The URL's token never becomes a label.
    expect(res.body).not.toContain(secret);
    // Unmatched paths share one label, whatever their URL.
    await server.app.inject({ method: 'GET', url: `/no/such/${secret}` });
    const after = (await scrape()).body;
    expect(
      valueOf(
        after,
        'cumulo_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}',
      ),
    ).toBe(1);
    expect(after).not.toContain(secret);
    // The Node process metrics are there too.
    expect(after).toContain('process_cpu_user_seconds_total');
    expect(after).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts the bytes and objects a real transfer copied, by source and destination provider', async () => {
    const accountId = await connectS3rverAccount(server, owner.token, 'Metrics lab');
    await store.createBucket('metrics-src');
    await store.createBucket('metrics-dst');
    const files = [randomBytes(12_345), randomBytes(54_321), randomBytes(7)];
    for (const [i, body] of files.entries())
      await store.write('metrics-src', `f${i}.bin`, body, { size: body.length });
    const bytes = 'cumulo_transfer_bytes_total{source="aws",destination="aws"}';
    const objects = 'cumulo_transfer_objects_total{source="aws",destination="aws"}';
    const errors = 'cumulo_transfer_errors_total{source="aws",destination="aws"}';
    const before = (await scrape()).body;

    const res = await callApi(server, 'POST', '/api/transfer/transfer', owner.token, {
      sourceCloudAccountId: accountId,
      sourceBucket: 'metrics-src',
      destinationCloudAccountId: accountId,
      destinationBucket: 'metrics-dst',
    });
    expect(res.status, res.raw).toBe(200);
    const batchId = (res.body as TransferStarted).batch.id;
    const deadline = Date.now() + 60_000;
    const ended: number[] = [BATCH_STATUS.completed, BATCH_STATUS.failed];
    let status = await server.services.transfersRepo.statusOf(batchId);
    while (status === null || !ended.includes(status)) {
      if (Date.now() > deadline) throw new Error(`the transfer did not end (status ${status})`);
      await new Promise((r) => setTimeout(r, 100));
      status = await server.services.transfersRepo.statusOf(batchId);
    }
    expect(status).toBe(BATCH_STATUS.completed);

    const after = (await scrape()).body;
    const copied = files.reduce((sum, body) => sum + body.length, 0);
    expect(valueOf(after, bytes) - valueOf(before, bytes)).toBe(copied);
    expect(valueOf(after, objects) - valueOf(before, objects)).toBe(3);
    expect(valueOf(after, errors) - valueOf(before, errors)).toBe(0);
  });

  it('reads the queue depth and the oldest waiting job from the database, once per few seconds whatever the scrapes', async () => {
    // The plain server has no worker role: what is sent to its database stays queued.
    const boss = await startBoss(
      { connectionString: plain.databaseUrl, schedule: false },
      createLogger('silent'),
    );
    try {
      await runQueueChecks(boss);
    } finally {
      await boss.stop({ graceful: false });
    }
  });
});

async function runQueueChecks(boss: PgBoss) {
  {
    await boss.send(QUEUES.alertsSweep, {});
    await boss.send(QUEUES.alertsSweep, {});
    // Not due for an hour: queued, but not waiting yet.
    await boss.send(QUEUES.uploadsSweep, {}, { startAfter: 3600 });
    await new Promise((r) => setTimeout(r, 1100));
    const text = await plain.services.metrics.registry.metrics();
    expect(valueOf(text, `cumulo_job_queue_depth{queue="${QUEUES.alertsSweep}"}`)).toBe(2);
    expect(
      valueOf(text, `cumulo_job_queue_oldest_seconds{queue="${QUEUES.alertsSweep}"}`),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, `cumulo_job_queue_depth{queue="${QUEUES.uploadsSweep}"}`)).toBe(1);
    expect(valueOf(text, `cumulo_job_queue_oldest_seconds{queue="${QUEUES.uploadsSweep}"}`)).toBe(0);
    // Every queue has its series, an empty one at 0.
    expect(text).toContain(`cumulo_job_queue_depth{queue="${QUEUES.billingRoll}"} 0`);
    // A scrape right after reads the cached numbers: a storm of scrapes costs one query.
    await boss.send(QUEUES.alertsSweep, {});
    const again = await plain.services.metrics.registry.metrics();
    expect(valueOf(again, `cumulo_job_queue_depth{queue="${QUEUES.alertsSweep}"}`)).toBe(2);
  }
}

describe("a worker's METRICS_PORT listener", () => {
  it('serves the same registry with the same token, and nothing else', async () => {
    const listener = await listenForMetrics(
      server.services.metrics,
      TOKEN,
      LISTENER_PORT,
      '127.0.0.1',
      createLogger('silent'),
    );
    try {
      const url = `http://127.0.0.1:${listener.port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status,
      ).toBe(401);
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await ok.text();
      expect(valueOf(text, 'cumulo_transfer_objects_total{source="aws",destination="aws"}')).toBeGreaterThan(
        0,
      );
      expect((await fetch(`${url}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        404,
      );
    } finally {
      await listener.close();
    }
    const off = await listenForMetrics(
      server.services.metrics,
      undefined,
      OFF_LISTENER_PORT,
      '127.0.0.1',
      createLogger('silent'),
    );
    try {
      const res = await fetch(`http://127.0.0.1:${off.port}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('needs METRICS_TOKEN, and a token long enough not to be guessed', () => {
    expect(() => loadConfig({ METRICS_PORT: '9100' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: '9100' })).toThrow(
      'METRICS_TOKEN: required when METRICS_PORT is set',
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(
      'METRICS_TOKEN: must be at least 16 characters',
    );
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_TOKEN: TOKEN })).toMatchObject({
      METRICS_PORT: 9100,
      METRICS_TOKEN: TOKEN,
    });
  });
});
