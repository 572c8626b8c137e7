import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  authzMessages,
  uploadMessages,
  type ListingAnswer,
  type UploadSession,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

// The API is stubbed (fetch) and so is the store (XMLHttpRequest): jsdom cannot reach s3rver. The real path runs
// in e2e/upload.e2e.ts.

const AWS_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const WASABI_ID = '0b8e4d2c-7a13-4f5e-8c9d-1e2f3a4b5c6d';
const SESSION_ID = '9d2b7c1e-4a5f-4e3d-8b6a-2c1d0e9f8a7b';

const accounts = [
  buildCloudAccount({
    id: AWS_ID,
    name: 'Main AWS',
    provider: 'aws',
    storages: [buildBucket({ name: 'photos', cloud_account_id: AWS_ID })],
  }),
  buildCloudAccount({
    id: WASABI_ID,
    name: 'Cold Wasabi',
    provider: 'wasabi',
    storages: [buildBucket({ name: 'archive', cloud_account_id: WASABI_ID })],
  }),
];

function emptyListing(call: RecordedCall): FakeReply {
  const body: ListingAnswer = {
    items: [],
    path: new URLSearchParams(call.search).get('path') ?? '',
    last_file: null,
    continuation_token: null,
    id: `${AWS_ID}/photos`,
    bucket_name: 'photos',
    cloud_account_id: AWS_ID,
  };
  return { status: 200, body };
}

const session: UploadSession = {
  session_id: SESSION_ID,
  mode: 'single',
  part_size: 5 * 1024 * 1024,
  parts_total: 1,
  finished_parts: [],
  resumed: false,
};

function stubUploadApi(extra: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    [`GET /api/storage/${encodeURIComponent(`${AWS_ID}/photos`)}/content`]: emptyListing,
    'POST /api/transfers/uploads': { status: 200, body: session },
    'GET /api/transfers/url_signer_v4': {
      status: 200,
      body: {
        parts: [{ part_number: 1, url: 'http://store.test/photos/a.txt?sig', method: 'PUT', headers: {} }],
      },
    },
    [`POST /api/transfers/uploads/${SESSION_ID}/complete`]: {
      status: 200,
      body: { key: 'a.txt', size: 3, etag: 'e1' },
    },
    'PUT /api/transfers/update_bucket_config/': {
      status: 200,
      body: { message: 'Bucket updated', cors: 'applied' },
    },
    'POST /api/transfers/report': { status: 201, body: { message: '1 upload recorded' } },
    // Small files go through the batch calls (one session each).
    'POST /api/transfers/uploads/batch': (call) => ({
      status: 200,
      body: {
        files: (call.body as { files: Array<{ key: string }> }).files.map((file, i) => ({
          session_id: `${SESSION_ID.slice(0, -1)}${i}`,
          key: file.key,
          url: `http://store.test/photos/${file.key}?sig`,
          method: 'PUT',
          headers: {},
          fields: {},
        })),
        form_fields: null,
      },
    }),
    'POST /api/transfers/uploads/batch/complete': (call) => ({
      status: 200,
      body: {
        files: (call.body as { session_ids: string[] }).session_ids.map((session_id) => ({
          session_id,
          key: 'a.txt',
          error: null,
        })),
      },
    }),
    // The provider cannot tell (null): the upload finds out, as before the check existed.
    'GET /api/transfers/bucket_config': { status: 200, body: { cors_ready: null, may_apply: true } },
    ...extra,
  });
}

/** The store's answers to the page's PUTs, in order: 0 is a request blocked by CORS. */
const storeReplies: number[] = [];
const storePuts: string[] = [];

class FakeStoreXhr {
  upload: { onprogress: ((event: { loaded: number }) => void) | null } = { onprogress: null };
  status = 0;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  private url = '';
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader() {}
  getResponseHeader(name: string) {
    return name === 'ETag' ? '"e1"' : null;
  }
  send(body: Blob) {
    storePuts.push(this.url);
    setTimeout(() => {
      this.status = storeReplies.shift() ?? 200;
      this.upload.onprogress?.({ loaded: body.size });
      if (this.status === 0) this.onerror?.();
      else this.onload?.();
    }, 0);
  }
  abort() {
    this.onabort?.();
  }
}

