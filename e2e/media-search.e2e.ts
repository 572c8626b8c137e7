import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { formatUsd, mediaSearchMessages, packageByHandle, type CloudAccountView } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { fillCardForm } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { expect, test } from './fixtures.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore } from './stores.ts';
import { testClip } from './clips.ts';

/**
 * Issue 26 point 4 "Done when", in Chromium: a new Owner buys LiteMAM from the upsell, connects an S3 account
 * whose bucket holds a tiny clip, gives the clip a custom metadata value and finds it on /mediasearch by that value
 * and with 'does not contain'; the preview shows it, two files selected show the bulk actions; another
 * organisation without the package sees the upsell with the package's price.
 */
const TMP = path.join(path.dirname(fileURLToPath(import.meta.url)), '.tmp');
const LITEMAM = packageByHandle('litemam');

const token = (page: Page) => page.evaluate(() => localStorage.getItem('Authorization') ?? '');

/** The upsell of a paid screen: the subscription modal of LiteMAM with both of its prices. */
async function expectUpsell(page: Page) {
  if (!LITEMAM) throw new Error('no LiteMAM package in the contract');
  const modal = page.getByRole('dialog', { name: 'Subscribe to LiteMAM' });
  await expect(modal).toBeVisible();
  await expect(modal.getByText(`Monthly ${formatUsd(LITEMAM.price_monthly, 0)}`)).toBeVisible();
  await expect(modal.getByText(`Annually ${formatUsd(LITEMAM.price_annually, 0)}`)).toBeVisible();
  expect([LITEMAM.price_monthly, LITEMAM.price_annually]).toEqual([20, 199]);
  return modal;
}

const row = (page: Page, name: string) =>
  page.getByRole('table').locator('.ant-table-row').filter({ hasText: name });

test('find a clip by its custom metadata value and by does not contain, preview it, select two files', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const run = Date.now().toString(36);
  const bucket = `msearch-${run}`;
  const client = `Aurora${run}`;
  const store = s3rverStore();
  await store.createBucket(bucket);
  const clip = testClip(2);
  await store.write(bucket, 'clips/teaser.mp4', clip, { size: clip.length, contentType: 'video/mp4' });
  await store.write(bucket, 'clips/holiday.mp4', Buffer.alloc(2048, 1), { size: 2048 });
  await store.write(bucket, 'docs/readme.txt', Buffer.from('read me'));

  await signedInOwner(page, 'Mia');

  await test.step('the upsell states the price, and the Owner buys LiteMAM with a first card', async () => {
    await page.goto('/mediasearch');
    const modal = await expectUpsell(page);
    await modal.getByRole('checkbox').check();
    await fillCardForm(modal, 'Confirm');
    await expect(modal).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Media Search' })).toBeVisible();
  });

  let accountId = '';
  await test.step('an S3 account whose bucket the inventory walks into the index', async () => {
    await connectAccount(page, 'genericS3', {
      Name: 'Media S3',
      'Service URL': endpoints().s3rver,
      'Access Key': S3RVER_KEY,
      'Secret Key': S3RVER_KEY,
    });
    const bearer = { authorization: `Bearer ${await token(page)}` };
    // The inventory the connection queued walks each bucket into the media-search index: wait for this one's walk.
    await expect(async () => {
      const res = await page.request.get('/api/cloud_accounts/', { headers: bearer });
      const account = ((await res.json()) as CloudAccountView[]).find((a) => a.name === 'Media S3');
      const walked = account?.storages.find((s) => s.bucket_name === bucket);
      expect(walked?.inventory_status).toBe('done');
      accountId = account?.id ?? '';
    }).toPass({ timeout: 60_000 });
    const location = { cloud_account_id: accountId, bucket_name: bucket, path: 'clips/teaser.mp4' };
    // The media-info modal is another part's screen: its calls, made as that screen makes them.
    const added = await page.request.post('/api/metadata/add', {
      headers: bearer,
      data: { ...location, name: 'client', value: client },
    });
    expect(added.status()).toBe(201);
    const info = await page.request.get(`/api/media/info?${new URLSearchParams(location).toString()}`, {
      headers: bearer,
    });
    expect(info.status()).toBe(200);
  });

  await test.step('the custom metadata value finds the clip; the preview shows it', async () => {
    await page.goto('/mediasearch');
    await page.getByRole('searchbox', { name: 'Search' }).fill(client.toLowerCase());
    await expect(page.getByRole('status')).toHaveText(mediaSearchMessages.resultCount(1));
    await row(page, 'teaser.mp4').getByText('Media S3').click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await expect(preview.getByRole('heading', { name: 'teaser.mp4' })).toBeVisible();
    await expect(preview.getByRole('region', { name: 'General' })).toContainText(bucket);
    await expect(preview.getByRole('region', { name: 'Custom metadata' })).toContainText(client);
    await expect(preview.getByRole('button', { name: 'Play video' })).toBeVisible();
    await preview.getByRole('tab', { name: 'Video' }).click();
    await expect(preview.getByRole('region', { name: 'Video' })).toContainText('h264');
  });

  await test.step("'does not contain' leaves a file out: the count and the preview follow", async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('button', { name: 'Add filter' }).click();
    const first = page.getByRole('group', { name: 'Filter 1' });
    await first.getByRole('combobox', { name: 'Filter key' }).fill('bucket');
    await first.getByRole('combobox', { name: 'Comparator' }).click();
    await page
      .locator('.ant-select-item-option:visible')
      .filter({ hasText: /^match$/ })
      .click();
    await first.getByRole('textbox', { name: 'Filter value' }).fill(bucket);
    await expect(page.getByRole('status')).toHaveText(mediaSearchMessages.resultCount(3));
    await page.getByRole('button', { name: 'Add filter' }).click();
    const second = page.getByRole('group', { name: 'Filter 2' });
    await second.getByRole('combobox', { name: 'Filter key' }).fill('name');
    await second.getByRole('combobox', { name: 'Comparator' }).click();
    await page.locator('.ant-select-item-option:visible').filter({ hasText: 'does not contain' }).click();
    await second.getByRole('textbox', { name: 'Filter value' }).fill('holiday');
    await expect(page.getByRole('status')).toHaveText(mediaSearchMessages.resultCount(2));
    await expect(row(page, 'holiday.mp4')).toHaveCount(0);
    await row(page, 'teaser.mp4').getByText('Media S3').click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await expect(preview.getByRole('heading', { name: 'teaser.mp4' })).toBeVisible();

    await row(page, 'readme.txt').getByRole('checkbox', { name: 'Select readme.txt' }).check();
    await expect(preview.getByText(mediaSearchMessages.filesSelected(2))).toBeVisible();
    await expect(preview.getByRole('button', { name: 'Download' })).toBeVisible();
    await expect(preview.getByRole('button', { name: 'Share' })).toBeVisible();
    await page.screenshot({ path: `${TMP}/screens/media-search.png`, fullPage: true });
  });
});

test('an organisation without LiteMAM sees the upsell on /mediasearch', async ({ page }) => {
  await signedInOwner(page, 'Noa');
  await page.goto('/mediasearch');
  const modal = await expectUpsell(page);
  await expect(page.getByRole('heading', { name: 'Media Search' })).toHaveCount(0);
  await modal.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/$/);
});
