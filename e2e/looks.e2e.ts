// The page.evaluate callbacks below run in the browser and measure the DOM.
/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { PROVIDER_ICON_HEIGHT_PX, transferMessages } from '@cumulo/contract';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';
import { confirmChargeWithCard } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { expect, test } from './fixtures.ts';
import { MiB, seedObjects } from './seed-objects.ts';
import { chooseBuckets, pick } from './selects.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore, azuriteStore } from './stores.ts';

/** Where the screenshots go for a person to look at (git-ignored with the rest of e2e/.tmp). */
const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.tmp', 'screens');
const WIDTHS = [1440, 1280] as const;
const HEIGHT = 900;
const ACCOUNT = 'Looks S3';
const AZURE = 'Looks Azure';

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} has no box`);
  return found;
}

/**
 * The sidebar's white panel runs from the top to the bottom of the page, however long the page is: the sider itself
 * and every line drawn down its side (a menu's border that stopped under the last entry looked like the panel ending).
 */
async function expectSidebarFullHeight(page: Page) {
  const reach = await page.evaluate(() => {
    const sider = document.querySelector('.ant-layout-sider');
    if (!sider) return null;
    const span = (element: Element) => {
      const rect = element.getBoundingClientRect();
      return { top: rect.top + window.scrollY, bottom: rect.bottom + window.scrollY };
    };
    const edges = [sider, ...sider.querySelectorAll('*')].filter((element) => {
      const style = getComputedStyle(element);
      return (
        parseFloat(style.borderRightWidth) > 0 &&
        style.borderRightStyle !== 'none' &&
        style.borderRightColor !== 'rgba(0, 0, 0, 0)'
      );
    });
    return {
      page: Math.max(document.documentElement.scrollHeight, window.innerHeight),
      sider: span(sider),
      background: getComputedStyle(sider).backgroundColor,
      edges: edges.map(span),
    };
  });
  expect(reach, 'the sidebar is on the page').not.toBeNull();
  if (!reach) return;
  expect.soft(reach.background, 'the panel is white').toBe('rgb(255, 255, 255)');
  expect.soft(reach.sider.top).toBeLessThanOrEqual(0);
  expect.soft(reach.sider.bottom, 'the panel reaches the bottom').toBeGreaterThanOrEqual(reach.page - 1);
  for (const edge of reach.edges) {
    expect.soft(edge.top, 'a line down the panel starts at the top').toBeLessThanOrEqual(1);
    expect
      .soft(edge.bottom, 'a line down the panel reaches the bottom')
      .toBeGreaterThanOrEqual(reach.page - 1);
  }
}

async function screenshot(page: Page, name: string, width: number) {
  // A select's list closing after a pick would cover the page.
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
}

/** The numbers and unit of the speed chart's y-axis labels ('15 Mbps' → [15, 'Mbps']), bottom up. */
async function speedTicks(page: Page): Promise<Array<[number, string]>> {
  const labels = await page
    .getByRole('figure', { name: 'Transfer speed' })
    .locator('.recharts-cartesian-axis-tick-value')
    .allTextContents();
  return labels
    .filter((label) => label.trim().endsWith('bps'))
    .map((label) => {
      const [value = '', unit = ''] = label.trim().split(' ');
      return [Number(value), unit];
    });
}

/** Ticks are 0, s, 2s, … in one unit, with s one of 1, 2 or 5 × 10^n of that unit. */
function expectRoundTicks(ticks: Array<[number, string]>) {
  const shown = ticks.map(([value, unit]) => `${value} ${unit}`).join(', ');
  expect.soft(new Set(ticks.map(([, unit]) => unit)).size, `one unit: ${shown}`).toBe(1);
  const values = ticks.map(([value]) => value);
  const step = values[1] ?? 0;
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  expect.soft(values[0], shown).toBe(0);
  expect
    .soft(
      [1, 2, 5].some((round) => Math.abs(mantissa - round) < 1e-9),
      `round step: ${shown}`,
    )
    .toBe(true);
  values.forEach((value, index) => expect.soft(value, shown).toBeCloseTo(index * step, 9));
}

test('looks at 1440 and 1280 px: full-height sidebar, narrow checkbox column, visible actions, header ring, round chart ticks', async ({
  page,
}) => {
  test.setTimeout(240_000);
  fs.mkdirSync(SCREENS, { recursive: true });
  const { s3rver: endpoint } = endpoints();
  const store = s3rverStore();
  const blobs = azuriteStore();
  const stamp = Date.now().toString(36);
  const bucket = `looks-${stamp}`;
  const copy = `looks-copy-${stamp}`;
  await store.createBucket(bucket);
  // Between two stores the bytes pass through the worker, so the bandwidth limit holds the copy back.
  await blobs.createBucket(copy);
  await seedObjects(store, bucket, [
    ...Array.from({ length: 14 }, (_, i) => ({ key: `report-${i}.csv`, size: 2000 + i })),
    { key: 'docs/readme.txt', size: 300 },
    // Copied at 1 MiB/s, it keeps a transfer running while the screens are looked at.
    { key: 'big/payload.bin', size: 160 * MiB },
  ]);

  // Signed out: without a Google client configured the sign-in page offers no Google button.
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /Sign in with Google/ })).toHaveCount(0);
  await signedInOwner(page);
  await connectAccount(page, 'genericS3', {
    Name: ACCOUNT,
    'Service URL': endpoint,
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });
  await connectAccount(page, 'azure', {
    Name: AZURE,
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });

  await test.step('start a slow copy, so the header ring and the speed chart have something to show', async () => {
    await chooseBuckets(page, '/migration', [
      ['Source', ACCOUNT, bucket],
      ['Destination', AZURE, copy],
    ]);
    await page.getByRole('checkbox', { name: 'Use a prefix' }).check();
    await page.getByRole('textbox', { name: 'Prefix' }).fill('big/');
    await page.getByRole('checkbox', { name: 'Limit bandwidth' }).check();
    await page.getByRole('spinbutton', { name: 'Bandwidth limit (MiB/s)' }).fill('1');
    const start = page.getByRole('button', { name: 'Copy Using Prefix' });
    await start.click();
    // The organisation has not confirmed the charge yet: the Owner is asked first.
    await expect(page.getByRole('dialog', { name: 'Cloud To Cloud Transfer' })).toBeVisible();
    await confirmChargeWithCard(page);
    await start.click();
    await expect(page.getByRole('dialog', { name: transferMessages.started })).toBeVisible();
  });

  // The browser's address names the account and bucket once they are picked.
  await page.goto('/browse');
  await pick(page, 'Cloud account', ACCOUNT);
  await pick(page, 'Bucket', bucket);
  await expect(page).toHaveURL(new RegExp(`bucket=${bucket}`));
  const browseUrl = page.url();

  for (const width of WIDTHS) {
    await test.step(`${width} px`, async () => {
      await page.setViewportSize({ width, height: HEIGHT });

      await page.goto('/');
      await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
      const ring = page.getByRole('link', { name: /^Transfers in progress: \d+%$/ });
      await expect(ring).toBeVisible({ timeout: 30_000 });
      await screenshot(page, 'dashboard', width);
      // The ring sits inside the header with room to spare above and below.
      const header = await box(page.locator('header.ant-layout-header'));
      const ringBox = await box(ring);
      expect.soft(ringBox.y - header.y, 'room above the ring').toBeGreaterThanOrEqual(8);
      expect
        .soft(header.y + header.height - (ringBox.y + ringBox.height), 'room below')
        .toBeGreaterThanOrEqual(8);
      await expectSidebarFullHeight(page);
      // Provider marks are drawings 38 px high (spec 002 §9), not letters.
      for (const provider of ['Azure Blob', 'S3 Compatible']) {
        const logo = page.getByRole('img', { name: provider, exact: true }).first();
        expect.soft((await box(logo)).height, provider).toBeCloseTo(PROVIDER_ICON_HEIGHT_PX, 0);
        await expect.soft(logo).toHaveText('');
      }

      await page.goto('/mboard');
      const ongoing = page.getByRole('list', { name: 'Ongoing transfers' }).getByRole('listitem').first();
      await expect(ongoing).toBeVisible({ timeout: 30_000 });
      await expect(page.getByRole('group', { name: 'Speed' })).toContainText(/[1-9][\d.]* [KMG]?bps/, {
        timeout: 30_000,
      });
      // The chart has drawn the moving copy.
      await expect.poll(async () => (await speedTicks(page)).length, { timeout: 15_000 }).toBeGreaterThan(2);
      await screenshot(page, 'mboard', width);
      await expect.soft(ongoing).toHaveAccessibleName(`${ACCOUNT} / ${bucket} → ${AZURE} / ${copy}`);
      expectRoundTicks(await speedTicks(page));
      await expectSidebarFullHeight(page);

      await page.goto(browseUrl);
      await expect(page.getByRole('checkbox', { name: 'Select report-0.csv' })).toBeVisible();
      await screenshot(page, 'browser', width);
      const selection = await box(page.locator('.ant-table-thead .ant-table-selection-column'));
      expect.soft(selection.width, 'the checkbox column').toBeLessThan(60);
      await expectSidebarFullHeight(page);

      await page.goto('/S3Direct');
      await pick(page, 'Cloud account', ACCOUNT);
      await pick(page, 'Bucket', bucket);
      await expect(page.getByRole('checkbox', { name: 'Select report-0.csv' })).toBeVisible();
      await screenshot(page, 's3direct', width);
      // The Actions column is in view without scrolling the table sideways (the virtual table draws its own
      // horizontal scrollbar only when its columns are wider than the pane).
      const table = page.locator('.ant-table');
      const actionsBox = await box(page.getByRole('columnheader', { name: 'Actions' }));
      const tableBox = await box(table);
      expect
        .soft(actionsBox.x + actionsBox.width, 'Actions in view')
        .toBeLessThanOrEqual(tableBox.x + tableBox.width + 1);
      await expect.soft(table.locator('.ant-table-tbody-virtual-scrollbar-horizontal')).toHaveCount(0);
      await expectSidebarFullHeight(page);

      // A short page: the panel still reaches the bottom of the window.
      await page.goto('/sharing');
      await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
      await screenshot(page, 'sharing', width);
      await expectSidebarFullHeight(page);
    });
  }
});
