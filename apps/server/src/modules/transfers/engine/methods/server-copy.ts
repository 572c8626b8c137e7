import { StorageError } from '@cumulo/storage';
import { comparableMd5, sourceChecksums } from '../checksums.ts';
import {
  CHECKSUM_MISMATCH,
  CopyError,
  SOURCE_CHANGED,
  isUnsupported,
  type CopyResult,
  type CopySettings,
  type CopyTask,
  type FinishedPart,
} from '../copy-task.ts';
import {
  SOURCE_ETAG_METADATA,
  contentOf,
  sourceTags,
  sourceVersionOf,
  writeWithTags,
} from '../metadata-tags.ts';
import { sourcePartSize, sourcePartsAre } from '../source-parts.ts';
import { discardDestination, statDestination, statSource } from '../source-reads.ts';
import type { ThrottleGate } from '../throttle.ts';
import {
  discardUpload,
  forget,
  openSession,
  partList,
  partsFit,
  rangesOf,
  runParts,
  spoilsUpload,
} from './parallel-parts.ts';

/**
 * Server-side copy: source and destination on one endpoint with the same credentials, so the store copies and no
 * byte passes through the worker. In one call, `ObjectStore.copy`: S3 CopyObject (up to 5 GiB), Azure Copy Blob
 * from URL (any size), GCS objects.rewrite; the adapter picks its call. In parts, `parts.copyPart`: S3
 * UploadPartCopy (above 5 GiB), Azure Put Block From URL (only to resume such a copy begun earlier).
 */

/**
 * Same endpoint and credentials, in one call: the store copies by itself and no byte passes through the worker.
 * Null when the store cannot (the copier then copies the bytes).
 *
 * A copy in one call asks nothing beforehand when the listing told the source's MD5: the copy is conditional on
 * the listed ETag (the store refuses a changed source) and verified by the MD5 in the store's answer — one
 * request per object. Without a listed MD5, the source's stat gives the checksums to compare, and the
 * destination's stat what was written.
 */
