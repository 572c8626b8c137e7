import type { Locator, Page } from '@playwright/test';
import { encodingPrice, mediaMessages } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { connectAccount } from './cloud-accounts.ts';
import { expect, test } from './fixtures.ts';
import { listSizes } from './seed-objects.ts';
import { pick } from './selects.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore } from './stores.ts';
import { testClip } from './clips.ts';

/**
 * Issue 26 "Done when", the encoding part, in Chromium: a clip in a bucket of one account, encoded from the bucket
 * browser with two presets into another account's bucket, watched on /encoding to Done; a third preset cancelled
 * while it runs, which leaves no output behind.
 */

/**
 * Picks an option of a select inside one preset row of the encode dialog. A click that lands while the list is
 * still opening selects nothing and leaves it open (seen on a loaded CI run): the pick counts once the list closed.
 */
async function pickIn(page: Page, row: Locator, label: string, option: string) {
  const select = row.getByRole('combobox', { name: label });
  await expect(async () => {
    if ((await select.getAttribute('aria-expanded')) !== 'true') await select.click({ timeout: 5000 });
    await page
      .locator('.ant-select-item-option:visible')
      .filter({ hasText: new RegExp(`^${option.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) })
      .first()
      .click({ timeout: 5000 });
    await expect(select).toHaveAttribute('aria-expanded', 'false', { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
}

/** Fills one preset row: what to make and where it goes. */
async function fillPreset(page: Page, row: Locator, category: string, preset: string, bucket: string) {
  await pickIn(page, row, 'Category', category);
  await pickIn(page, row, 'Preset', preset);
  await pickIn(page, row, 'Destination account', 'Delivery S3');
  await pickIn(page, row, 'Destination bucket', bucket);
  await row.getByLabel('Destination folder').fill('renders');
}

const jobRow = (page: Page, preset: string) => page.getByRole('row').filter({ hasText: preset });

test('encode a clip with two presets into another account, watch them to Done, cancel a third', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const stamp = Date.now().toString(36);
  const source = `enc-src-${stamp}`;
  const target = `enc-dst-${stamp}`;
  const store = s3rverStore();
  await store.createBucket(source);
  await store.createBucket(target);
  // Long enough that a 1080p encode of it is still running when it is cancelled.
  const clip = testClip(20);
  await store.write(source, 'clips/clip.mp4', clip);

  await signedInOwner(page, 'Ena');
  for (const name of ['Studio S3', 'Delivery S3']) {
    await connectAccount(page, 'genericS3', {
      Name: name,
      'Service URL': endpoints().s3rver,
      'Access Key': S3RVER_KEY,
      'Secret Key': S3RVER_KEY,
    });
  }

  // The bucket lists come from each account's inventory, which the worker fills in the background.
  await page.goto('/browse');
  await expect(async () => {
    await pick(page, 'Cloud account', 'Studio S3');
    await pick(page, 'Bucket', source);
  }).toPass({ timeout: 30_000 });
  await page.getByRole('button', { name: 'clips' }).click();
  const clipFolder = page.url();

  const openEncode = async () => {
    await page.getByRole('checkbox', { name: 'Select clip.mp4' }).check();
    await page.getByRole('button', { name: 'Encode' }).click();
    return page.getByRole('dialog', { name: 'Encode' });
  };

  let dialog = await openEncode();
  const first = dialog.getByRole('group', { name: 'Preset 1 of clip.mp4' });
  await expect(async () => {
    await fillPreset(page, first, 'MP4', 'MP4 H.264/AAC 480p', target);
  }).toPass({ timeout: 30_000 });
  await dialog.getByRole('button', { name: 'Add preset for clip.mp4' }).click();
  const second = dialog.getByRole('group', { name: 'Preset 2 of clip.mp4' });
  await pickIn(page, second, 'Category', 'Images');
  await pickIn(page, second, 'Preset', 'Thumbnail');
  await expect(dialog.getByLabel('Encoding price')).toHaveText(
    `$${encodingPrice(clip.length, 2).toFixed(3)}`,
  );
  await dialog.getByRole('button', { name: 'Encode', exact: true }).click();
  await expect(page.getByText(mediaMessages.queued).first()).toBeVisible();
  await dialog.getByRole('link', { name: 'Go to Encoding Jobs' }).click();

  await expect(page).toHaveURL(/\/encoding$/);
  await expect(page.getByRole('heading', { name: 'Encoding Jobs' })).toBeVisible();
  for (const preset of ['MP4 H.264/AAC 480p', 'Thumbnail']) {
    await expect(jobRow(page, preset).getByText(mediaMessages.done)).toBeVisible({ timeout: 45_000 });
  }
  await expect(jobRow(page, 'Thumbnail').getByRole('link', { name: 'clip-thumbnail.jpg' })).toBeVisible();

  // A third preset, cancelled while ffmpeg runs.
  await page.goto(clipFolder);
  dialog = await openEncode();
  await fillPreset(
    page,
    dialog.getByRole('group', { name: 'Preset 1 of clip.mp4' }),
    'MP4',
    'MP4 H.264/AAC 1080p',
    target,
  );
  await dialog.getByRole('button', { name: 'Encode', exact: true }).click();
  await dialog.getByRole('link', { name: 'Go to Encoding Jobs' }).click();
  const third = jobRow(page, 'MP4 H.264/AAC 1080p');
  await expect(third.getByRole('progressbar')).toBeVisible({ timeout: 30_000 });
  await third.getByRole('button', { name: /Cancel/ }).click();
  await expect(page.getByText(mediaMessages.cancelled)).toBeVisible();
  await expect(third.getByText('Stopped')).toBeVisible({ timeout: 10_000 });

  // The two outputs are in the other account's bucket; the cancelled preset left nothing.
  const written = await listSizes(store, target, 'renders/');
  expect([...written.keys()].sort()).toEqual(['renders/clip-480p.mp4', 'renders/clip-thumbnail.jpg']);
  for (const size of written.values()) expect(size).toBeGreaterThan(0);
});
