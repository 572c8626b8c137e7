import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { AUTH_STORAGE_KEY, type CostEstimate } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { AWS_ID, WASABI_ID, accounts, pick } from './migration-test-kit.ts';

const estimate: CostEstimate = {
  sizeGb: 12,
  egressPerGb: 0.09,
  transferPerGb: 0.15,
  egressCost: 1.08,
  transferCost: 1.8,
  total: 2.88,
  rate: 0.24,
};

describe('Migration Cost Calculator /calc (fetch stubbed with vi.stubGlobal)', () => {
  beforeAll(async () => {
    await import('./CostCalculatorPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('keeps Calculate disabled until a size is entered, then shows egress, transfer charge and total to 5 decimals', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: accounts },
      'POST /api/transfer/calculate_cost': { status: 200, body: estimate },
    });
    const { user } = renderAt('/calc');
    const calculate = await screen.findByRole('button', { name: 'Calculate' });
    expect(calculate).toBeDisabled();

    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Cold Wasabi');
    expect(calculate).toBeDisabled();
    const size = screen.getByLabelText('Transfer Size(GB)');
    await user.type(size, '12');
    expect(calculate).toBeEnabled();
    await user.clear(size);
    expect(calculate).toBeDisabled();
    await user.type(size, '12');

    await user.click(calculate);
    expect(await screen.findByText('$1.08000')).toBeInTheDocument();
    expect(screen.getByText('$1.80000')).toBeInTheDocument();
    expect(screen.getByText('$2.88000')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/transfer/calculate_cost')?.body).toEqual({
      sourceCloudAccountId: AWS_ID,
      destinationCloudAccountId: WASABI_ID,
      size: 12,
    });
  });

  it('never leaves an earlier answer standing beside a refusal or under a changed size', async () => {
    let refuse = false;
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: accounts },
      'POST /api/transfer/calculate_cost': () =>
        refuse
          ? { status: 400, body: { message: 'Transfer Size(GB) must be at most 1000000000.' } }
          : { status: 200, body: estimate },
    });
    const { user } = renderAt('/calc');
    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Cold Wasabi');
    const size = screen.getByLabelText('Transfer Size(GB)');
    await user.type(size, '12');
    await user.click(screen.getByRole('button', { name: 'Calculate' }));
    expect(await screen.findByText('$2.88000')).toBeInTheDocument();

    // Typing another size takes the old answer away at once.
    await user.type(size, '0');
    expect(screen.queryByText('$2.88000')).toBeNull();
    refuse = true;
    await user.click(screen.getByRole('button', { name: 'Calculate' }));
    expect(await screen.findByText('Transfer Size(GB) must be at most 1000000000.')).toBeInTheDocument();
    expect(screen.queryByText('Estimated cost')).toBeNull();
  });

  it.each([
    ['0.4', 1],
    ['2.6', 3],
  ])('takes %s GB and rounds it to %i, the whole number it sends and shows', async (typed, whole) => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/cloud_accounts/': { status: 200, body: accounts },
      'POST /api/transfer/calculate_cost': { status: 200, body: { ...estimate, sizeGb: whole } },
    });
    const { user } = renderAt('/calc');
    const calculate = await screen.findByRole('button', { name: 'Calculate' });
    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Cold Wasabi');

    const size = screen.getByLabelText('Transfer Size(GB)');
    await user.type(size, typed);
    expect(calculate).toBeEnabled();
    await user.click(calculate);

    expect(await screen.findByText(`${whole} GB`)).toBeInTheDocument();
    expect(size).toHaveValue(String(whole));
    expect(calls.find((call) => call.path === '/api/transfer/calculate_cost')?.body).toEqual({
      sourceCloudAccountId: AWS_ID,
      destinationCloudAccountId: WASABI_ID,
      size: whole,
    });
  });
});
