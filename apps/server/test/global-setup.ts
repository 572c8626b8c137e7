import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { buildServerIfStale } from '../../../scripts/build-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/**
 * One real PostgreSQL for the whole run (embedded, or TEST_DATABASE_URL when given); every test file
 * creates its own database in it (test/harness.ts).
 */
export default async function setup(project: TestProject) {
  // The fault tests run the worker role as deployed: the built server, rebuilt when a source under test is newer.
  await buildServerIfStale(() => undefined);
  if (process.env.TEST_DATABASE_URL) {
    project.provide('adminDatabaseUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-test-pg-'));
  await fs.chmod(dir, 0o755);
  const quiet = () => undefined;
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'postgres'),
    port: 0,
    database: 'postgres',
    log: { info: quiet, warn: (m) => console.warn(m), debug: quiet },
  });
  project.provide('adminDatabaseUrl', pg.url);
  return async () => {
    await pg.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
