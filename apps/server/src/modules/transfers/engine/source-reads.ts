import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectInfo } from '@cumulo/storage';
import { CopyError, SOURCE_CHANGED, type CopyTask } from './copy-task.ts';

/**
 * The copy methods' questions to the stores (`methods/`): the source read and stat-ed as planned, the destination
 * stat-ed after the write, and removed when it failed verification.
 */

/** The source as it is now; its ETag and size must still be the planned ones. */
export async function statSource(task: CopyTask): Promise<ObjectInfo> {
  const { source, item } = task;
  const info = await source.store.stat(source.bucket, item.sourceKey);
  if (!info) throw new CopyError('The source object no longer exists', false);
  return unchangedSource(task, info);
}

/** The source's info (from a stat or a read's answer) must still match what was planned. */
export function unchangedSource(task: CopyTask, info: ObjectInfo): ObjectInfo {
  const { item } = task;
  if (info.size !== item.size || (item.sourceEtag && info.etag && info.etag !== item.sourceEtag)) {
    throw new CopyError(SOURCE_CHANGED, true);
  }
  return info;
}

/** The destination after the write: it must hold exactly the item's size. */
export async function statDestination(task: CopyTask): Promise<ObjectInfo> {
  const { destination, item } = task;
  const info = await destination.store.stat(destination.bucket, item.destinationKey);
  if (!info) throw new CopyError('The copied object is missing at the destination', true);
  if (info.size !== item.size) {
    throw new CopyError(`The destination holds ${info.size} bytes where the source has ${item.size}`, true);
  }
  return info;
}

/** Removes a destination object that failed verification, so nothing unverified is left looking complete. */
export async function discardDestination(task: CopyTask): Promise<void> {
  const { destination, item } = task;
  await destination.store.deleteMany(destination.bucket, [item.destinationKey]).catch(() => undefined);
}

/**
 * Source bytes read whole into memory: one byte range (inclusive), or the whole object when `range` is null.
 * A short or long answer is a failed read, never a silently different object. `into` is the buffer to read into
 * (a leased one, see MemoryBudget), at least as long as what is read; the answer is a view of it.
 */
export async function readSource(
  task: CopyTask,
  range: { start: number; end: number } | null,
  signal: AbortSignal,
  options: { onInfo?: (info: ObjectInfo) => void; into?: Buffer } = {},
): Promise<Buffer> {
  const { source, item } = task;
  const { onInfo, into } = options;
  const expected = range ? range.end - range.start + 1 : item.size;
  if (into && into.length < expected)
    throw new RangeError(`a ${into.length}-byte buffer cannot hold ${expected}`);
  const stream = await source.store.read(source.bucket, item.sourceKey, {
    ...(range ? { range } : {}),
    signal,
    ...(onInfo ? { onInfo } : {}),
  });
  const bytes = into ? into.subarray(0, expected) : Buffer.allocUnsafe(expected);
  let filled = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (filled + chunk.length > expected) {
      stream.destroy();
      throw new CopyError(SOURCE_CHANGED, true);
    }
    chunk.copy(bytes, filled);
    filled += chunk.length;
    // The stream stays paused while the limit holds it back, so the source slows down with it.
    if (task.pace) await task.pace(chunk.length, signal);
  }
  if (filled !== expected) {
    throw new CopyError(`The source sent ${filled} bytes where ${expected} were asked for`, true);
  }
  return bytes;
}

/**
 * One byte range (inclusive) of the source as a stream, for a part sent as it is read: its MD5 taken as the bytes
 * pass (the part's one hash pass), paced by the batch's limit. A long answer fails with SOURCE_CHANGED and a
 * short one as a failed read, as in `readSource`; the stream errors before its end, so the part it feeds is
 * never stored. `md5()` is the hex MD5 of every byte, once the stream has ended.
 */
export async function streamSource(
  task: CopyTask,
  range: { start: number; end: number },
  signal: AbortSignal,
): Promise<{ stream: Readable; length: number; md5: () => string }> {
  const { source, item } = task;
  const expected = range.end - range.start + 1;
  const answer = await source.store.read(source.bucket, item.sourceKey, { range, signal });
  const hash = createHash('md5');
  let filled = 0;
  let digest: string | null = null;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      filled += chunk.length;
      if (filled > expected) return callback(new CopyError(SOURCE_CHANGED, true));
      hash.update(chunk);
      if (!task.pace) return callback(null, chunk);
      // The source stays paused while the limit holds it back, so it slows down with it.
      task.pace(chunk.length, signal).then(() => callback(null, chunk), callback);
    },
    flush(callback) {
      if (filled !== expected) {
        return callback(
          new CopyError(`The source sent ${filled} bytes where ${expected} were asked for`, true),
        );
      }
      digest = hash.digest('hex');
      callback();
    },
  });
  // A failed source read ends the part's stream with its error (and the read is let go when the part fails); the
  // part's upload reports it (the adapter also finds an error that came before it took the stream).
  pipeline(answer, hashing).catch(() => undefined);
  return {
    stream: hashing,
    length: expected,
    md5: () => {
      if (digest === null) throw new Error('the part was not read to its end');
      return digest;
    },
  };
}
