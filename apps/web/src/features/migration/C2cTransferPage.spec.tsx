import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  BATCH_STATUS,
  C2C_TYPE,
  TRANSFER_EVENTS,
  AGENT_KEY_HEADER,
  agentMessages,
  billingMessages,
  transferMessages,
  type ListingAnswer,
} from '@cumulo/contract';
import { forgetAgentKey } from '../agent/use-agent.ts';
import { FTX_PAGE_SIZE } from './FtxLocalBrowser.tsx';
import {
  AGENT_CONNECTION_KEY,
  AGENT_DEVICE_ID,
  agentTransfer,
  fakeAgent,
  localItem,
  stubApiAndAgent,
  type FakeAgent,
} from './ftx-test-kit.ts';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { migrationTexts } from './migration-texts.ts';
import {
  AWS_ID,
  WASABI_ID,
  accounts,
  buildBatch,
  contentPath,
  findDialog,
  item,
  listingHandlers,
  pick,
  queryDialog,
  selectedValue,
  startedAnswer,
} from './migration-test-kit.ts';
import { transferScreenStore } from './transfer-screen-store.ts';
import { PANEL_DRAG_TYPE } from './PanelFileList.tsx';

const confirmedProfile = () =>
  buildProfile({
    organization: { ...buildProfile().organization, confirmed_c2c: true },
  });

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function stubC2c(extra: Record<string, Handler> = {}, profile = confirmedProfile()) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: profile },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    ...listingHandlers(),
    'POST /api/c2c/moveaws': { status: 201, body: startedAnswer() },
    ...extra,
  });
}

/** Holds the answers of POST /c2c/moveaws until `release()`, so the optimistic state can be seen. */
function holdTransferAnswers() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const inner = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input).includes('/c2c/moveaws')) await gate;
    return inner(input, init);
  });
  return () => release();
}

/** A fake hub socket the test feeds /rm messages through (the browser's WebSocket does not exist in jsdom). */
function stubHub() {
  const sockets: Array<{ onmessage: ((event: MessageEvent) => void) | null }> = [];
  vi.stubGlobal(
    'WebSocket',
    class {
      onopen = null;
      onmessage: ((event: MessageEvent) => void) | null = null;
      onclose = null;
      onerror = null;
      constructor() {
        sockets.push(this);
      }
      close(): void {}
    },
  );
  return (type: string, data: unknown) => {
    const hub = sockets.filter((socket) => socket.onmessage).at(-1);
    hub?.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type, data }) }));
  };
}

const source = () => screen.getByRole('region', { name: 'Source files' });
const destination = () => screen.getByRole('region', { name: 'Destination files' });

type User = ReturnType<typeof renderAt>['user'];

/** Source Main AWS/photos (its first bucket), destination Cold Wasabi/archive. */
async function pickBothSides(user: User) {
  await pick(user, 'Source Account', 'Main AWS');
  await pick(user, 'Destination Account', 'Cold Wasabi');
  await within(await screen.findByRole('region', { name: 'Source files' })).findByText('clip.mp4');
  await within(await screen.findByRole('region', { name: 'Destination files' })).findByText('old.txt');
}

function fakeDataTransfer() {
  const data = new Map<string, string>();
  return {
    setData: (type: string, value: string) => void data.set(type, value),
    getData: (type: string) => data.get(type) ?? '',
    get types() {
      return [...data.keys()];
    },
    effectAllowed: 'all',
    dropEffect: 'none',
  };
}

const row = (region: HTMLElement, key: string) => {
  const found = region.querySelector<HTMLElement>(`tr[data-row-key="${key}"]`);
  if (!found) throw new Error(`no row ${key}`);
  return found;
};

const rowKeys = (region: HTMLElement) =>
  Array.from(region.querySelectorAll('tr[data-row-key]')).map((tr) => tr.getAttribute('data-row-key'));

