import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  BATCH_STATUS,
  TRANSFER_EVENTS,
  transferMessages,
  type HistoryEntry,
  type MigrationProgress,
  type TransferBatch,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { HubSocket, hubSends } from '../../test/fake-hub.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBatch, buildMigration, buildMigrationFile, MB } from './transfer-factories.ts';

const RUNNING_ID = '11111111-1111-4111-8111-111111111111';
const FAILED_ID = '22222222-2222-4222-8222-222222222222';
const QUEUED_ID = '33333333-3333-4333-8333-333333333333';
const DONE_ID = '44444444-4444-4444-8444-444444444444';

const running = buildMigration({
  id: RUNNING_ID,
  status: 'Processing',
  percent: 40,
  rate: (12.5 * MB) / 8,
  transferred: 40 * MB,
  size: 100 * MB,
  time_left: 200,
  files: {
    'videos/intro.mp4': buildMigrationFile({ path: 'videos/intro.mp4', status: 'Processing', percent: 50 }),
    'videos/outro.mp4': buildMigrationFile({
      path: 'videos/outro.mp4',
      status: 'Succeeded',
      percent: 100,
      size: 3 * MB,
      transferred: 3 * MB,
      started: '2025-05-01T10:00:00.000Z',
      ended: '2025-05-01T10:00:45.000Z',
    }),
    'videos/broken.mp4': buildMigrationFile({
      path: 'videos/broken.mp4',
      status: 'Failed',
      percent: 10,
      message: 'The destination refused the object',
    }),
  },
});
const failedLive = buildMigration({
  id: FAILED_ID,
  status: 'Failed',
  transferStatus: BATCH_STATUS.failed,
  percent: 70,
  cloud: 'Cold storage',
  bucket: 'backup',
});
const queued = buildMigration({
  id: QUEUED_ID,
  status: 'Enqueued',
  percent: 0,
  transferred: 0,
  rate: 0,
  cloud: 'Cold storage',
  bucket: 'archive',
});

const runningBatch = buildBatch({
  id: RUNNING_ID,
  transferStatus: BATCH_STATUS.ongoing,
  phase: 'copying',
  sourceCloudAccount: { id: 'aws-1', name: 'Main archive' },
  sourceBucket: 'media',
  destinationCloudAccount: { id: 'azure-1', name: 'Blob store' },
  destinationBucket: 'media-copy',
});
const failedBatch = buildBatch({
  id: FAILED_ID,
  transferStatus: BATCH_STATUS.failed,
  sourceBucket: 'logs',
  destinationCloudAccount: { id: 'wasabi-1', name: 'Cold storage' },
  destinationBucket: 'backup',
  total: 12,
  transferred: 9,
  failed: 2,
  skipped: 1,
  skippedSize: MB,
  error: 'The destination server did not answer',
});
const queuedBatch = buildBatch({
  id: QUEUED_ID,
  transferStatus: BATCH_STATUS.ongoing,
  phase: 'planning',
  sourceBucket: 'photos',
  destinationCloudAccount: { id: 'wasabi-1', name: 'Cold storage' },
  destinationBucket: 'archive',
});
const doneBatch = buildBatch({
  id: DONE_ID,
  sourceBucket: 'docs',
  destinationBucket: 'docs-copy',
  operation: 'move',
  deleted: 1234,
});

function historyEntry(overrides: Partial<HistoryEntry>): HistoryEntry {
  return {
    id: DONE_ID,
    cloud: 'Main archive',
    bucket: 'docs',
    destination: { cloud: 'Blob store', bucket_name: 'docs-copy' },
    size: 5 * MB,
    created: new Date().toISOString(),
    status: BATCH_STATUS.completed,
    files: [],
    ...overrides,
  };
}

interface PageWorld {
  ongoing?: MigrationProgress[];
  batches?: TransferBatch[];
  total?: number;
  /** The signed-in member; an Owner when absent. */
  profile?: UserProfile;
  extra?: Record<string, FakeReply | ((call: RecordedCall) => FakeReply | Promise<FakeReply>)>;
}

