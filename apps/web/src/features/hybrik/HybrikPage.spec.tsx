import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  HYBRIK_PROFILE_MAX_BYTES,
  hybrikMessages,
  type HybrikJob,
  type HybrikProfile,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

const AWS_ID = '5b0c3a1e-0000-4000-8000-00000000a001';
const PROFILE_ID = '5b0c3a1e-0000-4000-8000-00000000b001';

const job = (extra: Partial<HybrikJob>): HybrikJob => ({
  id: 'job-1',
  name: 'Small MP4',
  profile_id: PROFILE_ID,
  status: 'queued',
  creation_time: '2026-11-20T10:00:00.000Z',
  end_time: null,
  progress: 0,
  error: null,
  outputs: [],
  ...extra,
});

const profile: HybrikProfile = {
  id: PROFILE_ID,
  name: 'Small MP4',
  created_at: '2026-11-19T10:00:00.000Z',
  definitions: {},
  object: 's3://hybrik/profiles/x.json',
};

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function stubHybrik(extra: Record<string, Handler> = {}, profileOverrides: Partial<UserProfile> = {}) {
  return stubApi({
    'GET /api/users/_me': {
      status: 200,
      body: buildProfile({ packages: [{ title: 'Hybrik' }], ...profileOverrides }),
    },
    'GET /api/cloud_accounts/': {
      status: 200,
      body: [
        buildCloudAccount({
          id: AWS_ID,
          name: 'Media AWS',
          storages: [buildBucket({ name: 'hybrik', cloud_account_id: AWS_ID })],
        }),
      ],
    },
    'GET /api/hybrik/jobs': (call) => {
      const filter = new URLSearchParams(call.search).get('filter');
      if (filter === 'active')
        return { status: 200, body: [job({ id: 'a', status: 'active', progress: 42 })] };
      if (filter === 'failed') {
        return {
          status: 200,
          body: [
            job({
              id: 'f',
              status: 'failed',
              error: 'clips/a.mp4 could not be read: the object does not exist',
            }),
          ],
        };
      }
      return { status: 200, body: filter === 'queued' ? [job({ name: 'Waiting one' })] : [] };
    },
    'GET /api/hybrik/settings': {
      status: 200,
      body: {
        hybrik_profiles_bucket: { cloud_account_id: AWS_ID, bucket_name: 'hybrik', path: 'profiles/' },
      },
    },
    'GET /api/hybrik/profiles': { status: 200, body: [profile] },
    'POST /api/hybrik/jobs/a/cancel': { status: 200, body: { message: hybrikMessages.jobCancelled } },
    ...extra,
  });
}

const jobCalls = (calls: RecordedCall[], filter: string) =>
  calls.filter((call) => call.path === '/api/hybrik/jobs' && call.search === `?filter=${filter}`);

