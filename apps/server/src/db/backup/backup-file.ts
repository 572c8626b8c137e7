import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * The backup file: gzip of a magic line and then frames, each one type byte, a 4-byte big-endian length and the
 * payload. Frames: `H` header (JSON, {@link BackupHeader}), then per table `T` (JSON {schema, name}), `D` chunks of
 * its `COPY … TO STDOUT` text as PostgreSQL sent them, `E` (JSON {rows}); last `Z` (JSON {@link BackupTrailer}).
 * A file without its `Z` frame was cut short; gzip's CRC catches damage inside.
 */
const BACKUP_MAGIC = Buffer.from('CUMULO-BACKUP\n', 'ascii');
export const BACKUP_FORMAT_VERSION = 1;
/** Larger frames than anything the writer makes (COPY chunks are ~64 KiB): a length past it means damage. */
const MAX_FRAME = 64 * 1024 * 1024;

type FrameType = 'H' | 'T' | 'D' | 'E' | 'Z';

export interface BackupTable {
  schema: string;
  name: string;
  /** Columns in COPY order (generated columns are left out: PostgreSQL computes them again). */
  columns: string[];
}

export interface BackupMigration {
  /** The migration's file name without `.sql` (from the release's journal; `unknown` if it was not there). */
  tag: string;
  hash: string;
  createdAt: number;
}

export interface BackupHeader {
  format: 'cumulo-backup';
  version: number;
  createdAt: string;
  /** The database's applied migrations, oldest first: a restore needs a release with exactly these. */
  migrations: BackupMigration[];
  tables: BackupTable[];
}

export interface BackupTrailer {
  /** Rows of each table, `schema.name` → count, as COPY reported them. */
  rows: Record<string, number>;
}

export class BackupFileError extends Error {}

/** Writes frames into `out` (the gzip stream), waiting whenever it asks to: memory stays bounded. */
export class FrameWriter {
  constructor(private readonly out: Writable) {}

  async magic() {
    await this.raw(BACKUP_MAGIC);
  }

  async json(type: FrameType, value: unknown) {
    await this.frame(type, Buffer.from(JSON.stringify(value), 'utf8'));
  }

  async frame(type: FrameType, payload: Buffer) {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(payload.length, 1);
    await this.raw(head);
    await this.raw(payload);
  }

  private async raw(bytes: Buffer) {
    if (!this.out.write(bytes)) await once(this.out, 'drain');
  }
}

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

/** The frames of a decompressed backup stream; throws {@link BackupFileError} on anything but a well-formed file. */
export async function* readFrames(source: AsyncIterable<Buffer>): AsyncGenerator<Frame> {
  let buffered: Buffer = Buffer.alloc(0);
  let magicSeen = false;
  for await (const chunk of source) {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    if (!magicSeen) {
      if (buffered.length < BACKUP_MAGIC.length) continue;
      if (!buffered.subarray(0, BACKUP_MAGIC.length).equals(BACKUP_MAGIC)) {
        throw new BackupFileError('it is not a Cumulo backup (it does not start like one)');
      }
      buffered = buffered.subarray(BACKUP_MAGIC.length);
      magicSeen = true;
    }
    while (buffered.length >= 5) {
      const type = String.fromCharCode(buffered[0] ?? 0);
      const length = buffered.readUInt32BE(1);
      if (!'HTDEZ'.includes(type) || length > MAX_FRAME) {
        throw new BackupFileError('it is damaged (an unreadable section)');
      }
      if (buffered.length < 5 + length) break;
      yield { type: type as FrameType, payload: buffered.subarray(5, 5 + length) };
      buffered = buffered.subarray(5 + length);
    }
  }
  if (!magicSeen) throw new BackupFileError('it is not a Cumulo backup (it is empty or too short)');
  if (buffered.length > 0) throw new BackupFileError('it is incomplete (it ends in the middle of a section)');
}

export function parseJson<T>(frame: Frame, expected: FrameType): T {
  if (frame.type !== expected) {
    throw new BackupFileError(`it is damaged (found section ${frame.type} where ${expected} belongs)`);
  }
  try {
    return JSON.parse(frame.payload.toString('utf8')) as T;
  } catch {
    throw new BackupFileError(`it is damaged (section ${expected} does not read)`);
  }
}