function stubStatusPage(world: PageWorld = {}) {
  const batches = world.batches ?? [runningBatch, failedBatch, queuedBatch, doneBatch];
  return stubApi({
    'GET /api/users/_me': { status: 200, body: world.profile ?? buildProfile() },
    'GET /api/transfer/ongoing': {
      status: 200,
      body: { items: world.ongoing ?? [running, failedLive, queued] },
    },
    'GET /api/transfer/get_all': (call) => {
      const page = Number(new URLSearchParams(call.search).get('page'));
      return {
        status: 200,
        body: { items: page === 1 ? batches : [], total: world.total ?? batches.length, page, pagesize: 50 },
      };
    },
    'GET /api/c2c/history': {
      status: 200,
      body: {
        today: [historyEntry({})],
        yesterday: [
          historyEntry({
            id: 'y-1',
            bucket: 'invoices',
            destination: { cloud: 'Cold storage', bucket_name: 'invoices' },
          }),
        ],
        thisWeek: [],
        total: 2,
      },
    },
    ...world.extra,
  });
}

const ongoingRow = (name: string) =>
  within(screen.getByRole('list', { name: 'Ongoing transfers' })).getByRole('listitem', { name });
const historyRow = (text: string) =>
  within(screen.getByRole('table', { name: 'Transfer history' }))
    .getByText(text)
    .closest('tr') as HTMLElement;

