import { hybrikMessages } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { fillCardForm } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { expect, test } from './fixtures.ts';
import { pick } from './selects.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore } from './stores.ts';
import { testClip } from './clips.ts';

/**
 * Issue 26 point 2 "Done when", in Chromium: a new Owner buys the Hybrik package, chooses the output bucket, uploads
 * a JSON profile (a .txt is refused in the browser), runs it on a tiny clip from the bucket browser's
 * "Transcode (Hybrik)" dialog, watches it reach Completed, and the outputs are in the bucket.
 */

/** Source → transcode (mp4, 160×120) → copy, Hybrik's job JSON as a customer would write it. */
const PROFILE = {
  name: 'E2E small MP4',
  payload: {
    elements: [
      {
        uid: 'source_file',
        kind: 'source',
        payload: { kind: 'asset_url', payload: { storage_provider: 's3', url: '{{source}}' } },
      },
      {
        uid: 'transcode_task',
        kind: 'transcode',
        payload: {
          location: { storage_provider: 's3', path: '{{destination}}renders' },
          targets: [
            {
              file_pattern: '{source_basename}_small.mp4',
              container: { kind: 'mp4' },
              video: { codec: 'h264', width: 160, height: 120 },
              audio: [{ codec: 'aac', bitrate_kb: 64 }],
            },
          ],
        },
      },
      { uid: 'copy_task', kind: 'copy', payload: { target: { path: '{{destination}}delivery' } } },
    ],
    connections: [
      { from: [{ element: 'source_file' }], to: { success: [{ element: 'transcode_task' }] } },
      { from: [{ element: 'transcode_task' }], to: { success: [{ element: 'copy_task' }] } },
    ],
  },
};

test('Hybrik: buy the package, set the output bucket, upload a profile, run it on a clip to Completed', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const store = s3rverStore();
  const suffix = Date.now().toString(36);
  const media = `hyb-media-${suffix}`;
  const output = `hyb-out-${suffix}`;
  const account = `Hybrik S3 ${suffix}`;
  await store.createBucket(media);
  await store.createBucket(output);
  await store.write(media, 'clips/clip.mp4', testClip(2), { contentType: 'video/mp4' });

  await signedInOwner(page, 'Hedy');

  await test.step('the Owner buys the Hybrik package on /hybrik', async () => {
    await page.goto('/hybrik');
    const modal = page.getByRole('dialog', { name: 'Subscribe to Hybrik' });
    await expect(modal).toBeVisible();
    await modal.getByRole('checkbox').check();
    await fillCardForm(modal, 'Confirm');
    await expect(modal).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Hybrik Encoding' })).toBeVisible();
  });

  await test.step('an S3 account, and its bucket as the output bucket in Settings', async () => {
    await connectAccount(page, 'genericS3', {
      Name: account,
      'Service URL': endpoints().s3rver,
      'Access Key': S3RVER_KEY,
      'Secret Key': S3RVER_KEY,
    });
    // The bucket list comes from the account's inventory, which the worker fills in the background.
    await expect(async () => {
      await page.goto('/hybrik');
      await page.getByRole('tab', { name: 'Settings' }).click();
      await pick(page, 'Cloud account', account);
      await pick(page, 'Bucket', output);
    }).toPass({ timeout: 60_000 });
    await page.getByLabel('Path').fill('hybrik/');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(hybrikMessages.settingsSaved)).toBeVisible();
  });

  await test.step('a .txt is refused in the browser; the JSON profile is uploaded', async () => {
    const picker = page.locator('input[type="file"]');
    await picker.setInputFiles({
      name: 'profile.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('name: x'),
    });
    await expect(page.getByText(hybrikMessages.jsonOnly)).toBeVisible();
    await picker.setInputFiles({
      name: 'small.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(PROFILE)),
    });
    await expect(page.getByText(hybrikMessages.profileUploaded)).toBeVisible();
    await expect(page.getByRole('table', { name: 'Profiles' })).toContainText(PROFILE.name);
  });

  await test.step('Transcode (Hybrik) on the clip from the bucket browser', async () => {
    await expect(async () => {
      await page.goto('/browse');
      await pick(page, 'Cloud account', account);
      await pick(page, 'Bucket', media);
    }).toPass({ timeout: 60_000 });
    await page.getByRole('button', { name: 'clips' }).click();
    await page.getByRole('checkbox', { name: 'Select clip.mp4' }).check();
    await page.getByRole('button', { name: 'Transcode (Hybrik)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transcode (Hybrik)' });
    await expect(dialog).toContainText(`Outputs go to ${output}/hybrik/`);
    await dialog.getByRole('combobox', { name: 'Profile' }).click();
    await page.locator('.ant-select-item-option:visible').filter({ hasText: PROFILE.name }).click();
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByText(hybrikMessages.jobCreated)).toBeVisible();
    await expect(dialog).toBeHidden();
  });

  await test.step('the job reaches Completed, and its outputs are in the bucket', async () => {
    await page.goto('/hybrik');
    await page.getByRole('tab', { name: 'Completed' }).click();
    const completed = page.getByRole('table', { name: 'Completed jobs' });
    // The tab polls every second: no reload needed.
    await expect(completed).toContainText(PROFILE.name, { timeout: 90_000 });
    await expect(completed.getByLabel(`Progress of ${PROFILE.name}`)).toContainText('100%');
    const keys: string[] = [];
    for await (const listed of store.list(output, { prefix: 'hybrik/' })) {
      keys.push(...listed.objects.map((object) => object.key));
    }
    expect(keys.filter((key) => key.endsWith('.mp4')).sort()).toEqual([
      'hybrik/delivery/clip_small.mp4',
      'hybrik/renders/clip_small.mp4',
    ]);
    expect((await store.stat(output, 'hybrik/renders/clip_small.mp4'))?.size).toBeGreaterThan(1000);
  });
});
