import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  EGRESS_PER_GB,
  formatUsd,
  monthlyStorageCostGb,
  type STORAGE_PRICE_TIERS,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { GB, buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

type Table = keyof typeof STORAGE_PRICE_TIERS;

/** The row of the price table a user reads for one provider, as the contract prices it. */
function expectedRow(table: Table, gb: number): string[] {
  const storage = monthlyStorageCostGb(table, gb);
  const egress = EGRESS_PER_GB[table] * gb;
  return [formatUsd(storage), formatUsd(egress), formatUsd(storage + egress)];
}

function rowFor(label: string): string[] {
  const priceTable = screen.getByRole('table');
  const row = within(priceTable)
    .getByText(label, { selector: 'span:not([role="img"])' })
    .closest('tr') as HTMLElement;
  // Provider, price per GB, storage / month, egress, total.
  return within(row)
    .getAllByRole('cell')
    .slice(2)
    .map((cell) => cell.textContent ?? '');
}

const LABELS: Array<[string, Table]> = [
  ['Wasabi', 'wasabi'],
  ['Azure', 'azure'],
  ['S3', 'aws'],
  ['Google', 'google'],
];

function expectPricesFor(gb: number) {
  for (const [label, table] of LABELS) expect(rowFor(label)).toEqual(expectedRow(table, gb));
}

describe('Cloud compare page', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('starts at 1 TB for /cloud-compare/0 and recomputes when the size or unit changes', async () => {
    stubApi({ 'GET /api/users/_me': { status: 200, body: buildProfile() } });
    const { user } = renderAt('/cloud-compare/0');

    expect(await screen.findByRole('heading', { name: 'Cloud Price Comparison' })).toBeInTheDocument();
    const size = screen.getByLabelText('Size');
    expect(size).toHaveValue('1');
    expect(screen.getByText('Prices for 1 TB stored for one month.')).toBeInTheDocument();
    for (const header of ['Price per GB', 'Storage / month', 'Egress', 'Total']) {
      expect(screen.getByRole('columnheader', { name: header })).toBeInTheDocument();
    }
    expect(within(screen.getByRole('table')).getByText('$0.0049')).toBeInTheDocument();
    expect(within(screen.getByRole('table')).getByText('$0.0230')).toBeInTheDocument();
    expectPricesFor(1024);
    expect(
      screen.getByText(
        'Each bar stacks the monthly storage cost and the egress cost of downloading the same amount once.',
      ),
    ).toBeInTheDocument();

    await user.clear(size);
    await user.type(size, '75');
    await waitFor(() => expectPricesFor(75 * 1024));
    // 75 TB crosses the first 50 TB tier of S3 and Azure.
    expect(rowFor('S3')[0]).toBe(formatUsd(50 * 1024 * 0.023 + 25 * 1024 * 0.022));

    await user.click(screen.getByRole('combobox', { name: 'Unit' }));
    // antd draws the visible options apart from its accessibility listbox; the visible one carries the title.
    await user.click(await screen.findByTitle('GB'));
    await waitFor(() => expectPricesFor(75));

    // Sizes are whole numbers, at least 1.
    await user.clear(size);
    await user.type(size, '2.6');
    await waitFor(() => expectPricesFor(3));
    expect(screen.getByText('Prices for 3 GB stored for one month.')).toBeInTheDocument();
  });

  it("starts from an account's usage and names the account", async () => {
    const account = buildCloudAccount({
      id: 'aws-1',
      name: 'Main archive',
      storages: [buildBucket({ name: 'logs', cloud_account_id: 'aws-1', size: 300.4 * GB })],
    });
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: [account] },
    });
    renderAt('/cloud-compare/aws-1');

    expect(
      await screen.findByRole('heading', { name: 'Cloud Price Comparison for Main archive' }),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Size')).toHaveValue('300');
    expect(screen.getByText('Prices for 300 GB stored for one month.')).toBeInTheDocument();
    expectPricesFor(300);
  });

  it('falls back to 1 TB when the account is not found', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: [] },
    });
    renderAt('/cloud-compare/missing-id');

    expect(
      await screen.findByText('This cloud account was not found. The prices below are for 1 TB.'),
    ).toBeInTheDocument();
    expectPricesFor(1024);
  });
});