describe('/hybrik, the profile jobs page (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await Promise.all([import('./HybrikPage.tsx'), import('../../app/AppLayout.tsx')]);
  }, 60_000);
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));
  afterEach(() => vi.unstubAllGlobals());

  it('shows each group of jobs in its tab, refreshed every second, with progress and the error', async () => {
    const calls = stubHybrik();
    const { user } = renderAt('/hybrik');

    expect(await screen.findByRole('heading', { name: 'Hybrik Encoding' })).toBeInTheDocument();
    for (const tab of ['Queued', 'Active', 'Completed', 'Failed Jobs', 'Settings']) {
      expect(screen.getByRole('tab', { name: tab })).toBeInTheDocument();
    }
    const queued = await screen.findByRole('table', { name: 'Queued jobs' });
    expect(await within(queued).findByText('Waiting one')).toBeInTheDocument();
    expect(within(queued).getByText('11/20/2026', { exact: false })).toBeInTheDocument();
    await waitFor(() => expect(jobCalls(calls, 'queued').length).toBeGreaterThanOrEqual(2), {
      timeout: 3000,
    });

    await user.click(screen.getByRole('tab', { name: 'Active' }));
    const progress = await screen.findByLabelText('Progress of Small MP4');
    expect(progress).toHaveTextContent('42%');
    await user.click(screen.getByRole('button', { name: 'Cancel Small MP4' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel job' }));
    expect(await screen.findByText(hybrikMessages.jobCancelled)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      '/api/hybrik/jobs/a/cancel',
    ]);

    await user.click(screen.getByRole('tab', { name: 'Failed Jobs' }));
    expect(
      await screen.findByText('clips/a.mp4 could not be read: the object does not exist'),
    ).toBeInTheDocument();
  });

  it('saves the output bucket with the success toast, and shows the modal when it fails', async () => {
    let fail = false;
    const calls = stubHybrik({
      'PUT /api/hybrik/settings': () =>
        fail
          ? { status: 404, body: { message: 'Not found' } }
          : {
              status: 200,
              body: {
                message: hybrikMessages.settingsSaved,
                hybrik_profiles_bucket: { cloud_account_id: AWS_ID, bucket_name: 'hybrik', path: 'out/' },
              },
            },
    });
    const { user } = renderAt('/hybrik');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    const path = await screen.findByLabelText('Path');
    await waitFor(() => expect(path).toHaveValue('profiles/'));
    await user.clear(path);
    await user.type(path, 'out/');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(hybrikMessages.settingsSaved)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
      hybrik_profiles_bucket: { cloud_account_id: AWS_ID, bucket_name: 'hybrik', path: 'out/' },
    });

    fail = true;
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText(hybrikMessages.settingsFailedTitle).length).toBeGreaterThan(0);
    expect(within(dialog).getByText(hybrikMessages.settingsFailedText)).toBeInTheDocument();
  });

  it('checks a profile file in the browser (JSON only, under 1 MB) and uploads a good one', async () => {
    const calls = stubHybrik({
      'POST /api/hybrik/profiles': {
        status: 200,
        body: { message: hybrikMessages.profileUploaded, profile },
      },
    });
    const { user, container } = renderAt('/hybrik');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    await screen.findByRole('table', { name: 'Profiles' });
    const input = () => {
      const found = container.querySelector<HTMLInputElement>('input[type="file"]');
      if (!found) throw new Error('no file input');
      return found;
    };
    await waitFor(() => expect(input()).toBeEnabled());
    fireEvent.change(input(), {
      target: { files: [new File(['name: x'], 'profile.txt', { type: 'text/plain' })] },
    });
    expect(await screen.findByText(hybrikMessages.jsonOnly)).toBeInTheDocument();
    fireEvent.change(input(), {
      target: {
        files: [new File(['x'.repeat(HYBRIK_PROFILE_MAX_BYTES)], 'big.json', { type: 'application/json' })],
      },
    });
    expect(await screen.findByText(hybrikMessages.tooLarge)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);

    fireEvent.change(input(), {
      target: { files: [new File(['{"name":"x"}'], 'small.json', { type: 'application/json' })] },
    });
    expect(await screen.findByText(hybrikMessages.profileUploaded)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      '/api/hybrik/profiles',
    ]);
  });

  it('deletes a profile after a confirmation, and says so when the delete fails', async () => {
    const calls = stubHybrik({
      [`DELETE /api/hybrik/profiles/${PROFILE_ID}`]: {
        status: 400,
        body: { message: 'The bucket answered 503' },
      },
    });
    const { user } = renderAt('/hybrik');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    await user.click(await screen.findByRole('button', { name: 'Delete Small MP4' }));
    expect(await screen.findByText('Delete the profile Small MP4?')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    // The delete fails: the page says so in the spec's words.
    expect(await screen.findByText(hybrikMessages.profileDeleteFailed)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      `/api/hybrik/profiles/${PROFILE_ID}`,
    ]);
  });

  it('lets a User see the settings without changing them', async () => {
    stubHybrik({}, { role: { id: 3, title: 'User' } });
    const { user } = renderAt('/hybrik');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    expect(
      await screen.findByText('Only an Owner or an Admin can change the output bucket or the profiles.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Delete Small MP4' })).toBeDisabled();
  });
});
