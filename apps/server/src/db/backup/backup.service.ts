import { createReadStream, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { createGunzip, createGzip } from 'node:zlib';
import { runMigrations, type Db } from '../client.ts';
import { serverRoot } from '../../runtime/paths.ts';
import { startBoss } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import {
  BACKUP_FORMAT_VERSION,
  BackupFileError,
  FrameWriter,
  parseJson,
  readFrames,
  type BackupHeader,
  type BackupMigration,
  type BackupTable,
  type BackupTrailer,
  type Frame,
} from './backup-file.ts';
import { BackupRepo, qualified } from './backup.repo.ts';

/** A backup or restore that cannot go on, in words for the person at the terminal. */
export class BackupError extends Error {}

export const MASTER_KEY_NOTE =
  'Keep MASTER_KEY (or DATA_DIR/master.key) along with this backup, stored apart from it: the backup does not contain the key, ' +
  'and without it the restored cloud credentials, MFA secrets and sign-ins cannot be decrypted.';

/** Migration `when` → tag, from this release's journal. */
function migrationTags(): Map<number, string> {
  const journal = JSON.parse(
    readFileSync(path.join(serverRoot(), 'src/db/migrations/meta/_journal.json'), 'utf8'),
  ) as { entries: Array<{ when: number; tag: string }> };
  return new Map(journal.entries.map((entry) => [entry.when, entry.tag]));
}

async function migrationsOf(repo: BackupRepo): Promise<BackupMigration[]> {
  const tags = migrationTags();
  return (await repo.appliedMigrations()).map((m) => ({ ...m, tag: tags.get(m.createdAt) ?? 'unknown' }));
}

interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  bytes: number;
}

/**
 * Writes every table of Cumulo (backup.repo.ts says which) from one REPEATABLE READ READ ONLY snapshot into `file`,
 * gzip'ed (backup-file.ts). COPY chunks stream straight into gzip and the file, so memory stays flat whatever the
 * size. Written as `<file>.partial` (mode 0600: it holds password hashes and sealed secrets) and renamed only once
 * complete and synced, so a failed backup never leaves a file that looks whole.
 */
export async function createBackup(db: Db, file: string, log: Logger): Promise<BackupSummary> {
  const target = path.resolve(file);
  const partial = `${target}.partial`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(partial, 'w', 0o600);
  } catch (error) {
    throw new BackupError(`Cannot write the backup to ${target}: ${reason(error)}`);
  }
  const client = await db.pool.connect();
  const repo = new BackupRepo(client);
  try {
    const gzip = createGzip();
    // The stream closes the file once written, after an fsync (`flush`).
    const written = pipeline(gzip, handle.createWriteStream({ flush: true }));
    // A failing disk ends the pipeline; the writer's next wait must then fail too instead of hanging.
    written.catch(() => undefined);
    const writer = new FrameWriter(gzip);
    await repo.beginSnapshot();
    const tables = parentsFirst(await repo.tables(), await repo.foreignKeys());
    const header: BackupHeader = {
      format: 'cumulo-backup',
      version: BACKUP_FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      migrations: await migrationsOf(repo),
      tables,
    };
    if (header.migrations.length === 0)
      throw new BackupError('The database holds no Cumulo schema to back up.');
    await writer.magic();
    await writer.json('H', header);
    const rows: Record<string, number> = {};
    for (const table of tables) {
      await writer.json('T', { schema: table.schema, name: table.name });
      const copy = repo.copyOut(table);
      for await (const chunk of copy as AsyncIterable<Buffer>) await writer.frame('D', chunk);
      rows[qualified(table)] = copy.rowCount;
      await writer.json('E', { rows: copy.rowCount });
      log.debug({ table: qualified(table), rows: copy.rowCount }, 'backup: table written');
    }
    await repo.commit();
    await writer.json('Z', { rows } satisfies BackupTrailer);
    gzip.end();
    await written;
    await fs.rename(partial, target);
    const { size } = await fs.stat(target);
    return {
      file: target,
      tables: tables.length,
      rows: Object.values(rows).reduce((a, b) => a + b, 0),
      bytes: size,
    };
  } catch (error) {
    await repo.rollback();
    await handle.close().catch(() => undefined);
    await fs.rm(partial, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`The backup to ${target} failed: ${reason(error)}`);
  } finally {
    client.release();
  }
}

