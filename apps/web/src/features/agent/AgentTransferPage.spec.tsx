import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  agentMessages,
  objectMessages,
  uploadMessages,
  type AgentHistoryItem,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import type { FakeReply, RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import {
  AWS_ID,
  accounts,
  contentPath,
  findDialog,
  listingHandlers,
  pick,
} from '../migration/migration-test-kit.ts';
import {
  FAKE_DEVICE_ID,
  FAKE_KEY,
  FAKE_TICKET,
  PAIR_CODE,
  agentCalls,
  buildTransfer,
  fakeAgent,
  localFile,
  stubAgentAndApi,
  type FakeAgent,
} from './agent-test-kit.ts';
import { migrationTexts } from '../migration/migration-texts.ts';
import { resetAgentConnection } from './use-agent.ts';

// The page talks to two parties: the API (stubbed with vi.stubGlobal fetch, as every web spec does) and the local
// transfer agent on 127.0.0.1, which jsdom cannot run: agent-test-kit.ts stands in for it. The real agent process
// is tested in apps/agent (its Host, origin, key and path rules) and with this page in the e2e run.

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);
type User = ReturnType<typeof renderAt>['user'];

const confirmedProfile = () =>
  buildProfile({ organization: { ...buildProfile().organization, confirmed_ftx: true } });

const historyItem = (overrides: Partial<AgentHistoryItem> = {}): AgentHistoryItem => ({
  id: 'h-1',
  bucket: 'photos',
  cost: 0.0123,
  date: '2026-06-03T09:30:00.000Z',
  direction: 'upload',
  size: 5_242_880,
  files: ['Projects'],
  files_count: 12,
  is_directory: true,
  ...overrides,
});

function stubWorld(
  agent: FakeAgent,
  extra: Record<string, Handler> = {},
  profile: UserProfile = confirmedProfile(),
) {
  return stubAgentAndApi(agent, {
    'GET /api/users/_me': { status: 200, body: profile },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    ...listingHandlers(),
    'POST /api/agent/pairing-codes': {
      status: 201,
      body: { code: PAIR_CODE, expires_at: '2026-11-27T10:10:00.000Z' },
    },
    'POST /api/agent/tickets': (call) =>
      (call.body as { device_id?: string }).device_id === FAKE_DEVICE_ID
        ? { status: 201, body: { ticket: FAKE_TICKET, expires_at: '2026-11-27T10:01:00.000Z' } }
        : { status: 404, body: { message: agentMessages.deviceUnknown } },
    'GET /api/transfers/history': { status: 200, body: { transfers: [], count: 0 } },
    'GET /api/transfers/summary': { status: 200, body: { count: 0, size: 0, cost: 0 } },
    ...extra,
  });
}

const localPanel = () => screen.getByRole('region', { name: 'Local files' });
const cloudPanel = () => screen.getByRole('region', { name: 'Cloud files' });

async function openProjects(user: User) {
  const folder = await within(await screen.findByRole('region', { name: 'Local files' })).findByText(
    'Projects',
  );
  await user.dblClick(folder);
  await within(localPanel()).findByText('report.pdf');
}

async function pickPhotos(user: User) {
  await pick(user, 'Cloud Account', 'Main AWS');
  await within(await screen.findByRole('region', { name: 'Cloud files' })).findByText('clip.mp4');
}

