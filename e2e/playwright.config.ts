import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { e2eTmp } from './tmp-dir.ts';

const port = Number(process.env.E2E_PORT ?? 8181);

/** End-to-end tests: the built web app served by the real server (embedded PostgreSQL, SMTP sink) in Debian Chromium. */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.e2e.ts',
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: path.join(e2eTmp, 'test-results'),
  use: {
    baseURL: `http://localhost:${port}`,
    // No trace unless asked for (`E2E_TRACE=1` keeps the trace of a failed test; `--trace on` keeps all). Recording one
    // takes a screenshot of every frame: with it, Chromium used 152 s of CPU for the accounts and sync specs, and
    // 69 s without; those four tests took 147 s instead of 109 s. CI keeps only the log, never the trace.
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
    // The browser asks for reduced motion, so the app's dialogs open without their zoom (AppProviders honours
    // the preference): a click aimed at a button still scaling into place can land beside it, and did on CI.
    reducedMotion: 'reduce',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});
