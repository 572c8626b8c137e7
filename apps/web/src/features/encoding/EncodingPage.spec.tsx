import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  ENCODING_EVENTS,
  mediaMessages,
  type EncodingJob,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { HubSocket, hubSends } from '../../test/fake-hub.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

const SOURCE_ID = '0b7d1a52-0000-4000-8000-0000000000a1';
const TARGET_ID = '0b7d1a52-0000-4000-8000-0000000000b2';
const accounts = [
  buildCloudAccount({ id: SOURCE_ID, name: 'Studio S3', storages: [buildBucket({ name: 'raw' })] }),
  buildCloudAccount({ id: TARGET_ID, name: 'Delivery S3', storages: [buildBucket({ name: 'out' })] }),
];

let sequence = 0;
function buildJob(overrides: Partial<EncodingJob> = {}): EncodingJob {
  sequence += 1;
  return {
    id: `0b7d1a52-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    media_id: `${SOURCE_ID}/raw/clips/intro.mp4`,
    status: 'New',
    progress: 0,
    time_left: null,
    finished: null,
    error: null,
    preset: { category: 'MP4', name: 'MP4 H.264/AAC 480p' },
    source: { cloud_account_id: SOURCE_ID, bucket_name: 'raw', path: 'clips/intro.mp4' },
    destination: { cloud_account_id: TARGET_ID, bucket_name: 'out', path: 'web/' },
    outputs: [],
    created_by: 'user-1',
    created_at: '2026-11-20T09:00:00.000Z',
    ...overrides,
  };
}

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function stubEncoding(
  jobs: Handler,
  { profile = {}, extra = {} }: { profile?: Partial<UserProfile>; extra?: Record<string, Handler> } = {},
) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile(profile) },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'GET /api/encoding/jobs': jobs,
    ...extra,
  });
}

/** The table row naming a preset (each test's jobs have distinct presets). */
async function rowOf(preset: string) {
  const cell = await screen.findByText(preset);
  const row = cell.closest('tr');
  if (!row) throw new Error(`no row for ${preset}`);
  return row;
}

describe('/encoding, the encoding jobs (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await Promise.all([import('./EncodingPage.tsx'), import('../../app/AppLayout.tsx')]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows each status as spec 001 §4 words it, with source, preset, destination and date', async () => {
    stubEncoding({
      status: 200,
      body: [
        buildJob({ status: 'New', preset: { category: 'MP4', name: 'MP4 H.264/AAC 1080p' } }),
        buildJob({
          status: 'Processing',
          progress: 42.5,
          time_left: 75,
          preset: { category: 'MP4', name: 'MP4 H.264/AAC 720p' },
        }),
        buildJob({
          status: 'Processing',
          progress: 100,
          time_left: 0,
          preset: { category: 'Audio', name: 'AAC 128 kb/s' },
        }),
        buildJob({
          status: 'Finished',
          progress: 100,
          finished: '2026-11-20T09:01:00.000Z',
          outputs: ['web/intro-480p.mp4'],
        }),
        buildJob({ status: 'Stopped', preset: { category: 'Images', name: 'Thumbnail' } }),
        buildJob({
          status: 'Error',
          error: 'clips/intro.mp4 could not be read: the object does not exist',
          preset: { category: 'Images', name: 'Sprite sheet' },
        }),
      ],
    });
    const { user } = renderAt('/encoding');

    expect(await screen.findByRole('heading', { name: 'Encoding Jobs' })).toBeInTheDocument();
    expect(document.title).toBe('Encoding Jobs · Cumulo');
    const waiting = await rowOf('MP4 H.264/AAC 1080p');
    expect(within(waiting).getByText(mediaMessages.processing)).toBeInTheDocument();
    expect(within(waiting).getByText('raw/clips/intro.mp4')).toBeInTheDocument();
    expect(within(waiting).getByText('Studio S3')).toBeInTheDocument();
    expect(within(waiting).getByText('out/web/')).toBeInTheDocument();
    expect(within(waiting).getByText('Delivery S3')).toBeInTheDocument();
    expect(within(waiting).getByText('11/20/2026')).toBeInTheDocument();

    const running = await rowOf('MP4 H.264/AAC 720p');
    expect(within(running).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '42.5');
    expect(within(running).getByText('42.5%')).toBeInTheDocument();
    expect(within(running).getByText('1 min 15 s left')).toBeInTheDocument();
    expect(within(running).getByRole('button', { name: /Cancel/ })).toBeInTheDocument();

    // Progress 100.0 counts as finished, before the status says so: Done, nothing to cancel.
    const complete = await rowOf('AAC 128 kb/s');
    expect(within(complete).getByText(mediaMessages.done)).toBeInTheDocument();
    expect(within(complete).queryByRole('button', { name: /Cancel/ })).toBeNull();

    const finished = await rowOf('MP4 H.264/AAC 480p');
    expect(within(finished).getByText(mediaMessages.done)).toBeInTheDocument();
    expect(within(finished).getByRole('link', { name: 'intro-480p.mp4' })).toHaveAttribute(
      'href',
      `/browse?account=${TARGET_ID}&bucket=out&path=web%2F`,
    );
    expect(within(finished).getByRole('button', { name: /Remove/ })).toBeInTheDocument();

    expect(within(await rowOf('Thumbnail')).getByText('Stopped')).toBeInTheDocument();

    const failed = await rowOf('Sprite sheet');
    await user.hover(within(failed).getByText('Error'));
    expect(
      await screen.findByText('clips/intro.mp4 could not be read: the object does not exist'),
    ).toBeInTheDocument();
  });

  it('reads the list every second: a running job moves on to Done without a reload', async () => {
    const running = buildJob({ status: 'Processing', progress: 10, time_left: 30 });
    let done = false;
    const calls = stubEncoding(() => ({
      status: 200,
      body: [
        done ? { ...running, status: 'Finished', progress: 100, outputs: ['web/intro-480p.mp4'] } : running,
      ],
    }));
    renderAt('/encoding');

    const row = await rowOf('MP4 H.264/AAC 480p');
    expect(within(row).getByText('30 s left')).toBeInTheDocument();
    const readsBefore = calls.filter((call) => call.path === '/api/encoding/jobs').length;
    done = true;
    await waitFor(() => expect(screen.getByText(mediaMessages.done)).toBeInTheDocument(), { timeout: 3000 });
    expect(calls.filter((call) => call.path === '/api/encoding/jobs').length).toBeGreaterThan(readsBefore);
  });

  it("moves a job's progress as soon as the hub reports it (encoding.job), between two reads", async () => {
    vi.stubGlobal('WebSocket', HubSocket);
    const running = buildJob({ status: 'Processing', progress: 10, time_left: 30 });
    stubEncoding({ status: 200, body: [running] });
    renderAt('/encoding');

    const row = await rowOf('MP4 H.264/AAC 480p');
    expect(within(row).getByText('10.0%')).toBeInTheDocument();
    await waitFor(() => expect(HubSocket.opened.at(-1)?.onmessage).toBeTruthy());
    hubSends({ type: ENCODING_EVENTS.job, data: { ...running, progress: 55.5, time_left: 12 } });
    // The query cache tells its readers on the next tick; the next read of the list is a second away.
    expect(await within(row).findByText('55.5%', {}, { timeout: 500 })).toBeInTheDocument();
    expect(within(row).getByText('12 s left')).toBeInTheDocument();
  });

  it('cancels a running job with the toast, shows a refusal in the server words, and removes an ended job', async () => {
    const mine = buildJob({ status: 'Processing', progress: 20, time_left: 10 });
    const theirs = buildJob({
      status: 'Processing',
      progress: 30,
      time_left: 10,
      created_by: 'user-2',
      preset: { category: 'HLS', name: 'HLS ladder 720p/480p/360p' },
    });
    const ended = buildJob({ status: 'Stopped', preset: { category: 'Images', name: 'Thumbnail' } });
    const calls = stubEncoding(
      { status: 200, body: [mine, theirs, ended] },
      {
        extra: {
          [`POST /api/encoding/cancel/${mine.id}`]: {
            status: 200,
            body: { message: mediaMessages.cancelled },
          },
          [`POST /api/encoding/cancel/${theirs.id}`]: {
            status: 400,
            body: { message: mediaMessages.notCancellable },
          },
          [`DELETE /api/encoding/jobs/${ended.id}`]: {
            status: 200,
            body: { message: 'Encoding job removed.' },
          },
        },
      },
    );
    const { user } = renderAt('/encoding');

    await user.click(within(await rowOf('MP4 H.264/AAC 480p')).getByRole('button', { name: /Cancel/ }));
    expect(await screen.findByText(mediaMessages.cancelled)).toBeInTheDocument();
    expect(
      calls.some((call) => call.method === 'POST' && call.path === `/api/encoding/cancel/${mine.id}`),
    ).toBe(true);

    await user.click(
      within(await rowOf('HLS ladder 720p/480p/360p')).getByRole('button', { name: /Cancel/ }),
    );
    expect(await screen.findByText(mediaMessages.notCancellable)).toBeInTheDocument();

    await user.click(within(await rowOf('Thumbnail')).getByRole('button', { name: /Remove/ }));
    expect(await screen.findByText('Encoding job removed.')).toBeInTheDocument();
    expect(
      calls.some((call) => call.method === 'DELETE' && call.path === `/api/encoding/jobs/${ended.id}`),
    ).toBe(true);
  });

  it('offers a User cancel and remove only on the jobs they started', async () => {
    stubEncoding(
      {
        status: 200,
        body: [
          buildJob({ status: 'Processing', progress: 5, time_left: 9 }),
          buildJob({
            status: 'Processing',
            progress: 5,
            time_left: 9,
            created_by: 'user-2',
            preset: { category: 'MP4', name: 'MP4 H.264/AAC 720p' },
          }),
          buildJob({
            status: 'Error',
            error: 'broken',
            created_by: 'user-2',
            preset: { category: 'Images', name: 'Thumbnail' },
          }),
        ],
      },
      { profile: { role: { id: 3, title: 'User' } } },
    );
    renderAt('/encoding');

    expect(
      within(await rowOf('MP4 H.264/AAC 480p')).getByRole('button', { name: /Cancel/ }),
    ).toBeInTheDocument();
    expect(within(await rowOf('MP4 H.264/AAC 720p')).queryByRole('button')).toBeNull();
    expect(within(await rowOf('Thumbnail')).queryByRole('button')).toBeNull();
  });

  it('says how to start when there are no jobs, and the menu links the page', async () => {
    stubEncoding({ status: 200, body: [] });
    renderAt('/encoding');

    expect(await screen.findByText(/No encoding jobs yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'bucket browser' })).toHaveAttribute('href', '/browse');
    const menu = screen.getByRole('navigation', { name: 'Main' });
    expect(within(menu).getByRole('link', { name: 'Encoding' })).toHaveAttribute('href', '/encoding');
  });
});
