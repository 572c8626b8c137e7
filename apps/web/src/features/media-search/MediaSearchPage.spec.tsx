import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  formatUsd,
  mediaSearchMessages,
  packageByHandle,
  type CloudAccountView,
  type MediaSearchRequest,
  type MediaSearchResult,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

const AWS_ID = '5b0c3a1e-0000-4000-8000-00000000a001';
const WASABI_ID = '5b0c3a1e-0000-4000-8000-00000000a002';

const accounts: CloudAccountView[] = [
  buildCloudAccount({
    id: AWS_ID,
    name: 'Studio AWS',
    storages: [buildBucket({ name: 'media-lib', cloud_account_id: AWS_ID })],
  }),
  buildCloudAccount({
    id: WASABI_ID,
    name: 'Archive Wasabi',
    provider: 'wasabi',
    storages: [buildBucket({ name: 'cold', cloud_account_id: WASABI_ID })],
  }),
];

const result = (key: string, extra: Partial<MediaSearchResult['metadata']> = {}): MediaSearchResult => {
  const slash = key.lastIndexOf('/');
  return {
    name: key.slice(slash + 1),
    bucket_name: 'media-lib',
    cloud_account_id: AWS_ID,
    path: key.slice(0, slash + 1),
    key,
    project_name: 'Studio AWS',
    metadata: {
      size: 5120,
      content_type: null,
      last_modified: '2026-03-04T10:00:00.000Z',
      user: {},
      custom: {},
      media_info: {},
      ...extra,
    },
    proxyUrl: null,
    selected: false,
  };
};

const clip = result('clips/holiday_beach.mp4', {
  content_type: 'video/mp4',
  custom: { client: 'Aurora Films' },
  media_info: {
    general: { format: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 3 },
    video: { codec: 'h264', width: 320, height: 240 },
    audio: { codec: 'aac', channels: 1 },
  },
});
const song = result('audio/theme_song.mp3');

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function stubSearch({
  profile = { packages: [{ title: 'LiteMAM' }] },
  extra = {},
}: { profile?: Partial<UserProfile>; extra?: Record<string, Handler> } = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile(profile) },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'POST /api/media/search': { status: 200, body: { count: 2, results: [clip, song] } },
    ...extra,
  });
}

const searches = (calls: RecordedCall[]) =>
  calls.filter((call) => call.path === '/api/media/search').map((call) => call.body as MediaSearchRequest);
const lastSearch = (calls: RecordedCall[]) => searches(calls).at(-1);
/** The option of the open drop-down (the closed ones stay in the page). */
const option = async (title: string) => {
  const found = (await screen.findAllByTitle(title)).filter((element) =>
    element.classList.contains('ant-select-item-option'),
  );
  const last = found.at(-1);
  if (!last) throw new Error(`no option ${title}`);
  return last;
};
const preview = () => screen.getByRole('region', { name: 'Preview' });
const rowOf = async (name: string) => {
  const row = (await screen.findByText(name)).closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
};

