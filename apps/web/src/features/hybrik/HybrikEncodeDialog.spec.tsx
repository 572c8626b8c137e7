import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, hybrikMessages, type HybrikJob } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { HybrikEncodeDialog } from './HybrikEncodeDialog.tsx';

const AWS_ID = '5b0c3a1e-0000-4000-8000-00000000a001';
const PROFILE_ID = '5b0c3a1e-0000-4000-8000-00000000b001';

const created: HybrikJob = {
  id: 'job-1',
  name: 'Small MP4',
  profile_id: PROFILE_ID,
  status: 'queued',
  creation_time: '2026-11-20T10:00:00.000Z',
  end_time: null,
  progress: 0,
  error: null,
  outputs: [],
};

function renderDialog(createReply: FakeReply) {
  const onClose = vi.fn();
  const calls = stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile({ packages: [{ title: 'Hybrik' }] }) },
    'GET /api/hybrik/profiles': {
      status: 200,
      body: [
        {
          id: PROFILE_ID,
          name: 'Small MP4',
          created_at: created.creation_time,
          definitions: {},
          object: 's3://h/p.json',
        },
      ],
    },
    'GET /api/hybrik/settings': {
      status: 200,
      body: { hybrik_profiles_bucket: { cloud_account_id: AWS_ID, bucket_name: 'renders', path: 'out/' } },
    },
    'POST /api/hybrik/jobs': createReply,
  });
  const view = renderAt('/', [
    {
      path: '/',
      element: (
        <HybrikEncodeDialog
          open
          files={[{ accountId: AWS_ID, bucket: 'media', path: 'clips/clip.mp4', name: 'clip.mp4' }]}
          onClose={onClose}
        />
      ),
    },
  ]);
  return { ...view, calls, onClose };
}

async function startWithProfile(user: ReturnType<typeof renderDialog>['user']) {
  const dialog = await screen.findByRole('dialog', { name: 'Transcode (Hybrik)' });
  expect(within(dialog).getByText(/clip\.mp4 will be transcoded/)).toBeInTheDocument();
  expect(await within(dialog).findByText('Outputs go to renders/out/')).toBeInTheDocument();
  await user.click(within(dialog).getByRole('combobox', { name: 'Profile' }));
  await user.click(await screen.findByTitle('Small MP4'));
  await user.click(within(dialog).getByRole('button', { name: 'Start' }));
}

describe('the hybrik-encode dialog (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));
  afterEach(() => vi.unstubAllGlobals());

  it('runs the chosen profile on the selected file into the output bucket, and says the job was created', async () => {
    const { user, calls, onClose } = renderDialog({
      status: 200,
      body: { message: hybrikMessages.jobCreated, job: created },
    });
    await startWithProfile(user);
    expect(await screen.findByText(hybrikMessages.jobCreated)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      profile_id: PROFILE_ID,
      cloud_account_id: AWS_ID,
      definitions: { source: 's3://media/clips/clip.mp4', destination: 's3://renders/out/' },
    });
    expect(onClose).toHaveBeenCalled();
  });

  it('says the job could not start, with the reason, and stays open', async () => {
    const reason =
      'The element kind "watermark" is not supported; Cumulo runs source, transcode and copy elements.';
    const { user, onClose } = renderDialog({ status: 400, body: { message: reason } });
    await startWithProfile(user);
    expect(await screen.findByText(hybrikMessages.jobFailed)).toBeInTheDocument();
    expect(screen.getByText(reason)).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });
});