async function pickBucket(user: ReturnType<typeof renderAt>['user'], account: string, bucket: string) {
  await user.click(await screen.findByRole('combobox', { name: 'Cloud account' }));
  await user.click(await screen.findByTitle(account));
  await user.click(screen.getByRole('combobox', { name: 'Bucket' }));
  await user.click(await screen.findByTitle(bucket));
}

const textFile = (name: string, text = 'abc') => new File([text], name, { lastModified: 1_700_000_000_000 });

describe('Direct upload page /S3Direct and /wasabi (fetch and XMLHttpRequest stubbed)', () => {
  beforeAll(async () => {
    await import('./DirectUploadPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    storeReplies.length = 0;
    storePuts.length = 0;
    vi.stubGlobal('XMLHttpRequest', FakeStoreXhr);
  });

  it('sends users without a trial or the native-S3 package, or with referrer 2, back to /', async () => {
    stubUploadApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ in_trial: false, package: { has_s3_native: false } }),
      },
    });
    const first = renderAt('/S3Direct');
    await waitFor(() => expect(first.location()).toBe('/'));
    first.unmount();

    stubUploadApi({ 'GET /api/users/_me': { status: 200, body: buildProfile({ referrer_id: '2' }) } });
    const second = renderAt('/S3Direct');
    await waitFor(() => expect(second.location()).toBe('/'));
  });

  it('counts the chosen files without hidden ones and asks for a bucket before uploading', async () => {
    stubUploadApi();
    const { user } = renderAt('/S3Direct');
    await user.upload(await screen.findByLabelText('Files to upload'), [
      textFile('a.txt'),
      textFile('.DS_Store'),
      textFile('b.txt', 'hello'),
    ]);
    expect(screen.getByText('Total files').closest('.ant-statistic')).toHaveTextContent('2');
    expect(screen.getByText('Total size').closest('.ant-statistic')).toHaveTextContent('8 Bytes');
    // The same file picked again is listed once; a new one beside it is added.
    await user.upload(screen.getByLabelText('Files to upload'), [
      textFile('a.txt'),
      new File(['abc'], 'c.txt', { lastModified: 1_700_000_000_001 }),
    ]);
    expect(screen.getByText('Total files').closest('.ant-statistic')).toHaveTextContent('3');
    expect(screen.getByText('Total size').closest('.ant-statistic')).toHaveTextContent('11 Bytes');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText(uploadMessages.selectBucket)).toBeInTheDocument();
  });

  it('a CORS failure offers Apply, which fixes the bucket and the upload then succeeds and is reported', async () => {
    const calls = stubUploadApi();
    storeReplies.push(0);
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    expect(screen.getByRole('switch', { name: 'Accelerator' })).toBeInTheDocument();
    await user.upload(screen.getByLabelText('Files to upload'), textFile('a.txt'));
    await user.click(screen.getByRole('button', { name: 'Upload' }));

    const row = await screen.findByRole('listitem', { name: 'Upload of a.txt' });
    expect(within(row).getByText(uploadMessages.network)).toBeInTheDocument();
    expect(await screen.findByText(uploadMessages.corsApply)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    expect(await screen.findByText('a.txt uploaded to photos successfully')).toBeInTheDocument();
    expect(storePuts).toHaveLength(2);
    const config = calls.find((c) => c.method === 'PUT' && c.path === '/api/transfers/update_bucket_config/');
    expect(config?.body).toEqual({ cloud_account_id: AWS_ID, bucket_name: 'photos', cors: true });
    const start = calls.find((c) => c.method === 'POST' && c.path === '/api/transfers/uploads/batch');
    expect(start?.body).toMatchObject({
      cloud_account_id: AWS_ID,
      bucket_name: 'photos',
      acl: 'private',
      files: [{ key: 'a.txt', size: 3 }],
    });
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/api/transfers/report')?.body).toMatchObject({
        s3_direct: { direction: 'upload', files: [{ name: 'a.txt', bucket_name: 'photos', size: 3 }] },
      }),
    );
  });

  it("offers role User no Apply: a bucket's configuration is an Owner's or Admin's", async () => {
    const calls = stubUploadApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
    });
    storeReplies.push(0);
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    await user.upload(screen.getByLabelText('Files to upload'), textFile('a.txt'));
    await user.click(screen.getByRole('button', { name: 'Upload' }));

    await screen.findByRole('listitem', { name: 'Upload of a.txt' });
    expect(await screen.findByText(authzMessages.bucketConfig)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Apply' })).toBeNull();
    expect(calls.some((c) => c.path === '/api/transfers/update_bucket_config/')).toBe(false);
  });

  it('checks the CORS of a fresh bucket before the first upload: an Owner gets it applied, no file fails', async () => {
    const calls = stubUploadApi({
      'GET /api/transfers/bucket_config': { status: 200, body: { cors_ready: false, may_apply: true } },
    });
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    await user.upload(screen.getByLabelText('Files to upload'), textFile('a.txt'));
    await user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText('a.txt uploaded to photos successfully')).toBeInTheDocument();
    expect(screen.getByText(uploadMessages.corsApplied('photos'))).toBeInTheDocument();
    const paths = calls.map((c) => `${c.method} ${c.path}`);
    expect(paths.indexOf('PUT /api/transfers/update_bucket_config/')).toBeLessThan(
      paths.indexOf('POST /api/transfers/uploads/batch'),
    );
    expect(storePuts).toHaveLength(1);
    expect(screen.queryByText(uploadMessages.network)).toBeNull();
  });

  it('tells role User up front why a fresh bucket cannot take uploads, and sends nothing', async () => {
    const calls = stubUploadApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
      'GET /api/transfers/bucket_config': { status: 200, body: { cors_ready: false, may_apply: false } },
    });
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    await user.upload(screen.getByLabelText('Files to upload'), textFile('a.txt'));
    await user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText(uploadMessages.corsNeeded)).toBeInTheDocument();
    expect(screen.getByText(`photos: ${uploadMessages.corsAskAdmin}`)).toBeInTheDocument();
    expect(storePuts).toEqual([]);
    expect(calls.some((c) => c.path.startsWith('/api/transfers/uploads'))).toBe(false);
    expect(calls.some((c) => c.path === '/api/transfers/update_bucket_config/')).toBe(false);
  });

  it("shows 'Cors application failed' when Apply is refused", async () => {
    stubUploadApi({
      'PUT /api/transfers/update_bucket_config/': {
        status: 400,
        body: { message: 'Access Denied', cors: null },
      },
    });
    storeReplies.push(0);
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    await user.upload(screen.getByLabelText('Files to upload'), textFile('a.txt'));
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    await user.click(await screen.findByRole('button', { name: 'Apply' }));
    expect(await screen.findByText(uploadMessages.corsFailed)).toBeInTheDocument();
  });

  it('explains instead of turning the accelerator on without billing info', async () => {
    stubUploadApi();
    const { user } = renderAt('/S3Direct');
    await pickBucket(user, 'Main AWS', 'photos');
    await user.click(screen.getByRole('switch', { name: 'Accelerator' }));
    expect(await screen.findByText(/Accelerated upload needs a payment method/)).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Accelerator' })).not.toBeChecked();
  });

  it('/wasabi offers only Wasabi accounts in the "Wasabi Files System" pane, without accelerator', async () => {
    stubUploadApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({
          acl: { has_wasabi: true },
          organization: { ...buildProfile().organization, confirmed_wasabi: true },
        }),
      },
    });
    const { user } = renderAt('/wasabi');
    expect(await screen.findByText('Wasabi Files System')).toBeInTheDocument();
    await user.click(await screen.findByRole('combobox', { name: 'Cloud account' }));
    expect(await screen.findByTitle('Cold Wasabi')).toBeInTheDocument();
    expect(screen.queryByTitle('Main AWS')).not.toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: 'Accelerator' })).not.toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Access control' })).toBeInTheDocument();
  });
});
