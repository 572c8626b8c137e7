import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_NAMES,
  type MigrationProgress,
  type TransferList,
  type TransferStarted,
} from '@cumulo/contract';
import { S3RVER_KEY, startAzurite, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectAccount,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * The provider filters of the Transfer Status calls (`source_provider`, `destination_provider` on GET
 * /transfer/get_all, /transfer/ongoing and /c2c/history), which /wbrstatus (into Wasabi) and /awstboard (out of
 * AWS) read: through the real web role on embedded PostgreSQL, with accounts connected to s3rver (aws, wasabi) and
 * Azurite (azure). No worker runs here, so a started batch stays Ongoing for the live list.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;

let server: TestServer;
let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let owner: Member;
let stranger: Member;
let awsId: string;
let azureId: string;
let wasabiId: string;
let strangerWasabiId: string;
let strangerAwsId: string;
const closeStores: Array<() => Promise<void>> = [];

const get = (url: string, member: Member = owner) => callApi(server, 'GET', url, member.token);

/** A finished migration batch row between two accounts, requested `minutesAgo` (the lists read rows only). */
async function insertFinishedBatch(
  organizationId: string,
  sourceId: string,
  destinationId: string,
  minutesAgo: number,
): Promise<string> {
  const { rows } = await server.db.pool.query<{ id: string }>(
    `insert into transfer_batches (organization_id, transfer_type, operation, source_cloud_account_id,
       source_bucket, destination_cloud_account_id, destination_bucket, status, phase, requested_at, finished_at)
     values ($1, 1, 'copy', $2, 'filter-src', $3, 'filter-dst', 4, 'finished',
       now() - make_interval(mins => $4), now() - make_interval(mins => $4))
     returning id`,
    [organizationId, sourceId, destinationId, minutesAgo],
  );
  return rows[0]?.id ?? '';
}

async function start(sourceId: string, destinationId: string, destinationBucket: string) {
  const res = await callApi(server, 'POST', '/api/transfer/transfer', owner.token, {
    sourceCloudAccountId: sourceId,
    sourceBucket: 'filter-src',
    destinationCloudAccountId: destinationId,
    destinationBucket,
  });
  expect(res.status, res.raw).toBe(200);
  return (res.body as TransferStarted).batch.id;
}

const idsOf = (list: TransferList) => list.items.map((batch) => batch.id);

let intoWasabi: string[];
let awsToAzure: string[];
let liveIntoWasabi: string;
let liveAwsToAzure: string;
let liveAzureToWasabi: string;
let strangersIntoWasabi: string;

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({
      aws: s3rver.endpoint,
      wasabi: s3rver.endpoint,
      azure: azurite.endpoint,
    }),
  });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  const lab = await connectLabAccounts(server, owner.token, {
    s3rver: s3rver.endpoint,
    azurite: azurite.endpoint,
  });
  closeStores.push(
    () => lab.s3.close(),
    () => lab.blob.close(),
  );
  ({ awsId, azureId } = lab);
  const wasabi = { cloudType: 2, accessKey: S3RVER_KEY, secretKey: S3RVER_KEY };
  wasabiId = await connectAccount(server, owner.token, { ...wasabi, name: 'Lab Wasabi' });
  strangerWasabiId = await connectAccount(server, stranger.token, { ...wasabi, name: 'Their Wasabi' });
  strangerAwsId = await connectAccount(server, stranger.token, {
    cloudType: 1,
    name: 'Their AWS',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });
  await lab.s3.createBucket('filter-src');
  await lab.s3.write('filter-src', 'a.txt', Buffer.from('a'));
  await lab.blob.createBucket('filter-src');
  await lab.blob.write('filter-src', 'b.txt', Buffer.from('b'));
  // The live batches' destinations (Wasabi's accounts are on the same s3rver as AWS's).
  await Promise.all([
    lab.s3.createBucket('live-dst'),
    lab.s3.createBucket('live-azure-dst'),
    lab.blob.createBucket('live-dst'),
  ]);
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);

  const org = owner.principal.organizationId;
  // Finished batches, oldest first: into Wasabi (two from AWS, one from Azure) and from AWS to Azure, interleaved.
  const w1 = await insertFinishedBatch(org, awsId, wasabiId, 100);
  const a1 = await insertFinishedBatch(org, awsId, azureId, 90);
  const w2 = await insertFinishedBatch(org, azureId, wasabiId, 80);
  const a2 = await insertFinishedBatch(org, awsId, azureId, 70);
  const w3 = await insertFinishedBatch(org, awsId, wasabiId, 60);
  intoWasabi = [w1, w2, w3];
  awsToAzure = [a1, a2];
  strangersIntoWasabi = await insertFinishedBatch(
    stranger.principal.organizationId,
    strangerAwsId,
    strangerWasabiId,
    30,
  );
  liveIntoWasabi = await start(awsId, wasabiId, 'live-dst');
  liveAwsToAzure = await start(awsId, azureId, 'live-dst');
  liveAzureToWasabi = await start(azureId, wasabiId, 'live-azure-dst');
}, 90_000);

