import { defineConfig } from 'vitest/config';

/** One run for every unit and integration test of the workspace (e2e runs in Playwright). */
export default defineConfig({
  test: {
    // Two test files at a time. On the 2-core machines here and in CI, vitest's default (cores − 1) runs one file
    // at a time, while most integration time is spent waiting on PostgreSQL, s3rver, Azurite and ffmpeg: two at
    // once ran the whole suite in 591 s instead of 969 s, every file passing.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'contract',
          root: 'packages/contract',
          environment: 'node',
          include: ['src/**/*.spec.ts'],
        },
      },
      {
        test: {
          name: 'server',
          root: 'apps/server',
          environment: 'node',
          // test/ holds shared test helpers; the billing-report generator's own spec sits beside it.
          include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
          globalSetup: ['test/global-setup.ts'],
          // Integration tests run s3rver, which needs Node's legacy OpenSSL provider for truncated listings.
          execArgv: ['--openssl-legacy-provider'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // A worker keeps its modules from one spec file to the next, as the web project does: each file spent
          // about 4 s importing the server (405 s of import in a full run, 28 s for this project without
          // isolation; all 93 files passed). The server's state lives in the services each test builds, not in
          // modules.
          isolate: false,
        },
      },
      {
        test: {
          name: 'storage',
          root: 'packages/storage',
          environment: 'node',
          include: ['src/**/*.spec.ts'],
          // The real-GCS contract runs only when credentials are given (see google-store.real.spec.ts).
          exclude:
            process.env.GCS_TEST_CREDENTIALS_JSON && process.env.GCS_TEST_BUCKET_PREFIX
              ? ['**/node_modules/**']
              : ['**/node_modules/**', 'src/**/*.real.spec.ts'],
          // s3rver answers every truncated ListObjectsV2 with 500 unless Node's legacy OpenSSL provider is on.
          execArgv: ['--openssl-legacy-provider'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'agent',
          root: 'apps/agent',
          environment: 'node',
          include: ['src/**/*.spec.ts'],
          // The agent's integration test runs s3rver in the test process (truncated listings need the legacy provider).
          execArgv: ['--openssl-legacy-provider'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      'apps/web',
    ],
  },
});