describe('Two-panel transfer page /c2c (fetch stubbed with vi.stubGlobal)', () => {
  beforeAll(async () => {
    await import('./C2cTransferPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    transferScreenStore('c2c').reset(null);
    transferScreenStore('transfers').reset(null);
  });

  it('enables Move and Copy only when exactly one side has selected files, and warns when none has', async () => {
    stubC2c();
    const { user } = renderAt('/c2c');
    expect(await screen.findByText('Step 1: Select Source')).toBeInTheDocument();
    expect(screen.getByText('Step 2: Select Destination')).toBeInTheDocument();
    await pickBothSides(user);

    const move = screen.getByRole('button', { name: 'Move' });
    const copy = screen.getByRole('button', { name: 'Copy' });
    expect(screen.getByText(transferMessages.selectFiles)).toBeInTheDocument();
    expect(move).toBeDisabled();
    expect(copy).toBeDisabled();

    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    expect(move).toBeEnabled();
    expect(copy).toBeEnabled();
    expect(screen.queryByText(transferMessages.selectFiles)).toBeNull();

    await user.click(within(destination()).getByRole('checkbox', { name: 'Select old.txt' }));
    expect(move).toBeDisabled();
    expect(copy).toBeDisabled();
    expect(screen.getByText(migrationTexts.oneSideOnly)).toBeInTheDocument();

    // Only the destination side selected: the transfer goes right to left.
    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    expect(move).toBeEnabled();
  });

  it('offers role User Copy but no Move (a move deletes the sources: the server refuses it too)', async () => {
    stubC2c({}, buildProfile({ ...confirmedProfile(), role: { id: 3, title: 'User' } }));
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    expect(screen.getByRole('button', { name: 'Copy' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Move' })).toBeNull();
  });

  it('copies with POST /c2c/moveaws: the files show in the destination at once, then the toast and the popup', async () => {
    const calls = stubC2c();
    const { user, location } = renderAt('/c2c');
    await pickBothSides(user);
    const release = holdTransferAnswers();

    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    // Optimistic: in the destination before the server answers, still in the source (a copy).
    expect(await within(destination()).findByText('Transferring')).toBeInTheDocument();
    expect(within(destination()).getByText('clip.mp4')).toBeInTheDocument();
    expect(within(source()).getByText('clip.mp4')).toBeInTheDocument();
    release();

    expect(await screen.findByText(transferMessages.enqueued)).toBeInTheDocument();
    const popup = await findDialog(transferMessages.started);
    const post = calls.find((call) => call.path === '/api/c2c/moveaws');
    expect(post?.body).toEqual({
      files: [{ path: 'clip.mp4', bucket_name: 'photos' }],
      cloud_id: AWS_ID,
      type: C2C_TYPE.copy,
      destination: { cloud_id: WASABI_ID, bucket_name: 'archive', path: '' },
      skip_active: false,
    });
    await user.click(within(popup).getByRole('button', { name: 'Transfer Status' }));
    await waitFor(() => expect(location()).toBe('/mboard'));
  });

  it('turns a copied file\'s "Transferring" tag into the listed file when the batch-finished message arrives', async () => {
    const send = stubHub();
    let copied = false;
    // The destination's listing holds the file once the server copied it.
    const archive = (): ListingAnswer => {
      const keys = copied ? ['clip.mp4', 'old.txt'] : ['old.txt'];
      return {
        items: keys.map((key) => item('archive', key)),
        path: '',
        last_file: keys.at(-1) ?? null,
        continuation_token: null,
        id: `${WASABI_ID}/archive`,
        bucket_name: 'archive',
        cloud_account_id: WASABI_ID,
      };
    };
    stubC2c({ [`GET ${contentPath(WASABI_ID, 'archive')}`]: () => ({ status: 200, body: archive() }) });
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await within(destination()).findByText('Transferring')).toBeInTheDocument();
    await findDialog(transferMessages.started);

    copied = true;
    send(
      TRANSFER_EVENTS.batch,
      buildBatch({
        transferStatus: BATCH_STATUS.completed,
        phase: 'finished',
        total: 1,
        transferred: 1,
        finishedAt: '2025-06-03T09:31:00.000Z',
      }),
    );

    await waitFor(() => expect(within(destination()).queryByText('Transferring')).toBeNull());
    expect(within(destination()).getByText('clip.mp4')).toBeInTheDocument();
  });

  it('moves optimistically and puts the files back with the server message when the transfer fails', async () => {
    stubC2c({
      'POST /api/c2c/moveaws': { status: 502, body: { message: 'The destination is unreachable.' } },
    });
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    const release = holdTransferAnswers();

    await user.click(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    await user.click(screen.getByRole('button', { name: 'Move' }));
    expect(await within(destination()).findByText('clip.mp4')).toBeInTheDocument();
    expect(within(source()).queryByText('clip.mp4')).toBeNull();
    release();

    expect(await screen.findByText('The destination is unreachable.')).toBeInTheDocument();
    expect(await within(source()).findByText('clip.mp4')).toBeInTheDocument();
    expect(within(destination()).queryByText('clip.mp4')).toBeNull();
    // Put back selected, so the user can try again.
    expect(within(source()).getByRole('checkbox', { name: 'Select clip.mp4' })).toBeChecked();
    expect(queryDialog(transferMessages.started)).toBeNull();
  });

  it("shows the spec's enqueue failure text when the server gives no message", async () => {
    stubC2c({ 'POST /api/c2c/moveaws': { status: 500 } });
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select a.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(transferMessages.enqueueFailed)).toBeInTheDocument();
  });

  it("stops a copy past the remaining c2c quota before sending it: a User sees 'Transfers Quota Limit'", async () => {
    const calls = stubC2c(
      {},
      buildProfile({
        role: { id: 3, title: 'User' },
        organization: { ...buildProfile().organization, confirmed_c2c: true },
        quota: { c2c: { used: 10 * 1024 ** 3 - 1024, total: 10 * 1024 ** 3 } },
      }),
    );
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select a.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    const modal = await findDialog(billingMessages.transfersQuotaTitle);
    expect(modal).toHaveTextContent(billingMessages.quotaRemaining('1 kB'));
    expect(calls.some((call) => call.path === '/api/c2c/moveaws')).toBe(false);
  });

  it('offers an Owner without a card the card form when the copy is past the remaining quota', async () => {
    stubC2c(
      {},
      buildProfile({
        organization: { ...buildProfile().organization, confirmed_c2c: true },
        quota: { c2c: { used: 10 * 1024 ** 3 - 1024, total: 10 * 1024 ** 3 } },
      }),
    );
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select a.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    const modal = await findDialog('Add Credit Card');
    expect(within(modal).getByLabelText('Card Number')).toBeInTheDocument();
  });

  it("shows the server's quota refusal in the same modal when the UI check passed", async () => {
    stubC2c({
      'POST /api/c2c/moveaws': {
        status: 403,
        body: {
          message: billingMessages.quotaRemaining('512 Bytes'),
          code: 'QUOTA_EXCEEDED',
          title: billingMessages.transfersQuotaTitle,
          quota: 'c2c',
          remaining: 512,
        },
      },
    });
    const { user } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('checkbox', { name: 'Select a.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    const modal = await findDialog(billingMessages.transfersQuotaTitle);
    expect(modal).toHaveTextContent(billingMessages.quotaRemaining('512 Bytes'));
    expect(await within(source()).findByText('a.txt')).toBeInTheDocument();
  });

  it('ignores a Direct transfer within the same account and bucket', async () => {
    const calls = stubC2c();
    const { user } = renderAt('/c2c');
    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Main AWS');
    await within(await screen.findByRole('region', { name: 'Source files' })).findByText('clip.mp4');
    await within(await screen.findByRole('region', { name: 'Destination files' })).findByText('clip.mp4');

    await user.click(within(source()).getByRole('checkbox', { name: 'Select a.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(migrationTexts.sameBucketIgnored)).toBeInTheDocument();
    expect(calls.some((call) => call.path === '/api/c2c/moveaws')).toBe(false);
    expect(within(destination()).queryByText('Transferring')).toBeNull();
  });

  it("resets the bucket to the account's first bucket when the account changes, and a bucket change clears the path", async () => {
    stubC2c();
    const { user } = renderAt('/c2c');
    await pick(user, 'Source Account', 'Main AWS');
    await waitFor(() => expect(selectedValue('Source Bucket')).toBe('photos'));

    await user.click(
      await within(await screen.findByRole('region', { name: 'Source files' })).findByRole('button', {
        name: /docs/,
      }),
    );
    expect(await within(source()).findByText('inner.txt')).toBeInTheDocument();
    await pick(user, 'Source Bucket', 'backup');
    expect(await within(source()).findByText('old-backup.tar')).toBeInTheDocument();
    await pick(user, 'Source Bucket', 'photos');
    // The path was cleared: the bucket opens at its root, not in docs/.
    expect(await within(source()).findByText('clip.mp4')).toBeInTheDocument();

    await pick(user, 'Source Bucket', 'backup');
    await pick(user, 'Source Account', 'Cold Wasabi');
    await waitFor(() => expect(selectedValue('Source Bucket')).toBe('archive'));
    await pick(user, 'Source Account', 'Main AWS');
    await waitFor(() => expect(selectedValue('Source Bucket')).toBe('photos'));
  });

  it('keeps the screen when the user leaves and returns', async () => {
    stubC2c();
    const { user, router } = renderAt('/c2c');
    await pickBothSides(user);
    await user.click(within(source()).getByRole('button', { name: /docs/ }));
    await user.click(await within(source()).findByRole('checkbox', { name: 'Select inner.txt' }));
    expect(screen.getByRole('button', { name: 'Copy' })).toBeEnabled();

    await router.navigate('/calc');
    expect(await screen.findByRole('heading', { name: 'Migration Cost Calculator' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Source files' })).toBeNull();

    await router.navigate('/c2c');
    const back = await screen.findByRole('region', { name: 'Source files' });
    expect(await within(back).findByRole('checkbox', { name: 'Select inner.txt' })).toBeChecked();
    expect(selectedValue('Source Account')).toBe('Main AWS');
    expect(selectedValue('Destination Bucket')).toBe('archive');
    expect(screen.getByRole('button', { name: 'Copy' })).toBeEnabled();
  });

  it('copies the dragged files when they are dropped on the other panel; a same-side drop only reorders', async () => {
    const calls = stubC2c();
    const { user } = renderAt('/c2c');
    await pickBothSides(user);

    const sameSide = fakeDataTransfer();
    fireEvent.dragStart(row(source(), 'a.txt'), { dataTransfer: sameSide });
    expect(sameSide.types).toContain(PANEL_DRAG_TYPE);
    fireEvent.dragOver(source(), { dataTransfer: sameSide });
    fireEvent.drop(row(source(), 'docs/'), { dataTransfer: sameSide });
    await waitFor(() => expect(rowKeys(source())).toEqual(['a.txt', 'docs/', 'clip.mp4']));
    expect(calls.some((call) => call.path === '/api/c2c/moveaws')).toBe(false);

    const across = fakeDataTransfer();
    fireEvent.dragStart(row(source(), 'clip.mp4'), { dataTransfer: across });
    fireEvent.dragOver(destination(), { dataTransfer: across });
    fireEvent.drop(destination(), { dataTransfer: across });
    expect(await findDialog(transferMessages.started)).toBeInTheDocument();
    const post = calls.find((call) => call.path === '/api/c2c/moveaws');
    expect(post?.body).toMatchObject({
      files: [{ path: 'clip.mp4', bucket_name: 'photos' }],
      type: C2C_TYPE.copy,
    });
  });

  it('Local shows the upload area and sets the type back to Direct after ftX', async () => {
    stubC2c();
    const { user } = renderAt('/transfers');
    await pickBothSides(user);
    await pick(user, 'Transfer Type', 'ftX');
    await pick(user, 'Source Account', 'Local');
    expect(await screen.findByRole('region', { name: 'Drop files or folders here' })).toBeInTheDocument();
    expect(selectedValue('Transfer Type')).toBe('Direct');
    expect(screen.queryByText(agentMessages.ftxNotRunning)).toBeNull();
  });
});

// The agent on 127.0.0.1 is a fetch stand-in here (ftx-test-kit.ts); the real agent process is tested in
// apps/agent and in the e2e.
describe('Two-panel transfer page with type ftX (the API and the local agent stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await import('./C2cTransferPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    transferScreenStore('c2c').reset(null);
    transferScreenStore('transfers').reset(null);
    forgetAgentKey();
  });

  const ftxProfile = (flags: { confirmed_ftx: boolean } = { confirmed_ftx: true }) =>
    buildProfile({
      has_billing_info: true,
      organization: { ...buildProfile().organization, confirmed_c2c: true, ...flags },
    });

  function stubFtx(agent: FakeAgent, extra: Record<string, Handler> = {}, profile = ftxProfile()) {
    return stubApiAndAgent(
      {
        'GET /api/users/_me': { status: 200, body: profile },
        'GET /api/cloud_accounts/': { status: 200, body: accounts },
        ...listingHandlers(),
        ...extra,
      },
      agent,
    );
  }

  /** Both sides chosen, then ftX: the left becomes the agent's files (listed once it connected, when it runs). */
  async function chooseFtx(user: User, { running = true } = {}) {
    await pickBothSides(user);
    await pick(user, 'Transfer Type', 'ftX');
    if (running)
      await within(await screen.findByRole('region', { name: 'Source files' })).findByText('Photos');
  }

  it('clears the left account on ftX; not running, it says so and offers Launch and Download on any platform, and Launch starts it', async () => {
    const agent = fakeAgent({ running: false });
    const calls = stubFtx(agent);
    const { user } = renderAt('/transfers');
    await chooseFtx(user, { running: false });

    expect(await screen.findByText(agentMessages.ftxNotRunning)).toBeInTheDocument();
    expect(selectedValue('Source Account')).toBeNull();
    expect(screen.queryByText(migrationTexts.chooseBuckets)).toBeNull();
    expect(screen.getByRole('link', { name: agentMessages.downloadFtx })).toHaveAttribute('href', '/desktop');
    // The original's Windows-only rule is gone: no platform is refused.
    expect(document.body).not.toHaveTextContent(/only supported on windows/i);

    agent.running = true;
    await user.click(screen.getByRole('button', { name: agentMessages.launchFtx }));
    // Launch waits 1 s, asks the heartbeat, connects with a ticket of the server, then lists the added folders.
    const local = await screen.findByRole('region', { name: 'Source files' }, { timeout: 4000 });
    expect(await within(local).findByRole('button', { name: /Photos/ })).toBeInTheDocument();
    expect(calls.api.find((call) => call.path === '/api/agent/tickets')?.body).toEqual({
      device_id: AGENT_DEVICE_ID,
    });
    expect(calls.agent.find((call) => call.path === '/connect')?.body).toEqual({ ticket: 'ticket-1' });
    const listing = calls.agent.find((call) => call.path === '/files');
    expect(Object.fromEntries(new URLSearchParams(listing?.search))).toMatchObject({ path: '/', skip: '0' });
    expect(listing?.headers.get(AGENT_KEY_HEADER)).toBe(AGENT_CONNECTION_KEY);
  });

  it('lists the added folders, opens folders with Back, says when a folder is empty, and pages a full page', async () => {
    const agent = fakeAgent();
    agent.folders['/Photos/2024'] = Array.from({ length: FTX_PAGE_SIZE + 2 }, (_, index) =>
      localItem(`/Photos/2024/img-${String(index).padStart(3, '0')}.jpg`),
    );
    const calls = stubFtx(agent);
    const { user } = renderAt('/c2c');
    await chooseFtx(user);

    await user.click(await within(source()).findByRole('button', { name: /Photos/ }));
    expect(await within(source()).findByText('beach.jpg')).toBeInTheDocument();
    // A folder's size is -1 (spec §3): no size is shown for it, a file's is.
    expect(within(row(source(), '/Photos/beach.jpg')).getByText('3 MB')).toBeInTheDocument();
    await user.click(within(source()).getByRole('button', { name: /2024/ }));
    expect(await within(source()).findByText('img-000.jpg')).toBeInTheDocument();
    expect(within(source()).queryByText('img-100.jpg')).toBeNull();
    await user.click(within(source()).getByRole('button', { name: 'Load more' }));
    expect(await within(source()).findByText('img-101.jpg')).toBeInTheDocument();
    expect(within(source()).queryByRole('button', { name: 'Load more' })).toBeNull();
    const pages = calls.agent.filter(
      (call) => call.path === '/files' && new URLSearchParams(call.search).get('path') === '/Photos/2024',
    );
    expect(pages.map((call) => new URLSearchParams(call.search).get('skip'))).toEqual(['0', '100']);

    await user.click(within(source()).getByRole('button', { name: 'Back (Source files)' }));
    expect(await within(source()).findByText('beach.jpg')).toBeInTheDocument();
    await user.click(within(source()).getByRole('button', { name: 'Back (Source files)' }));
    await user.click(await within(source()).findByRole('button', { name: /Empty/ }));
    expect(await within(source()).findByText(agentMessages.noContent)).toBeInTheDocument();
  });

  it('copies local files into the open bucket folder through the agent; Move is not offered; the popup leads to /ftx', async () => {
    const agent = fakeAgent();
    let uploaded = false;
    const archive = (): ListingAnswer => {
      const keys = uploaded ? ['beach.jpg', 'old.txt'] : ['old.txt'];
      return {
        items: keys.map((key) => item('archive', key)),
        path: '',
        last_file: keys.at(-1) ?? null,
        continuation_token: null,
        id: `${WASABI_ID}/archive`,
        bucket_name: 'archive',
        cloud_account_id: WASABI_ID,
      };
    };
    const calls = stubFtx(agent, {
      [`GET ${contentPath(WASABI_ID, 'archive')}`]: () => ({ status: 200, body: archive() }),
    });
    const { user, location } = renderAt('/c2c');
    await chooseFtx(user);
    await user.click(await within(source()).findByRole('button', { name: /Photos/ }));
    await user.click(await within(source()).findByRole('checkbox', { name: 'Select beach.jpg' }));
    await user.click(within(source()).getByRole('checkbox', { name: 'Select 2024' }));

    expect(screen.getByRole('button', { name: 'Move' })).toBeDisabled();
    expect(screen.getByText(migrationTexts.ftxCopyOnly)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    const popup = await findDialog(transferMessages.started);
    expect(popup).toHaveTextContent(migrationTexts.ftxStartedBody);
    const upload = calls.agent.find((call) => call.path === '/upload');
    expect(upload?.method).toBe('POST');
    expect(upload?.headers.get(AGENT_KEY_HEADER)).toBe(AGENT_CONNECTION_KEY);
    expect(upload?.body).toEqual({
      paths: ['/Photos/beach.jpg', '/Photos/2024'],
      remoteDirectory: { cloud_account_id: WASABI_ID, bucket_name: 'archive', path: '' },
    });
    expect(calls.api.some((call) => call.path === '/api/c2c/moveaws')).toBe(false);
    // Optimistic: shown in the bucket as transferring, still on the machine (a copy).
    expect(within(destination()).getByText('beach.jpg')).toBeInTheDocument();
    expect(within(destination()).getAllByText('Transferring')).toHaveLength(2);
    expect(within(source()).getByText('beach.jpg')).toBeInTheDocument();

    // The agent reports the transfer ended: the bucket is listed again and the rows are the listed ones.
    uploaded = true;
    agent.transfers = [agentTransfer({ transferID: 'transfer-1', status: 'completed', percent: 100 })];
    await waitFor(() => expect(within(destination()).queryByText('Transferring')).toBeNull(), {
      timeout: 4000,
    });
    expect(within(destination()).getByText('beach.jpg')).toBeInTheDocument();
    expect(within(destination()).queryByText('2024')).toBeNull();

    await user.click(within(popup).getByRole('button', { name: 'Transfer Status' }));
    await waitFor(() => expect(location()).toBe('/ftx'));
  });

  it('downloads bucket files into the open local folder, and asks for a folder at the top of the list', async () => {
    const calls = stubFtx(fakeAgent());
    const { user } = renderAt('/c2c');
    await chooseFtx(user);
    await within(source()).findByRole('button', { name: /Photos/ });

    await user.click(within(destination()).getByRole('checkbox', { name: 'Select old.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(migrationTexts.ftxPickLocalFolder)).toBeInTheDocument();
    expect(calls.agent.some((call) => call.path === '/download')).toBe(false);

    await user.click(within(source()).getByRole('button', { name: /Photos/ }));
    await within(source()).findByText('beach.jpg');
    // old.txt is still chosen on the right.
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    await findDialog(transferMessages.started);
    expect(calls.agent.find((call) => call.path === '/download')?.body).toEqual({
      remotePaths: ['old.txt'],
      cloud_account_id: WASABI_ID,
      bucket_name: 'archive',
      localPath: '/Photos',
    });
    expect(within(row(source(), '/Photos/old.txt')).getByText('Transferring')).toBeInTheDocument();
  });

  it('warns to launch the agent before a download while it is not running, and before an upload when it stopped', async () => {
    const agent = fakeAgent({ running: false });
    const calls = stubFtx(agent);
    const { user } = renderAt('/c2c');
    await chooseFtx(user, { running: false });
    await screen.findByText(agentMessages.ftxNotRunning);
    await user.click(within(destination()).getByRole('checkbox', { name: 'Select old.txt' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(agentMessages.launchBeforeDownload)).toBeInTheDocument();
    expect(within(destination()).queryByText('Transferring')).toBeNull();
    await user.click(within(destination()).getByRole('checkbox', { name: 'Select old.txt' }));

    // Running, then gone before the upload: the files go back, the warning shows, the panel says not running.
    agent.running = true;
    await user.click(screen.getByRole('button', { name: agentMessages.launchFtx }));
    const local = await screen.findByRole('region', { name: 'Source files' }, { timeout: 4000 });
    await user.click(await within(local).findByRole('button', { name: /Photos/ }));
    await user.click(await within(source()).findByRole('checkbox', { name: 'Select beach.jpg' }));
    agent.running = false;
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(agentMessages.launchBeforeUpload)).toBeInTheDocument();
    expect(await screen.findByText(agentMessages.ftxNotRunning)).toBeInTheDocument();
    expect(within(destination()).queryByText('beach.jpg')).toBeNull();
    expect(calls.agent.filter((call) => call.path === '/upload')).toHaveLength(1);
  });

  it("toasts 'Failed to get proxy files' and shows the agent not running when a listing gets no answer", async () => {
    const agent = fakeAgent();
    stubFtx(agent);
    const { user } = renderAt('/c2c');
    await chooseFtx(user);
    await within(source()).findByRole('button', { name: /Photos/ });
    agent.dieOnList = true;
    await user.click(within(source()).getByRole('button', { name: /Photos/ }));
    expect(await screen.findByText(agentMessages.proxyFilesFailed)).toBeInTheDocument();
    expect(await screen.findByText(agentMessages.ftxNotRunning)).toBeInTheDocument();
  });

  it('sends a running agent that is not paired to the Cumulo Transfer page to pair', async () => {
    stubFtx(fakeAgent({ paired: false }));
    const { user } = renderAt('/c2c');
    await chooseFtx(user, { running: false });
    expect(await screen.findByText(agentMessages.notPaired)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: migrationTexts.ftxPair })).toHaveAttribute('href', '/ftx');
  });

  it("opens the 'Ftx Transfer' charge modal when the organisation has not confirmed ftX; Confirm sets confirmed_ftx", async () => {
    const calls = stubFtx(
      fakeAgent(),
      {
        'PUT /api/organizations/_me': {
          status: 200,
          body: { is_cbs: false, confirmed_c2c: true, confirmed_ftx: true, confirmed_wasabi: false },
        },
      },
      ftxProfile({ confirmed_ftx: false }),
    );
    const { user } = renderAt('/c2c');
    await chooseFtx(user);
    await user.click(await within(source()).findByRole('button', { name: /Photos/ }));
    await user.click(await within(source()).findByRole('checkbox', { name: 'Select beach.jpg' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    const modal = await findDialog('Ftx Transfer');
    expect(within(modal).getByText(migrationTexts.ftxChargeRate)).toBeInTheDocument();
    expect(queryDialog('Cloud To Cloud Transfer')).toBeNull();
    expect(calls.agent.some((call) => call.path === '/upload')).toBe(false);
    expect(within(destination()).queryByText('beach.jpg')).toBeNull();
    // The files stay chosen for the retry after Confirm.
    expect(within(source()).getByRole('checkbox', { name: 'Select beach.jpg' })).toBeChecked();

    await user.click(within(modal).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(migrationTexts.ftxChargeConfirmed)).toBeInTheDocument();
    expect(calls.api.find((call) => call.method === 'PUT')?.body).toEqual({ confirmed_ftx: true });
  });
});
