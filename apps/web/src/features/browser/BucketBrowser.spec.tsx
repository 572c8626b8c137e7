import { useState } from 'react';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  FS_FILE_TYPE,
  objectMessages,
  type CloudAccountView,
  type ListingAnswer,
  type ListingItem,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { PlayerProvider } from '../media/PlayerProvider.tsx';
import { BucketBrowser, type BrowserFile, type BrowserLocation } from './BucketBrowser.tsx';

const ACCOUNT_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const STORAGE = `${ACCOUNT_ID}/photos`;
const contentPath = `/api/storage/${encodeURIComponent(STORAGE)}/content`;
const LONG_NAME = `${'very-long-name-'.repeat(6)}end.mov`;

function buildAccount(): CloudAccountView {
  return {
    id: ACCOUNT_ID,
    name: 'Main AWS',
    project_name: 'Main AWS',
    provider: 'aws',
    cloudType: 1,
    account_type_id: 1,
    serviceUrl: null,
    endpoint: null,
    billing_bucket: null,
    total_cost: 0,
    total_bytes_used: 0,
    bucket_count: 1,
    storages: [
      {
        id: STORAGE,
        name: 'photos',
        bucket_name: 'photos',
        region: 'us-east-1',
        creationDate: null,
        size: 0,
        object_count: 0,
        cost: 0,
        cloud_account_id: ACCOUNT_ID,
        inventory_status: 'done',
        inventoried_at: null,
      },
    ],
    info: { access_key: 'AKIA••••WXYZ', secret_key: '••••', region: 'us-east-1', endpoint: null },
    created_at: '2025-01-01T08:00:00.000Z',
  };
}

function item(key: string, size = 2048): ListingItem {
  const folder = key.endsWith('/');
  const name = key.replace(/\/$/, '').split('/').at(-1) ?? key;
  return {
    basename: name,
    name,
    path: key,
    key,
    full_path: `photos/${key}`,
    size: folder ? 0 : size,
    type: folder ? FS_FILE_TYPE.folder : FS_FILE_TYPE.file,
    last_modified: folder ? null : '2025-06-03T09:30:00.000Z',
    download_url: null,
  };
}

function listing(path: string, items: ListingItem[], token: string | null = null): ListingAnswer {
  return {
    items,
    path,
    last_file: items.at(-1)?.key ?? null,
    continuation_token: token,
    id: STORAGE,
    bucket_name: 'photos',
    cloud_account_id: ACCOUNT_ID,
  };
}

function folderAnswer(call: RecordedCall): FakeReply {
  const query = new URLSearchParams(call.search);
  const path = query.get('path') ?? '';
  if (path === 'docs/') return { status: 200, body: listing(path, [item('docs/inner.txt')]) };
  if (query.get('continuationToken') === 'page-2') {
    return { status: 200, body: listing(path, [item('zz-last.txt')]) };
  }
  return {
    status: 200,
    body: listing(path, [item('docs/'), item('clip.mp4'), item(LONG_NAME)], 'page-2'),
  };
}

function stubBrowserApi(extra: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/cloud_accounts/': { status: 200, body: [buildAccount()] },
    [`GET ${contentPath}`]: folderAnswer,
    'GET /api/transfers/download_url': {
      status: 200,
      body: [
        {
          path: 'clip.mp4',
          name: 'clip.mp4',
          url: 'http://store.test/photos/clip.mp4?X-Amz-Signature=abc',
          expires_in: 3600,
        },
      ],
    },
    ...extra,
  });
}

const shared: BrowserFile[][] = [];

/** The host page of the component: it owns the location, as /browse, /S3Direct and /wasabi do. */
function Host() {
  const [location, setLocation] = useState<BrowserLocation | null>({
    accountId: ACCOUNT_ID,
    bucket: 'photos',
    path: '',
  });
  // The signed-in layout holds the floating player that the Play action opens.
  return (
    <PlayerProvider>
      <BucketBrowser
        location={location}
        onLocationChange={setLocation}
        onShare={(files) => shared.push(files)}
      />
    </PlayerProvider>
  );
}