describe('/ftx, the Cumulo Transfer agent screen (API and local agent stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await Promise.all([import('./AgentTransferPage.tsx'), import('../../app/AppLayout.tsx')]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    resetAgentConnection();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('says the agent is not running and offers Launch and Download; Launch connects once it answers', async () => {
    const agent = fakeAgent({ running: false });
    stubWorld(agent);
    const { user } = renderAt('/ftx');

    expect(await screen.findByRole('heading', { name: 'Cumulo Transfer' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Cumulo Transfer' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Transfer History' })).toBeInTheDocument();
    expect(await screen.findAllByText(agentMessages.notRunning)).not.toHaveLength(0);
    expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute('href', '/desktop');
    const menu = screen.getByRole('navigation', { name: 'Main' });
    expect(within(menu).getByRole('link', { name: 'Cumulo Transfer' })).toHaveAttribute('href', '/ftx');
    // The local panel's empty state offers Launch and Refresh too.
    expect(within(localPanel()).getByRole('button', { name: agentMessages.launchAgent })).toBeInTheDocument();
    expect(within(localPanel()).getByRole('button', { name: 'Refresh' })).toBeInTheDocument();

    // The user starts the agent with the link; the page waits 1 s, then asks it and connects with a ticket.
    agent.running = true;
    const banner = screen.getAllByRole('button', { name: agentMessages.launchAgent })[0];
    if (!banner) throw new Error('no Launch button');
    await user.click(banner);
    expect(await screen.findByText('Transfer agent connected', {}, { timeout: 4000 })).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /connect')[0]?.body).toEqual({ ticket: FAKE_TICKET });
    expect(await within(localPanel()).findByText('Projects')).toBeInTheDocument();
    expect(agentCalls(agent, 'GET /files')[0]?.headers.get('x-cumulo-agent-key')).toBe(FAKE_KEY);
  });

  it('keeps its connection key when the page is opened again (no new ticket while the agent is the same)', async () => {
    const agent = fakeAgent();
    const calls = stubWorld(agent);
    const first = renderAt('/ftx');
    expect(await screen.findByText('Transfer agent connected')).toBeInTheDocument();
    first.unmount();

    renderAt('/ftx');
    expect(await screen.findByText('Transfer agent connected')).toBeInTheDocument();
    expect(await within(localPanel()).findByText('Projects')).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /connect')).toHaveLength(1);
    expect(calls.filter((call) => call.path === '/api/agent/tickets')).toHaveLength(1);
  });

  it('pairs an unpaired agent: the code goes to the agent, the user confirms in its terminal, then it connects', async () => {
    const agent = fakeAgent({ paired: false });
    const calls = stubWorld(agent);
    const { user } = renderAt('/ftx');

    expect(await screen.findByText(agentMessages.pairTitle)).toBeInTheDocument();
    expect(screen.getAllByText(agentMessages.notPaired).length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: 'Pair' }));

    expect(await screen.findByText(agentMessages.pairConfirmInTerminal(PAIR_CODE))).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/agent/pairing-codes')).toHaveLength(1);
    expect(agent.pairCodes).toEqual([PAIR_CODE]);
    expect(agentCalls(agent, 'POST /connect')).toHaveLength(0);

    // The user types "y" in the agent's terminal: the agent now says paired.
    agent.paired = true;
    expect(await screen.findByText(agentMessages.paired, {}, { timeout: 4000 })).toBeInTheDocument();
    expect(await screen.findByText('Transfer agent connected')).toBeInTheDocument();
    expect(await within(localPanel()).findByText('Projects')).toBeInTheDocument();
  });

  it('shows a pairing failure with Retry', async () => {
    const agent = fakeAgent({ paired: false });
    stubWorld(agent, {
      'POST /api/agent/pairing-codes': { status: 403, body: { message: agentMessages.notActivated } },
    });
    const { user } = renderAt('/ftx');
    await user.click(await screen.findByRole('button', { name: 'Pair' }));
    expect(await screen.findByText(agentMessages.notActivated)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(agent.pairCodes).toEqual([]);
  });

  it('shows the transfer server error with Retry, and connects on Retry', async () => {
    const agent = fakeAgent();
    let ticketsRefused = true;
    stubWorld(agent, {
      'POST /api/agent/tickets': () =>
        ticketsRefused
          ? { status: 403, body: { message: agentMessages.notActivated } }
          : { status: 201, body: { ticket: FAKE_TICKET, expires_at: '2026-11-27T10:01:00.000Z' } },
    });
    const { user } = renderAt('/ftx');

    expect(await screen.findByText(agentMessages.serverError)).toBeInTheDocument();
    expect(screen.getAllByText(agentMessages.notActivated).length).toBeGreaterThan(0);
    // The transfers panel says it too, and polls nothing while the server is in error.
    const transfers = screen.getByRole('table', { name: 'Agent transfers' });
    expect(within(transfers).getByText(agentMessages.notActivated)).toBeInTheDocument();
    expect(agentCalls(agent, 'GET /status')).toHaveLength(0);

    ticketsRefused = false;
    await user.click(within(transfers).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Transfer agent connected')).toBeInTheDocument();
    expect(await within(transfers).findByText(agentMessages.noOngoing)).toBeInTheDocument();
  });

  it('lists the added folders, opens one on double-click, goes back, and pages with Load more', async () => {
    const many = Array.from({ length: 104 }, (_, index) =>
      localFile(`/Projects/raw/frame-${String(index).padStart(3, '0')}.dng`, 1024),
    );
    const agent = fakeAgent();
    agent.folders['/Projects/raw'] = many;
    stubWorld(agent);
    const { user } = renderAt('/ftx');

    await openProjects(user);
    expect(within(localPanel()).getByText('/Projects')).toBeInTheDocument();
    expect(within(localPanel()).getByText('2 MB')).toBeInTheDocument();
    await user.dblClick(within(localPanel()).getByText('raw'));
    expect(await within(localPanel()).findByText('frame-099.dng')).toBeInTheDocument();
    expect(within(localPanel()).queryByText('frame-100.dng')).toBeNull();
    await user.click(within(localPanel()).getByRole('button', { name: 'Load more' }));
    expect(await within(localPanel()).findByText('frame-103.dng')).toBeInTheDocument();
    expect(
      agentCalls(agent, 'GET /files')
        .map((call) => call.search)
        .filter((search) => search.includes('raw')),
    ).toEqual(['?path=%2FProjects%2Fraw&skip=0&limit=100', '?path=%2FProjects%2Fraw&skip=100&limit=100']);

    await user.click(screen.getByRole('button', { name: 'Back (Local File System)' }));
    expect(await within(localPanel()).findByText('report.pdf')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back (Local File System)' }));
    expect(await within(localPanel()).findByText('Projects')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Back (Local File System)' })).toBeDisabled();
    // A page of 100 rows through antd's table under jsdom, three times: 15.2 s in a green CI run, past 20 s in the
    // next one on the same machine; the slowest web test measured, so it keeps more than the project's 30 s.
  }, 45_000);

  it('searches the open local folder through the agent, says when nothing matches, and opens another folder unfiltered', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await openProjects(user);
    const box = within(localPanel()).getByRole('searchbox', { name: 'Search in this local folder' });

    await user.type(box, 'REP');
    await waitFor(() =>
      expect(agentCalls(agent, 'GET /files').map((call) => call.search)).toContain(
        '?path=%2FProjects&skip=0&limit=100&search=REP',
      ),
    );
    expect(await within(localPanel()).findByText('report.pdf')).toBeInTheDocument();
    expect(within(localPanel()).queryByText('raw')).toBeNull();

    await user.clear(box);
    await user.type(box, 'nothing like it');
    expect(
      await within(localPanel()).findByText('No name in /Projects contains "nothing like it"'),
    ).toBeInTheDocument();

    await user.clear(box);
    await user.type(box, 'ra');
    await waitFor(() =>
      expect(agentCalls(agent, 'GET /files').map((call) => call.search)).toContain(
        '?path=%2FProjects&skip=0&limit=100&search=ra',
      ),
    );
    await user.dblClick(await within(localPanel()).findByText('raw'));
    expect(await within(localPanel()).findByText('/Projects/raw')).toBeInTheDocument();
    expect(box).toHaveValue('');
    // Words typed at once in the new folder: the previous folder's words, still settling, are never asked here.
    await user.type(box, 'x');
    await waitFor(() =>
      expect(agentCalls(agent, 'GET /files').map((call) => call.search)).toContain(
        '?path=%2FProjects%2Fraw&skip=0&limit=100&search=x',
      ),
    );
    expect(agentCalls(agent, 'GET /files').map((call) => call.search)).toContain(
      '?path=%2FProjects%2Fraw&skip=0&limit=100',
    );
    expect(agentCalls(agent, 'GET /files').map((call) => call.search)).not.toContain(
      '?path=%2FProjects%2Fraw&skip=0&limit=100&search=ra',
    );
  });

  it('marks the agent not running, well before the next heartbeat, once its calls fail', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await openProjects(user);
    expect(screen.getByText('Transfer agent connected')).toBeInTheDocument();

    agent.running = false;
    await user.click(screen.getByRole('button', { name: 'Refresh (Local File System)' }));
    // A failed call (this listing, or the 1 s transfer poll, whichever comes first) has the agent's heartbeat asked
    // again at once, rather than at the next 5 s beat.
    await waitFor(() => expect(screen.queryByText('Transfer agent connected')).toBeNull(), { timeout: 2000 });
    expect(within(localPanel()).getByText(agentMessages.notRunning)).toBeInTheDocument();
    expect(within(localPanel()).getByRole('button', { name: agentMessages.launchAgent })).toBeInTheDocument();
    expect(within(localPanel()).queryByText('report.pdf')).toBeNull();
  });

  it('creates a folder with the name rule (leading and doubled slashes), refusing an empty name', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await within(localPanel()).findByText('Projects');
    // The added folders are managed from the agent's command line.
    expect(screen.getByRole('button', { name: 'Create folder' })).toBeDisabled();

    await openProjects(user);
    await user.click(screen.getByRole('button', { name: 'Create folder' }));
    const dialog = await findDialog('Create folder');
    await user.type(within(dialog).getByLabelText('Folder name'), '///');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText(objectMessages.folderNameRequired)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /mkdir')).toHaveLength(0);

    await user.clear(within(dialog).getByLabelText('Folder name'));
    await user.type(within(dialog).getByLabelText('Folder name'), '//2026//june');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() =>
      expect(agentCalls(agent, 'POST /mkdir').map((call) => call.body)).toEqual([
        { path: '/Projects/2026/june' },
      ]),
    );
    expect(await within(localPanel()).findByText('2026')).toBeInTheDocument();
  });

  it('deletes a local file only after the confirmation', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await openProjects(user);

    await user.click(within(localPanel()).getByRole('button', { name: 'Delete report.pdf' }));
    expect(await screen.findByText('Delete report.pdf?')).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /delete')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('report.pdf deleted')).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /delete').map((call) => call.body)).toEqual([
      { path: '/Projects/report.pdf' },
    ]);
    await waitFor(() => expect(within(localPanel()).queryByText('report.pdf')).toBeNull());
  });

  it('shows Upload only when more than one file is checked, and uploads them to the open cloud folder', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await openProjects(user);
    const uploadButton = () => screen.queryByRole('button', { name: 'Upload' });

    await user.click(within(localPanel()).getByRole('checkbox', { name: 'Select report.pdf' }));
    expect(uploadButton()).toBeNull();
    // The upload indicators: the checked size, the price per MB and the total (never rounded to $0.00).
    const indicators = screen.getByRole('group', { name: 'Upload' });
    expect(within(indicators).getByText('2 MB')).toBeInTheDocument();
    expect(within(indicators).getByText('$0.0000488')).toBeInTheDocument();
    expect(within(indicators).getByText('$0.0000977')).toBeInTheDocument();
    expect(within(indicators).getByRole('combobox', { name: 'Access control' })).toBeDisabled();

    await user.click(within(localPanel()).getByRole('checkbox', { name: 'Select raw' }));
    // A checked folder's size is known once the upload lists it: said, not counted as 0.
    expect(within(indicators).getByText('2 MB + 1 folder')).toBeInTheDocument();
    const upload = uploadButton();
    if (!upload) throw new Error('no Upload button with two files checked');

    await user.click(upload);
    expect(await screen.findByText(uploadMessages.selectBucket)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /upload')).toHaveLength(0);

    await pickPhotos(user);
    await user.click(within(cloudPanel()).getByRole('button', { name: /docs/ }));
    await within(cloudPanel()).findByText('inner.txt');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Upload of 2 items started')).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /upload').map((call) => call.body)).toEqual([
      {
        paths: ['/Projects/report.pdf', '/Projects/raw'],
        remoteDirectory: { cloud_account_id: AWS_ID, bucket_name: 'photos', path: 'docs/' },
      },
    ]);
    // The new transfer shows in the live panel.
    const transfers = screen.getByRole('table', { name: 'Agent transfers' });
    expect(await within(transfers).findByText('report.pdf')).toBeInTheDocument();
  });

  it('refuses an upload with the spec message when the agent stopped meanwhile', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    await openProjects(user);

    agent.running = false;
    await user.click(within(localPanel()).getByRole('button', { name: 'Upload report.pdf' }));
    expect(await screen.findByText(agentMessages.launchBeforeUpload)).toBeInTheDocument();
    // The failed call marks the agent not running at once (spec 001 §4).
    expect(
      await within(localPanel()).findByRole('button', { name: agentMessages.launchAgent }),
    ).toBeInTheDocument();
    expect(within(localPanel()).getByText(agentMessages.notRunning)).toBeInTheDocument();
  });

  it('refuses a download with the spec message when the agent is not running', async () => {
    const agent = fakeAgent({ running: false });
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    await user.click(within(cloudPanel()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    const indicators = screen.getByRole('group', { name: 'Download' });
    expect(within(indicators).getByText('2 kB')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect(await screen.findByText(agentMessages.launchBeforeDownload)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /download')).toHaveLength(0);
  });

  it('downloads the checked cloud files into the open local folder', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    await within(localPanel()).findByText('Projects');
    await user.click(within(cloudPanel()).getByRole('checkbox', { name: 'Select clip.mp4' }));
    await user.click(within(cloudPanel()).getByRole('checkbox', { name: 'Select docs' }));

    // At the root there is no folder to write into.
    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect(
      await screen.findByText('Open a folder in the Local File System panel to download into it.'),
    ).toBeInTheDocument();

    await openProjects(user);
    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect(await screen.findByText('Download of 2 items started')).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /download').map((call) => call.body)).toEqual([
      {
        remotePaths: ['clip.mp4', 'docs/'],
        cloud_account_id: AWS_ID,
        bucket_name: 'photos',
        localPath: '/Projects',
      },
    ]);
  });

  it("refuses an upload at once with the spec's words when the member's ftX access is off", async () => {
    const agent = fakeAgent();
    const profile = confirmedProfile();
    stubWorld(
      agent,
      {},
      { ...profile, acl: { ...profile.acl, services: { ...profile.acl.services, ftx: false } } },
    );
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    await openProjects(user);

    await user.click(within(localPanel()).getByRole('button', { name: 'Upload report.pdf' }));
    expect(await screen.findByText(agentMessages.notActivated)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /upload')).toHaveLength(0);
  });

  it('opens the "Ftx Transfer" charge modal instead of uploading while confirmed_ftx is false', async () => {
    const agent = fakeAgent();
    const calls = stubWorld(
      agent,
      { 'PUT /api/organizations/_me': { status: 200, body: { message: 'ok' } } },
      buildProfile({ has_billing_info: true }),
    );
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    await openProjects(user);

    await user.click(within(localPanel()).getByRole('button', { name: 'Upload report.pdf' }));
    const dialog = await findDialog('Ftx Transfer');
    expect(within(dialog).getByText(migrationTexts.ftxChargeRate)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /upload')).toHaveLength(0);

    // The Owner confirms: the organisation's ftX flag is set, not the cloud to cloud one.
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(migrationTexts.ftxChargeConfirmed)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ confirmed_ftx: true });
  });

  it('lists the transfers with speed, ETA, progress, status and errors, and cancels one', async () => {
    const agent = fakeAgent({
      transfers: [
        buildTransfer(),
        buildTransfer({
          transferID: 'tr-2',
          status: 'failed',
          currentFilename: 'video.mov',
          transferDirection: 'download',
          percent: 60,
          filesTotal: 500,
          filesDone: 300,
          listedWhole: false,
          transferErrors: [{ file: 'video.mov', error: agentMessages.diskFull('video.mov') }],
        }),
        buildTransfer({ transferID: 'tr-3', status: 'queued', currentFilename: 'later.zip', percent: 0 }),
      ],
    });
    stubWorld(agent);
    const { user } = renderAt('/ftx');

    const transfers = await screen.findByRole('table', { name: 'Agent transfers' });
    const running = (await within(transfers).findByText('report.pdf')).closest('tr');
    if (!running) throw new Error('no row');
    expect(within(running).getByText('Upload')).toBeInTheDocument();
    expect(within(running).getByText('2 MB/s')).toBeInTheDocument();
    expect(within(running).getByText('3m 20s')).toBeInTheDocument();
    expect(within(running).getByText('42%')).toBeInTheDocument();
    expect(within(running).getByText('0 of 2 files')).toBeInTheDocument();
    // A queued transfer says so, with no speed or time left, and may be cancelled.
    const queued = within(transfers).getByText('later.zip').closest('tr');
    if (!queued) throw new Error('no row');
    expect(within(queued).getByText('Queued')).toBeInTheDocument();
    expect(within(queued).getAllByText('—')).toHaveLength(2);
    expect(within(queued).getByRole('button', { name: 'Cancel later.zip' })).toBeInTheDocument();
    const failed = within(transfers).getByText('video.mov').closest('tr');
    if (!failed) throw new Error('no row');
    expect(within(failed).getByText('Failed')).toBeInTheDocument();
    expect(within(failed).getByText('Download')).toBeInTheDocument();
    // Its listing broke off: the count says the total is only what was found.
    expect(within(failed).getByText('300 of 500+ files, listing stopped')).toBeInTheDocument();
    expect(within(failed).queryByRole('button', { name: /Cancel/ })).toBeNull();
    expect(
      within(transfers).getByText(`video.mov: ${agentMessages.diskFull('video.mov')}`),
    ).toBeInTheDocument();

    agent.failCancel = true;
    await user.click(within(running).getByRole('button', { name: 'Cancel report.pdf' }));
    await user.click(await screen.findByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(agentMessages.cancelFailed)).toBeInTheDocument();

    agent.failCancel = false;
    await user.click(within(running).getByRole('button', { name: 'Cancel report.pdf' }));
    const yes = screen.getAllByRole('button', { name: 'Yes' }).at(-1);
    if (!yes) throw new Error('no Yes');
    await user.click(yes);
    expect(await screen.findByText(agentMessages.cancelled)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /cancel').map((call) => call.body)).toEqual([
      { transferID: 'tr-1' },
      { transferID: 'tr-1' },
    ]);
    expect(await within(transfers).findByText('Cancelled', {}, { timeout: 3000 })).toBeInTheDocument();

    // The failed download's files start again as a new transfer (spec 001 §8).
    await user.click(within(failed).getByRole('button', { name: 'Retry Failed Files' }));
    expect(await screen.findByText(agentMessages.retryStarted)).toBeInTheDocument();
    expect(agentCalls(agent, 'POST /retry').map((call) => call.body)).toEqual([{ transferID: 'tr-2' }]);
    // Retried once: the row says so and no longer offers it (the retry has a row of its own).
    expect(await within(failed).findByText('Retried', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(within(failed).queryByRole('button', { name: 'Retry Failed Files' })).toBeNull();
  });

  it('says there are no ongoing transfers, with Refresh', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    renderAt('/ftx');
    const transfers = await screen.findByRole('table', { name: 'Agent transfers' });
    expect(await within(transfers).findByText(agentMessages.noOngoing)).toBeInTheDocument();
    expect(within(transfers).getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
  });

  it('refreshes the history when a transfer ends', async () => {
    const agent = fakeAgent({ transfers: [buildTransfer()] });
    const calls = stubWorld(agent);
    const { user } = renderAt('/ftx');
    const summaryCalls = () => calls.filter((call) => call.path === '/api/transfers/summary').length;
    await user.click(await screen.findByRole('tab', { name: 'Transfer History' }));
    await waitFor(() => expect(summaryCalls()).toBe(3));
    await user.click(screen.getByRole('tab', { name: 'Cumulo Transfer' }));
    const transfers = await screen.findByRole('table', { name: 'Agent transfers' });
    await within(transfers).findByText('42%');

    const transfer = agent.transfers[0];
    if (!transfer) throw new Error('no transfer');
    transfer.status = 'completed';
    transfer.percent = 100;
    expect(await within(transfers).findByText('Completed', {}, { timeout: 3000 })).toBeInTheDocument();
    // The history read before is now stale: opening the tab again reads it afresh (else it would be kept 30 s).
    await user.click(screen.getByRole('tab', { name: 'Transfer History' }));
    await waitFor(() => expect(summaryCalls()).toBe(6));
  });

  it('refreshes the open bucket for an upload that started and ended between two polls, not for one that ended before the page opened', async () => {
    const agent = fakeAgent({
      transfers: [
        buildTransfer({
          transferID: 'tr-old',
          status: 'completed',
          percent: 100,
          currentFilename: '',
          items: ['Archive'],
          endedAt: '2026-11-01T10:00:00.000Z',
        }),
      ],
    });
    const calls = stubWorld(agent);
    const { user } = renderAt('/ftx');
    await pickPhotos(user);
    const listings = () => calls.filter((call) => call.path === contentPath(AWS_ID, 'photos')).length;
    // Named after what was chosen, with its bucket beside it.
    const transfers = await screen.findByRole('table', { name: 'Agent transfers' });
    const old = (await within(transfers).findByText('Archive')).closest('tr');
    expect(old).toHaveTextContent('photos');
    // Status polls come every second: the transfer that ended before the page opened refreshes nothing.
    const before = listings();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(listings()).toBe(before);

    agent.transfers.unshift(
      buildTransfer({
        transferID: 'tr-quick',
        status: 'completed',
        percent: 100,
        currentFilename: '',
        items: ['notes.txt', 'report.pdf', 'clip.mp4'],
        endedAt: new Date().toISOString(),
      }),
    );
    await within(transfers).findByText('notes.txt, report.pdf +1 more', {}, { timeout: 3000 });
    await waitFor(() => expect(listings()).toBeGreaterThan(before));
  });

  it('shows the history cards and list with MMM-DD-YY dates', async () => {
    const agent = fakeAgent();
    const calls = stubWorld(agent, {
      'GET /api/transfers/summary': (call) => {
        const from = new Date(new URLSearchParams(call.search).get('start_date') ?? '');
        const to = new Date(new URLSearchParams(call.search).get('end_date') ?? '');
        const hours = (to.getTime() - from.getTime()) / 3_600_000;
        // Last 24h: 24 hours; the months: from a month's first day.
        return hours === 24
          ? { status: 200, body: { count: 3, size: 3_145_728, cost: 0.00015 } }
          : { status: 200, body: { count: 40, size: 1_073_741_824, cost: 0.05 } };
      },
      'GET /api/transfers/history': {
        status: 200,
        body: {
          transfers: [
            historyItem(),
            historyItem({
              id: 'h-2',
              bucket: 'archive',
              direction: 'download',
              date: '2025-12-24T08:00:00Z',
            }),
          ],
          count: 2,
        },
      },
    });
    const { user } = renderAt('/ftx');
    await user.click(await screen.findByRole('tab', { name: 'Transfer History' }));

    const last24 = await screen.findByRole('group', { name: 'Transfers Last 24h' });
    expect(await within(last24).findByText('3')).toBeInTheDocument();
    expect(within(last24).getByText('3 MB')).toBeInTheDocument();
    expect(within(last24).getByText('$0.00015')).toBeInTheDocument();
    const thisMonth = screen.getByRole('group', { name: 'This Month' });
    expect(await within(thisMonth).findByText('1 GB')).toBeInTheDocument();
    expect(within(thisMonth).getByText('$0.05')).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'Last Month' })).toBeInTheDocument();

    const list = screen.getByRole('table', { name: 'Transfer history' });
    expect(await within(list).findByText('Jun-03-26')).toBeInTheDocument();
    expect(within(list).getByText('Dec-24-25')).toBeInTheDocument();
    expect(within(list).getByText('archive')).toBeInTheDocument();
    expect(within(list).getAllByText('5 MB')).toHaveLength(2);
    expect(within(list).getAllByText('$0.0123')).toHaveLength(2);
    expect(within(list).getAllByText('12')).toHaveLength(2);
    expect(within(list).getByText('Download')).toBeInTheDocument();
    const history = calls.find((call) => call.path === '/api/transfers/history');
    expect(Object.fromEntries(new URLSearchParams(history?.search))).toEqual({
      page: '1',
      limit: '100',
      service: 'file_catalyst',
    });
    const months = calls
      .filter((call) => call.path === '/api/transfers/summary')
      .map((call) => new URLSearchParams(call.search));
    expect(months.every((query) => query.get('service') === 'file_catalyst')).toBe(true);
    const lastMonth = months.find(
      (query) =>
        new Date(query.get('end_date') ?? '').getDate() === 1 && query.get('start_date')?.endsWith('Z'),
    );
    expect(lastMonth).toBeDefined();
  });

  it('shows the empty history and a failed one', async () => {
    const agent = fakeAgent();
    stubWorld(agent);
    const { user, unmount } = renderAt('/ftx');
    await user.click(await screen.findByRole('tab', { name: 'Transfer History' }));
    expect(await screen.findByText(agentMessages.noHistoryTitle)).toBeInTheDocument();
    expect(screen.getByText(agentMessages.noHistory)).toBeInTheDocument();
    unmount();

    stubWorld(agent, {
      'GET /api/transfers/history': { status: 403, body: { message: agentMessages.notActivated } },
    });
    const second = renderAt('/ftx');
    await second.user.click(await screen.findByRole('tab', { name: 'Transfer History' }));
    expect(await screen.findAllByText(agentMessages.historyFailed, {}, { timeout: 4000 })).not.toHaveLength(
      0,
    );
  });
});
