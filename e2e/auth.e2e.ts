import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { gzipSync } from 'node:zlib';
import { authenticator } from 'otplib';
import { linkFromMail, mailCount } from './mail.ts';

const PASSWORD = 'Sunny#day7';
const NEW_PASSWORD = 'Rainy#day8';

/**
 * The form's Sign in button. Once it has spun, antd can keep its hidden loading icon in the page (the icon's leave
 * motion waits for a transition end that a quick answer never gives), so its accessible name may stay
 * "loading Sign in" after the spinning stops: whether it spins is read from its class, never its name.
 */
function signInButton(page: Page) {
  return page.getByRole('button', { name: /^(loading )?Sign in$/ });
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await signInButton(page).click();
}

async function signOut(page: Page) {
  const path = new URL(page.url()).pathname;
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(`/login?returnUrl=${encodeURIComponent(path)}`);
}

/**
 * The TOTP code of the time step `offset` steps from now, waiting out the last seconds of a step first. Cumulo
 * accepts one step of drift either way and each step only once, so successive codes come from successive steps.
 */
async function totp(secret: string, offset: number) {
  const remaining = authenticator.timeRemaining();
  if (remaining < 3) await new Promise((r) => setTimeout(r, (remaining + 1) * 1000));
  return authenticator.clone({ epoch: Date.now() + offset * 30_000 }).generate(secret);
}

test('a new user signs up, verifies, enables MFA, signs in with a code and resets a forgotten password', async ({
  page,
}) => {
  const email = `e2e.${Date.now()}@example.com`;

  // Sign up.
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByLabel('First Name').fill('Ada');
  await page.getByLabel('Last Name').fill('Lovelace');
  const signUp = page.getByRole('button', { name: 'Sign Up' });
  await expect(signUp).toBeDisabled();
  await page.getByRole('checkbox').check();
  await signUp.click();
  await expect(page.getByText('Signup done successfully!')).toBeVisible();
  await expect(page).toHaveURL(/\/postSignup$/);
  await expect(page.getByText(email)).toBeVisible();

  // Open the verification link from the mail.
  const verifyLink = await linkFromMail(
    email,
    'Verify your e-mail',
    /http:\/\/localhost:\d+\/verify\/[\w-]+/,
  );
  await page.goto(verifyLink);
  await expect(page.getByText(/verified/i).first()).toBeVisible();
  await expect(page).toHaveURL(/\/login/, { timeout: 10_000 });

  // Sign in: a new organisation has no cloud account, so the dashboard sends its Owner to add one.
  await signIn(page, email, PASSWORD);
  await expect(page.getByRole('heading', { name: 'Set Up a New Cloud Provider' })).toBeVisible();
  await expect(page.getByText('Hello, Ada')).toBeVisible();

  // Enable MFA with a TOTP computed here from the secret the page shows.
  await page.goto('/mfa');
  await page.getByRole('button', { name: 'Enable MFA' }).click();
  await expect(page.getByAltText('QR code for your authenticator app')).toBeVisible();
  const secret = (await page.locator('.ant-typography code').first().innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel('Code').fill(await totp(secret, -1));
  await page.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(page.getByText('MFA enabled successfully!')).toBeVisible();
  // The ten recovery codes are shown once; the user confirms having saved them, then sees how many are left.
  await expect(page.getByRole('list', { name: 'Recovery code list' }).getByRole('listitem')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved these codes' }).click();
  await expect(page.getByText(/^10 of 10 recovery codes left\./)).toBeVisible();

  // Sign out, then sign in again through the MFA code panel.
  await signOut(page);
  await signIn(page, email, PASSWORD);
  await expect(page.getByText('Enter the 6-digit code from your authenticator app.')).toBeVisible();
  await page.getByLabel('Code').fill(await totp(secret, 0));
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  // Signing out from /mfa kept the path as returnUrl, so the sign-in returns there, with MFA shown as on.
  await expect(page).toHaveURL(/\/mfa$/);
  await expect(page.getByRole('button', { name: 'Disable MFA' })).toBeVisible();
  await signOut(page);

  // Forgot password: the e-mailed link resets it once.
  const mailsBefore = mailCount(email);
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('Email sent successfully, please check your email.')).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  const resetLink = await linkFromMail(
    email,
    'Reset your Cumulo password',
    /http:\/\/localhost:\d+\/resetpassword\/[\w-]+/,
    mailsBefore,
  );
  await page.goto(resetLink);
  await expect(page.getByText('Create your new password.')).toBeVisible();
  const reset = page.getByRole('button', { name: 'Reset' });
  await expect(reset).toBeDisabled();
  await page.getByLabel('New Password').fill(NEW_PASSWORD);
  await page.getByLabel('Confirm Password').fill(NEW_PASSWORD);
  await page.getByLabel('New Password').focus();
  await expect(reset).toBeEnabled();
  await reset.click();
  await expect(page.getByText('Password has been reset.')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);

  // The old password no longer works; the new one does (MFA still on).
  await signIn(page, email, PASSWORD);
  await expect(page.getByText('Incorrect username or password.')).toBeVisible();
  // As a user would, retype once the button has stopped spinning: the toast can show a few ms before it does.
  await expect(signInButton(page)).not.toHaveClass(/ant-btn-loading/);
  await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
  await signInButton(page).click();
  await page.getByLabel('Code').fill(await totp(secret, 1));
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  // No returnUrl this time: the dashboard, which sends an organisation without accounts on to add one (as above).
  await expect(page).toHaveURL(/\/addProvider$/);
  await expect(page.getByRole('heading', { name: 'Set Up a New Cloud Provider' })).toBeVisible();
});

test('a guarded URL opened signed out goes to /login and returns there after sign-in', async ({
  page,
  request,
}) => {
  const email = `e2e.guard.${Date.now()}@example.com`;
  const created = await request.post('/api/users', {
    data: { email, password: PASSWORD, first_name: 'Grace', last_name: 'Hopper' },
  });
  expect(created.status()).toBe(201);
  const verifyLink = await linkFromMail(email, 'Verify your e-mail', /\/verify\/([\w-]+)/);
  const token = verifyLink.split('/').at(-1) ?? '';
  expect((await request.put('/api/verify_user', { data: { verification_token: token } })).status()).toBe(200);

  await page.goto('/profile/edit');
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fprofile%2Fedit$/);
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/profile\/edit$/);
  await expect(page.getByLabel('First Name')).toHaveValue('Grace');
});

