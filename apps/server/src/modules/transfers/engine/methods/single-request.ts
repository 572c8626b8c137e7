import { createHash } from 'node:crypto';
import type { ObjectInfo } from '@cumulo/storage';
import { md5Hex, sourceChecksums } from '../checksums.ts';
import {
  CHECKSUM_MISMATCH,
  CopyError,
  type CopyResult,
  type CopySettings,
  type CopyTask,
} from '../copy-task.ts';
import {
  MD5_METADATA,
  SHA256_METADATA,
  carriedMetadata,
  contentOf,
  sourceTags,
  writeWithTags,
} from '../metadata-tags.ts';
import { PartsMd5, matchesPartsMd5, sourcePartSize, sourcePartsAre } from '../source-parts.ts';
import {
  discardDestination,
  readSource,
  statDestination,
  statSource,
  unchangedSource,
} from '../source-reads.ts';
import type { ThrottleGate } from '../throttle.ts';

/**
 * Small objects: read whole into memory, checked against the source's checksums before anything is written,
 * then written in one request whose Content-MD5 the store checks on arrival.
 */
export async function copySingle(task: CopyTask, settings: CopySettings): Promise<CopyResult> {
  const memory = await settings.memory.lease(task.item.size, 1, task.signal);
  try {
    return await copySingleIn(memory.buffer(), task, settings.gate);
  } finally {
    memory.release();
  }
}

async function copySingleIn(buffer: Buffer, task: CopyTask, gate: ThrottleGate): Promise<CopyResult> {
  const { item, destination } = task;
  // One GET tells the source's info with its bytes (S3, Azure); a store whose read answer lacks it is asked after.
  let reported: ObjectInfo | undefined;
  const bytes = await readSource(task, null, task.signal, {
    onInfo: (info) => (reported = info),
    into: buffer,
  });
  const info = reported ? unchangedSource(task, reported) : await statSource(task);
  const expected = sourceChecksums(info, item.sourceMd5);
  const md5 = md5Hex(bytes);
  // The source's MD5 verifies the copy and is what later syncs compare (cumulo-md5, as the other methods write it):
  // the SHA-256 pass, the dearest one, is made only for a source without one, or to check an earlier copy's.
  const sha256 = expected.md5 && !expected.sha256 ? null : createHash('sha256').update(bytes).digest('hex');
  if ((expected.md5 && md5 !== expected.md5) || (expected.sha256 && sha256 !== expected.sha256)) {
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  // A source uploaded in parts has no MD5 to compare: its parts ETag is checked instead, where its layout is told.
  const partSize = expected.md5 ? null : await sourcePartSize(task, info);
  let partsChecked = false;
  if (partSize !== null) {
    const parts = new PartsMd5(partSize);
    parts.update(bytes);
    partsChecked = matchesPartsMd5(info, parts.digest());
    if (!partsChecked && (await sourcePartsAre(task, partSize))) throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  const tags = await sourceTags(task, info);
  const written = await gate.call(
    () =>
      writeWithTags(tags, (carried) =>
        destination.store.write(destination.bucket, item.destinationKey, bytes, {
          ...contentOf(info),
          md5,
          ...(sha256 ? { sha256 } : {}),
          metadata: {
            ...carriedMetadata(info),
            ...(expected.md5 ? { [MD5_METADATA]: md5 } : {}),
            ...(sha256 ? { [SHA256_METADATA]: sha256 } : {}),
          },
          ...(carried ? { tags: carried } : {}),
          size: bytes.length,
          signal: task.signal,
        }),
      ),
    task.signal,
  );
  task.onBytes(bytes.length);
  // The store checked our MD5 against what it received and stored: the destination holds exactly these bytes,
  // and a HEAD would tell nothing more. Otherwise look.
  if (!written.md5Checked) {
    const stored = await statDestination(task);
    if (stored.md5 !== null && stored.md5 !== md5) {
      await discardDestination(task);
      throw new CopyError(CHECKSUM_MISMATCH, true);
    }
  }
  return {
    method: 'single',
    md5,
    sha256,
    verifiedBy: expected.md5 ? 'md5' : partsChecked ? 'parts-md5' : 'sha256',
  };
}
