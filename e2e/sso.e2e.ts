import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { expect, test } from './fixtures.ts';

test('a new person signs in at the OpenID provider from /oktalogin, lands signed in, and gets the same account again', async ({
  page,
}) => {
  const login = `sso${Date.now()}`;
  const email = `${login}@example.com`;

  const signInAtProvider = async () => {
    await page.goto('/oktalogin');
    await page.getByRole('button', { name: 'Sign in with Local SSO' }).click();
    // oidc-provider's own development login and consent pages (global-setup starts it on 127.0.0.1).
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    // Back on /login, which exchanges the single-use code and goes on to the dashboard.
    await expect(page).toHaveURL((url) => url.pathname === '/' && url.hash === '');
  };

  await signInAtProvider();
  expect(await page.evaluate((key) => localStorage.getItem(key), AUTH_STORAGE_KEY)).toBeTruthy();
  await page.goto('/profile');
  await expect(page.getByText(email).first()).toBeVisible();

  await page.evaluate(() => localStorage.clear());
  await page.context().clearCookies();
  await signInAtProvider();
  await page.goto('/profile');
  await expect(page.getByText(email).first()).toBeVisible();
});
