import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { sourceChecksums } from '../checksums.ts';
import {
  CHECKSUM_MISMATCH,
  CopyError,
  type CopyResult,
  type CopySettings,
  type CopyTask,
} from '../copy-task.ts';
import { MD5_METADATA, carriedMetadata, contentOf } from '../metadata-tags.ts';
import { PartsMd5, matchesPartsMd5, sourcePartSize, sourcePartsAre } from '../source-parts.ts';
import { discardDestination, statDestination, statSource } from '../source-reads.ts';
import type { ThrottleGate } from '../throttle.ts';

/**
 * Destinations without parts (GCS): one streaming write with the bytes hashed on the way: their MD5 (the
 * destination's own MD5 must match it), and to check them against the source its MD5, else its parts ETag in its
 * part sizes, else a SHA-256 recorded with the item. Not resumable across a crash (GCS resumable sessions are not
 * exposed by the contract), and the hashes are known only once the object exists, too late for its metadata: such
 * objects carry `cumulo-md5` (when the source had one), the source version and GCS's own MD5, which is
 * comparable. A mismatch found after the write removes the object.
 */
export async function copyStream(task: CopyTask, settings: CopySettings): Promise<CopyResult> {
  return copyStreamThrough(task, settings.gate, { sourceParts: true });
}

async function copyStreamThrough(
  task: CopyTask,
  gate: ThrottleGate,
  options: { sourceParts: boolean },
): Promise<CopyResult> {
  const { item, source, destination } = task;
  const info = await statSource(task);
  const expected = sourceChecksums(info, item.sourceMd5);
  // A source uploaded in parts is checked against its parts ETag, hashed in its part sizes on the way; the
  // SHA-256 pass is then not needed, as with a source MD5.
  const partSize = expected.md5 || !options.sourceParts ? null : await sourcePartSize(task, info);
  let reported = 0;
  const digest = await gate.call(async () => {
    // A throttled attempt starts the stream over, so the hashes start over with it.
    const md5 = createHash('md5');
    const sha256 = expected.md5 || partSize !== null ? null : createHash('sha256');
    const parts = partSize === null ? null : new PartsMd5(partSize);
    const body = await source.store.read(source.bucket, item.sourceKey, { signal: task.signal });
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        sha256?.update(chunk);
        parts?.update(chunk);
        if (!task.pace) return done(null, chunk);
        task.pace(chunk.length, task.signal).then(
          () => done(null, chunk),
          (error: unknown) => done(error as Error),
        );
      },
    });
    body.on('error', (error) => hashing.destroy(error));
    await destination.store.write(destination.bucket, item.destinationKey, body.pipe(hashing), {
      ...contentOf(info),
      metadata: { ...carriedMetadata(info), ...(expected.md5 ? { [MD5_METADATA]: expected.md5 } : {}) },
      size: item.size,
      signal: task.signal,
      onProgress: (written) => {
        if (written > reported) task.onBytes(written - reported);
        reported = Math.max(reported, written);
      },
    });
    return { md5: md5.digest('hex'), sha256: sha256?.digest('hex') ?? null, parts: parts?.digest() ?? null };
  }, task.signal);
  const written = await statDestination(task);
  if ((expected.md5 && digest.md5 !== expected.md5) || (written.md5 && written.md5 !== digest.md5)) {
    await discardDestination(task);
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  if (partSize !== null && digest.parts && !matchesPartsMd5(info, digest.parts)) {
    if (await sourcePartsAre(task, partSize)) {
      await discardDestination(task);
      throw new CopyError(CHECKSUM_MISMATCH, true);
    }
    // Parts of unequal sizes: nothing is known of the bytes but what the destination says; copied again, hashed.
    return copyStreamThrough(task, gate, { sourceParts: false });
  }
  return {
    method: 'stream',
    md5: digest.md5,
    sha256: digest.sha256,
    verifiedBy: expected.md5 ? 'md5' : partSize !== null ? 'parts-md5' : 'sha256',
  };
}
