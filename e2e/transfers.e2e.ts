import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { expect, test } from './fixtures.ts';
import { transferMessages } from '@cumulo/contract';
import { type ObjectStore } from '@cumulo/storage';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY, setAzuriteTier } from '@cumulo/storage/testing';
import { confirmChargeWithCard } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { chooseBuckets } from './selects.ts';
import { signedInOwner } from './session.ts';
import { MiB, listSizes, seedObjects, storedSha256, type Seeded } from './seed-objects.ts';
import { endpoints, s3rverStore, azuriteStore } from './stores.ts';

const AWS = 'Transfer AWS';
const AZURE = 'Transfer Azure';
const OBJECT_COUNT = 2000;
const LARGE = ['big/alpha.bin', 'big/beta.bin'];
/** Copied by prefix with Skip Existing Files later: 160 objects, 3 more added then. */
const SKIP_PREFIX = 'reports/2024/';
/** Moved with /c2c Move. */
const MOVE_FOLDER = 'archive';

/** The source bucket: 1 998 small objects (1 to 8 KiB) under nested prefixes, and two of 100 MiB. */
function layout(): Array<{ key: string; size: number }> {
  const small: string[] = [];
  for (let i = 0; i < 40; i++) small.push(`${MOVE_FOLDER}/${2019 + (i % 2)}/entry-${i}.log`);
  for (let i = 0; i < 160; i++) small.push(`${SKIP_PREFIX}q${1 + (i % 4)}/report-${i}.csv`);
  for (let i = 0; small.length < OBJECT_COUNT - LARGE.length; i++)
    small.push(`photos/album-${i % 18}/day-${Math.floor(i / 18) % 10}/img-${i}.jpg`);
  return [
    ...small.map((key, i) => ({ key, size: 1024 + ((i * 977) % (7 * 1024)) })),
    ...LARGE.map((key) => ({ key, size: 100 * MiB })),
  ];
}

/** Every object of `expected` is at the destination with its size; SHA-256 of every 50th and of the large ones. */
async function expectCopies(
  store: ObjectStore,
  bucket: string,
  expected: ReadonlyMap<string, Seeded>,
  prefix = '',
) {
  const held = await listSizes(store, bucket, prefix);
  for (const [key, seeded] of expected) expect(held.get(key), key).toBe(seeded.size);
  const keys = [...expected.keys()];
  const sample = keys.filter((key, index) => index % 50 === 0 || LARGE.includes(key));
  for (const key of sample) {
    expect(await storedSha256(store, bucket, key), key).toBe(expected.get(key)?.sha256);
  }
}

/** The "Transfer Started" popup, then its route to the status page. */
async function openTransferStatus(page: Page) {
  const started = page.getByRole('dialog', { name: transferMessages.started });
  await expect(started).toBeVisible();
  await started.getByRole('button', { name: 'Transfer Status' }).click();
  await expect(page).toHaveURL(/\/mboard$/);
  await expect(page.getByRole('heading', { name: 'Migration Status' })).toBeVisible();
}

const transferName = (from: [string, string], to: [string, string]) =>
  `${from[0]} / ${from[1]} → ${to[0]} / ${to[1]}`;

/** The batch history row of a transfer; `path` tells apart copies between the same buckets. */
function historyRow(page: Page, source: string, destination: string, path?: string): Locator {
  const rows = page
    .getByRole('table', { name: 'Transfer history' })
    .getByRole('row')
    .filter({ hasText: source })
    .filter({ hasText: destination });
  return path ? rows.filter({ hasText: path }) : rows.filter({ hasNotText: SKIP_PREFIX });
}

/** The history columns: Source, Destination, Status, Total, Transferred, Failed, Skipped, Deleted from source, … */
const cell = (row: Locator, column: 'status' | 'transferred' | 'failed' | 'skipped' | 'deleted') =>
  row.getByRole('cell').nth({ status: 2, transferred: 4, failed: 5, skipped: 6, deleted: 7 }[column]);
/** The file count of a count-and-size cell. */
const countOf = (row: Locator, column: 'transferred' | 'skipped') => cell(row, column).locator('div').first();

async function percentOf(bar: Locator): Promise<number> {
  return Number((await bar.getAttribute('aria-valuenow', { timeout: 1000 })) ?? 0);
}