describe('/mediasearch, media search (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await Promise.all([import('./MediaSearchPage.tsx'), import('../../app/AppLayout.tsx')]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('lists every account by name at 20 results, counts them, and searches what was typed once typing stops', async () => {
    const calls = stubSearch();
    const { user } = renderAt('/mediasearch');
    expect(await screen.findByRole('heading', { name: 'Media Search' })).toBeInTheDocument();
    expect(document.title).toBe('Media Search · Cumulo');
    expect(await screen.findByText(mediaSearchMessages.resultCount(2))).toBeInTheDocument();
    // (StrictMode mounts twice, so the first search may be asked twice.)
    expect(new Set(searches(calls).map((body) => JSON.stringify(body)))).toEqual(
      new Set([
        JSON.stringify({ keyword: '', config: { limit: 20, query_type: 'name' }, context: { filters: [] } }),
      ]),
    );
    expect(screen.getByRole('link', { name: 'Media Search' })).toBeInTheDocument();

    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'beach');
    await waitFor(() => expect(lastSearch(calls)?.keyword).toBe('beach'), { timeout: 2000 });
    // Debounced: no search for 'b', 'be', … on the way.
    expect(new Set(searches(calls).map((body) => body.keyword))).toEqual(new Set(['', 'beach']));
  });

  it('sends the accounts, the location, the size and only complete filters, with digits as numbers', async () => {
    const calls = stubSearch();
    const { user } = renderAt('/mediasearch');
    await screen.findByText(mediaSearchMessages.resultCount(2));

    await user.click(screen.getByRole('combobox', { name: 'Cloud accounts' }));
    await user.click(await option('Archive Wasabi'));
    await waitFor(() => expect(lastSearch(calls)?.config?.cloud_accounts).toEqual([WASABI_ID]));

    await user.click(screen.getByText('By location'));
    await user.click(screen.getByRole('combobox', { name: 'Bucket' }));
    await user.click(await option('cold'));
    await waitFor(() =>
      expect(lastSearch(calls)?.config).toMatchObject({ query_type: 'location', bucket_name: 'cold' }),
    );

    await user.click(screen.getByRole('combobox', { name: 'Results per page' }));
    await user.click(await option('50'));
    await waitFor(() => expect(lastSearch(calls)?.config?.limit).toBe(50));

    await user.click(screen.getByRole('button', { name: /Add filter$/ }));
    const first = screen.getByRole('group', { name: 'Filter 1' });
    await user.type(within(first).getByRole('combobox', { name: 'Filter key' }), 'client');
    // Key and comparator without a value: not a filter yet, so nothing is sent for it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(lastSearch(calls)?.context?.filters).toEqual([]);
    await user.click(within(first).getByRole('combobox', { name: 'Comparator' }));
    await user.click(await option('does not contain'));
    await user.type(within(first).getByRole('textbox', { name: 'Filter value' }), 'aurora');
    await user.click(screen.getByRole('button', { name: /Add filter$/ }));
    const second = screen.getByRole('group', { name: 'Filter 2' });
    await user.type(within(second).getByRole('combobox', { name: 'Filter key' }), 'size');
    await user.click(within(second).getByRole('combobox', { name: 'Comparator' }));
    await user.click(await option('greater than'));
    await user.type(within(second).getByRole('textbox', { name: 'Filter value' }), '01200');
    await waitFor(() =>
      expect(lastSearch(calls)?.context?.filters).toEqual([
        { type: 'statement', field: 'metadata.client', comparator: 'does not contain', value: 'aurora' },
        { type: 'statement', field: 'size', comparator: 'greater than', value: 1200 },
      ]),
    );
    await user.click(screen.getByRole('button', { name: 'Remove filter 2' }));
    await waitFor(() => expect(lastSearch(calls)?.context?.filters).toHaveLength(1));
  });

  it('previews one file with its tabs, selects several for the bulk actions, and hides the preview', async () => {
    const calls = stubSearch({
      extra: {
        'GET /api/media/play': {
          status: 200,
          body: {
            url: 'https://signed.example/clip.mp4',
            kind: 'file',
            expires_at: '2026-03-04T11:00:00.000Z',
          },
        },
      },
    });
    const open = vi.fn();
    vi.stubGlobal('open', open);
    const { user } = renderAt('/mediasearch');
    await screen.findByText(mediaSearchMessages.resultCount(2));
    expect(within(preview()).getByText(mediaSearchMessages.noFileSelected)).toBeInTheDocument();
    expect(within(preview()).getByText(mediaSearchMessages.selectFile)).toBeInTheDocument();

    await user.click(within(await rowOf('holiday_beach.mp4')).getByText('Studio AWS'));
    const general = within(preview()).getByRole('region', { name: 'General' });
    expect(within(general).getByText('holiday_beach.mp4')).toBeInTheDocument();
    expect(within(general).getByText('Studio AWS')).toBeInTheDocument();
    expect(within(general).getByText('clips/')).toBeInTheDocument();
    expect(within(general).getByText('mov,mp4,m4a,3gp,3g2,mj2')).toBeInTheDocument();
    expect(within(preview()).getByText('Aurora Films')).toBeInTheDocument();
    for (const name of [/Download$/, /Share$/, /Copy download link$/])
      expect(within(preview()).getByRole('button', { name })).toBeInTheDocument();
    await user.click(within(preview()).getByRole('tab', { name: 'Video' }));
    expect(await within(preview()).findByText('h264')).toBeInTheDocument();
    await user.click(within(preview()).getByRole('tab', { name: 'Audio' }));
    expect(await within(preview()).findByText('aac')).toBeInTheDocument();

    // Play video opens the app's floating player on the signed URL, not another tab.
    await user.click(within(preview()).getByRole('button', { name: /Play video$/ }));
    const player = await screen.findByRole('dialog', { name: 'Video player: holiday_beach.mp4' });
    expect(player.querySelector('video')).toHaveAttribute('src', 'https://signed.example/clip.mp4');
    expect(open).not.toHaveBeenCalled();
    await user.click(within(player).getByRole('button', { name: 'Close the player' }));
    const play = calls.find((call) => call.path === '/api/media/play');
    expect(Object.fromEntries(new URLSearchParams(play?.search))).toEqual({
      cloud_account_id: AWS_ID,
      bucket_name: 'media-lib',
      path: 'clips/holiday_beach.mp4',
    });

    await user.click(
      within(await rowOf('theme_song.mp3')).getByRole('checkbox', { name: 'Select theme_song.mp3' }),
    );
    expect(within(preview()).getByText(mediaSearchMessages.filesSelected(2))).toBeInTheDocument();
    expect(within(preview()).getByRole('button', { name: /Download$/ })).toBeInTheDocument();
    await user.click(within(preview()).getByRole('button', { name: /Share$/ }));
    // (Found with hidden: jsdom never ends antd's opening animation of a modal mounted from inside the page.)
    const dialog = await screen.findByRole('dialog', { hidden: true });
    expect(dialog).toHaveTextContent('Share files');
    expect(within(dialog).getByText('Files (2 of 2 selected)')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close', hidden: true }));
    await waitFor(() => expect(screen.queryByRole('dialog', { hidden: true })).toBeNull());

    await user.click(screen.getByRole('radio', { name: 'List' }));
    expect(screen.getByRole('list', { name: 'Search results' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Select holiday_beach.mp4' })).toBeChecked();

    await user.click(screen.getByRole('button', { name: /Hide Preview$/ }));
    expect(screen.queryByRole('region', { name: 'Preview' })).toBeNull();
    await user.click(screen.getByRole('button', { name: /Show Preview$/ }));
    expect(within(preview()).getByText(mediaSearchMessages.filesSelected(2))).toBeInTheDocument();
  });

  it("shows the server's refusal in words", async () => {
    stubSearch({
      extra: {
        'POST /api/media/search': { status: 400, body: { message: mediaSearchMessages.tooManyFilters } },
      },
    });
    renderAt('/mediasearch');
    expect(await screen.findByText(mediaSearchMessages.tooManyFilters)).toBeInTheDocument();
    // Silent: the page says it, not the shared Error modal as well.
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('offers the LiteMAM subscription at its price, and searches nothing, without the package', async () => {
    const calls = stubSearch({ profile: { packages: [] } });
    renderAt('/mediasearch');
    const litemam = packageByHandle('litemam');
    if (!litemam) throw new Error('no LiteMAM package');
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Subscribe to LiteMAM');
    expect(within(dialog).getByRole('radio', { name: `Monthly ${formatUsd(20, 0)}` })).toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: `Annually ${formatUsd(199, 0)}` })).toBeInTheDocument();
    expect([litemam.price_monthly, litemam.price_annually]).toEqual([20, 199]);
    expect(screen.queryByRole('heading', { name: 'Media Search' })).toBeNull();
    expect(searches(calls)).toEqual([]);
  });
});
