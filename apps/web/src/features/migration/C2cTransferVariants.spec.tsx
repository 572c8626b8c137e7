import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, C2C_TYPE, transferMessages, type CloudAccountView } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';
import { migrationTexts } from './migration-texts.ts';
import {
  AWS_ID,
  WASABI_ID,
  accounts,
  listingHandlers,
  pick,
  selectedValue,
  startedAnswer,
} from './migration-test-kit.ts';
import { transferScreenStore } from './transfer-screen-store.ts';

const confirmedProfile = () =>
  buildProfile({ organization: { ...buildProfile().organization, confirmed_c2c: true } });

function stubScreen(accountList: CloudAccountView[] = accounts) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: confirmedProfile() },
    'GET /api/cloud_accounts/': { status: 200, body: accountList },
    ...listingHandlers(),
    'POST /api/c2c/moveaws': { status: 201, body: startedAnswer() },
    'POST /api/c2c/moveWasabi': { status: 201, body: startedAnswer() },
  });
}

/** The options the labelled select offers, by their titles. */
async function optionsOf(user: ReturnType<typeof renderAt>['user'], label: string): Promise<string[]> {
  await user.click(await screen.findByRole('combobox', { name: label }));
  return waitFor(() => {
    const dropdown = Array.from(document.querySelectorAll<HTMLElement>('.ant-select-dropdown')).findLast(
      (element) => !element.className.includes('ant-select-dropdown-hidden'),
    );
    const titles = Array.from(dropdown?.querySelectorAll('.ant-select-item-option') ?? []).map(
      (option) => option.getAttribute('title') ?? '',
    );
    if (titles.length === 0) throw new Error(`no options of ${label} yet`);
    return titles;
  });
}

const destination = () => screen.getByRole('region', { name: 'Destination files' });

describe('/prod2, /prod3 and /wasabic2c: the two-panel transfer screen (fetch stubbed with vi.stubGlobal)', () => {
  beforeAll(async () => {
    await import('./C2cTransferPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    for (const variant of ['prod2', 'prod3', 'wasabic2c']) transferScreenStore(variant).reset(null);
  });

  it.each(['/prod2', '/prod3'])('%s is "Cloud to Cloud Transfers" with both panels', async (url) => {
    stubScreen();
    const { user } = renderAt(url);

    expect(await screen.findByRole('heading', { name: 'Cloud to Cloud Transfers' })).toBeInTheDocument();
    expect(document.title).toContain('Cloud to Cloud Transfers');
    expect(screen.getByText('Step 1: Select Source')).toBeInTheDocument();
    expect(screen.getByText('Step 2: Select Destination')).toBeInTheDocument();
    expect(screen.queryByText(/coming soon/i)).toBeNull();
    // Any account of the organisation may be either side here.
    expect(await optionsOf(user, 'Destination Account')).toEqual(['Main AWS', 'Cold Wasabi']);
  });

  it('/wasabic2c opens on the first Wasabi account as the destination and copies into it', async () => {
    const secondWasabi = buildCloudAccount({
      id: 'c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
      name: 'Second Wasabi',
      provider: 'wasabi',
      storages: [buildBucket({ name: 'spare', cloud_account_id: 'c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e0f' })],
    });
    const calls = stubScreen([...accounts, secondWasabi]);
    const { user } = renderAt('/wasabic2c');

    expect(
      await screen.findByRole('heading', { name: 'Wasabi Cloud to Cloud Transfers' }),
    ).toBeInTheDocument();
    expect(document.title).toContain('Wasabi Cloud to Cloud Transfers');
    // Preselected: the organisation's first Wasabi account, its first bucket listed.
    await waitFor(() => expect(selectedValue('Destination Account')).toBe('Cold Wasabi'));
    expect(selectedValue('Destination Bucket')).toBe('archive');
    expect(await within(destination()).findByText('old.txt')).toBeInTheDocument();
    // The destination offers the Wasabi accounts only; the source, every account.
    expect(await optionsOf(user, 'Destination Account')).toEqual(['Cold Wasabi', 'Second Wasabi']);
    await user.keyboard('{Escape}');

    await pick(user, 'Source Account', 'Main AWS');
    const source = await screen.findByRole('region', { name: 'Source files' });
    await user.click(await within(source).findByRole('checkbox', { name: 'Select clip.mp4' }));
    await user.click(screen.getByRole('button', { name: 'Copy' }));

    expect(await screen.findByText(transferMessages.enqueued)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/c2c/moveWasabi')?.body).toEqual({
      files: [{ path: 'clip.mp4', bucket_name: 'photos' }],
      cloud_id: AWS_ID,
      type: C2C_TYPE.copy,
      destination: { cloud_id: WASABI_ID, bucket_name: 'archive', path: '' },
      skip_active: false,
    });
  });

  it('/wasabic2c without a Wasabi account offers to add one in the destination panel', async () => {
    stubScreen(accounts.filter((account) => account.provider !== 'wasabi'));
    const { user, location } = renderAt('/wasabic2c');

    expect(await screen.findByText(migrationTexts.noWasabiAccount)).toBeInTheDocument();
    expect(selectedValue('Destination Account')).toBeNull();
    await user.click(screen.getByRole('link', { name: 'Add a Wasabi account' }));
    await waitFor(() => expect(location()).toBe('/addProvider/wasabi'));
  });
});
