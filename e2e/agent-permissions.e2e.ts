import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentMessages } from '@cumulo/contract';
import { ownerOnFtx } from './agent-pairing.ts';
import { AgentProcess } from './agent-process.ts';
import { confirmChargeWithCard } from './billing.ts';
import { expect, test } from './fixtures.ts';
import { s3rverStore } from './stores.ts';

/**
 * The transfer agent meets a folder it may not read, as it does on a user's machine: the agent runs as an
 * unprivileged user (`nobody` when the tests run as root, whom no permission bit refuses), and one sub-folder of the
 * folder uploaded is mode 000. The rest is sent and the transfer fails with a row that names the folder and says
 * why; once the user gives the permission, Retry Failed Files walks that folder again and sends what it holds.
 */

const port = Number(process.env.E2E_PORT ?? 8181);
const server = `http://localhost:${port}`;
// Its own port, away from agent.e2e's and from an agent the developer may run.
const agentPort = 47_700 + (port % 100);
/** Root reads whatever the mode bits say: as root (CI), the agent runs as `nobody`; otherwise as the tester. */
const runAs = process.getuid?.() === 0 ? 65_534 : undefined;

test('an upload goes past a folder the agent may not read, and Retry Failed Files sends it once it may', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-agent-perm-'));
  fs.chmodSync(work, 0o755);
  const projects = path.join(work, 'projects');
  const locked = path.join(projects, 'locked');
  fs.mkdirSync(locked, { recursive: true });
  const open = Buffer.from('Minutes of the meeting\n'.repeat(50));
  const secret = Buffer.from('Salaries, draft\n'.repeat(120));
  fs.writeFileSync(path.join(projects, 'minutes.txt'), open);
  fs.writeFileSync(path.join(locked, 'salaries.txt'), secret);
  const owned = [projects, locked, path.join(projects, 'minutes.txt'), path.join(locked, 'salaries.txt')];
  if (runAs !== undefined) for (const entry of owned) fs.chownSync(entry, runAs, runAs);
  fs.chmodSync(locked, 0o000);

  const store = s3rverStore();
  const bucket = `perm-${Date.now().toString(36)}`;
  await store.createBucket(bucket);
  const agent = new AgentProcess(agentPort, server, [], runAs);
  agent.add(projects);
  await agent.start();
  try {
    await ownerOnFtx(page, agent, 'Una', bucket);

    const local = page.getByRole('region', { name: 'Local files' });
    // The search box asks the agent for the names that contain the words.
    const search = local.getByRole('searchbox', { name: 'Search in this local folder' });
    await search.fill('no such name');
    await expect(local).toContainText('No name in / contains "no such name"');
    await search.fill('PROJ');
    await expect(local.getByRole('button', { name: 'Upload projects' })).toBeVisible();
    await search.fill('');
    await local.getByRole('button', { name: 'Upload projects' }).click();
    await confirmChargeWithCard(page, 'Ftx Transfer');
    await local.getByRole('button', { name: 'Upload projects' }).click();

    // The readable file is sent; the transfer fails with a row for the folder, in words.
    const transfers = page.getByRole('table', { name: 'Agent transfers' });
    const failed = transfers.getByRole('row').filter({ hasText: 'Failed' }).first();
    await expect(failed).toBeVisible({ timeout: 30_000 });
    await expect(failed).toContainText('projects');
    await expect(transfers.getByRole('list', { name: 'Errors of projects' })).toHaveText(
      `projects/locked: ${agentMessages.noPermission('projects/locked')}`,
    );
    expect((await store.stat(bucket, 'projects/minutes.txt'))?.size).toBe(open.length);
    expect(await store.stat(bucket, 'projects/locked/salaries.txt')).toBeNull();
    // The open bucket shows what the upload sent, though it ended between two of the page's status polls.
    const cloudFiles = page.getByRole('region', { name: 'Cloud files' });
    await expect(cloudFiles.getByRole('row', { name: /projects/ })).toBeVisible();

    // The user gives the permission and retries: the folder is walked again and its file sent.
    fs.chmodSync(locked, 0o755);
    await failed.getByRole('button', { name: 'Retry Failed Files' }).click();
    await expect(page.getByText(agentMessages.retryStarted)).toBeVisible();
    await expect(transfers.getByRole('row').filter({ hasText: 'Completed' })).toBeVisible({
      timeout: 30_000,
    });
    // Retried once: the failed row says so and no longer offers it.
    const retried = transfers.getByRole('row').filter({ hasText: 'Failed' }).first();
    await expect(retried).toContainText('Retried');
    await expect(retried.getByRole('button', { name: 'Retry Failed Files' })).toHaveCount(0);
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read(bucket, 'projects/locked/salaries.txt'))
      chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(secret)).toBe(true);

    // Both uploads are in the history: one file each.
    await page.getByRole('tab', { name: 'Transfer History' }).click();
    const history = page.getByRole('table', { name: 'Transfer history' });
    await expect(history.getByRole('row').filter({ hasText: bucket })).toHaveCount(2, { timeout: 20_000 });
  } finally {
    await agent.stop();
    fs.chmodSync(locked, 0o755);
    fs.rmSync(work, { recursive: true, force: true });
  }
});