interface RestoreSummary {
  createdAt: string;
  tables: number;
  rows: number;
}

/**
 * Restores `file` into the database behind `db`: migrations first (an empty database gets the schema), then a check
 * that this release has exactly the backup's migrations, then every table loaded in ONE transaction with foreign
 * keys unchecked (or, for a role that may not, parents first, the order the backup wrote them in), sequences moved past the restored ids, and the
 * row counts compared with the file's. Anything wrong (a cut or damaged file included) rolls the whole load back.
 * A database already in use (a user or an organisation) is refused unless `force`, which empties it first.
 */
export async function restoreBackup(
  db: Db,
  databaseUrl: string,
  file: string,
  options: { force: boolean },
  log: Logger,
): Promise<RestoreSummary> {
  const source = path.resolve(file);
  try {
    await fs.access(source);
  } catch (error) {
    throw new BackupError(`Cannot read the backup ${source}: ${reason(error)}`);
  }
  const input = createReadStream(source);
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  const frames = readFrames(input.pipe(gunzip))[Symbol.asyncIterator]();
  const next = async (): Promise<Frame> => {
    let result: IteratorResult<Frame>;
    try {
      result = await frames.next();
    } catch (error) {
      throw damaged(source, error);
    }
    if (result.done) throw damaged(source, new BackupFileError('it is incomplete (its end is missing)'));
    return result.value;
  };

  let header: BackupHeader;
  try {
    header = parseJson<BackupHeader>(await next(), 'H');
  } catch (error) {
    input.destroy();
    throw error instanceof BackupError ? error : damaged(source, error);
  }
  if (header.format !== 'cumulo-backup' || header.version !== BACKUP_FORMAT_VERSION) {
    input.destroy();
    throw new BackupError(
      `${source} is a backup format this release does not read (version ${header.version}).`,
    );
  }

  await runMigrations(db);
  // pg-boss's schema and queues, which the restored schedules belong to.
  const boss = await startBoss({ connectionString: databaseUrl, schedule: false }, log);
  await boss.stop({ graceful: false });

  const client = await db.pool.connect();
  const repo = new BackupRepo(client);
  let copy: ReturnType<BackupRepo['copyIn']> | undefined;
  try {
    checkMigrations(header.migrations, await migrationsOf(repo));
    if (!options.force && (await repo.holdsData())) {
      throw new BackupError(
        'The database already holds Cumulo data (users or organisations): restore into an empty database, ' +
          'or add --force to delete everything in it first.',
      );
    }
    const present = new Map((await repo.tables()).map((table) => [qualified(table), table]));
    for (const table of header.tables) {
      const here = present.get(qualified(table));
      if (!here || here.columns.join(',') !== table.columns.join(',')) {
        throw new BackupError(
          `The table ${qualified(table)} of the backup does not match this release's schema.`,
        );
      }
    }

    await repo.begin();
    const unchecked = await repo.skipForeignKeyChecks();
    // Without the right, foreign keys are checked as rows arrive: the backup wrote parents before children.
    if (!unchecked)
      log.warn('restore: this role may not skip foreign-key checks; loading tables parents first');
    await repo.truncate([...present.values()]);
    const loaded: Record<string, number> = {};
    let frame = await next();
    while (frame.type === 'T') {
      const named = parseJson<{ schema: string; name: string }>(frame, 'T');
      const table = header.tables.find((t) => t.schema === named.schema && t.name === named.name);
      if (!table)
        throw damaged(source, new BackupFileError(`it names a table it did not list (${named.name})`));
      copy = repo.copyIn(table);
      const copyDone = once(copy, 'finish');
      copyDone.catch(() => undefined);
      frame = await next();
      while (frame.type === 'D') {
        if (!copy.write(frame.payload)) await Promise.race([once(copy, 'drain'), copyDone]);
        frame = await next();
      }
      copy.end();
      await copyDone;
      const expected = parseJson<{ rows: number }>(frame, 'E').rows;
      if (copy.rowCount !== expected) {
        throw damaged(
          source,
          new BackupFileError(`${qualified(table)} holds ${copy.rowCount} rows, not ${expected}`),
        );
      }
      loaded[qualified(table)] = copy.rowCount;
      log.debug({ table: qualified(table), rows: copy.rowCount }, 'restore: table loaded');
      frame = await next();
    }
    const trailer = parseJson<BackupTrailer>(frame, 'Z');
    for (const table of header.tables) {
      if (loaded[qualified(table)] !== trailer.rows[qualified(table)]) {
        throw damaged(source, new BackupFileError(`it lacks the rows of ${qualified(table)}`));
      }
    }
    await repo.resetSequences();
    await repo.commit();
    return {
      createdAt: header.createdAt,
      tables: header.tables.length,
      rows: Object.values(loaded).reduce((a, b) => a + b, 0),
    };
  } catch (error) {
    // A COPY cut off mid-table is failed first (CopyFail), else the connection would wait for its end for ever.
    if (copy && !copy.writableFinished) {
      const closed = once(copy, 'close').catch(() => undefined);
      copy.destroy(new Error('restore aborted'));
      await closed;
    }
    await repo.rollback();
    if (error instanceof BackupError) throw error;
    throw new BackupError(`The restore from ${source} failed, nothing was restored: ${reason(error)}`);
  } finally {
    input.destroy();
    client.release();
  }
}

