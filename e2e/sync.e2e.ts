import type { Locator, Page } from '@playwright/test';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { AUTH_STORAGE_KEY, formatBytes, syncMessages } from '@cumulo/contract';
import { type ObjectStore } from '@cumulo/storage';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';
import { expect, test } from './fixtures.ts';
import { confirmChargeWithCard } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { linkFromMail, mailCount } from './mail.ts';
import { chooseBuckets, s3rverRequests } from './selects.ts';
import { signedInOwner } from './session.ts';
import { contentOf, listSizes, seedObjects, sha256, storedSha256 } from './seed-objects.ts';
import { s3rverStore, azuriteStore } from './stores.ts';

const AWS = 'Sync AWS';
const AZURE = 'Sync Azure';
const KiB = 1024;

function stores() {
  return {
    s3: s3rverStore(),
    blobs: azuriteStore(),
  };
}

const keysOf = (prefix: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${prefix}/file-${String(from + i).padStart(4, '0')}.txt`);

/** The job's row in a jobs table, told apart by its source bucket. */
const jobRow = (page: Page, table: string, sourceBucket: string): Locator =>
  page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: sourceBucket });

/** Waits until the row's last cycle shows the status icon named `status` (spec 000 §4 labels). */
async function expectLastCycle(row: Locator, status: string, timeout = 90_000) {
  await expect(row.getByRole('img', { name: status, exact: true })).toBeVisible({ timeout });
}

/** Run now on a job's row, and the toast that says it started (an earlier one has gone first). */
async function runNow(page: Page, row: Locator) {
  const toast = page.getByText(syncMessages.runStarted);
  await expect(toast).toHaveCount(0);
  await row.getByRole('button', { name: 'Run now' }).click();
  await expect(toast).toBeVisible();
}

async function confirmSync(page: Page) {
  await page.getByRole('button', { name: 'Confirm Sync' }).click();
  const charge = page.getByRole('dialog', { name: 'Cloud To Cloud Transfer' });
  // The organisation's first sync asks the Owner to confirm the transfer charge, as a first transfer does.
  if (await charge.isVisible({ timeout: 3000 }).catch(() => false)) {
    await confirmChargeWithCard(page);
    await page.getByRole('button', { name: 'Confirm Sync' }).click();
  }
  await expect(page.getByText(syncMessages.saved)).toBeVisible();
}

/** Every key at `bucket` with the SHA-256 of its bytes. */
async function contents(store: ObjectStore, bucket: string): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  for (const key of (await listSizes(store, bucket)).keys())
    held.set(key, await storedSha256(store, bucket, key));
  return held;
}

test('a daily sync copies only what changed, a faulted cycle shows its error, a deactivated job does not run', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const { s3, blobs } = stores();
  const stamp = Date.now().toString(36);
  const source = `sync-src-${stamp}`;
  const container = `sync-dst-${stamp}`;
  const gone = `sync-gone-${stamp}`;
  for (const bucket of [source, gone]) await s3.createBucket(bucket);
  await blobs.createBucket(container);
  const keys = keysOf('docs', 60);
  await seedObjects(
    s3,
    source,
    keys.map((key) => ({ key, size: 4 * KiB })),
  );

  await signedInOwner(page, 'Sydney');
  await connectAccount(page, 'aws', { Name: AWS, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
  await connectAccount(page, 'azure', {
    Name: AZURE,
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });

  await test.step('create a daily sync S3 → Azure and run it now: everything copied', async () => {
    await chooseBuckets(page, '/Sync', [
      ['Source', AWS, source],
      ['Destination', AZURE, container],
    ]);
    await expect(page.getByText(syncMessages.anyProvider)).toBeVisible();
    await confirmSync(page);
    const row = jobRow(page, 'Sync Jobs', source);
    await expect(row).toContainText('Every Day');
    await runNow(page, row);
    await expectLastCycle(row, 'Completed');
    expect([...(await listSizes(blobs, container)).keys()].sort()).toEqual([...keys].sort());
  });

  await test.step('three changed and two new at the source: the next cycle copies exactly five, no HEAD per object', async () => {
    const changed = keys.slice(10, 13);
    const added = keysOf('docs', 2, 100);
    const before = await contents(blobs, container);
    // Same size, other bytes: only a checksum tells them apart.
    for (const key of changed) {
      const body = contentOf(`${key}#v2`, 4 * KiB);
      await s3.write(source, key, body, { size: body.length });
    }
    await seedObjects(
      s3,
      source,
      added.map((key) => ({ key, size: 4 * KiB })),
    );
    const asked = await s3rverRequests(source);

    const row = jobRow(page, 'Sync Jobs', source);
    await runNow(page, row);
    await expectLastCycle(row, 'Completed');
    await row.getByRole('button', { name: 'History' }).click();
    const history = page.getByRole('dialog', { name: /Cycle history/ });
    await expect(history.getByRole('row').nth(1)).toContainText('Completed');
    await expect(history.getByRole('row').nth(1)).toContainText(`5 objects (${formatBytes(5 * 4 * KiB)})`);
    await page.keyboard.press('Escape');

    const after = await contents(blobs, container);
    const rewritten = [...after].filter(([key, hash]) => before.get(key) !== hash).map(([key]) => key);
    expect(rewritten.sort()).toEqual([...changed, ...added].sort());
    for (const key of changed) expect(after.get(key)).toBe(sha256(contentOf(`${key}#v2`, 4 * KiB)));
    // The diff reads listings only: the source saw no HEAD on any object, and a GET only for the five copied.
    const now = await s3rverRequests(source);
    expect((now['HEAD object'] ?? 0) - (asked['HEAD object'] ?? 0)).toBe(0);
    expect((now['GET object'] ?? 0) - (asked['GET object'] ?? 0)).toBe(5);
  });

  await test.step('a dry run shows what the next cycle would do and changes nothing', async () => {
    await s3.deleteMany(source, [keys[0] as string]);
    const extra = keysOf('docs', 1, 200);
    await seedObjects(
      s3,
      source,
      extra.map((key) => ({ key, size: 4 * KiB })),
    );
    const row = jobRow(page, 'Sync Jobs', source);
    await row.getByRole('button', { name: 'Dry run' }).click();
    const dryRun = page.getByRole('dialog', { name: /Dry run/ });
    const wouldCopy = dryRun.getByRole('region', { name: 'Would copy' });
    await expect(wouldCopy).toContainText(extra[0] as string, { timeout: 60_000 });
    // A sync never deletes: nothing is listed to delete although docs/file-0000 left the source.
    await expect(dryRun.getByRole('region', { name: 'Would delete' })).toHaveCount(0);
    await dryRun.getByRole('button', { name: 'Close' }).last().click();
    expect((await listSizes(blobs, container)).has(extra[0] as string)).toBe(false);
  });

  await test.step('a faulted cycle shows its error in the tooltip', async () => {
    await chooseBuckets(page, '/Sync', [
      ['Source', AWS, gone],
      ['Destination', AZURE, container],
    ]);
    await confirmSync(page);
    await s3.client.send(new DeleteBucketCommand({ Bucket: gone }));
    const row = jobRow(page, 'Sync Jobs', gone);
    await runNow(page, row);
    const faulted = row.getByRole('img', { name: 'Faulted', exact: true });
    await expect(faulted).toBeVisible({ timeout: 60_000 });
    await faulted.hover();
    await expect(page.getByRole('tooltip')).toContainText(`The source bucket ${gone} does not exist`);
  });

  await test.step('deactivate a job: confirmed, toasted, and no cycle can run', async () => {
    const row = jobRow(page, 'Sync Jobs', source);
    await row.getByRole('switch', { name: 'Active' }).click();
    const confirm = page.getByRole('dialog').filter({
      hasText: syncMessages.confirmToggle(false, `${AWS}/${source}`, `${AZURE}/${container}`),
    });
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByText(syncMessages.deactivated)).toBeVisible();
    await expect(row.getByRole('switch', { name: 'Active' })).not.toBeChecked();
    await expect(row.getByRole('button', { name: 'Run now' })).toBeDisabled();
    const cycles = await s3rverRequests(source);
    // The server refuses a cycle of a deactivated job, whoever asks.
    const answer = await page.evaluate(
      async ({ id, key }) => {
        const response = await fetch(`/api/sync/TriggerWasabiSync?syncInfoId=${id}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${localStorage.getItem(key) ?? ''}` },
        });
        return { status: response.status, body: (await response.json()) as { message: string } };
      },
      { id: await jobIdOf(page, source), key: AUTH_STORAGE_KEY },
    );
    expect(answer).toEqual({
      status: 409,
      body: expect.objectContaining({ message: syncMessages.inactive }),
    });
    expect(await s3rverRequests(source)).toEqual(cycles);
  });
});