const renderBrowser = () => renderAt('/', [{ path: '/', element: <Host /> }]);

describe('BucketBrowser (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await import('./BucketBrowser.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    shared.length = 0;
  });

  it('lists the folder 30 rows a page, cuts long names at 70 characters, opens folders and goes back', async () => {
    const calls = stubBrowserApi();
    const { user } = renderBrowser();

    expect(await screen.findByText('clip.mp4')).toBeInTheDocument();
    expect(screen.getByText(objectMessages.selectHint)).toBeInTheDocument();
    const cut = screen.getByTitle(LONG_NAME);
    expect(cut).toHaveTextContent(`${LONG_NAME.slice(0, 70)}…`);
    const first = calls.find((call) => call.path === contentPath);
    expect(new URLSearchParams(first?.search).get('limit')).toBe('30');

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('zz-last.txt')).toBeInTheDocument();
    const more = new URLSearchParams(calls.filter((call) => call.path === contentPath).at(-1)?.search);
    expect(more.get('continuationToken')).toBe('page-2');
    expect(more.get('last_file')).toBe(LONG_NAME);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();

    await user.click(screen.getByRole('button', { name: /docs/ }));
    expect(await screen.findByText('inner.txt')).toBeInTheDocument();
    expect(screen.getByText('docs', { selector: 'span' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByText('clip.mp4')).toBeInTheDocument();
  });

  it('says why a listing failed, and not also that the folder is empty', async () => {
    stubBrowserApi({
      [`GET ${contentPath}`]: {
        status: 404,
        body: { message: 'The bucket photos does not exist in this account.' },
      },
    });
    renderBrowser();
    expect(await screen.findByText('The bucket photos does not exist in this account.')).toBeInTheDocument();
    expect(screen.queryByText('This folder is empty')).toBeNull();
  });

  it("copies a file's signed link with the two toasts, and shares it through onShare", async () => {
    const calls = stubBrowserApi();
    const { user } = renderBrowser();

    await user.click(await screen.findByRole('button', { name: 'Copy link of clip.mp4' }));
    expect(await screen.findByText(objectMessages.linkGenerated)).toBeInTheDocument();
    expect(await screen.findByText(objectMessages.linkCopied)).toBeInTheDocument();
    // user-event puts its own clipboard on navigator; it holds what the app copied.
    expect(await navigator.clipboard.readText()).toBe(
      'http://store.test/photos/clip.mp4?X-Amz-Signature=abc',
    );
    const linkCall = calls.find((call) => call.path === '/api/transfers/download_url');
    expect(new URLSearchParams(linkCall?.search).getAll('paths')).toEqual(['clip.mp4']);

    await user.click(screen.getByRole('button', { name: 'Share clip.mp4' }));
    expect(shared).toEqual([
      [{ accountId: ACCOUNT_ID, bucket: 'photos', path: 'clip.mp4', name: 'clip.mp4', size: 2048 }],
    ]);
  });

  it("opens a file's media info in the modal and plays it in the floating player", async () => {
    const calls = stubBrowserApi({
      'GET /api/media/info': {
        status: 200,
        body: {
          general: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 3 },
          video: [{ codec: 'h264' }],
          audio: [],
          s3_metadata: { size: 2048 },
          metadata: [],
        },
      },
      'GET /api/media/play': {
        status: 200,
        body: {
          url: 'http://store.test/photos/clip.mp4?X-Amz-Signature=abc',
          kind: 'file',
          expires_at: '2030-01-01T00:00:00.000Z',
        },
      },
    });
    const { user } = renderBrowser();

    await user.click(await screen.findByRole('button', { name: 'Media info of clip.mp4' }));
    // Under test antd gives every id the value 'test-id', so the dialog's aria-labelledby may name another
    // element of this page: the modal is found by its title instead.
    const info = (await screen.findByText('Media info: clip.mp4')).closest('.ant-modal');
    if (!(info instanceof HTMLElement)) throw new Error('no media-info modal');
    expect(await within(info).findByText('3.00 s')).toBeInTheDocument();
    const asked = calls.find((call) => call.path === '/api/media/info');
    expect(Object.fromEntries(new URLSearchParams(asked?.search))).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'photos',
      path: 'clip.mp4',
    });
    await user.click(within(info).getByRole('button', { name: 'Close' }));

    // Play is offered on media only: a text file, which could only fail to play, has none.
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('button', { name: 'Media info of zz-last.txt' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: `Play ${LONG_NAME}` })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Play zz-last.txt' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Play clip.mp4' }));
    const player = await screen.findByRole('dialog', { name: 'Video player: clip.mp4' });
    expect(player.querySelector('video')).toHaveAttribute(
      'src',
      'http://store.test/photos/clip.mp4?X-Amz-Signature=abc',
    );
  });

  it('deletes the selected rows after confirmation, and creates a folder with a cleaned name', async () => {
    const calls = stubBrowserApi({
      'DELETE /api/transfers/delete_object': {
        status: 200,
        body: { message: objectMessages.deleted(1), deleted: 1 },
      },
      'PUT /api/transfers/create_folder': {
        status: 200,
        body: { message: objectMessages.folderCreated('new'), path: 'new/' },
      },
    });
    const { user } = renderBrowser();

    const row = (await screen.findByText('clip.mp4')).closest('.ant-table-row');
    if (!(row instanceof HTMLElement)) throw new Error('no row for clip.mp4');
    await user.click(within(row).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /Delete/ }));
    const confirm = await screen.findByText(objectMessages.deleteConfirm(1));
    const dialog = confirm.closest('.ant-modal');
    if (!(dialog instanceof HTMLElement)) throw new Error('no confirmation dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(objectMessages.deleted(1))).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'DELETE')?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'photos',
      paths: ['clip.mp4'],
    });

    await user.click(screen.getByRole('button', { name: /Create folder/ }));
    await user.type(await screen.findByLabelText('Folder name'), '//new//');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(objectMessages.folderCreated('new'))).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'photos',
      path: 'new/',
    });
    await waitFor(() =>
      expect(calls.filter((call) => call.path === contentPath).length).toBeGreaterThanOrEqual(3),
    );
  });

  it('opens the encode dialog for the selected files from the selection bar', async () => {
    stubBrowserApi({
      'GET /api/encoding/presets': { status: 200, body: { transcode_presets: [] } },
    });
    const { user } = renderBrowser();

    const row = (await screen.findByText('clip.mp4')).closest('.ant-table-row');
    if (!(row instanceof HTMLElement)) throw new Error('no row for clip.mp4');
    expect(screen.queryByRole('button', { name: /Encode/ })).toBeNull();
    await user.click(within(row).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /Encode/ }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Encode', { selector: '.ant-modal-title' })).toBeInTheDocument();
    expect(within(dialog).getByRole('group', { name: 'Preset 1 of clip.mp4' })).toBeInTheDocument();
  });

  it('searches the folder by name after the typing pauses', async () => {
    const calls = stubBrowserApi({
      'POST /api/search': {
        status: 200,
        body: {
          count: 1,
          results: [
            {
              name: 'inner.txt',
              bucket_name: 'photos',
              cloud_account_id: ACCOUNT_ID,
              project_name: 'Main AWS',
              path: 'docs/inner.txt',
              key: 'docs/inner.txt',
              size: 10,
              type: FS_FILE_TYPE.file,
              last_modified: null,
            },
          ],
          continuation_token: null,
          truncated: false,
        },
      },
    });
    const { user } = renderBrowser();
    await screen.findByText('clip.mp4');

    await user.type(screen.getByRole('searchbox', { name: 'Search in this folder' }), 'inner');
    expect(await screen.findByText('docs/inner.txt')).toBeInTheDocument();
    const searches = calls.filter((call) => call.path === '/api/search');
    expect(searches).toHaveLength(1);
    expect(searches[0]?.body).toEqual({
      keyword: 'inner',
      config: { bucket: 'photos', cloud_accounts: [ACCOUNT_ID], path: '', limit: 30 },
    });
  });
});
