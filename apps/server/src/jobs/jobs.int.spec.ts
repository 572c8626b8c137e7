import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../test/harness.ts';

/**
 * The worker role as `npm start` runs it (pg-boss with schedules and supervision, every handler registered):
 * jobs queued by the API are picked up and finished, again and again, without anyone calling a service by hand.
 */
let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let direct: S3ObjectStore;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

interface BucketRow {
  name: string;
  size: number;
  object_count: number;
  inventory_status: string;
}

async function buckets(accountId: string): Promise<BucketRow[]> {
  const list = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
    id: string;
    storages: BucketRow[];
  }>;
  return list.find((a) => a.id === accountId)?.storages ?? [];
}

/** Polls until the worker has sized `bucket` at `size` bytes; fails with the last state seen. */
async function sizedAt(accountId: string, bucket: string, size: number, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  let last: BucketRow | undefined;
  while (Date.now() < until) {
    last = (await buckets(accountId)).find((b) => b.name === bucket);
    if (last?.inventory_status === 'done' && last.size === size) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${bucket} never sized at ${size}: last seen ${JSON.stringify(last)}`);
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({}, undefined, { jobs: true });
  owner = await signedInMember(server, 'worker-owner');
  direct = s3rverStore(s3rver.endpoint, { provider: 'genericS3' });
});
afterAll(async () => {
  await direct?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('background jobs in the all-in-one role', () => {
  it('inventories on connect and on every later refresh, and fires a size alert once', async () => {
    await direct.createBucket('jobs-media');
    await direct.write('jobs-media', 'a.bin', Buffer.alloc(1000, 1), { size: 1000 });
    const account = (
      await call('POST', '/api/cloudaccount/insert', owner.token, {
        cloudType: 8,
        name: 'Worker S3',
        accessKey: S3RVER_KEY,
        secretKey: S3RVER_KEY,
        serviceUrl: s3rver.endpoint,
      })
    ).body as { id: string };
    await sizedAt(account.id, 'jobs-media', 1000);

    const alert = await call('POST', '/api/notifications/', owner.token, {
      cloud_account_id: account.id,
      bucket_name: 'jobs-media',
      size_limit: 2000,
    });
    expect(alert.status).toBeLessThan(300);

    // Several refreshes in a row, each after more data: every one is picked up and finished.
    for (const [index, total] of [2000, 3000, 4000].entries()) {
      await direct.write('jobs-media', `more-${index}.bin`, Buffer.alloc(1000, 2), { size: 1000 });
      const refresh = await call('POST', `/api/cloud_accounts/${account.id}/inventory`, owner.token);
      expect(refresh.status).toBe(202);
      await sizedAt(account.id, 'jobs-media', total);
    }

    // Over the limit since the 3000-byte inventory: one notification and one mail, not one per refresh.
    const until = Date.now() + 10_000;
    let list: Array<{ title: string }> = [];
    while (Date.now() < until && list.length === 0) {
      list = (await call('GET', '/api/notifications', owner.token)).body as Array<{ title: string }>;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(list.map((n) => n.title)).toEqual(['Size alert: jobs-media (Worker S3)']);
    expect(server.mail.received.filter((m) => m.subject.startsWith('Cumulo alert'))).toHaveLength(1);
  });
});
