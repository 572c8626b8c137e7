import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, PROVIDER_NAMES, accountFormMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildCloudAccount } from './build-cloud-account.ts';

const WASABI_DISABLED =
  'Creating new Wasabi accounts needs a Wasabi partner (Account Control API) key. An administrator enables it.';

function accessInfo(overrides: object = {}): FakeReply {
  return {
    status: 200,
    body: {
      userType: 4,
      providers: [...PROVIDER_NAMES],
      wasabi_create: { enabled: false, message: WASABI_DISABLED },
      ...overrides,
    },
  };
}

function world(extra: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {}, role = 'Owner') {
  return stubApi({
    'GET /api/users/_me': {
      status: 200,
      body: buildProfile({ role: { id: role === 'User' ? 3 : 1, title: role as 'Owner' } }),
    },
    'GET /api/cloud_accounts/access_info': accessInfo(),
    'GET /api/cloud_accounts/': { status: 200, body: [] },
    ...extra,
  });
}

/** Pastes a value into a field (one change, as from the clipboard): keeps these long flows fast under load. */
async function fill(user: ReturnType<typeof renderAt>['user'], field: HTMLElement, value: string) {
  await user.click(field);
  await user.paste(value);
}

function awsAccountCreated() {
  return buildCloudAccount({ name: 'Media archive', project_name: 'Media archive' });
}

/** The answers of the aws connect flow: insert, the account's live buckets and the billing bucket update. */
function awsFlowAnswers(created: ReturnType<typeof buildCloudAccount>): Record<string, FakeReply> {
  return {
    'POST /api/cloudaccount/insert': { status: 201, body: created },
    'POST /api/cloudaccount/list_buckets': {
      status: 200,
      body: [
        { name: 'billing-reports', region: 'us-east-1', creationDate: null },
        { name: 'media', region: 'us-east-1', creationDate: null },
      ],
    },
    [`PUT /api/cloud_accounts/${created.id}/update_billing_report_bucket`]: {
      status: 200,
      body: { ...created, billing_bucket: 'billing-reports' },
    },
  };
}

