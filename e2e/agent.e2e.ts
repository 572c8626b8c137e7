import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentCost, agentMessages, formatBytes, transferMessages } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { openFtx, ownerOnFtx } from './agent-pairing.ts';
import { AgentProcess } from './agent-process.ts';
import { confirmChargeWithCard } from './billing.ts';
import { expect, test } from './fixtures.ts';
import { chooseBuckets } from './selects.ts';
import { s3rverStore } from './stores.ts';

/**
 * The ftX transfer agent as a new user meets it (issue 27 "Done when"): the real agent (the single-file build the
 * download serves) runs on this machine with two folders added; the page pairs with it (the code confirmed in the
 * agent's terminal), uploads a folder of mixed files into a bucket, the agent is killed with SIGKILL half-way and
 * started again, the transfer resumes and every file arrives byte for byte; the folder comes back down into the
 * other local folder; both transfers are in Transfer History with sizes and costs; revoking the device on /profile
 * makes the page ask to pair again.
 */

const MiB = 1024 * 1024;
const port = Number(process.env.E2E_PORT ?? 8181);
const server = `http://localhost:${port}`;
// Its own port (the page is told through the setting /desktop saves), away from an agent the developer may run.
const agentPort = 47_600 + (port % 100);

/** The folder to upload: small and mid-size files, nested folders, a dot-file the agent leaves out, one big file. */
function makeProjectFolder(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>([
    ['notes.txt', Buffer.from('Quarterly numbers, draft 3\n'.repeat(40))],
    ['report.pdf', crypto.randomBytes(300 * 1024)],
    ['sub/photo.jpg', crypto.randomBytes(2 * MiB + 17)],
    ['sub/deep/data.bin', crypto.randomBytes(6 * MiB + 5)],
    ['big.bin', crypto.randomBytes(80 * MiB + 3)],
  ]);
  for (const [name, bytes] of files) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), bytes);
  }
  fs.writeFileSync(path.join(root, '.DS_Store'), 'not for the bucket');
  return files;
}

async function keysUnder(store: S3ObjectStore, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const listed of store.list(bucket, { prefix }))
    keys.push(...listed.objects.map((object) => object.key));
  return keys;
}