export async function serverCopy(task: CopyTask, settings: CopySettings): Promise<CopyResult | null> {
  const { item, source, destination } = task;
  const listedMd5 = comparableMd5(item.sourceMd5);
  const stated = listedMd5 ? null : await statSource(task);
  let expected = stated ? sourceChecksums(stated, item.sourceMd5) : { md5: listedMd5, sha256: null };
  let copied: { md5: string | null };
  try {
    copied = await settings.gate.call(
      () =>
        destination.store.copy(
          { bucket: source.bucket, key: item.sourceKey },
          { bucket: destination.bucket, key: item.destinationKey },
          {
            size: item.size,
            ...(item.sourceEtag ? { ifMatch: item.sourceEtag } : {}),
            // A source without an MD5 (multipart, Azure without Content-MD5) gets a copy whose own checksums will
            // not compare with it either: the copy records the source version, as a copy through the worker does,
            // so that a later Skip Existing Files knows it. A source with an MD5 keeps it in its copy.
            ...(stated ? { addMetadata: sourceVersionOf(stated) } : {}),
          },
        ),
      task.signal,
    );
  } catch (error) {
    if (isUnsupported(error)) return null;
    if (error instanceof StorageError && error.status === 412) throw new CopyError(SOURCE_CHANGED, true);
    throw error;
  }
  task.onBytes(item.size);
  // The copy's own answer tells its MD5 (S3's single-part ETag, GCS): no HEAD. Otherwise look at the destination.
  const written =
    expected.md5 !== null && copied.md5 !== null ? copied.md5 : (await statDestination(task)).md5;
  // A single CopyObject of a single-part object keeps its MD5 ETag: compare when both sides expose one.
  if (listedMd5 && written !== null && written !== listedMd5) {
    // The listed "MD5" may be the ETag of an SSE-KMS or SSE-C object, which is no MD5: the source's own answer
    // says which (sourceChecksums), at the cost of a HEAD on this path only.
    try {
      expected = sourceChecksums(await statSource(task), item.sourceMd5);
      // Not comparable after all: the size is what is left to check, as for any copy without an MD5.
      if (expected.md5 === null) await statDestination(task);
    } catch (error) {
      // A source that changed since the listing (a server ignoring the copy's condition) leaves no copy behind.
      await discardDestination(task);
      throw error;
    }
  }
  const comparable = expected.md5 !== null && written !== null;
  if (comparable && written !== expected.md5) {
    await discardDestination(task);
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  if (!comparable && !stated) await recordSourceVersion(task, settings.gate);
  return {
    method: 'server-copy',
    md5: comparable ? expected.md5 : null,
    sha256: expected.sha256,
    verifiedBy: comparable ? 'md5' : 'server-copy',
  };
}

/**
 * A copy inside one store that no MD5 verified (an SSE-KMS or SSE-C side, whose ETag is no MD5: known only from
 * the copy's answers) will not compare with its source next time either, so a Skip Existing Files or a sync would
 * copy it again on every run. It gets the source version a copy through the worker carries, by a copy of itself
 * with the record added (S3: HEAD and CopyObject REPLACE, no byte through the worker). The planned ETag is the
 * version copied: the copy was conditional on it and the source's answers matched it. The copy is verified
 * already: a record the store refuses costs a later run a copy, not this item its success.
 */
async function recordSourceVersion(task: CopyTask, gate: ThrottleGate): Promise<void> {
  const { item, destination } = task;
  if (!item.sourceEtag) return;
  const copy = { bucket: destination.bucket, key: item.destinationKey };
  try {
    await gate.call(
      () =>
        destination.store.copy(copy, copy, {
          addMetadata: { [SOURCE_ETAG_METADATA]: item.sourceEtag ?? '' },
        }),
      task.signal,
    );
  } catch (error) {
    task.signal.throwIfAborted();
    if (!(error instanceof StorageError)) throw error;
  }
}

/**
 * Server-side copy in parallel part ranges (S3 UploadPartCopy, Azure Put Block From URL): no bytes through the
 * worker, resumable through the ledger like a parts copy. Returns null when the store turns out not to copy parts
 * (s3rver answers 501), after discarding the upload, so the copier copies the bytes itself.
 */
export async function serverCopyInParts(task: CopyTask, settings: CopySettings): Promise<CopyResult | null> {
  const parts = task.destination.store.capabilities.parts;
  if (!parts) return null;
  const info = await statSource(task);
  const copyPart = parts.copyPart?.bind(parts);
  if (!copyPart) return null;
  const { item, source } = task;
  const content = contentOf(info);
  // The same bytes: the source's checksums stay true of the copy.
  const metadata = { ...info.metadata, ...sourceVersionOf(info) };
  // Copied in the source's own parts, the copy gets the source's parts ETag: a check of what the store copied,
  // and a copy that later comparisons find equal from the listings alone.
  const sourcePart = await sourcePartSize(task, info);
  const tags = await sourceTags(task, info);
  const session = await openSession(
    task,
    parts,
    'server-copy',
    { ...content, metadata, tags },
    settings,
    sourcePart !== null && partsFit(parts.limits, sourcePart, item.size) ? sourcePart : undefined,
  );
  const { upload, finished } = session;
  const ranges = rangesOf(item.size, session.partSize);
  const mirrored = session.partSize === sourcePart && ranges.length === info.partsMd5?.parts;
  try {
    await runParts(
      ranges.filter((range) => !finished.has(range.partNumber)),
      settings.concurrency,
      task.signal,
      async (range, signal) => {
        const { etag } = await settings.gate.call(
          () =>
            copyPart(
              upload,
              range.partNumber,
              { bucket: source.bucket, key: item.sourceKey },
              { start: range.start, end: range.end },
              { signal },
            ),
          signal,
        );
        const part: FinishedPart = {
          partNumber: range.partNumber,
          size: range.end - range.start + 1,
          etag,
          md5: null,
        };
        await task.ledger.recordPart(item.id, part);
        finished.set(range.partNumber, part);
        task.onBytes(part.size);
      },
      () => undefined,
    );
    const now = await statSource(task);
    if (now.etag !== info.etag) throw new CopyError(SOURCE_CHANGED, true);
    await settings.gate.call(
      () =>
        writeWithTags(tags, (carried) =>
          parts.complete(upload, partList(finished, ranges.length), { ...content, metadata, tags: carried }),
        ),
      task.signal,
    );
    await forget(task);
    const copied = await statDestination(task);
    const checksums = sourceChecksums(info, null);
    // A destination that tells a parts ETag (not under SSE-KMS) must tell the source's.
    if (mirrored && copied.partsMd5 && copied.etag !== info.etag) {
      if (await sourcePartsAre(task, session.partSize)) {
        await discardDestination(task);
        throw new CopyError(CHECKSUM_MISMATCH, true);
      }
    }
    const checked = mirrored && copied.partsMd5 !== undefined && copied.etag === info.etag;
    return {
      method: 'server-copy',
      md5: null,
      sha256: checksums.sha256,
      verifiedBy: checked ? 'parts-md5' : 'server-copy',
    };
  } catch (error) {
    if (!task.signal.aborted && isUnsupported(error)) {
      await discardUpload(task, parts, upload);
      return null;
    }
    if (spoilsUpload(error)) await discardUpload(task, parts, upload);
    throw error;
  }
}