test('the screens that once said "coming soon" are built: sign-in returns to /awstboard, then /wbrstatus, /prod2, /prod3, /wasabic2c', async ({
  page,
  request,
}) => {
  const email = `e2e.soon.${Date.now()}@example.com`;
  await request.post('/api/users', {
    data: { email, password: PASSWORD, first_name: 'Soon', last_name: 'Page' },
  });
  const verifyLink = await linkFromMail(email, 'Verify your e-mail', /\/verify\/([\w-]+)/);
  await request.put('/api/verify_user', { data: { verification_token: verifyLink.split('/').at(-1) } });
  await page.goto('/login?returnUrl=%2Fawstboard');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/awstboard$/);
  await expect(page.getByRole('heading', { name: 'AWS Transfer Status' })).toBeVisible();
  await expect(page.getByText(/coming soon|later release/i)).toHaveCount(0);
  for (const [path, title] of [
    ['/wbrstatus', 'Wasabi Migration Status'],
    ['/prod2', 'Cloud to Cloud Transfers'],
    ['/prod3', 'Cloud to Cloud Transfers'],
    ['/wasabic2c', 'Wasabi Cloud to Cloud Transfers'],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: title, exact: true })).toBeVisible();
    await expect(page.getByText(/coming soon|later release/i)).toHaveCount(0);
  }
});

test('the sign-in page loads under 300 KB of gzipped JavaScript (routes are lazy)', async ({ page }) => {
  const scripts = new Map<string, Buffer>();
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'script') scripts.set(response.url(), await response.body());
  });
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  const gzipBytes = [...scripts.values()].reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
  console.log(`/login loads ${scripts.size} scripts, ${(gzipBytes / 1024).toFixed(1)} KB gzipped`);
  expect(gzipBytes).toBeLessThan(300 * 1024);
});

test('a sign-in ended elsewhere shows "Please sign in again" and returns to the same page after sign-in', async ({
  page,
  request,
}) => {
  const email = `e2e.revoked.${Date.now()}@example.com`;
  await request.post('/api/users', {
    data: { email, password: PASSWORD, first_name: 'Rev', last_name: 'Oked' },
  });
  const verifyLink = await linkFromMail(email, 'Verify your e-mail', /\/verify\/([\w-]+)/);
  await request.put('/api/verify_user', { data: { verification_token: verifyLink.split('/').at(-1) } });
  await page.goto('/login?returnUrl=%2Fprofile');
  await signIn(page, email, PASSWORD);
  await expect(page.getByText(email)).toBeVisible();

  // The same sign-in is ended from elsewhere (another tab signing out).
  const token = await page.evaluate(() => localStorage.getItem('Authorization'));
  const ended = await request.post('/api/authentication/logout', {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(ended.status()).toBe(204);

  await page.reload();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('Please sign in again')).toBeVisible();
  await expect(dialog.getByText('You were signed out of your account.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL('/login?returnUrl=%2Fprofile');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/profile$/);
});
