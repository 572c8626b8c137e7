import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { sharingMessages } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { linkFromMail } from './mail.ts';
import { connectAccount } from './cloud-accounts.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore } from './stores.ts';

async function bearer(page: Page) {
  return `Bearer ${await page.evaluate(() => localStorage.getItem('Authorization') ?? '')}`;
}

test('share two files with a password, open the link signed-out, download, revoke', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const { s3rver } = endpoints();
  const bucket = `shared-${Date.now().toString(36)}`;
  const report = Buffer.from('region,total\nnorth,42\nsouth,17\n'.repeat(200));
  const clip = Buffer.alloc(300_000, 9);
  const store = s3rverStore();
  await store.createBucket(bucket);
  await store.write(bucket, 'q1/report.csv', report, { contentType: 'text/csv' });
  await store.write(bucket, 'q1/intro.bin', clip);
  await store.close();

  await signedInOwner(page, 'Sharon');
  await connectAccount(page, 'genericS3', {
    Name: 'Lab S3',
    'Service URL': s3rver,
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });

  const accounts = await page.request.get('/api/cloud_accounts/', {
    headers: { authorization: await bearer(page) },
  });
  const accountId = ((await accounts.json()) as Array<{ id: string }>)[0]?.id ?? '';

  // Select both files in the bucket browser and share them through the dialog.
  const recipient = `e2e.recipient.${Date.now()}@example.com`;
  await page.goto(`/browse?${new URLSearchParams({ account: accountId, bucket, path: 'q1/' }).toString()}`);
  for (const name of ['report.csv', 'intro.bin'])
    await page.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  await page.getByRole('button', { name: /^(share-alt )?Share$/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Share files' });
  await expect(dialog).toContainText('2 of 2 selected');
  await dialog.getByLabel('Recipients').fill(recipient);
  await dialog.getByLabel('Recipients').press('Enter');
  await dialog.getByLabel('Password (optional)').fill('open sesame');
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(page.getByText(sharingMessages.shared)).toBeVisible();
  await expect(dialog).toBeHidden();
  const link = await linkFromMail(
    recipient,
    'shared 2 files with you',
    /http:\/\/localhost:\d+\/sharing\/[\w-]{43}/,
  );

  // The recipient has no Cumulo session at all.
  const visitorContext = await browser.newContext();
  const visitor = await visitorContext.newPage();
  await visitor.goto(link);
  await expect(visitor.getByText('report.csv')).toBeVisible();
  await expect(visitor.getByText('intro.bin')).toBeVisible();
  await expect(visitor.getByText(/Sharon Hopper shared 2 files with you/)).toBeVisible();

  await visitor.getByLabel('Password').fill('open sesame?');
  await visitor.getByRole('button', { name: 'Download report.csv' }).click();
  await expect(visitor.getByText(sharingMessages.wrongPassword)).toBeVisible();
  await expect(visitor).toHaveURL(link);

  await visitor.getByLabel('Password').fill('open sesame');
  const downloading = visitor.waitForEvent('download');
  await visitor.getByRole('button', { name: 'Download report.csv' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('report.csv');
  expect(fs.readFileSync(await download.path()).equals(report)).toBe(true);

  // The Owner sees the link with its download and revokes it.
  await page.goto('/sharing');
  const row = page.locator('tr').filter({ hasText: 'q1/report.csv' });
  await expect(row).toContainText(recipient);
  await expect(row.getByRole('cell', { name: '1', exact: true })).toBeVisible();
  await row.getByRole('button', { name: /Revoke link/ }).click();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(page.getByText(sharingMessages.revokeDone)).toBeVisible();
  await expect(row).toContainText('revoked');

  await visitor.reload();
  await expect(visitor.getByText(sharingMessages.revoked)).toBeVisible();
  await expect(visitor.getByRole('button', { name: /Download/ })).toHaveCount(0);
  await visitorContext.close();
});