test('cloud to cloud: a 2 000-object bucket to Azure and back, live progress, cancel, skip existing, move, history', async ({
  page,
}) => {
  test.setTimeout(360_000);
  const { azurite } = endpoints();
  const s3 = s3rverStore();
  const blobs = azuriteStore();
  const stamp = Date.now().toString(36);
  const source = `c2c-src-${stamp}`;
  const container = `c2c-dst-${stamp}`;
  const back = `c2c-back-${stamp}`;
  const canceled = `c2c-cancel-${stamp}`;
  const moved = `c2c-moved-${stamp}`;
  const rerun = `c2c-rerun-${stamp}`;
  // Every bucket exists before the accounts connect, so their first inventory lists them all.
  for (const bucket of [source, back, canceled, moved, rerun]) await s3.createBucket(bucket);
  await blobs.createBucket(container);
  // The objects are written while the new user signs up and connects the accounts.
  const seeding = seedObjects(s3, source, layout());
  seeding.catch(() => undefined);

  await signedInOwner(page, 'Tess');
  await connectAccount(page, 'aws', { Name: AWS, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
  await connectAccount(page, 'azure', {
    Name: AZURE,
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });
  const seeded = await seeding;
  expect(seeded.size).toBe(OBJECT_COUNT);

  await test.step('copy the whole bucket from S3 to Azure on /migration, watching it on /mboard', async () => {
    await chooseBuckets(page, '/migration', [
      ['Source', AWS, source],
      ['Destination', AZURE, container],
    ]);
    const copyAll = page.getByRole('button', { name: 'Copy Entire Buckets' });
    // The organisation has not confirmed the charge yet: the Owner is asked first.
    await copyAll.click();
    await expect(page.getByRole('dialog', { name: 'Cloud To Cloud Transfer' })).toBeVisible();
    await confirmChargeWithCard(page);
    await copyAll.click();
    await openTransferStatus(page);

    const name = transferName([AWS, source], [AZURE, container]);
    const row = page.getByRole('list', { name: 'Ongoing transfers' }).getByRole('listitem', { name });
    await expect(row).toBeVisible({ timeout: 30_000 });
    const bar = row.getByRole('progressbar', { name: `Progress of ${name}` });
    await expect.poll(() => percentOf(bar), { timeout: 60_000 }).toBeGreaterThan(0);
    const seen = await percentOf(bar);
    await expect(page.getByRole('group', { name: 'Speed' })).toContainText(/[1-9][\d.]* [KMG]?bps/, {
      timeout: 30_000,
    });
    await expect(page.getByRole('group', { name: 'Transferred' })).toContainText(/[1-9][\d.]* (kB|MB|GB)/, {
      timeout: 30_000,
    });
    await expect(page.getByRole('figure', { name: 'Transfer speed' })).toBeVisible();
    await expect.poll(() => percentOf(bar), { timeout: 60_000 }).toBeGreaterThan(seen);

    const history = historyRow(page, source, container);
    await expect(cell(history, 'status')).toHaveText('Completed', { timeout: 180_000 });
    await expect(countOf(history, 'transferred')).toHaveText('2,000');
    await expect(cell(history, 'failed')).toHaveText('0');
    await expectCopies(blobs, container, seeded);
  });

  await test.step('copy everything back to a fresh S3 bucket with the two panels of /c2c', async () => {
    await chooseBuckets(page, '/c2c', [
      ['Source', AZURE, container],
      ['Destination', AWS, back],
    ]);
    const sourceFiles = page.getByRole('region', { name: 'Source files' });
    for (const folder of [MOVE_FOLDER, 'big', 'photos', 'reports'])
      await sourceFiles.getByRole('checkbox', { name: `Select ${folder}` }).check();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(page.getByRole('dialog', { name: transferMessages.started })).toBeVisible();
    // Every page but the status page shows the running transfer in the header.
    await expect(page.getByRole('link', { name: /^Transfers in progress: \d+%$/ })).toBeVisible();
    await openTransferStatus(page);
    const history = historyRow(page, container, back);
    await expect(cell(history, 'status')).toHaveText('Completed', { timeout: 180_000 });
    await expect(countOf(history, 'transferred')).toHaveText('2,000');
    await expectCopies(s3, back, seeded);
  });

  await test.step('cancel a copy of the large objects: Canceled, no multipart upload left on s3rver', async () => {
    const openUploads = async () => {
      const answer = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: canceled }));
      return (answer.Uploads ?? []).map((upload) => upload.Key);
    };
    await chooseBuckets(page, '/migration', [
      ['Source', AZURE, container],
      ['Destination', AWS, canceled],
    ]);
    await page.getByRole('checkbox', { name: 'Use a prefix' }).check();
    await page.getByRole('textbox', { name: 'Prefix' }).fill('big/');
    // 200 MiB at 2 MiB/s take about 100 s whatever the machine: the cancel always lands while the copy runs.
    await page.getByRole('checkbox', { name: 'Limit bandwidth' }).check();
    await page.getByRole('spinbutton', { name: 'Bandwidth limit (MiB/s)' }).fill('2');
    await page.getByRole('button', { name: 'Copy Using Prefix' }).click();
    await openTransferStatus(page);

    const name = transferName([AZURE, container], [AWS, canceled]);
    const row = page.getByRole('list', { name: 'Ongoing transfers' }).getByRole('listitem', { name });
    await expect(row).toBeVisible({ timeout: 30_000 });
    // The large objects are on their way in parts when the user cancels.
    await expect.poll(openUploads, { timeout: 60_000 }).not.toEqual([]);
    await row.getByRole('button', { name: `Cancel transfer ${name}` }).click();
    await page
      .getByRole('tooltip')
      .filter({ hasText: transferMessages.cancelConfirm })
      .getByRole('button', { name: 'Yes' })
      .click();
    const history = historyRow(page, container, canceled);
    await expect(cell(history, 'status')).toHaveText('Canceled', { timeout: 60_000 });
    await expect(history).toContainText('≤ 2 MiB/s');
    await expect.poll(openUploads, { timeout: 60_000 }).toEqual([]);
  });

  await test.step('copy a prefix with Skip Existing Files: only the new objects move', async () => {
    const added = await seedObjects(
      s3,
      source,
      [1, 2, 3].map((n) => ({ key: `${SKIP_PREFIX}q4/new-${n}.csv`, size: 3000 + n })),
    );
    await chooseBuckets(page, '/migration', [
      ['Source', AWS, source],
      ['Destination', AZURE, container],
    ]);
    await page.getByRole('checkbox', { name: 'Skip Existing Files' }).check();
    await page.getByRole('checkbox', { name: 'Use a prefix' }).check();
    await page.getByRole('textbox', { name: 'Prefix' }).fill(SKIP_PREFIX);
    await page.getByRole('button', { name: 'Copy Using Prefix' }).click();
    await openTransferStatus(page);

    const history = historyRow(page, source, container, SKIP_PREFIX);
    await expect(cell(history, 'status')).toHaveText('Completed', { timeout: 60_000 });
    await expect(countOf(history, 'transferred')).toHaveText('3');
    await expect(countOf(history, 'skipped')).toHaveText('160');
    await expectCopies(blobs, container, added, SKIP_PREFIX);
  });

  await test.step('move a folder with /c2c Move: the source folder is emptied and gone, the destination holds it', async () => {
    const folder = new Map([...seeded].filter(([key]) => key.startsWith(`${MOVE_FOLDER}/`)));
    // Folder placeholders, as "Create folder" and Azure Storage Explorer write them: the folder itself and an
    // empty folder inside it.
    for (const key of [`${MOVE_FOLDER}/`, `${MOVE_FOLDER}/empty/`])
      await blobs.write(container, key, Buffer.alloc(0), { size: 0 });
    await chooseBuckets(page, '/c2c', [
      ['Source', AZURE, container],
      ['Destination', AWS, moved],
    ]);
    await page
      .getByRole('region', { name: 'Source files' })
      .getByRole('checkbox', { name: `Select ${MOVE_FOLDER}` })
      .check();
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await openTransferStatus(page);
    const history = historyRow(page, container, moved);
    // The status says Completed, and that this was a move.
    await expect(cell(history, 'status')).toHaveText('CompletedMove', { timeout: 60_000 });
    await expect(countOf(history, 'transferred')).toHaveText(String(folder.size));
    await expect(cell(history, 'deleted')).toHaveText(String(folder.size));
    expect(await listSizes(blobs, container, `${MOVE_FOLDER}/`)).toEqual(new Map());
    await expectCopies(s3, moved, folder);
    // The moved folder is no longer offered in the source panel; the folders beside it are.
    await chooseBuckets(page, '/c2c', [
      ['Source', AZURE, container],
      ['Destination', AWS, moved],
    ]);
    const sourceFiles = page.getByRole('region', { name: 'Source files' });
    await expect(sourceFiles.getByRole('checkbox', { name: 'Select photos' })).toBeVisible();
    await expect(sourceFiles.getByRole('checkbox', { name: `Select ${MOVE_FOLDER}` })).toHaveCount(0);
    await page.goto('/mboard');
  });

  await test.step('an archived blob fails its copy: Failed, its CSV downloaded, Retry Failed Files copies it once rehydrated', async () => {
    const prefix = `${SKIP_PREFIX}q1/`;
    const archived = `${prefix}report-0.csv`;
    const expected = new Map([...seeded].filter(([key]) => key.startsWith(prefix)));
    await setAzuriteTier(azurite, container, archived, 'Archive');
    await chooseBuckets(page, '/migration', [
      ['Source', AZURE, container],
      ['Destination', AWS, rerun],
    ]);
    await page.getByRole('checkbox', { name: 'Use a prefix' }).check();
    await page.getByRole('textbox', { name: 'Prefix' }).fill(prefix);
    await page.getByRole('button', { name: 'Copy Using Prefix' }).click();
    await openTransferStatus(page);

    const rows = historyRow(page, container, rerun, prefix);
    // 'Failed' is also in the Download Failed Files button a row shows while Ongoing: the status itself is asked.
    const failed = rows.filter({ hasText: 'Failed' });
    await expect(failed).toHaveCount(1, { timeout: 60_000 });
    await expect(cell(failed, 'status')).toHaveText(/^Failed/);
    await expect(cell(failed, 'failed')).toHaveText('1');
    await expect(countOf(failed, 'transferred')).toHaveText(String(expected.size - 1));
    // The ongoing list says why it failed: the batch has no error of its own, one of its files failed.
    const ongoing = page
      .getByRole('list', { name: 'Ongoing transfers' })
      .getByRole('listitem', { name: transferName([AZURE, container], [AWS, rerun]) });
    await expect(ongoing).toContainText(
      transferMessages.didNotSucceed(transferMessages.filesFailed(1, expected.size)),
    );

    // The failed files as CSV: the archived blob, its size, and what to do about it.
    const downloading = page.waitForEvent('download');
    await failed.getByRole('button', { name: 'Download Failed Files' }).click();
    const download = await downloading;
    await expect(page.getByText(transferMessages.downloadFailedStarted)).toBeVisible();
    expect((await readFile(await download.path(), 'utf8')).trim().split('\n')).toEqual([
      'key,size,error',
      `${archived},${expected.get(archived)?.size},` +
        'The blob is in the Archive tier: rehydrate it to an online tier before reading or copying it',
    ]);

    // Rehydrated, the one failed file is copied by a retry; the failed batch reads Retried and offers no retry.
    await setAzuriteTier(azurite, container, archived, 'Hot');
    await failed.getByRole('button', { name: 'Retry Failed Files' }).click();
    await expect(page.getByText(transferMessages.retryStarted)).toBeVisible();
    const retry = rows.filter({ hasNotText: 'Retried' });
    await expect(cell(retry, 'status')).toHaveText('Completed', { timeout: 60_000 });
    await expect(countOf(retry, 'transferred')).toHaveText('1');
    const old = rows.filter({ hasText: 'Retried' });
    await expect(old).toHaveCount(1);
    await expect(old.getByRole('button', { name: 'Retry Failed Files' })).toHaveCount(0);
    await expectCopies(s3, rerun, expected, prefix);
  });

  await test.step('the history: Today on /mboard, Recent Transfers on the dashboard', async () => {
    const names = [
      transferName([AWS, source], [AZURE, container]),
      transferName([AZURE, container], [AWS, back]),
      transferName([AZURE, container], [AWS, canceled]),
      transferName([AZURE, container], [AWS, moved]),
    ];
    const today = page.getByRole('list', { name: 'Today' });
    for (const name of names) await expect(today.getByRole('listitem', { name }).first()).toBeVisible();
    // The full copy and the copy by prefix.
    await expect(today.getByRole('listitem', { name: names[0] })).toHaveCount(2);

    await page.goto('/');
    const recent = page.getByRole('table', { name: 'Recent Transfers' });
    for (const bucket of [back, canceled, moved])
      await expect(recent.getByRole('row').filter({ hasText: bucket })).toHaveCount(1);
    await expect(recent.getByRole('row').filter({ hasText: source })).toHaveCount(2);
  });

  await s3.close();
  await blobs.close();
});
