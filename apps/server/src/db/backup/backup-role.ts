import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { openDb } from '../client.ts';
import { runningEmbeddedUrl, startEmbeddedPostgres, type EmbeddedPostgres } from '../embedded-postgres.ts';
import { BackupError, MASTER_KEY_NOTE, createBackup, restoreBackup } from './backup.service.ts';

const USAGE = {
  backup: 'usage: backup <file>',
  restore: 'usage: restore <file> [--force]',
};

/**
 * The `backup <file>` and `restore <file> [--force]` roles (README "Backup and restore"): against DATABASE_URL, or
 * the embedded PostgreSQL of DATA_DIR — a backup connects to it when `npm start` is running, a restore wants it
 * stopped. Answers the exit code: 0 done, 1 failed (the reason on stderr), 2 bad usage.
 */
export async function runBackupRole(
  role: 'backup' | 'restore',
  args: string[],
  config: Config,
  log: Logger,
): Promise<number> {
  const force = args.includes('--force');
  const files = args.filter((arg) => arg !== '--force');
  const file = files[0];
  if (!file || files.length > 1 || (force && role === 'backup')) {
    console.error(USAGE[role]);
    return 2;
  }
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.DATABASE_URL;
  try {
    if (role === 'backup') await checkWritable(path.resolve(file));
    if (!databaseUrl) {
      const clusterDir = path.join(config.DATA_DIR, 'postgres');
      const running = runningEmbeddedUrl(clusterDir, 'cumulo');
      if (running && role === 'restore') {
        throw new BackupError(
          `Cumulo's database in ${clusterDir} is in use by a running Cumulo: stop it before restoring.`,
        );
      }
      if (running) {
        databaseUrl = running;
      } else {
        embedded = await startEmbeddedPostgres({
          dataDir: clusterDir,
          port: config.EMBEDDED_PG_PORT,
          database: 'cumulo',
          log: { info: (m) => log.info(m), warn: (m) => log.warn(m), debug: (m) => log.debug(m) },
        });
        databaseUrl = embedded.url;
      }
    }
    const db = openDb(databaseUrl, { max: 2 });
    try {
      if (role === 'backup') {
        const done = await createBackup(db, file, log);
        console.log(
          `Backup written to ${done.file}: ${done.tables} tables, ${done.rows} rows, ${done.bytes} bytes.\n` +
            MASTER_KEY_NOTE,
        );
      } else {
        const done = await restoreBackup(db, databaseUrl, file, { force }, log);
        console.log(
          `Restored ${done.tables} tables, ${done.rows} rows, from the backup made ${done.createdAt}.\n` +
            `Start Cumulo with the MASTER_KEY (or DATA_DIR/master.key) of the installation that made it: ` +
            'without it the cloud credentials, MFA secrets and sign-ins cannot be decrypted.',
        );
      }
    } finally {
      await db.close();
    }
    return 0;
  } catch (error) {
    if (error instanceof BackupError) console.error(error.message);
    else console.error(`The ${role} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await embedded?.stop();
  }
}

/** Fails before any work when the backup's folder cannot take it. */
async function checkWritable(file: string) {
  const dir = path.dirname(file);
  try {
    const stat = await fs.stat(dir);
    if (!stat.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await fs.access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'the folder does not exist'
        : code === 'ENOTDIR'
          ? `${dir} is not a folder`
          : code === 'EACCES' || code === 'EPERM'
            ? 'the folder is not writable'
            : String(error);
    throw new BackupError(`Cannot write the backup to ${file}: ${why}.`);
  }
}
