import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FS_FILE_TYPE,
  ROLE_ID,
  objectMessages,
  type DownloadLink,
  type ListingAnswer,
  type SearchAnswer,
} from '@cumulo/contract';
import { createObjectStore, type ObjectStore, type StoreConfig } from '@cumulo/storage';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  keysOf,
  S3RVER_KEY,
  startAzurite,
  startS3rver,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import {
  callApi,
  connectAccount,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

type Member = Awaited<ReturnType<typeof signedInMember>>;

let server: TestServer;
let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let owner: Member;
let user: Member;
let stranger: Member;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

interface ProviderCase {
  name: string;
  insert: () => Record<string, unknown>;
  direct: () => StoreConfig;
}

const providers: ProviderCase[] = [
  {
    name: 's3rver (aws)',
    insert: () => ({ cloudType: 1, name: 'Lab AWS', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY }),
    direct: () => ({
      provider: 'aws',
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      endpoint: s3rver.endpoint,
      region: 'us-east-1',
    }),
  },
  {
    name: 'Azurite (azure)',
    insert: () => ({ cloudType: 4, name: 'Lab Blob', accessKey: AZURITE_ACCOUNT, secretKey: AZURITE_KEY }),
    direct: () => ({
      provider: 'azure',
      accountName: AZURITE_ACCOUNT,
      accountKey: AZURITE_KEY,
      endpoint: azurite.endpoint,
    }),
  },
];

async function seed(store: ObjectStore, bucket: string, keys: string[]) {
  await store.createBucket(bucket);
  for (let i = 0; i < keys.length; i += 20) {
    await Promise.all(
      keys.slice(i, i + 20).map((key) => store.write(bucket, key, Buffer.from(`body of ${key}`))),
    );
  }
}

const bucketName = () => `browse-${randomBytes(4).toString('hex')}`;
const contentUrl = (accountId: string, bucket: string, query = '') =>
  `/api/storage/${encodeURIComponent(`${accountId}/${bucket}`)}/content${query}`;

describe.each(providers)('bucket browser calls against $name and embedded PostgreSQL', (provider) => {
  let accountId: string;
  let store: ObjectStore;

  beforeAll(async () => {
    accountId = await connectAccount(server, owner.token, provider.insert());
    store = await createObjectStore(provider.direct());
  });
  afterAll(async () => {
    await store?.close();
  });

  it('lists one folder level, folders and files in key order, page by page, without the folder marker', async () => {
    const bucket = bucketName();
    await seed(store, bucket, [
      'docs/',
      'docs/a.txt',
      'docs/b/deep.txt',
      'docs/c.txt',
      'docs/d/',
      'docs/e.txt',
      'top.txt',
    ]);

    const root = await call('GET', contentUrl(accountId, bucket), user.token);
    expect(root.status).toBe(200);
    const rootAnswer = root.body as ListingAnswer;
    expect(rootAnswer.items.map((i) => [i.name, i.type])).toEqual([
      ['docs', FS_FILE_TYPE.folder],
      ['top.txt', FS_FILE_TYPE.file],
    ]);
    expect(rootAnswer).toMatchObject({
      path: '',
      id: `${accountId}/${bucket}`,
      bucket_name: bucket,
      continuation_token: null,
      last_file: 'top.txt',
    });

    const first = await call('GET', contentUrl(accountId, bucket, '?path=docs&limit=3'), owner.token);
    const page1 = first.body as ListingAnswer;
    expect(page1.path).toBe('docs/');
    expect(page1.continuation_token).not.toBeNull();
    // last_file lets the server drop a row repeated at the page boundary (s3rver repeats common prefixes).
    const rest = await call(
      'GET',
      contentUrl(
        accountId,
        bucket,
        `?path=docs/&limit=3&continuationToken=${encodeURIComponent(page1.continuation_token ?? '')}` +
          `&last_file=${encodeURIComponent(page1.last_file ?? '')}`,
      ),
      owner.token,
    );
    const page2 = rest.body as ListingAnswer;
    const rows = [...page1.items, ...page2.items].filter((i) => i.key !== 'docs/');
    expect(rows.map((i) => i.key)).toEqual(['docs/a.txt', 'docs/b/', 'docs/c.txt', 'docs/d/', 'docs/e.txt']);
    expect(page2.continuation_token).toBeNull();
    const file = rows.find((i) => i.key === 'docs/a.txt');
    expect(file).toMatchObject({
      basename: 'a.txt',
      name: 'a.txt',
      path: 'docs/a.txt',
      full_path: `${bucket}/docs/a.txt`,
      size: 'body of docs/a.txt'.length,
      type: FS_FILE_TYPE.file,
      download_url: null,
    });
    expect(file?.last_modified).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(rows.find((i) => i.key === 'docs/b/')).toMatchObject({ name: 'b', type: FS_FILE_TYPE.folder });
  });

  it('answers 15 rows when no limit is given, and refuses a bad limit or storage id with a clear 400', async () => {
    const bucket = bucketName();
    await seed(
      store,
      bucket,
      Array.from({ length: 17 }, (_, i) => `f-${String(i).padStart(2, '0')}.txt`),
    );
    const page = (await call('GET', contentUrl(accountId, bucket), owner.token)).body as ListingAnswer;
    expect(page.items).toHaveLength(15);
    expect(page.continuation_token).not.toBeNull();

    const badLimit = await call('GET', contentUrl(accountId, bucket, '?limit=0'), owner.token);
    expect(badLimit).toMatchObject({
      status: 400,
      body: { message: 'limit must be a number from 1 to 1000.' },
    });
    const badId = await call('GET', `/api/storage/${encodeURIComponent('not-an-id/x')}/content`, owner.token);
    expect(badId).toMatchObject({ status: 400, body: { message: objectMessages.storageIdInvalid } });
    const missingBucket = await call('GET', contentUrl(accountId, 'no-such-bucket-here'), owner.token);
    expect(missingBucket.status).toBe(404);
  });

  it('creates a folder from a name with leading and doubled slashes, and refuses an existing or empty one', async () => {
    const bucket = bucketName();
    await seed(store, bucket, ['keep.txt', 'with space/inner.txt']);
    const created = await call('PUT', '/api/transfers/create_folder', user.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      path: '//reports///2025',
    });
    expect(created).toMatchObject({
      status: 200,
      body: { path: 'reports/2025/', message: objectMessages.folderCreated('2025') },
    });
    expect(await store.stat(bucket, 'reports/2025/')).toMatchObject({ size: 0 });
    const listed = (await call('GET', contentUrl(accountId, bucket, '?path=reports/'), owner.token))
      .body as ListingAnswer;
    expect(listed.items.map((i) => [i.key, i.type])).toEqual([['reports/2025/', FS_FILE_TYPE.folder]]);

    const again = await call('PUT', '/api/transfers/create_folder', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      path: 'reports/2025',
    });
    expect(again).toMatchObject({ status: 400, body: { message: objectMessages.folderExists('2025') } });
    // A folder that only its objects make (no marker) exists too; a file of the name is in the way.
    for (const [path, message] of [
      ['with space', objectMessages.folderExists('with space')],
      ['keep.txt', objectMessages.fileNamedLikeFolder('keep.txt')],
    ]) {
      const taken = await call('PUT', '/api/transfers/create_folder', owner.token, {
        cloud_account_id: accountId,
        bucket_name: bucket,
        path,
      });
      expect({ path, status: taken.status, body: taken.body }).toMatchObject({
        status: 400,
        body: { message },
      });
    }
    expect(await store.stat(bucket, 'with space/')).toBeNull();
    expect(await store.stat(bucket, 'keep.txt/')).toBeNull();
    const empty = await call('PUT', '/api/transfers/create_folder', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      path: '///',
    });
    expect(empty).toMatchObject({ status: 400, body: { message: objectMessages.folderNameRequired } });
    const dots = await call('PUT', '/api/transfers/create_folder', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      path: 'a/../b',
    });
    expect(dots).toMatchObject({ status: 400, body: { message: objectMessages.folderNameInvalid } });
  });

  it('signs short-lived download links that fetch the bytes under the file name, with no x-amz-checksum', async () => {
    const bucket = bucketName();
    await seed(store, bucket, ['media/clip one.mp4', 'media/notes.txt']);
    const res = await call(
      'GET',
      `/api/transfers/download_url?cloud_account_id=${accountId}&bucket_name=${bucket}` +
        `&paths=${encodeURIComponent('media/clip one.mp4')}&paths=media/notes.txt`,
      user.token,
    );
    expect(res.status).toBe(200);
    const links = res.body as DownloadLink[];
    expect(links.map((l) => [l.path, l.name, l.expires_in])).toEqual([
      ['media/clip one.mp4', 'clip one.mp4', 3600],
      ['media/notes.txt', 'notes.txt', 3600],
    ]);
    for (const link of links) {
      expect(link.url.toLowerCase()).not.toContain('x-amz-checksum');
      const fetched = await fetch(link.url);
      expect(fetched.status).toBe(200);
      expect(await fetched.text()).toBe(`body of ${link.path}`);
      expect(fetched.headers.get('content-disposition')).toContain('attachment');
      expect(fetched.headers.get('content-disposition')).toContain(encodeURIComponent(link.name));
    }

    const folder = await call(
      'GET',
      `/api/transfers/download_url?cloud_account_id=${accountId}&bucket_name=${bucket}&paths=media/`,
      owner.token,
    );
    expect(folder).toMatchObject({ status: 400, body: { message: objectMessages.folderDownload } });
    const missing = await call(
      'GET',
      `/api/transfers/download_url?cloud_account_id=${accountId}&bucket_name=${bucket}&paths=gone.txt`,
      owner.token,
    );
    expect(missing).toMatchObject({
      status: 400,
      body: { message: objectMessages.objectMissing('gone.txt') },
    });
    const none = await call(
      'GET',
      `/api/transfers/download_url?cloud_account_id=${accountId}&bucket_name=${bucket}`,
      owner.token,
    );
    expect(none).toMatchObject({ status: 400, body: { message: objectMessages.pathsRequired } });
  });

  it('deletes files and whole folders with every nested key, in batches; Users may not delete', async () => {
    const bucket = bucketName();
    const nested = Array.from({ length: 1030 }, (_, i) => `old/${i % 3}/k-${String(i).padStart(4, '0')}`);
    await seed(store, bucket, ['old/', ...nested, 'older.txt', 'keep/a.txt', 'loose.txt']);

    const refused = await call('DELETE', '/api/transfers/delete_object', user.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      paths: ['loose.txt'],
    });
    expect(refused.status).toBe(403);

    const res = await call('DELETE', '/api/transfers/delete_object', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      paths: ['old/', 'loose.txt'],
    });
    expect(res).toMatchObject({
      status: 200,
      body: { deleted: 1032, message: objectMessages.deleted(1032) },
    });
    expect((await keysOf(store, bucket)).sort()).toEqual(['keep/a.txt', 'older.txt']);
    // The bucket is counted again shortly (one walk for the deletes of that while), so the dashboard follows.
    const recount = await server.db.pool.query(
      `select data from pgboss.job where name = 'inventory.account' and singleton_key = $1 and state = 'created'`,
      [`${accountId}/${bucket}`],
    );
    expect(recount.rows).toEqual([
      {
        data: expect.objectContaining({ organizationId: owner.principal.organizationId, accountId, bucket }),
      },
    ]);

    const root = await call('DELETE', '/api/transfers/delete_object', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      paths: ['/'],
    });
    expect(root).toMatchObject({ status: 400, body: { message: objectMessages.bucketRootDelete } });
    const empty = await call('DELETE', '/api/transfers/delete_object', owner.token, {
      cloud_account_id: accountId,
      bucket_name: bucket,
      paths: [],
    });
    expect(empty).toMatchObject({ status: 400, body: { message: objectMessages.pathsRequired } });
    expect((await keysOf(store, bucket)).sort()).toEqual(['keep/a.txt', 'older.txt']);
  });

  it('searches names and path prefixes in a bucket, page by page, and across the organisation', async () => {
    const bucket = bucketName();
    await seed(store, bucket, [
      'a/Report-1.pdf',
      'a/b/report-2.pdf',
      'a/c/summary.txt',
      'a/rep/data.csv',
      'x/report-3.pdf',
    ]);
    const inBucket = (continuation?: string) =>
      call('POST', '/api/search', user.token, {
        keyword: 'REP',
        config: {
          bucket,
          cloud_accounts: [accountId],
          path: 'a',
          limit: 2,
          ...(continuation ? { continuation_token: continuation } : {}),
        },
      });
    const first = (await inBucket()).body as SearchAnswer;
    expect(first.count).toBe(2);
    expect(first.continuation_token).not.toBeNull();
    const second = (await inBucket(first.continuation_token ?? undefined)).body as SearchAnswer;
    expect(second.continuation_token).toBeNull();
    expect([...first.results, ...second.results].map((r) => r.key)).toEqual([
      'a/Report-1.pdf',
      'a/b/report-2.pdf',
      'a/rep/data.csv',
    ]);
    expect(first.results[0]).toMatchObject({
      name: 'Report-1.pdf',
      bucket_name: bucket,
      cloud_account_id: accountId,
      type: FS_FILE_TYPE.file,
    });

    // Across buckets, search reads the buckets the inventory knows.
    await server.services.inventory.run(owner.principal.organizationId, accountId);
    const everywhere = (
      await call('POST', '/api/search', owner.token, { keyword: 'report-3', config: { limit: 100 } })
    ).body as SearchAnswer;
    expect(everywhere.results.map((r) => `${r.bucket_name}/${r.key}`)).toContain(`${bucket}/x/report-3.pdf`);

    const blank = await call('POST', '/api/search', owner.token, { keyword: '  ', config: {} });
    expect(blank).toMatchObject({ status: 400, body: { message: objectMessages.keywordRequired } });
  });

  it("answers 404 for another organisation's account on every call", async () => {
    const bucket = bucketName();
    await seed(store, bucket, ['secret.txt']);
    const target = { cloud_account_id: accountId, bucket_name: bucket };
    const answers = await Promise.all([
      call('GET', contentUrl(accountId, bucket), stranger.token),
      call('DELETE', '/api/transfers/delete_object', stranger.token, { ...target, paths: ['secret.txt'] }),
      call(
        'GET',
        `/api/transfers/download_url?cloud_account_id=${accountId}&bucket_name=${bucket}&paths=secret.txt`,
        stranger.token,
      ),
      call('PUT', '/api/transfers/create_folder', stranger.token, { ...target, path: 'new' }),
      call('POST', '/api/search', stranger.token, {
        keyword: 'secret',
        config: { bucket, cloud_accounts: [accountId] },
      }),
      call('POST', '/api/search', stranger.token, {
        keyword: 'secret',
        config: { cloud_accounts: [accountId] },
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404]);
    for (const answer of answers) expect(answer.raw).not.toContain('secret.txt');
    expect(await keysOf(store, bucket)).toEqual(['secret.txt']);
  });
});