describe('Set Up a New Cloud Provider (network stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    // Load the lazy route's modules once up front, so the first test does not spend its wait on transforming them.
    await Promise.all([import('./AddProviderPage.tsx'), import('../../app/AppLayout.tsx')]);
  });

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('connects an aws account once the fields are counted, then offers the billing bucket step', async () => {
    const created = awsAccountCreated();
    const calls = world(awsFlowAnswers(created));
    const { user } = renderAt('/addProvider');

    expect(await screen.findByRole('heading', { name: 'Set Up a New Cloud Provider' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Close' })).toHaveAttribute('href', '/');
    await user.click(await screen.findByRole('button', { name: 'Amazon S3' }));

    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    // The name's message appears only once the field was touched.
    expect(screen.queryByText(accountFormMessages.name)).not.toBeInTheDocument();
    await user.click(screen.getByLabelText('Name'));
    await user.tab();
    expect(await screen.findByText(accountFormMessages.name)).toBeInTheDocument();

    await fill(user, screen.getByLabelText('Name'), 'Media archive');
    await fill(user, screen.getByLabelText('Access Key'), 'AKIAEXAMPLE');
    expect(save).toBeDisabled();
    await fill(user, screen.getByLabelText('Secret Key'), 'wJalrXUtnFEMI');
    expect(save).toBeEnabled();
    await user.click(save);

    expect(await screen.findByText('Media archive added successfully')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/cloudaccount/insert')?.body).toEqual({
      cloudType: 1,
      name: 'Media archive',
      accessKey: 'AKIAEXAMPLE',
      secretKey: 'wJalrXUtnFEMI',
    });
    // Step 3: the billing bucket, chosen among the account's live buckets.
    expect(await screen.findByRole('heading', { name: 'Set Up Billing Bucket' })).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/cloudaccount/list_buckets')?.body).toEqual({ id: created.id });
    expect(screen.getByRole('button', { name: 'Save and Connect' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Skip this Step' })).toBeEnabled();
  });

  it("Save and Connect stores the billing bucket and 'Go To Cloud Page' leads to /cloudproviders", async () => {
    const created = awsAccountCreated();
    const calls = world(awsFlowAnswers(created));
    const { user, location } = renderAt('/addProvider/aws');

    await fill(user, await screen.findByLabelText('Name'), 'Media archive');
    await fill(user, screen.getByLabelText('Access Key'), 'AKIAEXAMPLE');
    await fill(user, screen.getByLabelText('Secret Key'), 'wJalrXUtnFEMI');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await user.click(await screen.findByLabelText('Billing bucket'));
    await user.click(await screen.findByTitle('billing-reports'));
    await user.click(screen.getByRole('button', { name: 'Save and Connect' }));

    const modal = await screen.findByRole('dialog', { name: 'Connecting to Billing Bucket' });
    expect(within(modal).getByText('Your AWS billing information is being populated')).toBeInTheDocument();
    expect(
      calls.find((c) => c.path === `/api/cloud_accounts/${created.id}/update_billing_report_bucket`)?.body,
    ).toEqual({ billing_bucket: 'billing-reports' });
    await user.click(within(modal).getByRole('button', { name: 'Go To Cloud Page' }));
    await waitFor(() => expect(location()).toBe('/cloudproviders'));
  });

  it("'Skip this Step' leaves the billing bucket unset and goes to /", async () => {
    const created = awsAccountCreated();
    const calls = world(awsFlowAnswers(created));
    const { user, location } = renderAt('/addProvider/aws');

    await fill(user, await screen.findByLabelText('Name'), 'Media archive');
    await fill(user, screen.getByLabelText('Access Key'), 'AKIAEXAMPLE');
    await fill(user, screen.getByLabelText('Secret Key'), 'wJalrXUtnFEMI');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await user.click(await screen.findByRole('button', { name: 'Skip this Step' }));

    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.some((c) => c.path.endsWith('/update_billing_report_bucket'))).toBe(false);
  });

  it("shows 'Something Went Wrong' with the provider's message when the credentials are refused", async () => {
    world({
      'POST /api/cloudaccount/insert': {
        status: 400,
        body: { message: 'The AWS Access Key Id you provided does not exist in our records.' },
      },
    });
    const { user } = renderAt('/addProvider/aws');

    await fill(user, await screen.findByLabelText('Name'), 'Prod');
    await fill(user, screen.getByLabelText('Access Key'), 'AKIAWRONG');
    await fill(user, screen.getByLabelText('Secret Key'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const modal = await screen.findByRole('dialog', { name: 'Something Went Wrong' });
    expect(
      within(modal).getByText('The AWS Access Key Id you provided does not exist in our records.'),
    ).toBeInTheDocument();
    // The shared 400 'Error' modal stays closed: the screen reports this failure itself.
    expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument();
  });

  it('keeps Save disabled for generic S3 with signature V2 and says why', async () => {
    const calls = world({
      'POST /api/cloudaccount/insert': { status: 201, body: buildCloudAccount({ provider: 'genericS3' }) },
    });
    const { user } = renderAt('/addProvider/genericS3');

    await fill(user, await screen.findByLabelText('Name'), 'Minio');
    await fill(user, screen.getByLabelText('Access Key'), 'minio');
    await fill(user, screen.getByLabelText('Secret Key'), 'minio123');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await fill(user, screen.getByLabelText('Service URL'), 'https://minio.example.com');
    expect(save).toBeEnabled();

    await user.click(screen.getByRole('button', { name: /Advanced/ }));
    await user.click(await screen.findByRole('radio', { name: 'V2' }));
    expect(await screen.findByText('Signature V2 is not supported; use V4')).toBeInTheDocument();
    expect(save).toBeDisabled();

    await user.click(screen.getByRole('radio', { name: 'V4' }));
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/api/cloudaccount/insert')?.body).toEqual({
        cloudType: 8,
        name: 'Minio',
        accessKey: 'minio',
        secretKey: 'minio123',
        serviceUrl: 'https://minio.example.com',
        signatureVersion: 'v4',
      }),
    );
  });

  it('selecting a provider clears the form', async () => {
    world();
    const { user } = renderAt('/addProvider/aws');

    await fill(user, await screen.findByLabelText('Name'), 'Half typed');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await user.click(await screen.findByRole('button', { name: 'Azure Blob' }));

    expect(screen.getByLabelText('Name')).toHaveValue('');
    expect(screen.getByLabelText('Storage account name')).toBeInTheDocument();
    expect(screen.getByLabelText('Account key')).toBeInTheDocument();
  });

  it("the Wasabi 'Create New Account' tab explains how to enable it when it is off", async () => {
    world();
    const { user } = renderAt('/addProvider/wasabi');

    expect(await screen.findByRole('tab', { name: 'Connect Existing Account' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(screen.getByLabelText('Region')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'Create New Account' }));

    expect(await screen.findByText(WASABI_DISABLED)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create Account' })).not.toBeInTheDocument();
  });

  it('users whose plan allows only Wasabi see only the Wasabi card', async () => {
    world({ 'GET /api/cloud_accounts/access_info': accessInfo({ userType: 1, providers: ['wasabi'] }) });
    renderAt('/addProvider');

    const cards = within(await screen.findByRole('group', { name: 'Cloud providers' })).getAllByRole(
      'button',
    );
    expect(cards.map((card) => card.getAttribute('aria-label'))).toEqual(['Wasabi']);
  });

  it('onboarding: a first azure account goes on to /onboard/firstAccount', async () => {
    const calls = world({
      'POST /api/cloudaccount/insert': {
        status: 201,
        body: buildCloudAccount({ provider: 'azure', name: 'Blobs' }),
      },
    });
    const { user, location } = renderAt('/onboard/azure');

    await fill(user, await screen.findByLabelText('Name'), 'Blobs');
    await fill(user, screen.getByLabelText('Storage account name'), 'mediastore');
    await fill(user, screen.getByLabelText('Account key'), 'a2V5');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Blobs added successfully')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/onboard/firstAccount'));
    expect(await screen.findByText('Your first cloud account is connected')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/cloudaccount/insert')?.body).toEqual({
      cloudType: 4,
      name: 'Blobs',
      accessKey: 'mediastore',
      secretKey: 'a2V5',
    });
  });

  it('edit mode changes only the name (PUT with project_name); credentials stay masked', async () => {
    const account = buildCloudAccount({ provider: 'wasabi', name: 'Archive', billing_bucket: null });
    const calls = world({
      'GET /api/cloud_accounts/': { status: 200, body: [account] },
      [`PUT /api/cloud_accounts/${account.id}`]: { status: 200, body: { ...account, name: 'Cold archive' } },
    });
    const { user, location } = renderAt(`/addProvider/wasabi/${account.id}`);

    const name = await screen.findByLabelText('Name');
    expect(name).toHaveValue('Archive');
    expect(screen.getByLabelText('Access Key')).toBeDisabled();
    expect(screen.getByLabelText('Access Key')).toHaveValue('••••WXYZ');
    expect(screen.getByLabelText('Secret Key')).toBeDisabled();
    expect(screen.getByText('Wasabi')).toBeInTheDocument();

    await user.clear(name);
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    await fill(user, name, 'Cold archive');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      cloud_account: { project_name: 'Cold archive' },
    });
  });

  it('edit mode of an aws account can change the billing bucket', async () => {
    const account = buildCloudAccount({ provider: 'aws', name: 'Prod', billing_bucket: null });
    const calls = world({
      'GET /api/cloud_accounts/': { status: 200, body: [account] },
      'POST /api/cloudaccount/list_buckets': {
        status: 200,
        body: [{ name: 'cur-reports', region: 'us-east-1', creationDate: null }],
      },
      [`PUT /api/cloud_accounts/${account.id}`]: {
        status: 200,
        body: { ...account, billing_bucket: 'cur-reports' },
      },
    });
    const { user, location } = renderAt(`/addProvider/aws/${account.id}`);

    await user.click(await screen.findByLabelText('Billing bucket'));
    await user.click(await screen.findByTitle('cur-reports'));
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Prod updated successfully')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      cloud_account: { project_name: 'Prod', billing_bucket: 'cur-reports' },
    });
  });

  it('google reads the service-account key from a picked .json file', async () => {
    const key = '{"type":"service_account","project_id":"media-412"}';
    const calls = world({
      'POST /api/cloudaccount/insert': {
        status: 201,
        body: buildCloudAccount({ provider: 'google', name: 'GCS' }),
      },
    });
    const { user, container, location } = renderAt('/addProvider/google');

    await fill(user, await screen.findByLabelText('Name'), 'GCS');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    const picker = container.querySelector<HTMLInputElement>('input[type="file"]');
    expect(picker).not.toBeNull();
    if (picker) await user.upload(picker, new File([key], 'key.json', { type: 'application/json' }));

    await waitFor(() => expect(screen.getByLabelText('Service Account Key (JSON)')).toHaveValue(key));
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.path === '/api/cloudaccount/insert')?.body).toEqual({
      cloudType: 16,
      name: 'GCS',
      credentialsData: key,
    });
  });

  it('backblaze uses the legacy create call and needs its region', async () => {
    const calls = world({
      'POST /api/cloud_accounts/': {
        status: 201,
        body: buildCloudAccount({ provider: 'backblaze', name: 'B2' }),
      },
    });
    const { user, location } = renderAt('/addProvider/backblaze');

    await fill(user, await screen.findByLabelText('Name'), 'B2');
    await fill(user, screen.getByLabelText('Access Key'), '004abc');
    await fill(user, screen.getByLabelText('Secret Key'), 'K004xyz');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await fill(user, screen.getByLabelText('Region'), 'us-west-004');
    await user.click(save);

    expect(await screen.findByText('B2 added successfully')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((c) => c.path === '/api/cloud_accounts/' && c.method === 'POST')?.body).toEqual({
      cloud_account: {
        account_type_id: 6,
        project_name: 'B2',
        info: { access_key: '004abc', secret_key: 'K004xyz', region: 'us-west-004' },
      },
    });
  });

  it("edit mode of an unknown id shows 'Cloud account not found'", async () => {
    world();
    renderAt('/addProvider/aws/0d6f5c0e-0000-4000-8000-000000000000');

    expect(await screen.findByText('Cloud account not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to the dashboard' })).toHaveAttribute('href', '/');
  });

  it('a member with role User is told that only Owners and Admins connect accounts', async () => {
    world({}, 'User');
    renderAt('/addProvider/aws');

    expect(await screen.findByText('Only Owners and Admins can connect cloud accounts.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Access Key')).not.toBeInTheDocument();
  });
});
