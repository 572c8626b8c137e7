import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import {
  GetBucketCorsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
} from '@aws-sdk/client-s3';
import { expect, test } from './fixtures.ts';
import { uploadMessages } from '@cumulo/contract';
import { type ObjectStore } from '@cumulo/storage';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';
import { connectAccount } from './cloud-accounts.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore, azuriteStore } from './stores.ts';
import { openBucket } from './selects.ts';

const MiB = 1024 * 1024;

function writeRandom(file: string, bytes: number): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < bytes; written += MiB)
    fs.writeSync(fd, randomBytes(Math.min(MiB, bytes - written)));
  fs.closeSync(fd);
  return file;
}

/** The bucket's CORS rules, asked of s3rver directly. */
async function s3rverCors(store: S3ObjectStore, bucket: string) {
  const answer = await store.client.send(new GetBucketCorsCommand({ Bucket: bucket }));
  return answer.CORSRules ?? [];
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function storedHash(store: ObjectStore, bucket: string, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await store.read(bucket, key)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Slows the browser's uploads so progress can be watched and a reload lands mid-upload. */
async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

const uploadRow = (page: Page, name: string) => page.getByRole('listitem', { name: `Upload of ${name}` });

async function percentOf(page: Page, name: string): Promise<number> {
  const bar = uploadRow(page, name).getByRole('progressbar');
  if ((await bar.count()) === 0) return -1;
  return Number(await bar.getAttribute('aria-valuenow'));
}

async function token(page: Page) {
  return page.evaluate(() => localStorage.getItem('Authorization') ?? '');
}

async function accountId(page: Page, name: string): Promise<string> {
  const res = await page.request.get('/api/cloud_accounts/', {
    headers: { authorization: `Bearer ${await token(page)}` },
  });
  const list = (await res.json()) as Array<{ id: string; name: string }>;
  const found = list.find((a) => a.name === name);
  if (!found) throw new Error(`no account ${name}`);
  return found.id;
}

/** Sets the bucket's CORS rules through the API, as the page's Apply button does. */
async function applyCors(page: Page, accountName: string, bucket: string) {
  const config = await page.request.put('/api/transfers/update_bucket_config/', {
    headers: { authorization: `Bearer ${await token(page)}` },
    data: { cloud_account_id: await accountId(page, accountName), bucket_name: bucket, cors: true },
  });
  expect(config.ok()).toBe(true);
}

test('upload a folder and a 64 MiB file to a fresh S3 bucket: CORS set before the first upload; bytes identical', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const store = s3rverStore();
  const bucket = `uploads-${Date.now().toString(36)}`;
  await store.createBucket(bucket);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-upload-'));
  const album = path.join(dir, 'album');
  const files = {
    'album/a.txt': writeRandom(path.join(album, 'a.txt'), 1000),
    'album/day1/b.bin': writeRandom(path.join(album, 'day1', 'b.bin'), 6 * MiB + 17),
    'big.bin': writeRandom(path.join(dir, 'big.bin'), 64 * MiB),
  };
  writeRandom(path.join(album, '.hidden'), 10);
  writeRandom(path.join(album, '.git', 'config'), 10);

  await signedInOwner(page, 'Uma');
  await connectAccount(page, 'aws', {
    Name: 'Upload AWS',
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });

  await openBucket(page, 'Upload AWS', bucket);
  await throttleUploads(page, 16 * MiB);
  await page.getByLabel('Folder to upload').setInputFiles(album);
  await page.getByLabel('Files to upload').setInputFiles(files['big.bin']);
  // Hidden names are skipped: a.txt, day1/b.bin and big.bin.
  await expect(page.locator('.ant-statistic').filter({ hasText: 'Total files' })).toContainText('3');
  await expect(page.locator('.ant-statistic').filter({ hasText: 'Total size' })).toContainText('70');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();

  // s3rver has no CORS rules yet: the page finds out before the first upload and, for an Owner, sets them.
  await expect(page.getByText(uploadMessages.corsApplied(bucket))).toBeVisible();
  expect((await s3rverCors(store, bucket)).length).toBe(1);

  const big = uploadRow(page, 'big.bin');
  await expect(big.getByText('uploading...')).toBeVisible();
  // Speeds as /mboard shows them, in bits per second.
  await expect(big.getByLabel('Speed')).toHaveText(/^[\d.]+ (b|Kb|Mb|Gb)ps$/);
  await expect(big.getByLabel('Time left')).toHaveText(/^ETA \d+:\d\d$/);

  // Notices close after a few seconds: watch for both at once.
  await Promise.all(
    [`big.bin uploaded to ${bucket} successfully`, `album uploaded to ${bucket} successfully`].map((text) =>
      expect(page.getByText(text)).toBeVisible({ timeout: 120_000 }),
    ),
  );

  for (const [key, file] of Object.entries(files)) {
    expect(await storedHash(store, bucket, key), key).toBe(sha256(fs.readFileSync(file)));
  }
  expect(await store.stat(bucket, 'album/.hidden')).toBeNull();
  expect(await store.stat(bucket, 'album/.git/config')).toBeNull();
  // No file met the closed bucket.
  await expect(page.getByText(uploadMessages.network)).toHaveCount(0);
  // The browser pane lists the new objects once the uploads are done.
  await expect(page.getByText('big.bin', { exact: true }).first()).toBeVisible();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a folder of 400 small files to a fresh bucket: one calm summary, a short page, the dotfile skipped', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const store = s3rverStore();
  const bucket = `folder-${Date.now().toString(36)}`;
  await store.createBucket(bucket);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-folder-'));
  const photos = path.join(dir, 'photos');
  const COUNT = 400;
  for (let i = 0; i < COUNT - 1; i += 1) writeRandom(path.join(photos, `d${i % 4}`, `p${i}.txt`), 2048);
  // One file directly in the folder: s3rver (unlike S3) lists a folder holding only sub-folders as nothing.
  writeRandom(path.join(photos, 'cover.txt'), 2048);
  writeRandom(path.join(photos, '.DS_Store'), 10);

  await page.setViewportSize({ width: 1440, height: 900 });
  await signedInOwner(page, 'Fay');
  await connectAccount(page, 'aws', {
    Name: 'Folder AWS',
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });
  await openBucket(page, 'Folder AWS', bucket);
  await page.getByLabel('Folder to upload').setInputFiles(photos);
  await expect(page.locator('.ant-statistic').filter({ hasText: 'Total files' })).toContainText(`${COUNT}`);
  const started = Date.now();
  await page.getByRole('button', { name: 'Upload', exact: true }).click();

  // The first upload to the fresh bucket needs no manual CORS step: the rules are set before it.
  await expect(page.getByText(uploadMessages.corsApplied(bucket))).toBeVisible();
  const summary = page.getByRole('status', { name: 'Upload summary' });
  await expect(summary.getByLabel('Files done')).toHaveText(`${COUNT} of ${COUNT} files`, {
    timeout: 60_000,
  });
  const seconds = (Date.now() - started) / 1000;
  await expect(summary.getByText(uploadMessages.hiddenSkipped(1))).toBeVisible();
  await expect(page.getByText(`photos uploaded to ${bucket} successfully`)).toBeVisible();
  await expect(page.getByText(uploadMessages.network)).toHaveCount(0);
  // The cloud pane beside it lists what was just uploaded, without a manual Refresh.
  await expect(page.getByRole('button', { name: 'photos' })).toBeVisible();
  // The cloud pane beside it lists what was just uploaded, without a manual Refresh.
  await expect(page.getByRole('button', { name: 'photos' })).toBeVisible();

  // One summary, no row per file: the done ones wait collapsed, and the page stays short.
  await expect(page.getByText(`Done (${COUNT})`)).toBeVisible();
  await expect(page.getByRole('listitem', { name: /^Upload(ed)? (of )?p/ })).toHaveCount(0);
  const pageHeight = async () => Number(await page.evaluate('document.documentElement.scrollHeight'));
  const height = await pageHeight();
  expect(height).toBeLessThan(2500);
  await page.getByText(`Done (${COUNT})`).click();
  const done = page.getByRole('list', { name: 'Done uploads' });
  expect(await done.getByRole('listitem').count()).toBeLessThan(20);
  expect(await pageHeight()).toBeLessThan(height + 500);

  const listed = await store.client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }));
  expect(listed.KeyCount).toBe(COUNT);
  expect(await store.stat(bucket, 'photos/.DS_Store')).toBeNull();
  expect(await store.stat(bucket, 'photos/d2/p398.txt')).toMatchObject({ size: 2048 });
  // Far from the 4 files/s before issue 21 (100 files took 25.7 s).
  expect(COUNT / seconds).toBeGreaterThan(20);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('Azure: a reload mid-upload resumes from the finished blocks; a cancel leaves no uncommitted block', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const { azurite } = endpoints();
  const blobs = azuriteStore();
  const container = `resume-${Date.now().toString(36)}`;
  await blobs.createBucket(container);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-resume-'));
  const resume = writeRandom(path.join(dir, 'resume.bin'), 64 * MiB);
  const cancel = writeRandom(path.join(dir, 'cancel.bin'), 48 * MiB);

  await signedInOwner(page, 'Rita');
  await connectAccount(page, 'azure', {
    Name: 'Upload Azure',
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });
  // CORS through the API this time (the Apply button is covered by the S3 test).
  await applyCors(page, 'Upload Azure', container);

  await openBucket(page, 'Upload Azure', container);
  await throttleUploads(page, 4 * MiB);
  await page.getByLabel('Files to upload').setInputFiles(resume);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  // Reload once Azurite holds the first five blocks (5 MiB parts, five in flight).
  const service = new BlobServiceClient(
    azurite,
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  );
  const blockCount = async (name: string) => {
    const blob = service.getContainerClient(container).getBlockBlobClient(name);
    const list = await blob.getBlockList('uncommitted').catch(() => ({ uncommittedBlocks: [] }));
    return list.uncommittedBlocks?.length ?? 0;
  };
  await expect.poll(() => blockCount('resume.bin'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);

  // The page goes away mid-upload; the same file picked again resumes.
  await page.reload();
  await openBucket(page, 'Upload Azure', container);
  await throttleUploads(page, 4 * MiB);
  await page.getByLabel('Files to upload').setInputFiles(resume);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const row = uploadRow(page, 'resume.bin');
  await expect(row.getByText('Resumed')).toBeVisible();
  // It goes on from the blocks already there: at least 25 MiB of 64.
  expect(await percentOf(page, 'resume.bin')).toBeGreaterThanOrEqual(39);
  await expect(page.getByText(`resume.bin uploaded to ${container} successfully`)).toBeVisible({
    timeout: 120_000,
  });
  expect(await storedHash(blobs, container, 'resume.bin')).toBe(sha256(fs.readFileSync(resume)));

  // Cancel one: nothing of it stays, not even uncommitted blocks.
  await page.getByLabel('Files to upload').setInputFiles(cancel);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect.poll(() => blockCount('cancel.bin'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
  const cancelRow = uploadRow(page, 'cancel.bin');
  await cancelRow.getByRole('button', { name: 'Cancel' }).click();
  await expect(cancelRow.getByText(uploadMessages.cancelled)).toBeVisible();
  await expect.poll(() => blockCount('cancel.bin')).toBe(0);
  expect(await blobs.stat(container, 'cancel.bin')).toBeNull();
  await blobs.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('S3: a reload mid-upload resumes from the parts s3rver holds; a cancel leaves no open multipart upload', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const store = s3rverStore();
  const bucket = `resume-${Date.now().toString(36)}`;
  await store.createBucket(bucket);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-resume-'));
  const resume = writeRandom(path.join(dir, 'resume.bin'), 64 * MiB);
  const cancel = writeRandom(path.join(dir, 'cancel.bin'), 48 * MiB);

  await signedInOwner(page, 'Sam');
  await connectAccount(page, 'aws', {
    Name: 'Resume AWS',
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });
  await applyCors(page, 'Resume AWS', bucket);

  // What s3rver holds, asked directly (ListMultipartUploads, ListParts) rather than through Cumulo.
  const openUploads = async (key?: string) => {
    const answer = await store.client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
    return (answer.Uploads ?? []).map((upload) => ({ key: upload.Key, uploadId: upload.UploadId }));
  };
  const partCount = async (key: string) => {
    const [upload] = (await openUploads(key)).filter((u) => u.key === key);
    if (!upload) return 0;
    const answer = await store.client.send(
      new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: upload.uploadId }),
    );
    return answer.Parts?.length ?? 0;
  };

  await openBucket(page, 'Resume AWS', bucket);
  await throttleUploads(page, 4 * MiB);
  await page.getByLabel('Files to upload').setInputFiles(resume);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  // Reload once s3rver holds the first five parts (5 MiB parts, five in flight).
  await expect.poll(() => partCount('resume.bin'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
  const opened = await openUploads('resume.bin');
  expect(opened).toHaveLength(1);

  // The page goes away mid-upload; the same file picked again resumes.
  await page.reload();
  await openBucket(page, 'Resume AWS', bucket);
  await throttleUploads(page, 4 * MiB);
  await page.getByLabel('Files to upload').setInputFiles(resume);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const row = uploadRow(page, 'resume.bin');
  await expect(row.getByText('Resumed')).toBeVisible();
  // It goes on from the parts already there (at least 25 MiB of 64), in the same multipart upload.
  expect(await percentOf(page, 'resume.bin')).toBeGreaterThanOrEqual(39);
  expect(await openUploads('resume.bin')).toEqual(opened);
  await expect(page.getByText(`resume.bin uploaded to ${bucket} successfully`)).toBeVisible({
    timeout: 120_000,
  });
  expect(await storedHash(store, bucket, 'resume.bin')).toBe(sha256(fs.readFileSync(resume)));
  expect(await openUploads()).toEqual([]);

  // Cancel one: nothing of it stays, not even an open multipart upload with its parts.
  await page.getByLabel('Files to upload').setInputFiles(cancel);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect.poll(() => partCount('cancel.bin'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
  const cancelRow = uploadRow(page, 'cancel.bin');
  await cancelRow.getByRole('button', { name: 'Cancel' }).click();
  await expect(cancelRow.getByText(uploadMessages.cancelled)).toBeVisible();
  await expect.poll(() => openUploads()).toEqual([]);
  expect(await store.stat(bucket, 'cancel.bin')).toBeNull();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
