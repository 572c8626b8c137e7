import type { Page } from '@playwright/test';
import { DASHBOARD_WIDGETS } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { expect, test } from './fixtures.ts';
import { signedInOwner } from './session.ts';

/** The widgets on the page while arranging, in page order. */
async function arrangedWidgets(page: Page): Promise<string[]> {
  const titles: string[] = Object.values(DASHBOARD_WIDGETS);
  const names = await page
    .locator('section[aria-label]')
    .evaluateAll((sections) => sections.map((section) => section.getAttribute('aria-label') ?? ''));
  return names.filter((name) => titles.includes(name));
}

test('a member arranges their dashboard widgets and finds them so after a reload', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signedInOwner(page, 'Ada');
  // One connected account, through the API: the dashboard sends an Owner without accounts to /addProvider.
  const token = await page.evaluate(() => localStorage.getItem('Authorization') ?? '');
  const connected = await page.request.post('/api/cloudaccount/insert', {
    headers: { authorization: `Bearer ${token}` },
    data: { cloudType: 1, name: 'Lab AWS', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY },
  });
  expect(connected.status()).toBe(201);

  await page.goto('/dashboard');
  await expect(page.getByRole('button', { name: 'Lab AWS', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Arrange widgets' }).click();
  await expect.poll(() => arrangedWidgets(page)).toEqual(Object.values(DASHBOARD_WIDGETS));

  await page.getByRole('button', { name: 'Remove Usage' }).click();
  await page.getByRole('button', { name: 'Move Alerts up' }).click();
  await page.getByRole('button', { name: 'Move Alerts up' }).click();
  const arranged = ['Active Cloud Providers', 'Alerts', 'Sync Jobs', 'Recent Transfers', 'Analytics'];
  await expect.poll(() => arrangedWidgets(page)).toEqual(arranged);
  // Saved once every change has been answered.
  await expect
    .poll(async () => {
      const res = await page.request.get('/api/dashboard', { headers: { authorization: `Bearer ${token}` } });
      const layout = (await res.json()) as { widgets: Array<{ id: string }> };
      return layout.widgets.map((widget) => widget.id);
    })
    .toEqual(['accounts', 'alerts', 'sync_jobs', 'recent_transfers', 'analytics']);

  await page.reload();
  await expect(page.getByRole('button', { name: 'Lab AWS', exact: true })).toBeVisible();
  await expect(page.getByText('Storage used')).toHaveCount(0);
  await page.getByRole('button', { name: 'Arrange widgets' }).click();
  await expect.poll(() => arrangedWidgets(page)).toEqual(arranged);
  await page.screenshot({ path: test.info().outputPath('dashboard-arranging.png'), fullPage: true });
});