describe('Transfer Status page (GET /transfer/ongoing, /transfer/get_all and /c2c/history stubbed)', () => {
  beforeAll(async () => {
    // Load the lazy route's modules once up front, so the first test does not spend its wait on transforming them.
    await Promise.all([
      import('./TransferStatusPage.tsx'),
      import('./SpeedChart.tsx'),
      import('../../app/AppLayout.tsx'),
    ]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows the tiles, the speed chart and the ongoing transfers with their status texts', async () => {
    stubStatusPage();
    renderAt('/mboard');

    expect(await screen.findByRole('heading', { name: 'Migration Status' })).toBeInTheDocument();
    for (const tile of ['Speed', 'Transferred', 'Remaining']) {
      expect(screen.getByRole('group', { name: tile })).toBeInTheDocument();
    }
    expect(screen.getByRole('figure', { name: 'Transfer speed' })).toBeInTheDocument();

    // The first 1 s tick of the stats loop sums the one Processing migration.
    await waitFor(() =>
      expect(within(screen.getByRole('group', { name: 'Speed' })).getByText('12.5 Mbps')).toBeInTheDocument(),
    );
    expect(within(screen.getByRole('group', { name: 'Transferred' })).getByText('40 MB')).toBeInTheDocument();
    expect(within(screen.getByRole('group', { name: 'Remaining' })).getByText('60 MB')).toBeInTheDocument();

    const live = ongoingRow('Main archive / media → Blob store / media-copy');
    expect(
      within(live).getByRole('progressbar', {
        name: 'Progress of Main archive / media → Blob store / media-copy',
      }),
    ).toHaveAttribute('aria-valuenow', '40');
    // A spinner for the batch and for its file in flight.
    expect(within(live).getAllByRole('img', { name: 'Processing' })).toHaveLength(2);
    expect(within(live).getByText('40 MB of 100 MB')).toBeInTheDocument();
    expect(within(live).getByText('12.5 Mbps')).toBeInTheDocument();
    expect(within(live).getByText('ETA 3m 20s')).toBeInTheDocument();
    const files = within(live).getByRole('list', { name: /^Files of / });
    expect(within(files).getByText('transferred 3 MB in 45s')).toBeInTheDocument();
    expect(
      within(files).getByText('Transfer did not succeed - The destination refused the object'),
    ).toBeInTheDocument();

    const failed = ongoingRow('Main archive / logs → Cold storage / backup');
    expect(within(failed).getByRole('img', { name: 'Failed' })).toBeInTheDocument();
    expect(
      within(failed).getByText('Transfer did not succeed - The destination server did not answer'),
    ).toBeInTheDocument();
    expect(
      within(ongoingRow('Main archive / photos → Cold storage / archive')).getByText('- enqueued'),
    ).toBeInTheDocument();
  });

  it('says how many files failed when a failed batch has no error of its own', async () => {
    stubStatusPage({ ongoing: [failedLive], batches: [{ ...failedBatch, error: null }] });
    renderAt('/mboard');

    const failed = await waitFor(() => ongoingRow('Main archive / logs → Cold storage / backup'));
    expect(within(failed).getByText('Transfer did not succeed - 2 of 12 files failed')).toBeInTheDocument();
  });

  it('names a batch started since the history was read "Transfer to …" until the history names its source', async () => {
    let reads = 0;
    stubStatusPage({
      ongoing: [running],
      extra: {
        // The first read of the history predates the batch; the next one lists it.
        'GET /api/transfer/get_all': (call) => {
          reads += 1;
          const page = Number(new URLSearchParams(call.search).get('page'));
          const items = page === 1 && reads > 1 ? [runningBatch] : [];
          return { status: 200, body: { items, total: items.length, page, pagesize: 50 } };
        },
      },
    });
    renderAt('/mboard');

    const list = await screen.findByRole('list', { name: 'Ongoing transfers' });
    await waitFor(() => expect(reads).toBeGreaterThan(0));
    for (const item of within(list).getAllByRole('listitem')) {
      expect(item).not.toHaveAccessibleName(/^Transfer →/);
    }
    expect(
      await within(list).findByRole('listitem', { name: 'Main archive / media → Blob store / media-copy' }),
    ).toBeInTheDocument();
    expect(within(list).queryByRole('listitem', { name: /^Transfer to / })).not.toBeInTheDocument();
  });

  it('never names a live batch with an arrow from nothing while its source is unknown', async () => {
    stubStatusPage({ ongoing: [running], batches: [] });
    renderAt('/mboard');

    expect(
      await screen.findByRole('listitem', { name: 'Transfer to Blob store / media-copy' }),
    ).toBeInTheDocument();
    expect(screen.queryByText(/^Transfer →/)).not.toBeInTheDocument();
  });

  it('lists Today, Yesterday and This Week, and the batch history with its columns', async () => {
    const calls = stubStatusPage();
    renderAt('/mboard');

    const today = await screen.findByRole('list', { name: 'Today' });
    expect(within(today).getByText('Main archive / docs → Blob store / docs-copy')).toBeInTheDocument();
    expect(
      within(screen.getByRole('list', { name: 'Yesterday' })).getByText(
        'Main archive / invoices → Cold storage / invoices',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'This Week' })).toBeInTheDocument();

    const table = screen.getByRole('table', { name: 'Transfer history' });
    for (const title of [
      'Source',
      'Destination',
      'Status',
      'Total',
      'Transferred',
      'Failed',
      'Skipped',
      'Deleted',
      'Average speed',
      'Requested',
    ]) {
      expect(within(table).getByRole('columnheader', { name: title })).toBeInTheDocument();
    }
    const failedRow = historyRow('Main archive / logs');
    expect(within(failedRow).getByText('Failed')).toBeInTheDocument();
    expect(within(failedRow).getByText('16 Mbps')).toBeInTheDocument();
    const moved = historyRow('Main archive / docs');
    expect(within(moved).getByText('Completed')).toBeInTheDocument();
    expect(within(moved).getByText('Move')).toBeInTheDocument();
    expect(within(moved).getByRole('cell', { name: '1,234' })).toBeInTheDocument();
    // A copy deletes nothing: its cell says so rather than a count of 0.
    expect(within(failedRow).getByRole('cell', { name: '—' })).toBeInTheDocument();
    const list = calls.filter((call) => call.path === '/api/transfer/get_all');
    expect(list.map((call) => call.search)).toContain('?type=1&pagesize=50&page=1');
    // Today and Yesterday are the user's days: the history call says how far the browser is from UTC.
    const history = calls.find((call) => call.path === '/api/c2c/history');
    expect(new URLSearchParams(history?.search).get('tz')).toBe(String(-new Date().getTimezoneOffset()));
  });

  it('asks before canceling a running transfer, and only Yes calls cancel_transfer', async () => {
    const calls = stubStatusPage({
      extra: {
        'POST /api/transfer/cancel_transfer': { status: 200, body: { message: 'Transfer canceled.' } },
      },
    });
    const { user } = renderAt('/mboard');

    const cancel = await screen.findByRole('button', {
      name: 'Cancel transfer Main archive / media → Blob store / media-copy',
    });
    await user.click(cancel);
    const confirm = await screen.findByRole('tooltip');
    expect(within(confirm).getByText(transferMessages.cancelConfirm)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'No' }));
    expect(calls.some((call) => call.path === '/api/transfer/cancel_transfer')).toBe(false);

    await user.click(cancel);
    const again = await screen.findByRole('tooltip');
    await user.click(within(again).getByRole('button', { name: 'Yes' }));

    expect(await screen.findByText('Transfer canceled.')).toBeInTheDocument();
    expect(
      calls.filter((call) => call.path === '/api/transfer/cancel_transfer').map((call) => call.body),
    ).toEqual([{ Id: RUNNING_ID }]);
  });

  it('clears a transfer that is no longer running from the list without calling the server', async () => {
    const calls = stubStatusPage();
    const { user } = renderAt('/mboard');

    await user.click(
      await screen.findByRole('button', {
        name: 'Cancel transfer Main archive / logs → Cold storage / backup',
      }),
    );

    await waitFor(() =>
      expect(
        screen.queryByRole('listitem', { name: 'Main archive / logs → Cold storage / backup' }),
      ).not.toBeInTheDocument(),
    );
    expect(screen.queryByRole('tooltip')).toBeNull();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it('retries the failed files of a Failed batch only', async () => {
    const retried = buildBatch({
      id: '55555555-5555-4555-8555-555555555555',
      retryOf: FAILED_ID,
      transferStatus: 2,
    });
    const calls = stubStatusPage({
      extra: {
        'POST /api/transfer/retry_transfer': {
          status: 200,
          body: { message: 'Transfer enqueue successfully', batch: retried },
        },
      },
    });
    const { user } = renderAt('/mboard');

    await screen.findByRole('table', { name: 'Transfer history' });
    const failedRow = await waitFor(() => historyRow('Main archive / logs'));
    // Under the status, where a laptop screen shows it without scrolling the table sideways.
    const statusCell = within(failedRow).getAllByRole('cell')[2];
    expect(statusCell).toHaveTextContent(/^Failed/);
    // Why the batch failed as a whole, kept after it ended (not only in the ongoing list).
    expect(statusCell).toHaveTextContent('The destination server did not answer');
    expect(
      within(statusCell as HTMLElement).getByRole('button', { name: 'Retry Failed Files' }),
    ).toBeInTheDocument();
    expect(
      within(historyRow('Main archive / docs')).queryByRole('button', { name: 'Retry Failed Files' }),
    ).toBeNull();
    expect(
      within(historyRow('Main archive / media')).queryByRole('button', { name: 'Retry Failed Files' }),
    ).toBeNull();

    const before = calls.filter((call) => call.path === '/api/transfer/get_all').length;
    await user.click(within(failedRow).getByRole('button', { name: 'Retry Failed Files' }));

    expect(await screen.findByText(transferMessages.retryStarted)).toBeInTheDocument();
    expect(
      calls.filter((call) => call.path === '/api/transfer/retry_transfer').map((call) => call.body),
    ).toEqual([{ Id: FAILED_ID }]);
    // The new batch shows up: the history is read again.
    await waitFor(() =>
      expect(calls.filter((call) => call.path === '/api/transfer/get_all').length).toBeGreaterThan(before),
    );
  });

  it('shows the end of a batch announced while the history was first being read, without waiting for its poll', async () => {
    HubSocket.opened = [];
    vi.stubGlobal('WebSocket', HubSocket);
    const ended = { ...runningBatch, transferStatus: BATCH_STATUS.failed, transferred: 39, failed: 1 };
    // The page's first read of the history is answered from before the batch ended, after the hub said it ended.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const page = (batch: TransferBatch): FakeReply => ({
      status: 200,
      body: { items: [batch], total: 1, page: 1, pagesize: 50 },
    });
    stubStatusPage({
      ongoing: [running],
      extra: {
        'GET /api/transfer/get_all': async () => {
          reads += 1;
          if (reads > 1) return page(ended);
          await held;
          return page(runningBatch);
        },
      },
    });
    renderAt('/mboard');

    await waitFor(() => expect(reads).toBe(1));
    await waitFor(() => expect(HubSocket.opened.at(-1)?.onmessage).toBeTruthy());
    hubSends({ type: TRANSFER_EVENTS.batch, data: ended });
    release();

    // Read again at once: the history's own poll (MISSED_MESSAGE_POLL_MS, 15 s) is far beyond this wait.
    const row = await waitFor(() => historyRow('Main archive / media'), { timeout: 3000 });
    await waitFor(() => expect(within(row).getAllByRole('cell')[2]).toHaveTextContent(/^Failed/), {
      timeout: 3000,
    });
    expect(reads).toBe(2);
  });

  it('downloads the failed files as a CSV file', async () => {
    // jsdom has no object URLs: the test provides them and catches the link click the browser would turn into a save.
    const createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return 'blob:failed-files';
    });
    const saved: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const csv = 'key,size,error\nlogs/a.log,10,The destination server did not answer\n';
    const calls = stubStatusPage({
      extra: { 'POST /api/transfer/download_failed_files': { status: 200, body: csv } },
    });
    const { user } = renderAt('/mboard');

    await screen.findByRole('table', { name: 'Transfer history' });
    const failedRow = await waitFor(() => historyRow('Main archive / logs'));
    await user.click(within(failedRow).getByRole('button', { name: 'Download Failed Files' }));

    expect(await screen.findByText(transferMessages.downloadFailedStarted)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/transfer/download_failed_files')?.body).toEqual({
      Id: FAILED_ID,
    });
    expect(clicked.map((link) => link.download)).toEqual([`failed-files-${FAILED_ID}.csv`]);
    expect(saved).toHaveLength(1);
    expect(await saved[0]?.text()).toBe(csv);
    expect(saved[0]?.type).toBe('text/csv');
  });

  it('pages the batch history 50 at a time', async () => {
    const calls = stubStatusPage({ total: 120 });
    const { user } = renderAt('/mboard');

    await screen.findByRole('table', { name: 'Transfer history' });
    await user.click(await screen.findByRole('listitem', { name: '3' }));

    await waitFor(() =>
      expect(
        calls.filter((call) => call.path === '/api/transfer/get_all').map((call) => call.search),
      ).toContain('?type=1&pagesize=50&page=3'),
    );
    expect(await screen.findByText('No transfers yet')).toBeInTheDocument();
  });

  it('keeps the cancel confirmation of a batch at 100 % that is still running', async () => {
    const almost = buildMigration({ ...running, percent: 100, transferred: 100 * MB, time_left: 0 });
    const calls = stubStatusPage({
      ongoing: [almost],
      extra: {
        'POST /api/transfer/cancel_transfer': { status: 200, body: { message: 'Transfer canceled.' } },
      },
    });
    const { user } = renderAt('/mboard');

    await user.click(
      await screen.findByRole('button', {
        name: 'Cancel transfer Main archive / media → Blob store / media-copy',
      }),
    );
    const confirm = await screen.findByRole('tooltip');
    await user.click(within(confirm).getByRole('button', { name: 'Yes' }));

    expect(await screen.findByText('Transfer canceled.')).toBeInTheDocument();
    expect(
      calls.filter((call) => call.path === '/api/transfer/cancel_transfer').map((call) => call.body),
    ).toEqual([{ Id: RUNNING_ID }]);
  });

  describe('cancel and retry of batches another member started (transfer.manage)', () => {
    const OWN_FAILED_ID = '77777777-7777-4777-8777-777777777777';
    const someoneElse = 'the-owner';
    const world = (profile: UserProfile): PageWorld => ({
      profile,
      ongoing: [
        buildMigration({ ...running, createdBy: someoneElse }),
        buildMigration({ ...queued, createdBy: profile.id }),
        buildMigration({ ...failedLive, createdBy: someoneElse }),
      ],
      batches: [
        buildBatch({ ...runningBatch, createdBy: someoneElse }),
        buildBatch({ ...failedBatch, createdBy: someoneElse }),
        buildBatch({ ...queuedBatch, createdBy: profile.id }),
        buildBatch({ ...failedBatch, id: OWN_FAILED_ID, sourceBucket: 'mine', createdBy: profile.id }),
      ],
    });
    const cancelOf = (name: string) => `Cancel transfer ${name}`;
    const othersLive = 'Main archive / media → Blob store / media-copy';
    const ownLive = 'Main archive / photos → Cold storage / archive';
    const othersEnded = 'Main archive / logs → Cold storage / backup';

    it('shows a User Cancel and Retry Failed Files on their own batches only, and Download on any', async () => {
      stubStatusPage(world(buildProfile({ role: { id: 3, title: 'User' } })));
      renderAt('/mboard');

      // Their own batches show the actions once the profile is read, so the others' are judged by then too.
      expect(await screen.findByRole('button', { name: cancelOf(ownLive) })).toBeInTheDocument();
      expect(screen.queryByRole('button', { name: cancelOf(othersLive) })).toBeNull();
      // Clearing a batch that no longer runs asks nothing of the server: it stays for anyone's.
      expect(screen.getByRole('button', { name: cancelOf(othersEnded) })).toBeInTheDocument();

      await screen.findByRole('table', { name: 'Transfer history' });
      const own = await waitFor(() => historyRow('Main archive / mine'));
      expect(within(own).getByRole('button', { name: 'Retry Failed Files' })).toBeInTheDocument();
      const others = historyRow('Main archive / logs');
      expect(within(others).queryByRole('button', { name: 'Retry Failed Files' })).toBeNull();
      expect(within(others).getByRole('button', { name: 'Download Failed Files' })).toBeInTheDocument();
    });

    it('shows an Admin Cancel and Retry Failed Files on any member’s batches', async () => {
      stubStatusPage(world(buildProfile({ role: { id: 2, title: 'Admin' } })));
      renderAt('/mboard');

      expect(await screen.findByRole('button', { name: cancelOf(othersLive) })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: cancelOf(ownLive) })).toBeInTheDocument();
      await screen.findByRole('table', { name: 'Transfer history' });
      const others = await waitFor(() => historyRow('Main archive / logs'));
      expect(within(others).getByRole('button', { name: 'Retry Failed Files' })).toBeInTheDocument();
      expect(
        within(historyRow('Main archive / mine')).getByRole('button', { name: 'Retry Failed Files' }),
      ).toBeInTheDocument();
    });
  });

  it('shows the bandwidth limit a batch was started with under its average speed', async () => {
    stubStatusPage({
      batches: [buildBatch({ id: DONE_ID, sourceBucket: 'docs', bandwidthLimit: 2 * MB }), failedBatch],
    });
    renderAt('/mboard');

    await screen.findByRole('table', { name: 'Transfer history' });
    const limited = await waitFor(() => historyRow('Main archive / docs'));
    expect(within(limited).getByText('≤ 2 MiB/s')).toBeInTheDocument();
    expect(within(historyRow('Main archive / logs')).queryByText(/MiB\/s/)).toBeNull();
  });

  describe.each(['/rboard?sync=true', '/mboard?sync=true'])('%s', (url) => {
    it('is the Replication Status page: replication batches (type 2) only, in the history and the live list', async () => {
      const replicationId = '66666666-6666-4666-8666-666666666666';
      const replicating = buildMigration({
        id: replicationId,
        transferType: 2,
        percent: 25,
        rate: MB,
        transferred: 5 * MB,
        size: 20 * MB,
        cloud: 'Mirror',
        bucket: 'media-mirror',
      });
      const replicationBatch = buildBatch({
        id: replicationId,
        transferType: 2,
        transferStatus: BATCH_STATUS.ongoing,
        phase: 'copying',
        sourceBucket: 'media',
        destinationCloudAccount: { id: 'wasabi-2', name: 'Mirror' },
        destinationBucket: 'media-mirror',
      });
      const calls = stubStatusPage({ ongoing: [running, replicating], batches: [replicationBatch] });
      renderAt(url);

      expect(await screen.findByRole('heading', { name: 'Replication Status' })).toBeInTheDocument();
      expect(document.title).toContain('Replication Status');
      const live = await screen.findByRole('list', { name: 'Ongoing transfers' });
      expect(
        within(live).getByRole('listitem', { name: 'Main archive / media → Mirror / media-mirror' }),
      ).toBeInTheDocument();
      // The migration running at the same time belongs to the Migration Status page.
      expect(within(live).getAllByRole('listitem', { name: /→/ })).toHaveLength(1);
      // The tiles count the replication only: 5 MB of 20 MB.
      await waitFor(() =>
        expect(
          within(screen.getByRole('group', { name: 'Transferred' })).getByText('5 MB'),
        ).toBeInTheDocument(),
      );
      expect(screen.queryByRole('list', { name: 'Today' })).toBeNull();
      const searches = calls
        .filter((call) => call.path === '/api/transfer/get_all')
        .map((call) => call.search);
      expect(searches).toContain('?type=2&pagesize=50&page=1');
      expect(searches.every((search) => search?.startsWith('?type=2'))).toBe(true);
      expect(calls.some((call) => call.path === '/api/c2c/history')).toBe(false);
    });
  });

  it("shows a replication cycle's deletes under Deleted, not '—' (a cycle's batch is a copy)", async () => {
    const cycleBatch = buildBatch({
      id: '77777777-7777-4777-8777-777777777777',
      transferType: 2,
      operation: 'copy',
      sourceBucket: 'mirrored',
      destinationBucket: 'mirrored-copy',
      syncCycleId: '88888888-8888-4888-8888-888888888888',
      deleted: 161,
    });
    stubStatusPage({ ongoing: [], batches: [cycleBatch] });
    renderAt('/rboard?sync=true');

    await screen.findByRole('table', { name: 'Transfer history' });
    const row = await waitFor(() => historyRow('Main archive / mirrored'));
    expect(within(row).getByRole('cell', { name: '161' })).toBeInTheDocument();
  });

  it('lists no replication on the Migration Status page', async () => {
    stubStatusPage({ ongoing: [buildMigration({ ...running, transferType: 2 })] });
    renderAt('/mboard');

    expect(await screen.findByRole('heading', { name: 'Migration Status' })).toBeInTheDocument();
    expect(await screen.findByText('No ongoing transfers')).toBeInTheDocument();
  });
});

