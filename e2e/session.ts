import { expect, type Page } from '@playwright/test';
import { linkFromMail } from './mail.ts';

export const PASSWORD = 'Sunny#day7';
/** The address global-setup.ts names in OPERATOR_EMAILS: whoever signs up with it operates this Cumulo. */
export const E2E_OPERATOR_EMAIL = 'operator@example.com';

/**
 * A new organisation's Owner, signed up through the API and verified through the real mail link (the sign-up
 * screens themselves are covered by auth.e2e.ts), then signed in through the login screen.
 */
export async function signedInOwner(
  page: Page,
  firstName = 'Grace',
  email = `e2e.${firstName.toLowerCase()}.${Date.now()}@example.com`,
): Promise<{ email: string }> {
  const signup = await page.request.post('/api/users', {
    data: { email, password: PASSWORD, first_name: firstName, last_name: 'Hopper' },
  });
  expect(signup.status()).toBe(201);
  const link = await linkFromMail(email, 'Verify your e-mail', /http:\/\/localhost:\d+\/verify\/[\w-]+/);
  const token = link.split('/verify/')[1];
  const verify = await page.request.put('/api/verify_user', { data: { verification_token: token } });
  expect(verify.ok()).toBe(true);
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return { email };
}
