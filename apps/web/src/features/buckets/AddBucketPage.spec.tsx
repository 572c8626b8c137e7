import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  bucketMessages,
  bucketNameMessages,
  type CloudAccountView,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildCloudAccount } from '../providers/build-cloud-account.ts';

const AWS_ID = '1b3c7a10-8f2e-4c55-9d1a-5e0f7a9b2c01';
const WASABI_ID = '2c4d8b21-9a3f-4d66-8e2b-6f1a8b0c3d02';

function storage(accountId: string, bucket: string): CloudAccountView['storages'][number] {
  return {
    id: `${accountId}/${bucket}`,
    name: bucket,
    bucket_name: bucket,
    region: 'us-east-1',
    creationDate: null,
    size: 0,
    object_count: 0,
    cost: 0,
    cloud_account_id: accountId,
    inventory_status: 'done',
    inventoried_at: null,
  };
}

const awsAccount = buildCloudAccount({
  id: AWS_ID,
  name: 'Production',
  provider: 'aws',
  storages: [storage(AWS_ID, 'photos'), storage(AWS_ID, 'logs')],
});
const wasabiAccount = buildCloudAccount({ id: WASABI_ID, name: 'Archive', provider: 'wasabi' });
const azureAccount = buildCloudAccount({
  id: '3d5e9c32-0b4a-4e77-9f3c-7a2b9c1d4e03',
  name: 'Blobs',
  provider: 'azure',
});

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function world(extra: Record<string, Handler> = {}) {
  const free: Handler = { status: 200, body: { exists: false, message: null } };
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/cloud_accounts/': { status: 200, body: [awsAccount, wasabiAccount, azureAccount] },
    [`GET /api/cloud_accounts/${AWS_ID}/storages/exists`]: free,
    [`GET /api/cloud_accounts/${WASABI_ID}/storages/exists`]: free,
    ...extra,
  });
}

function created(name: string, warning: string | null = null): FakeReply {
  return {
    status: 201,
    body: {
      message: bucketMessages.created(name),
      bucket_name: name,
      region: 'us-east-1',
      copied: [],
      warning,
    },
  };
}

/** Pastes a value into a field (one change, as from the clipboard): keeps these long flows fast under load. */
async function fill(user: ReturnType<typeof renderAt>['user'], field: HTMLElement, value: string) {
  await user.click(field);
  await user.paste(value);
}