/** The backup must have been made with exactly this release's migrations, else its rows do not fit the tables. */
function checkMigrations(backup: BackupMigration[], here: BackupMigration[]) {
  const same =
    backup.length === here.length &&
    backup.every((m, i) => m.hash === here[i]?.hash && m.createdAt === here[i]?.createdAt);
  if (same) return;
  const last = (list: BackupMigration[]) => list[list.length - 1]?.tag ?? 'none';
  const newer = backup.length > here.length;
  throw new BackupError(
    `This backup was made by a Cumulo release whose database is at migration ${last(backup)} ` +
      `(${backup.length} migrations); this release is at ${last(here)} (${here.length}). ` +
      (newer
        ? 'Restore it with the release that made it (or a later one), then upgrade.'
        : 'Restore it with the release that made it, then start this release to upgrade the database.'),
  );
}

/**
 * The tables with every table after those it references, so that a restore by a role that may not skip foreign-key
 * checks can load them in the file's order. Tables in a cycle of references (if any) follow in name order.
 */
function parentsFirst(tables: BackupTable[], keys: Array<{ child: string; parent: string }>): BackupTable[] {
  const remaining = new Map(tables.map((t) => [qualified(t), t]));
  const ordered: BackupTable[] = [];
  for (;;) {
    const ready = [...remaining.keys()].filter(
      (name) => !keys.some((k) => k.child === name && remaining.has(k.parent)),
    );
    if (ready.length === 0) break;
    for (const name of ready) {
      ordered.push(remaining.get(name) as BackupTable);
      remaining.delete(name);
    }
  }
  return [...ordered, ...remaining.values()];
}

function damaged(file: string, error: unknown) {
  const why =
    error instanceof BackupFileError
      ? error.message
      : (error as NodeJS.ErrnoException).code?.startsWith('Z_')
        ? `it is incomplete or damaged (${(error as Error).message})`
        : reason(error);
  return new BackupError(`The backup ${file} cannot be restored: ${why}. Nothing was restored.`);
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a part of the path is not a directory';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOSPC') return 'the disk is full';
  return error instanceof Error ? error.message : String(error);
}
