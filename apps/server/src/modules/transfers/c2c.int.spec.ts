import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { c2cMessages, transferMessages, type HistoryEntry, type TransferStarted } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

const DAY = 86_400_000;
const GB = 1_073_741_824;

let server: TestServer;
let s3rver: TestStoreServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let wasabiId: string;
let strangerAccount: string;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

async function connect(token: string, cloudType: number, name: string): Promise<string> {
  const res = await call('POST', '/api/cloudaccount/insert', token, {
    cloudType,
    name,
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

interface BatchFields {
  organizationId: string;
  requestedAt: Date;
  sourceAccountId?: string | null;
  destinationAccountId?: string | null;
  status?: number;
  transferType?: number;
  totalSize?: number;
  transferredSize?: number;
  finishedAt?: Date | null;
}

/** A batch row as the engine leaves it, with the dates a test needs (the history and usage read only rows). */
async function insertBatch(fields: BatchFields): Promise<string> {
  const { rows } = await server.db.pool.query<{ id: string }>(
    `insert into transfer_batches (organization_id, transfer_type, operation, source_cloud_account_id,
       source_bucket, destination_cloud_account_id, destination_bucket, status, phase, total_size,
       transferred_size, requested_at, finished_at)
     values ($1, $2, 'copy', $3, 'history-src', $4, 'history-dst', $5, 'finished', $6, $7, $8, $9)
     returning id`,
    [
      fields.organizationId,
      fields.transferType ?? 1,
      fields.sourceAccountId ?? null,
      fields.destinationAccountId ?? null,
      fields.status ?? 4,
      fields.totalSize ?? 0,
      fields.transferredSize ?? 0,
      fields.requestedAt,
      fields.finishedAt ?? null,
    ],
  );
  return rows[0]?.id ?? '';
}

const batchRow = async (id: string) =>
  (
    await server.db.pool.query<Record<string, unknown>>(
      `select organization_id, user_id, operation, transfer_type, source_cloud_account_id, source_bucket,
              source_path, source_selection, destination_cloud_account_id, destination_bucket, destination_path,
              skip_existing, status
       from transfer_batches where id = $1`,
      [id],
    )
  ).rows[0];

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rver.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  awsId = await connect(owner.token, 1, 'Lab AWS');
  wasabiId = await connect(owner.token, 2, 'Lab Wasabi');
  strangerAccount = await connect(stranger.token, 1, 'Their AWS');
  store = s3rverStore(s3rver.endpoint);
  await store.createBucket('c2c-src');
  await store.createBucket('c2c-dst');
  for (const key of ['photos/2024/a.jpg', 'photos/2024/raw/c.raw', 'photos/2024/b.jpg']) {
    await store.write('c2c-src', key, Buffer.from(key));
  }
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

const selection = (overrides: Record<string, unknown> = {}) => ({
  files: [
    { path: '/photos/2024/a.jpg', bucket_name: 'c2c-src', file_id: 'f1' },
    { path: 'photos/2024/raw/', bucket_name: 'c2c-src' },
  ],
  cloud_id: awsId,
  type: 1,
  destination: { cloud_id: wasabiId, bucket_name: 'c2c-dst', path: 'backup' },
  skip_active: true,
  ...overrides,
});

describe('POST /c2c/moveaws and /c2c/moveWasabi against s3rver and embedded PostgreSQL', () => {
  it('refuses until the organisation has confirmed the transfer charge', async () => {
    const res = await call('POST', '/api/c2c/moveaws', owner.token, selection());
    expect(res).toMatchObject({ status: 403, body: { message: transferMessages.chargeNotConfirmed } });
    const confirm = await call('PUT', '/api/organizations/_me', owner.token, { confirmed_c2c: true });
    expect(confirm.status).toBe(200);
  });

  it('starts one batch copying the selected keys and folders into the destination path', async () => {
    const res = await call('POST', '/api/c2c/moveaws', owner.token, selection());
    expect(res.status).toBe(200);
    const { message, batch } = res.body as TransferStarted;
    expect(message).toBe(transferMessages.enqueued);
    expect(batch).toMatchObject({
      operation: 'copy',
      transferStatus: 2,
      sourceCloudAccount: { id: awsId, name: 'Lab AWS' },
      destinationCloudAccount: { id: wasabiId, name: 'Lab Wasabi' },
      sourceBucket: 'c2c-src',
      sourcePath: 'photos/2024/',
      destinationBucket: 'c2c-dst',
      destinationPath: 'backup/',
      skipExisting: true,
    });
    expect(await batchRow(batch.id)).toEqual({
      organization_id: owner.principal.organizationId,
      user_id: owner.principal.userId,
      operation: 'copy',
      transfer_type: 1,
      source_cloud_account_id: awsId,
      source_bucket: 'c2c-src',
      source_path: 'photos/2024/',
      source_selection: ['photos/2024/a.jpg', 'photos/2024/raw/'],
      destination_cloud_account_id: wasabiId,
      destination_bucket: 'c2c-dst',
      destination_path: 'backup/',
      skip_existing: true,
      status: 2,
    });
  });

  it('moves for type 0 and "move", copies for "copy", on both paths', async () => {
    const cases: Array<[string, number | string, 'move' | 'copy']> = [
      ['/api/c2c/moveaws', 0, 'move'],
      ['/api/c2c/moveWasabi', 'move', 'move'],
      ['/api/c2c/moveWasabi', 'copy', 'copy'],
    ];
    for (const [path, type, operation] of cases) {
      const res = await call('POST', path, owner.token, selection({ type, skip_active: false }));
      expect(res.status, `${path} ${type}`).toBe(200);
      const { batch } = res.body as TransferStarted;
      expect(await batchRow(batch.id)).toMatchObject({ operation, skip_existing: false });
    }
  });

  it('answers 400 for files of several buckets, no files or an unknown type', async () => {
    const twoBuckets = await call(
      'POST',
      '/api/c2c/moveaws',
      owner.token,
      selection({
        files: [
          { path: 'photos/2024/a.jpg', bucket_name: 'c2c-src' },
          { path: 'b.jpg', bucket_name: 'c2c-dst' },
        ],
      }),
    );
    expect(twoBuckets).toMatchObject({ status: 400, body: { message: c2cMessages.oneSourceBucket } });
    const none = await call('POST', '/api/c2c/moveaws', owner.token, selection({ files: [] }));
    expect(none).toMatchObject({ status: 400, body: { message: transferMessages.selectFiles } });
    const badType = await call('POST', '/api/c2c/moveaws', owner.token, selection({ type: 2 }));
    expect(badType.status).toBe(400);
    expect((badType.body as { errors: Record<string, unknown> }).errors).toHaveProperty('type');
  });

  it("answers 404 for another organisation's source or destination account", async () => {
    const source = await call(
      'POST',
      '/api/c2c/moveaws',
      owner.token,
      selection({ cloud_id: strangerAccount }),
    );
    expect(source.status).toBe(404);
    const destination = await call(
      'POST',
      '/api/c2c/moveaws',
      owner.token,
      selection({ destination: { cloud_id: strangerAccount, bucket_name: 'c2c-dst', path: '' } }),
    );
    expect(destination.status).toBe(404);
  });
});

describe('POST /c2c/cancel against embedded PostgreSQL', () => {
  it('cancels a batch of the organisation through the engine, once', async () => {
    const started = await call('POST', '/api/c2c/moveaws', owner.token, selection());
    const { batch } = started.body as TransferStarted;
    const res = await call('POST', `/api/c2c/cancel?migrationId=${batch.id}`, owner.token);
    expect(res).toMatchObject({ status: 200, body: { message: transferMessages.canceled } });
    // No worker runs here, so nothing is in flight: Canceling ends at Canceled at once.
    expect(await batchRow(batch.id)).toMatchObject({ status: 8 });
    const again = await call('POST', `/api/c2c/cancel?migrationId=${batch.id}`, owner.token);
    expect(again).toMatchObject({ status: 400, body: { message: transferMessages.notCancelable } });
  });

  it("answers 404 for another organisation's batch and 400 for an id that is not one", async () => {
    const started = await call('POST', '/api/c2c/moveaws', owner.token, selection());
    const { batch } = started.body as TransferStarted;
    const foreign = await call('POST', `/api/c2c/cancel?migrationId=${batch.id}`, stranger.token);
    expect(foreign.status).toBe(404);
    expect(await batchRow(batch.id)).toMatchObject({ status: 2 });
    const bad = await call('POST', '/api/c2c/cancel?migrationId=42', owner.token);
    expect(bad).toMatchObject({ status: 400, body: { message: 'Unknown transfer.' } });
  });
});

describe('GET /c2c/history against embedded PostgreSQL', () => {
  let historian: Awaited<ReturnType<typeof signedInMember>>;
  let source: string;
  let destination: string;
  let tz: number;
  let todayStart: number;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    historian = await signedInMember(server, 'historian');
    source = await connect(historian.token, 1, 'History AWS');
    destination = await connect(historian.token, 2, 'History Wasabi');
    // An offset that puts the requester at about noon, so no day boundary falls between arranging and asking.
    const now = Date.now();
    const minutesIntoUtcDay = Math.floor((now % DAY) / 60_000);
    tz = 720 - minutesIntoUtcDay;
    todayStart = Math.floor((now + tz * 60_000) / DAY) * DAY - tz * 60_000;
    const at = (offsetMs: number) => new Date(todayStart + offsetMs);
    const organizationId = historian.principal.organizationId;
    const accounts = { sourceAccountId: source, destinationAccountId: destination };
    ids.today = await insertBatch({
      organizationId,
      ...accounts,
      requestedAt: at(3_600_000),
      totalSize: 2500,
    });
    ids.yesterday = await insertBatch({
      organizationId,
      ...accounts,
      requestedAt: at(-3_600_000),
      status: 16,
    });
    ids.threeDays = await insertBatch({ organizationId, ...accounts, requestedAt: at(-3 * DAY) });
    ids.sixDays = await insertBatch({ organizationId, ...accounts, requestedAt: at(-6 * DAY + 60_000) });
    // Outside the window, a replication and another organisation's batch: none of them is listed.
    await insertBatch({ organizationId, ...accounts, requestedAt: at(-6 * DAY - 60_000) });
    await insertBatch({ organizationId, ...accounts, requestedAt: at(3_600_000), transferType: 2 });
    await insertBatch({ organizationId: stranger.principal.organizationId, requestedAt: at(3_600_000) });
    await server.db.pool.query(
      `insert into transfer_items (batch_id, source_key, destination_key, size, status)
       select $1, 'folder/file-' || lpad(n::text, 2, '0'), 'folder/file-' || lpad(n::text, 2, '0'), 100,
              case when n = 1 then 'failed' when n = 2 then 'skipped' else 'done' end
       from generate_series(1, 25) as n`,
      [ids.today],
    );
  });

  const history = async (query: string) => {
    const res = await call('GET', `/api/c2c/history?${query}`, historian.token);
    expect(res.status).toBe(200);
    const body = res.body as Record<'today' | 'yesterday' | 'thisWeek', HistoryEntry[]> & { total: number };
    return {
      today: body.today.map((entry) => entry.id),
      yesterday: body.yesterday.map((entry) => entry.id),
      thisWeek: body.thisWeek.map((entry) => entry.id),
      total: body.total,
      body,
    };
  };

  it("groups the last seven days' migrations by the requester's day, newest first", async () => {
    const grouped = await history(`tz=${tz}`);
    expect(grouped).toMatchObject({
      today: [ids.today],
      yesterday: [ids.yesterday],
      thisWeek: [ids.threeDays, ids.sixDays],
      total: 4,
    });
    const [today] = grouped.body.today;
    expect(today).toMatchObject({
      cloud: 'History AWS',
      bucket: 'history-src',
      destination: { cloud: 'History Wasabi', bucket_name: 'history-dst' },
      size: 2500,
      status: 4,
      created: new Date(todayStart + 3_600_000).toISOString(),
    });
    expect(today?.files).toHaveLength(20);
    expect(today?.files.slice(0, 3)).toEqual([
      { status: 'Failed', bucket_name: 'history-src', path: 'folder/file-01', size: 100 },
      { status: 'Skipped', bucket_name: 'history-src', path: 'folder/file-02', size: 100 },
      { status: 'Succeeded', bucket_name: 'history-src', path: 'folder/file-03', size: 100 },
    ]);
    expect(today?.files.at(-1)?.path).toBe('folder/file-20');
    expect(grouped.body.yesterday[0]).toMatchObject({ status: 16, files: [] });
  });

  it('moves the day boundary with the tz offset', async () => {
    // Two hours further east, the local day began two hours earlier: an hour before it is now today.
    const east = await history(`tz=${tz + 120}`);
    expect(east.today).toEqual([ids.today, ids.yesterday]);
    expect(east.yesterday).toEqual([]);
  });

  it('pages in the order asked, counting every entry of the window', async () => {
    const page = await history(`tz=${tz}&order=asc&skip=1&take=2`);
    expect(page).toMatchObject({
      today: [],
      yesterday: [ids.yesterday],
      thisWeek: [ids.threeDays],
      total: 4,
    });
  });

  it('answers 400 for an offset beyond any time zone', async () => {
    const res = await call('GET', '/api/c2c/history?tz=900', historian.token);
    expect(res).toMatchObject({
      status: 400,
      body: { message: 'tz is your offset from UTC in minutes, between -840 and 840.' },
    });
  });
});

describe('GET /c2c/usage against embedded PostgreSQL', () => {
  let payer: Awaited<ReturnType<typeof signedInMember>>;
  const from = '2025-03-01T00:00:00Z';
  const to = '2025-04-01T00:00:00Z';

  beforeAll(async () => {
    payer = await signedInMember(server, 'payer');
    const organizationId = payer.principal.organizationId;
    const requestedAt = new Date('2025-03-02T10:00:00Z');
    const done = (finishedAt: string, transferredSize: number, status = 4) =>
      insertBatch({ organizationId, requestedAt, status, transferredSize, finishedAt: new Date(finishedAt) });
    await done('2025-03-02T11:00:00Z', GB);
    await done('2025-03-31T23:59:59Z', GB / 2);
    // A failed batch, one finished after the period and another organisation's: not counted.
    await done('2025-03-05T11:00:00Z', 4 * GB, 16);
    await done('2025-04-01T00:00:00Z', 8 * GB);
    await insertBatch({
      organizationId: stranger.principal.organizationId,
      requestedAt,
      transferredSize: 16 * GB,
      finishedAt: new Date('2025-03-10T00:00:00Z'),
    });
  });

  it('sums the completed batches that finished in the period and charges $0.15/GB', async () => {
    const res = await call('GET', `/api/c2c/usage?from=${from}&to=${to}`, payer.token);
    // 1.5 GB × $0.15 = $0.225.
    expect(res).toMatchObject({ status: 200, body: { count: 2, size: GB + GB / 2, cost: 0.225 } });
    const empty = await call('GET', `/api/c2c/usage?from=${from}&to=${from}`, payer.token);
    expect(empty.body).toEqual({ count: 0, size: 0, cost: 0 });
  });

  it('answers 400 for a period that ends before it starts or a date that is not one', async () => {
    const reversed = await call('GET', `/api/c2c/usage?from=${to}&to=${from}`, payer.token);
    expect(reversed).toMatchObject({ status: 400, body: { message: c2cMessages.usageRange } });
    const bad = await call('GET', `/api/c2c/usage?from=yesterday&to=${to}`, payer.token);
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: Record<string, unknown> }).errors).toHaveProperty('from');
  });
});
