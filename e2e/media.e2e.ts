import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { mediaMessages, uploadMessages } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { connectAccount } from './cloud-accounts.ts';
import { signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';
import { testClip } from './clips.ts';
import { openBucket } from './selects.ts';

/**
 * Media info and playback as a new member meets them (issue 26 point 3): a clip uploaded through the browser,
 * its media info and a Custom metadata entry, the clip playing in the floating player, then an HLS folder of a
 * private bucket playing through hls.js in the same window.
 */

/** The clip as an HLS folder without encoding: a master playlist over v0/ of 1 s MPEG-TS segments. */
function makeHlsFolder(clip: string, dir: string): Map<string, Buffer> {
  const out = path.join(dir, 'show');
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-i', clip, '-map', '0:v', '-map', '0:a', '-c', 'copy'],
    ...['-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod'],
    ...['-var_stream_map', 'v:0,a:0', '-master_pl_name', 'master.m3u8'],
    ...['-hls_segment_filename', path.join(out, 'v%v', 'seg%d.ts'), path.join(out, 'v%v', 'index.m3u8')],
  ]);
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(`show/${path.relative(out, file).split(path.sep).join('/')}`, fs.readFileSync(file));
  }
  return files;
}

/** Waits until the player's <video> has played past `seconds`: frames decoded and time moving. */
async function expectPlaying(video: Locator, seconds: number) {
  await expect
    .poll(
      () =>
        video.evaluate((element: HTMLVideoElement) =>
          element.error ? `error ${element.error.code}: ${element.error.message}` : element.currentTime,
        ),
      { timeout: 20_000 },
    )
    .toBeGreaterThan(seconds);
  expect(await video.evaluate((element: HTMLVideoElement) => element.readyState)).toBeGreaterThanOrEqual(2);
}

test('a new member uploads a clip, reads its media info, labels it, plays it and an HLS folder in the floating player', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-media-'));
  const clip = path.join(dir, 'clip.mp4');
  fs.writeFileSync(clip, testClip(3));
  const store = s3rverStore();
  const bucket = `media-${Date.now().toString(36)}`;
  await store.createBucket(bucket);

  await signedInOwner(page, 'Mia');
  await connectAccount(page, 'aws', {
    Name: 'Media AWS',
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });
  await openBucket(page, 'Media AWS', bucket);
  await page.getByLabel('Files to upload').setInputFiles(clip);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByText(uploadMessages.complete('clip.mp4', bucket))).toBeVisible({ timeout: 60_000 });

  // Media info: what the file is, read by ffprobe on the server.
  await page.getByRole('button', { name: 'Media info of clip.mp4' }).click();
  const info = page.getByRole('dialog', { name: 'Media info: clip.mp4' });
  const general = info.getByRole('tabpanel', { name: 'General' });
  await expect(general.getByRole('row', { name: /Duration/ })).toContainText('3.0');
  await info.getByRole('tab', { name: 'Video' }).click();
  const video = info.getByRole('region', { name: 'Video stream 1' });
  await expect(video.getByRole('row', { name: 'Codec h264' })).toBeVisible();
  await expect(video.getByRole('row', { name: 'Width 320' })).toBeVisible();
  await info.getByRole('tab', { name: 'Audio' }).click();
  const audio = info.getByRole('region', { name: 'Audio stream 1' });
  await expect(audio.getByRole('row', { name: 'Codec aac' })).toBeVisible();

  // A Custom metadata entry, listed back by the server.
  await info.getByRole('tab', { name: 'Metadata', exact: true }).click();
  await info.getByLabel('Metadata name').fill('Scene');
  await info.getByLabel('Metadata value').fill('Opening titles');
  await info.getByRole('button', { name: /Add$/ }).click();
  await expect(info.getByRole('row', { name: /Scene Opening titles/ })).toBeVisible();
  await info.getByLabel('Metadata name').fill('Scene');
  await info.getByLabel('Metadata value').fill('Again');
  await info.getByRole('button', { name: /Add$/ }).click();
  await expect(page.getByText(mediaMessages.metadataExists('Scene'))).toBeVisible();
  await info.getByRole('button', { name: 'Close' }).click();
  await expect(info).toBeHidden();

  // Play: a window over the page, playing the file from its signed URL.
  await page.getByRole('button', { name: 'Play clip.mp4' }).click();
  const player = page.getByRole('dialog', { name: 'Video player: clip.mp4' });
  await expect(player).toBeVisible();
  const fileVideo = player.locator('video');
  await expect(fileVideo).toHaveAttribute('data-engine', 'file');
  await expectPlaying(fileVideo, 0.5);
  // Never smaller than 100×50, however far its corner is dragged.
  const corner = player.getByRole('slider', { name: /Resize the player/ });
  const box = await corner.boundingBox();
  if (!box) throw new Error('no resize corner');
  await page.mouse.move(box.x + 5, box.y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x - 900, box.y - 900, { steps: 5 });
  await page.mouse.up();
  const size = await player.boundingBox();
  expect(size).toMatchObject({ width: 100, height: 50 });

  // An HLS folder put in the same private bucket through the S3 API (its CORS rule, set by the upload, lets the
  // page read segments), played from the browser while the member goes on browsing.
  for (const [key, bytes] of makeHlsFolder(clip, dir)) await store.write(bucket, key, bytes);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('button', { name: 'show' }).click();
  await expect(player).toBeVisible();
  await page.getByRole('button', { name: 'Play master.m3u8' }).click();
  const hlsPlayer = page.getByRole('dialog', { name: 'Video player: master.m3u8' });
  const hlsVideo = hlsPlayer.locator('video');
  await expect(hlsVideo).toHaveAttribute('data-engine', 'hls.js');
  await expectPlaying(hlsVideo, 1);
  await hlsPlayer.getByRole('button', { name: 'Close the player' }).click();
  await expect(hlsPlayer).toBeHidden();

  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
