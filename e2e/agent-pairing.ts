import type { Page } from '@playwright/test';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import type { AgentProcess } from './agent-process.ts';
import { connectAccount } from './cloud-accounts.ts';
import { expect } from './fixtures.ts';
import { pick } from './selects.ts';
import { signedInOwner } from './session.ts';

/** Opens the Cumulo Transfer screen (/ftx). */
export async function openFtx(page: Page) {
  await page.goto('/ftx');
  await expect(page.getByRole('tab', { name: 'Transfer History' })).toBeVisible();
}

/** Pairs the page with `agent` as a user does: Pair on /ftx, then the code shown confirmed in the agent's terminal. */
export async function pairOnFtx(page: Page, agent: AgentProcess) {
  await openFtx(page);
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  const waiting = page.getByText(/^Confirm code [A-Z0-9]{4}-[A-Z0-9]{4} in the terminal/);
  await expect(waiting).toBeVisible();
  const code = /([A-Z0-9]{4}-[A-Z0-9]{4})/.exec((await waiting.textContent()) ?? '')?.[1] ?? '';
  await expect.poll(() => agent.output).toContain(code);
  agent.type('yes');
  await expect(page.getByText('Transfer agent connected')).toBeVisible({ timeout: 20_000 });
}

/** Opens `bucket` of `account` in the Cloud File System panel, once the account's first inventory lists it. */
export async function openCloudBucket(page: Page, account: string, bucket: string) {
  await expect(async () => {
    await openFtx(page);
    await pick(page, 'Cloud Account', account);
    await pick(page, 'Bucket', bucket);
  }).toPass({ timeout: 60_000 });
}

/**
 * A new Owner named `owner` on the ftX screen with `agent` paired: an s3rver account 'Agent AWS' connected, its
 * `bucket` open in the Cloud File System panel. The page is told the agent's port as /desktop's setting tells it.
 */
export async function ownerOnFtx(page: Page, agent: AgentProcess, owner: string, bucket: string) {
  await page.addInitScript((value) => localStorage.setItem('cumulo.agentPort', value), String(agent.port));
  await signedInOwner(page, owner);
  await connectAccount(page, 'aws', {
    Name: 'Agent AWS',
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });
  // Pair: the page sends a one-time code to the agent, the user confirms it in the agent's terminal.
  await pairOnFtx(page, agent);
  // The cloud side: the bucket, once the account's first inventory lists it.
  await openCloudBucket(page, 'Agent AWS', bucket);
}