describe('/wbrstatus and /awstboard: Transfer Status over the migrations into Wasabi, out of AWS (fetch stubbed)', () => {
  const INTO_WASABI_ID = '99999999-9999-4999-8999-999999999999';
  const LATE_ID = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
  const intoWasabi = buildMigration({
    id: INTO_WASABI_ID,
    percent: 25,
    rate: MB,
    transferred: 5 * MB,
    size: 20 * MB,
    cloud: 'Cold storage',
    bucket: 'vault',
  });
  const intoWasabiBatch = buildBatch({
    id: INTO_WASABI_ID,
    transferStatus: BATCH_STATUS.ongoing,
    phase: 'copying',
    sourceBucket: 'raw',
    destinationCloudAccount: { id: 'wasabi-1', name: 'Cold storage' },
    destinationBucket: 'vault',
  });
  const param = (call: RecordedCall, name: string) => new URLSearchParams(call.search).get(name);

  beforeAll(async () => {
    await Promise.all([
      import('./TransferStatusPage.tsx'),
      import('./SpeedChart.tsx'),
      import('../../app/AppLayout.tsx'),
    ]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  /** The server's answers: `running` (AWS → Azure) is left out of every call that asks for Wasabi destinations. */
  function stubFiltered(ongoingIntoWasabi: () => MigrationProgress[] = () => [intoWasabi, queued]) {
    return stubStatusPage({
      ongoing: [running, intoWasabi, queued],
      extra: {
        'GET /api/transfer/ongoing': (call) => ({
          status: 200,
          body: {
            items:
              param(call, 'destination_provider') === 'wasabi'
                ? ongoingIntoWasabi()
                : [running, intoWasabi, queued],
          },
        }),
        'GET /api/transfer/get_all': (call) => {
          const page = Number(param(call, 'page'));
          const wasabi = param(call, 'destination_provider') === 'wasabi';
          const items = wasabi
            ? [intoWasabiBatch, queuedBatch]
            : [runningBatch, intoWasabiBatch, queuedBatch];
          return { status: 200, body: { items: page === 1 ? items : [], total: 61, page, pagesize: 50 } };
        },
      },
    });
  }

  it('titles /wbrstatus "Wasabi Migration Status" and shows, counts and lists only the batches into Wasabi', async () => {
    const calls = stubFiltered();
    renderAt('/wbrstatus');

    expect(await screen.findByRole('heading', { name: 'Wasabi Migration Status' })).toBeInTheDocument();
    expect(document.title).toContain('Wasabi Migration Status');
    const live = await screen.findByRole('list', { name: 'Ongoing transfers' });
    expect(
      await within(live).findByRole('listitem', { name: 'Main archive / raw → Cold storage / vault' }),
    ).toBeInTheDocument();
    expect(within(live).getByRole('listitem', { name: 'Main archive / photos → Cold storage / archive' }));
    expect(
      within(live).queryByRole('listitem', { name: 'Main archive / media → Blob store / media-copy' }),
    ).toBeNull();
    // The tiles sum the one Processing batch into Wasabi: 5 MB of 20 MB, not the AWS → Azure batch's 40 MB.
    await waitFor(() =>
      expect(
        within(screen.getByRole('group', { name: 'Transferred' })).getByText('5 MB'),
      ).toBeInTheDocument(),
    );
    expect(within(screen.getByRole('group', { name: 'Remaining' })).getByText('15 MB')).toBeInTheDocument();

    // Every list is the server's filtered one: the history (paged over its filtered total), the day lists, the live list.
    await screen.findByRole('table', { name: 'Transfer history' });
    await screen.findByRole('list', { name: 'Today' });
    for (const path of ['/api/transfer/get_all', '/api/c2c/history', '/api/transfer/ongoing']) {
      expect(
        calls.some((call) => call.path === path && param(call, 'destination_provider') === 'wasabi'),
        path,
      ).toBe(true);
    }
    const lists = calls.filter(
      (call) => call.path === '/api/transfer/get_all' || call.path === '/api/c2c/history',
    );
    expect(
      lists.every(
        (call) => param(call, 'destination_provider') === 'wasabi' && param(call, 'source_provider') === null,
      ),
    ).toBe(true);
    expect(historyRow('Main archive / raw')).toBeInTheDocument();
    expect(
      within(screen.getByRole('table', { name: 'Transfer history' })).queryByText('Main archive / media'),
    ).toBeNull();
    // 61 filtered batches: two pages of 50.
    expect(screen.getByRole('listitem', { name: '2' })).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: '3' })).toBeNull();
  });

  it('titles /awstboard "AWS Transfer Status" and asks every list for the batches out of AWS', async () => {
    const calls = stubStatusPage();
    renderAt('/awstboard');

    expect(await screen.findByRole('heading', { name: 'AWS Transfer Status' })).toBeInTheDocument();
    expect(document.title).toContain('AWS Transfer Status');
    await screen.findByRole('list', { name: 'Today' });
    await screen.findByRole('table', { name: 'Transfer history' });
    await waitFor(() =>
      expect(
        calls.some(
          (call) => call.path === '/api/transfer/ongoing' && param(call, 'source_provider') === 'aws',
        ),
      ).toBe(true),
    );
    const lists = calls.filter(
      (call) => call.path === '/api/transfer/get_all' || call.path === '/api/c2c/history',
    );
    expect(lists.length).toBeGreaterThan(1);
    expect(
      lists.every(
        (call) => param(call, 'source_provider') === 'aws' && param(call, 'destination_provider') === null,
      ),
    ).toBe(true);
    expect(screen.queryByText(/coming soon/i)).toBeNull();
  });

  it('asks the server again when the live feed brings a batch its filtered answer did not list', async () => {
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
    let lateIsIntoWasabi = false;
    const late = buildMigration({ id: LATE_ID, cloud: 'Cold storage', bucket: 'late', transferred: 7 * MB });
    const calls = stubFiltered(() => (lateIsIntoWasabi ? [intoWasabi, queued, late] : [intoWasabi, queued]));
    renderAt('/wbrstatus');
    const live = await screen.findByRole('list', { name: 'Ongoing transfers' });
    await within(live).findByRole('listitem', { name: 'Main archive / raw → Cold storage / vault' });
    const filteredReads = () =>
      calls.filter((call) => call.path === '/api/transfer/ongoing' && call.search?.includes('wasabi')).length;
    const before = filteredReads();

    lateIsIntoWasabi = true;
    const hub = await waitFor(() => {
      const socket = sockets.filter((candidate) => candidate.onmessage).at(-1);
      if (!socket) throw new Error('no hub socket yet');
      return socket;
    });
    hub.onmessage?.(
      new MessageEvent('message', {
        data: JSON.stringify({ type: TRANSFER_EVENTS.progress, data: late }),
      }),
    );

    expect(
      await within(live).findByRole('listitem', { name: 'Transfer to Cold storage / late' }),
    ).toBeInTheDocument();
    expect(filteredReads()).toBe(before + 1);
  });
});
