import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, PROVIDER_NAMES } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from './account-factories.ts';

const account = buildCloudAccount({
  id: 'wasabi-1',
  name: 'Cold storage',
  provider: 'wasabi',
  storages: [buildBucket({ name: 'backup', cloud_account_id: 'wasabi-1' })],
});

describe('Cloud Providers page', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('offers the provider icons, the add button, price comparison and the account list', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: [account] },
      'GET /api/cloud_accounts/access_info': {
        status: 200,
        body: { userType: 4, providers: PROVIDER_NAMES },
      },
    });
    const { user, location, router } = renderAt('/cloudproviders');

    expect(await screen.findByRole('heading', { name: 'Cloud Providers' })).toBeInTheDocument();
    const shortcuts = await screen.findByRole('navigation', { name: 'Add a provider' });
    expect(
      within(shortcuts)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual([
      '/addProvider/aws',
      '/addProvider/wasabi',
      '/addProvider/azure',
      '/addProvider/backblaze',
      '/addProvider/genericS3',
    ]);
    expect(await screen.findByRole('button', { name: 'Cold storage' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Add Your Cloud Account' }));
    await waitFor(() => expect(location()).toBe('/addProvider/wasabi'));

    await router.navigate('/cloudproviders');
    await user.click(await screen.findByRole('button', { name: 'Compare storage prices' }));
    await waitFor(() => expect(location()).toBe('/cloud-compare/0'));
  });

  it('shows a User the list and the comparison, without the ways to add an account', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
      'GET /api/cloud_accounts/': { status: 200, body: [account] },
    });
    renderAt('/cloudproviders');

    expect(await screen.findByRole('button', { name: 'Cold storage' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Compare storage prices' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add Your Cloud Account' })).toBeNull();
    expect(screen.queryByRole('navigation', { name: 'Add a provider' })).toBeNull();
  });

  it('keeps an Owner without accounts on the page, with the empty text', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: [] },
      'GET /api/cloud_accounts/access_info': { status: 200, body: { userType: 1, providers: ['wasabi'] } },
    });
    const { location } = renderAt('/cloudproviders');

    expect(await screen.findByText('You currently have no cloud accounts connected')).toBeInTheDocument();
    expect(location()).toBe('/cloudproviders');
    // Only the providers this user may add get an icon.
    const shortcuts = await screen.findByRole('navigation', { name: 'Add a provider' });
    expect(
      within(shortcuts)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/addProvider/wasabi']);
  });
});