afterAll(async () => {
  await Promise.all(closeStores.map((close) => close()));
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('Transfer Status provider filters (web role, embedded PostgreSQL, s3rver, Azurite)', () => {
  it('lists only the batches into Wasabi with destination_provider=wasabi, and counts only those', async () => {
    const res = await get('/api/transfer/get_all?type=1&pagesize=50&page=1&destination_provider=wasabi');
    expect(res.status, res.raw).toBe(200);
    const list = res.body as TransferList;
    expect(new Set(idsOf(list))).toEqual(new Set([liveIntoWasabi, liveAzureToWasabi, ...intoWasabi]));
    expect(list.total).toBe(5);
    expect(idsOf(list)).not.toContain(liveAwsToAzure);
    for (const id of awsToAzure) expect(idsOf(list)).not.toContain(id);
    // Another organisation's batch into its own Wasabi account stays its own.
    expect(idsOf(list)).not.toContain(strangersIntoWasabi);

    const unfiltered = (await get('/api/transfer/get_all?type=1&pagesize=50&page=1')).body as TransferList;
    expect(unfiltered.total).toBe(8);
  });

  it('pages the filtered history over the filtered total', async () => {
    const pages = await Promise.all(
      [1, 2, 3].map(
        async (page) =>
          (await get(`/api/transfer/get_all?type=1&pagesize=2&page=${page}&destination_provider=wasabi`))
            .body as TransferList,
      ),
    );
    expect(pages.map((page) => page.total)).toEqual([5, 5, 5]);
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    // Newest first: the two started last, then the finished ones from the newest.
    const [w1, w2, w3] = intoWasabi;
    expect(pages.flatMap(idsOf)).toEqual([liveAzureToWasabi, liveIntoWasabi, w3, w2, w1]);
  });

  it('keeps the batches out of AWS with source_provider=aws, and both filters together', async () => {
    const fromAws = (await get('/api/transfer/get_all?source_provider=aws')).body as TransferList;
    expect(new Set(idsOf(fromAws))).toEqual(
      new Set([liveIntoWasabi, liveAwsToAzure, ...awsToAzure, intoWasabi[0], intoWasabi[2]]),
    );
    expect(fromAws.total).toBe(6);
    expect(idsOf(fromAws)).not.toContain(liveAzureToWasabi);

    const awsToWasabi = (await get('/api/transfer/get_all?source_provider=aws&destination_provider=wasabi'))
      .body as TransferList;
    expect(new Set(idsOf(awsToWasabi))).toEqual(new Set([liveIntoWasabi, intoWasabi[0], intoWasabi[2]]));
    expect(awsToWasabi.total).toBe(3);
  });

  it('filters the live batches of GET /transfer/ongoing', async () => {
    const ids = async (url: string) =>
      ((await get(url)).body as { items: MigrationProgress[] }).items.map((item) => item.id);
    expect(new Set(await ids('/api/transfer/ongoing'))).toEqual(
      new Set([liveIntoWasabi, liveAwsToAzure, liveAzureToWasabi]),
    );
    expect(new Set(await ids('/api/transfer/ongoing?destination_provider=wasabi'))).toEqual(
      new Set([liveIntoWasabi, liveAzureToWasabi]),
    );
    expect(new Set(await ids('/api/transfer/ongoing?source_provider=aws'))).toEqual(
      new Set([liveIntoWasabi, liveAwsToAzure]),
    );
    expect(await ids('/api/transfer/ongoing?source_provider=google')).toEqual([]);
  });

  it("filters the Today / Yesterday / This Week lists of GET /c2c/history, within the caller's organisation", async () => {
    const history = async (query: string) => {
      const res = await get(`/api/c2c/history?take=50${query}`);
      expect(res.status, res.raw).toBe(200);
      const body = res.body as Record<'today' | 'yesterday' | 'thisWeek', Array<{ id: string }>> & {
        total: number;
      };
      const entries = [...body.today, ...body.yesterday, ...body.thisWeek];
      return { ids: entries.map((entry) => entry.id), total: body.total };
    };
    const wasabi = await history('&destination_provider=wasabi');
    expect(wasabi.total).toBe(5);
    expect(new Set(wasabi.ids)).toEqual(new Set([liveIntoWasabi, liveAzureToWasabi, ...intoWasabi]));
    expect(wasabi.ids).not.toContain(strangersIntoWasabi);
    const aws = await history('&source_provider=aws');
    expect(aws.total).toBe(6);
    expect(aws.ids).not.toContain(liveAzureToWasabi);
    expect(aws.ids).toContain(liveAwsToAzure);
  });

  it.each([
    '/api/transfer/get_all?destination_provider=dropbox',
    '/api/transfer/get_all?source_provider=AWS',
    '/api/transfer/ongoing?destination_provider=',
    '/api/c2c/history?source_provider=s3%00',
  ])('refuses an unknown provider with 400 and the providers it takes: %s', async (url) => {
    const res = await get(url);
    expect(res.status, res.raw).toBe(400);
    expect((res.body as { message: string }).message).toBe(
      `Unknown provider: use one of ${PROVIDER_NAMES.join(', ')}.`,
    );
  });
});