/** The id of the job whose source bucket is `sourceBucket`, as the list call answers it. */
async function jobIdOf(page: Page, sourceBucket: string): Promise<string> {
  return page.evaluate(
    async ({ bucket, key }) => {
      const response = await fetch('/api/sync/get_jobs', {
        headers: { Authorization: `Bearer ${localStorage.getItem(key) ?? ''}` },
      });
      const list = (await response.json()) as { data: Array<{ info: { id: string; sourceBucket: string } }> };
      return list.data.find((job) => job.info.sourceBucket === bucket)?.info.id ?? '';
    },
    { bucket: sourceBucket, key: AUTH_STORAGE_KEY },
  );
}

test('a replication that follows deletes waits for approval: rejected deletes none, approved deletes exactly those', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const { s3, blobs } = stores();
  const stamp = Date.now().toString(36);
  const container = `repl-src-${stamp}`;
  const replica = `repl-dst-${stamp}`;
  await blobs.createBucket(container);
  await s3.createBucket(replica);
  const keys = keysOf('data', 1000);
  await seedObjects(
    blobs,
    container,
    keys.map((key) => ({ key, size: 4 * KiB })),
  );

  const { email } = await signedInOwner(page, 'Rory');
  await connectAccount(page, 'aws', { Name: AWS, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
  await connectAccount(page, 'azure', {
    Name: AZURE,
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });

  await chooseBuckets(page, '/replication', [
    ['Source', AZURE, container],
    ['Destination', AWS, replica],
  ]);
  await expect(page.getByRole('heading', { name: 'Create Replication Job' })).toBeVisible();
  await page.getByRole('checkbox', { name: 'Sync Deleted objects!' }).check();
  await confirmSync(page);
  const table = 'Scheduled Replication Jobs';
  const row = jobRow(page, table, container);
  await runNow(page, row);
  await expectLastCycle(row, 'Completed', 120_000);
  expect((await listSizes(s3, replica)).size).toBe(1000);

  const removed = keys.filter((_, i) => i % 2 === 1);
  await blobs.deleteMany(container, removed);
  const banner = page.getByRole('region', { name: /^Approval for / });

  await test.step('500 of 1 000 deleted at the source: the cycle waits, the Owner is told, rejecting deletes none', async () => {
    const mails = mailCount(email);
    await runNow(page, row);
    await expect(banner).toContainText(syncMessages.waitingApproval(500, formatBytes(500 * 4 * KiB)), {
      timeout: 60_000,
    });
    await linkFromMail(email, 'A sync wants to delete objects', /http\S+/, mails);
    await page.getByRole('button', { name: 'Notifications' }).click();
    await expect(page.getByText(/delete 500 objects/).first()).toBeVisible();
    await page.keyboard.press('Escape');
    await banner.getByRole('button', { name: 'Reject' }).click();
    await expect(page.getByText(syncMessages.rejected)).toBeVisible();
    await expect(banner).toBeHidden();
    expect((await listSizes(s3, replica)).size).toBe(1000);
  });

  await test.step('the next cycle asks again; approving deletes exactly the 500', async () => {
    await runNow(page, row);
    await expect(banner).toContainText(syncMessages.waitingApproval(500, formatBytes(500 * 4 * KiB)), {
      timeout: 60_000,
    });
    await banner.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByText(syncMessages.approved)).toBeVisible();
    await expectLastCycle(row, 'Completed', 60_000);
    const left = [...(await listSizes(s3, replica)).keys()].sort();
    expect(left).toEqual(keys.filter((_, i) => i % 2 === 0).sort());
  });

  await test.step('an Owner turns on the quarantine for the next deletes', async () => {
    await row.getByRole('button', { name: 'Safeguards' }).click();
    const safeguards = page.getByRole('dialog', { name: /^Delete safeguards: / });
    await safeguards.getByRole('checkbox', { name: 'Move deleted objects to quarantine for' }).check();
    await safeguards.getByRole('spinbutton', { name: 'Quarantine days' }).fill('14');
    await safeguards.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Delete safeguards saved.')).toBeVisible();
    await expect(row).toContainText('Yes (quarantine 14 days)');
  });

  await test.step('Replication History lists the cycles as transfer type 2', async () => {
    await page.getByRole('button', { name: 'Replication History' }).click();
    await expect(page).toHaveURL(/\/rboard\?sync=true$/);
    await expect(page.getByRole('heading', { name: 'Replication Status' })).toBeVisible();
    await expect(
      page
        .getByRole('table', { name: 'Transfer history' })
        .getByRole('row')
        .filter({ hasText: container })
        .first(),
    ).toContainText('Completed');
  });
});