describe('Create New Bucket (network stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    // Load the lazy route's modules once up front, so the first test does not spend its wait on transforming them.
    await Promise.all([import('./AddBucketPage.tsx'), import('../../app/AppLayout.tsx')]);
  });

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows the message of each broken name rule and checks only valid names with the server', async () => {
    const calls = world();
    const { user } = renderAt(`/addBucket/wasabi/${WASABI_ID}`);

    const name = await screen.findByLabelText('Bucket name');
    expect(screen.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/');
    await fill(user, name, 'Ab..c-');
    const problems = await screen.findByRole('list', { name: 'Bucket name problems' });
    expect(
      within(problems)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      bucketNameMessages.uppercase,
      bucketNameMessages.start,
      bucketNameMessages.adjacentPeriods,
      bucketNameMessages.end,
    ]);
    expect(screen.getByRole('button', { name: 'Create Bucket' })).toBeDisabled();

    await user.clear(name);
    expect(await screen.findByText(bucketNameMessages.required)).toBeInTheDocument();
    await fill(user, name, '192.168.1.1');
    expect(await screen.findByText(bucketNameMessages.ipAddress)).toBeInTheDocument();
    await user.clear(name);
    await fill(user, name, 'a-.b');
    expect(await screen.findByText(bucketNameMessages.dashNextToPeriod)).toBeInTheDocument();
    await user.clear(name);
    await fill(user, name, 'ab_c');
    expect(await screen.findByText(bucketNameMessages.invalidCharacters)).toBeInTheDocument();
    await user.clear(name);
    await fill(user, name, 'ab');
    expect(await screen.findByText(bucketNameMessages.length)).toBeInTheDocument();

    await user.type(name, 'c');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create Bucket' })).toBeEnabled());
    const checks = calls.filter((c) => c.path.endsWith('/storages/exists'));
    expect(checks.map((c) => new URLSearchParams(c.search).get('bucket_name'))).toEqual(['abc']);
    expect(new URLSearchParams(checks[0]?.search).get('account_type')).toBe('wasabi');
  });

  it("says 'Bucket with same name exist' for a taken name and keeps Create Bucket disabled", async () => {
    world({
      [`GET /api/cloud_accounts/${WASABI_ID}/storages/exists`]: {
        status: 200,
        body: { exists: true, message: 'Bucket with same name exist' },
      },
    });
    const { user } = renderAt(`/addBucket/wasabi/${WASABI_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'taken-name');
    expect(await screen.findByText('Bucket with same name exist')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create Bucket' })).toBeDisabled();
  });

  it('aws Manage Users: a user needs an ID or e-mail and a permission; saved users can be removed', async () => {
    world();
    const { user } = renderAt(`/addBucket/aws/${AWS_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'media-2025');
    const next = screen.getByRole('button', { name: 'Next' });
    await waitFor(() => expect(next).toBeEnabled());
    await user.click(next);

    await user.click(await screen.findByRole('button', { name: 'Save User' }));
    expect(screen.getByText(bucketMessages.userRequired)).toBeInTheDocument();
    expect(screen.getByText(bucketMessages.permissionRequired)).toBeInTheDocument();
    await fill(user, screen.getByLabelText('User ID or e-mail'), 'ops@example.com');
    await user.click(screen.getByRole('checkbox', { name: 'READ' }));
    await user.click(screen.getByRole('checkbox', { name: 'WRITE' }));
    await user.click(screen.getByRole('button', { name: 'Save User' }));
    await fill(user, screen.getByLabelText('User ID or e-mail'), 'temp@example.com');
    await user.click(screen.getByRole('checkbox', { name: 'READ_ACP' }));
    await user.click(screen.getByRole('button', { name: 'Save User' }));

    const table = screen.getByRole('table');
    expect(within(table).getByText('ops@example.com')).toBeInTheDocument();
    expect(within(table).getByText('READ, WRITE')).toBeInTheDocument();
    expect(within(table).getByText('temp@example.com')).toBeInTheDocument();
    await user.click(within(table).getByLabelText('Remove temp@example.com'));
    expect(within(table).queryByText('temp@example.com')).not.toBeInTheDocument();
    expect(screen.queryByText(bucketMessages.userRequired)).not.toBeInTheDocument();
  });

  it('aws: the create call carries the region, copied settings, users and permissions', async () => {
    const calls = world({ [`POST /api/cloud_accounts/${AWS_ID}/storages`]: created('media-2025') });
    const { user, location } = renderAt(`/addBucket/aws/${AWS_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'media-2025');
    await user.click(screen.getByLabelText('Region'));
    await user.click(await screen.findByTitle('us-west-2'));
    await user.click(screen.getByLabelText('Copy settings from an existing bucket'));
    await user.click(await screen.findByTitle('photos'));
    const next = screen.getByRole('button', { name: 'Next' });
    await waitFor(() => expect(next).toBeEnabled());
    await user.click(next);

    await fill(user, await screen.findByLabelText('User ID or e-mail'), 'ops@example.com');
    await user.click(screen.getByRole('checkbox', { name: 'READ' }));
    await user.click(screen.getByRole('checkbox', { name: 'WRITE' }));
    await user.click(screen.getByRole('button', { name: 'Save User' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));

    await user.click(await screen.findByRole('checkbox', { name: 'Public: READ' }));
    await user.click(screen.getByRole('button', { name: 'Create Bucket' }));

    expect(await screen.findByText(bucketMessages.created('media-2025'))).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      bucket_name: 'media-2025',
      region: 'us-west-2',
      account_type: 'aws',
      config_bucket: 'photos',
      users: [
        {
          user: 'ops@example.com',
          permissions: { READ: true, WRITE: true, READ_ACP: false, WRITE_ACP: false },
        },
      ],
      public: { permissions: { READ: true } },
      system: { permissions: { READ: false } },
    });
  });

  it('wasabi skips Manage Users: Create Bucket is on the name step, in a Wasabi region', async () => {
    const calls = world({ [`POST /api/cloud_accounts/${WASABI_ID}/storages`]: created('cold-storage') });
    const { user, location } = renderAt(`/addBucket/wasabi/${WASABI_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'cold-storage');
    expect(screen.queryByText('Manage Users')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Next' })).not.toBeInTheDocument();
    await user.click(screen.getByLabelText('Region'));
    expect(await screen.findByTitle('eu-central-1')).toBeInTheDocument();
    expect(screen.queryByTitle('ap-south-1')).not.toBeInTheDocument();
    await user.click(screen.getByTitle('eu-central-1'));

    const create = screen.getByRole('button', { name: 'Create Bucket' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);

    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      bucket_name: 'cold-storage',
      region: 'eu-central-1',
      account_type: 'wasabi',
      config_bucket: null,
      users: [],
    });
  });

  it('shows the first server error as a banner above the form, and no shared Error modal', async () => {
    world({
      [`POST /api/cloud_accounts/${WASABI_ID}/storages`]: {
        status: 400,
        body: {
          message: 'Invalid request',
          errors: { region: ['The region eu-central-1 is not enabled for this account.'] },
        },
      },
    });
    const { user, location } = renderAt(`/addBucket/wasabi/${WASABI_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'cold-storage');
    const create = screen.getByRole('button', { name: 'Create Bucket' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);

    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent('The region eu-central-1 is not enabled for this account.');
    expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument();
    expect(location()).toBe(`/addBucket/wasabi/${WASABI_ID}`);
  });

  it('keeps a warning of the answer on screen until the user continues', async () => {
    const warning = bucketMessages.aclUnsupported('wasabi');
    world({ [`POST /api/cloud_accounts/${WASABI_ID}/storages`]: created('cold-storage', warning) });
    const { user, location } = renderAt(`/addBucket/wasabi/${WASABI_ID}`);

    await fill(user, await screen.findByLabelText('Bucket name'), 'cold-storage');
    const create = screen.getByRole('button', { name: 'Create Bucket' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);

    expect(await screen.findByText(warning)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(location()).toBe('/'));
  });

  it('explains that only AWS and Wasabi accounts can create buckets here', async () => {
    world();
    renderAt(`/addBucket/azure/${azureAccount.id}`);

    expect(
      await screen.findByText('Bucket creation is offered only for AWS and Wasabi accounts.'),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Bucket name')).not.toBeInTheDocument();
  });
});