async function readObject(store: S3ObjectStore, bucket: string, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(bucket, key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

test('a new user pairs the transfer agent, uploads a folder across a kill -9, downloads it back, reads the history and revokes the device', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-agent-e2e-'));
  const projects = path.join(work, 'projects');
  const downloads = path.join(work, 'downloads');
  fs.mkdirSync(downloads, { recursive: true });
  const files = makeProjectFolder(projects);
  const total = [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0);

  const store = s3rverStore();
  const bucket = `agent-${Date.now().toString(36)}`;
  await store.createBucket(bucket);

  // The agent paces itself (--bwlimit) so that the kill lands while the big file is on its way.
  const agent = new AgentProcess(agentPort, server, ['--bwlimit', '24M']);
  agent.add(projects);
  agent.add(downloads);
  await agent.start();
  try {
    // Sign up, connect the account, pair (the code confirmed in the agent's terminal), open the bucket.
    await ownerOnFtx(page, agent, 'Ada', bucket);

    // The local side lists the two added folders; the upload of "projects" needs the ftX charge confirmed first.
    const local = page.getByRole('region', { name: 'Local files' });
    await expect(local.getByRole('row', { name: /projects/ })).toBeVisible();
    await expect(local.getByRole('row', { name: /downloads/ })).toBeVisible();
    await local.getByRole('button', { name: 'Upload projects' }).click();
    await confirmChargeWithCard(page, 'Ftx Transfer');
    await local.getByRole('button', { name: 'Upload projects' }).click();

    // Half-way through: kill -9, start again. The page connects afresh and the transfer resumes.
    const transfers = page.getByRole('table', { name: 'Agent transfers' });
    await expect(transfers.getByRole('row').filter({ hasText: 'Upload' }).first()).toBeVisible({
      timeout: 20_000,
    });
    await expect
      .poll(async () => (await keysUnder(store, bucket, 'projects/')).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(2);
    await agent.kill();
    await expect(page.getByText(agentMessages.notRunning).first()).toBeVisible({ timeout: 15_000 });
    await agent.start();
    await expect(page.getByText('Transfer agent connected')).toBeVisible({ timeout: 20_000 });
    const resumed = transfers.getByRole('row').filter({ hasText: 'Resumed' });
    await expect(resumed).toBeVisible({ timeout: 20_000 });
    await expect(resumed).toContainText('Completed', { timeout: 120_000 });

    // Every file arrived whole; the dot-file stayed home.
    for (const [name, bytes] of files) {
      const stored = await readObject(store, bucket, `projects/${name}`);
      expect(stored.equals(bytes), `projects/${name} in the bucket equals the local file`).toBe(true);
    }
    expect(await store.stat(bucket, 'projects/.DS_Store')).toBeNull();

    // Download the folder back into the other added folder.
    await local.getByRole('row', { name: /downloads/ }).dblclick();
    const cloudFiles = page.getByRole('region', { name: 'Cloud files' });
    await cloudFiles.getByRole('checkbox', { name: 'Select projects' }).check();
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    await expect(transfers.getByText('Completed')).toHaveCount(2, { timeout: 120_000 });
    for (const [name, bytes] of files) {
      const copy = fs.readFileSync(path.join(downloads, 'projects', name));
      expect(copy.equals(bytes), `downloads/projects/${name} equals the original`).toBe(true);
    }

    // Both transfers in the history, with their sizes and costs.
    await page.getByRole('tab', { name: 'Transfer History' }).click();
    const history = page.getByRole('table', { name: 'Transfer history' });
    await expect(history.getByRole('row').filter({ hasText: bucket })).toHaveCount(2, { timeout: 20_000 });
    for (const direction of ['Upload', 'Download']) {
      const row = history.getByRole('row').filter({ hasText: direction });
      await expect(row).toContainText(formatBytes(total));
      // The cost is the size in MB at the ftX price per MB, shown with the digits it needs.
      const cost = /\$(\d+\.\d+)/.exec((await row.textContent()) ?? '')?.[1];
      expect(Number(cost)).toBeCloseTo(agentCost(total), 4);
    }
    const lastDay = page.getByRole('group', { name: 'Transfers Last 24h' });
    await expect(lastDay).toContainText(String(files.size * 2));

    // The ftX type of /c2c: the left panel is the agent's folders; Copy sends one to the destination bucket.
    await chooseBuckets(page, '/c2c', [['Destination', 'Agent AWS', bucket]]);
    await page.getByRole('combobox', { name: 'Transfer Type' }).click();
    await page.locator('.ant-select-item-option:visible').filter({ hasText: 'ftX' }).click();
    const source = page.getByRole('region', { name: 'Source files' });
    await source.getByRole('checkbox', { name: 'Select downloads' }).check();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(page.getByRole('dialog', { name: transferMessages.started })).toBeVisible();
    await expect
      .poll(async () => (await keysUnder(store, bucket, 'downloads/')).length, { timeout: 60_000 })
      .toBe(files.size);
    for (const [name, bytes] of files) {
      const stored = await readObject(store, bucket, `downloads/projects/${name}`);
      expect(stored.equals(bytes), `downloads/projects/${name} copied from /c2c`).toBe(true);
    }

    // /desktop offers the agent for this machine's platform: a zip with the bundle and the Linux launcher.
    await page.goto('/desktop');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download for Linux' }).click();
    const zip = fs.readFileSync(await (await download).path());
    expect((await download).suggestedFilename()).toBe('cumulo-agent-linux.zip');
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(zip.includes('cumulo-agent/cumulo-agent.mjs')).toBe(true);

    // Revoke the device: the agent stops acting for the user and the page asks to pair again.
    await page.goto('/profile');
    const devices = page.getByRole('table', { name: 'Paired transfer agents' });
    await devices.getByRole('button', { name: /^Revoke / }).click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect(page.getByText(agentMessages.deviceRevoked)).toBeVisible();
    await openFtx(page);
    await expect(page.getByRole('button', { name: 'Pair', exact: true })).toBeVisible({ timeout: 20_000 });
  } finally {
    await agent.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
