import {
  StorageError,
  type ObjectInfo,
  type ObjectStoreCapabilities,
  type PartsStartOptions,
  type PartsUploadRef,
} from '@cumulo/storage';
import { md5Hex, sourceChecksums, type SourceChecksums } from '../checksums.ts';
import {
  CHECKSUM_MISMATCH,
  CopyError,
  SOURCE_CHANGED,
  type CopyMethod,
  type CopyResult,
  type CopySettings,
  type CopyTask,
  type FinishedPart,
} from '../copy-task.ts';
import {
  MD5_METADATA,
  SHA256_METADATA,
  carriedMetadata,
  contentOf,
  sourceTags,
  writeWithTags,
} from '../metadata-tags.ts';
import { noteLostStart } from '../lost-uploads.ts';
import { PartHasher } from '../part-hasher.ts';
import { matchesPartsMd5, partsMd5Of, sourcePartSize, sourcePartsAre } from '../source-parts.ts';
import { STREAMED_PART_COST } from '../memory-budget.ts';
import {
  discardDestination,
  readSource,
  statDestination,
  statSource,
  streamSource,
} from '../source-reads.ts';

/**
 * Parallel parts: ranged reads of the source → UploadPart (S3) or Put Block (Azure), several parts in flight, each
 * recorded in the ledger so that a successor resumes the same upload. In the source's own parts to S3, each part
 * streams from its GET into its UploadPart (`sendParts`); otherwise each is read into a leased buffer. Also here:
 * the upload session and its ledger, which the server-side copy in parts (`server-copy.ts`) shares.
 */

export type PartsCapability = NonNullable<ObjectStoreCapabilities['parts']>;

const MiB = 1024 * 1024;
/** Below this, per-request overhead dominates a cross-cloud copy; providers' own minimums are lower. */
const MIN_COPY_PART = 8 * MiB;

/**
 * Ranged reads of the source → parallel part uploads, each with its Content-MD5, each recorded in the ledger once
 * the store has it; a copy an earlier attempt began resumes from its ledger. Null when the destination takes no
 * parts (the copier's next method streams it).
 */
export async function copyInParts(task: CopyTask, settings: CopySettings): Promise<CopyResult | null> {
  const parts = task.destination.store.capabilities.parts;
  return parts ? copyInPartsTo(task, parts, settings, { mirror: true }) : null;
}

/**
 * A source with a parts ETag is copied in its own parts where it can be (`copyMirrored`). Otherwise the
 * whole-object MD5 and SHA-256 are computed in part order as parts come in (PartHasher) and checked against the
 * source BEFORE the upload is completed, so a bad copy never becomes an object.
 */
async function copyInPartsTo(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  options: { mirror: boolean },
): Promise<CopyResult> {
  const { item } = task;
  const info = await statSource(task).catch(async (error: unknown) => {
    // The object an earlier attempt was copying is gone or replaced: its parts are of no use any more.
    if (item.method === 'parts' && item.uploadId && spoilsUpload(error)) {
      await discardUpload(task, parts, uploadRef(task, item.uploadId));
    }
    throw error;
  });
  const expected = sourceChecksums(info, item.sourceMd5);
  // S3 fixes metadata when the upload starts: give it every checksum known now. Azure takes it at complete.
  const startMetadata: Record<string, string> = {
    ...carriedMetadata(info),
    ...(expected.md5 ? { [MD5_METADATA]: expected.md5 } : {}),
    ...(expected.sha256 ? { [SHA256_METADATA]: expected.sha256 } : {}),
  };
  const content = contentOf(info);
  // S3 takes the tags when the upload starts, Azure when it completes: both are given them.
  const tags = await sourceTags(task, info);
  const sourcePart = options.mirror ? await mirrorablePartSize(task, parts, settings, info) : null;
  const session = await openSession(
    task,
    parts,
    'parts',
    { ...content, metadata: startMetadata, tags },
    settings,
    sourcePart ?? undefined,
  );
  const { upload, finished } = session;
  const ranges = rangesOf(item.size, session.partSize);
  // A resumed upload keeps the part size it was begun with: it mirrors the source only if begun so.
  if (info.partsMd5 && session.partSize === sourcePart && ranges.length === info.partsMd5.parts) {
    const mirrored = await copyMirrored(task, parts, settings, session, ranges, {
      info,
      expected,
      metadata: startMetadata,
      tags,
    });
    // The source's parts are not all of one size: copied again at the copy's own part size, fully hashed.
    return mirrored ?? copyInPartsTo(task, parts, settings, { mirror: false });
  }
  if (settings.streamParts === 'always' && parts.answersPartMd5) {
    return copyStreamed(task, parts, settings, session, ranges, {
      info,
      expected,
      metadata: startMetadata,
      tags,
    });
  }
  // One buffer per part between its read and its turn to be hashed, so the buffers leased are the hashing window:
  // parts in flight plus parts read ahead of an earlier one still in flight. Reused from part to part.
  const memory = await settings.memory.lease(session.partSize, settings.concurrency, task.signal);
  // The source's MD5, when it has one, verifies the copy: the SHA-256 pass (the dearest one) is then skipped.
  const hasher = new PartHasher(ranges.length, memory.units, {
    sha256: expected.md5 === null,
    onHashed: (bytes) => memory.recycle(bytes),
  });

  try {
    await runParts(
      ranges,
      memory.units,
      task.signal,
      async (range, signal) => {
        await hasher.waitForRoom(range.partNumber, signal);
        const bytes = await readSource(task, range, signal, { into: memory.buffer() });
        const md5 = md5Hex(bytes);
        const done = finished.get(range.partNumber);
        if (done) {
          // Resuming: this part is already at the destination and is NOT sent again, but its bytes are read
          // once more for the whole-object checksums. Hash state cannot survive a crash, so re-reading the
          // finished parts is the honest cost of a checksum that covers every byte of a resumed copy.
          if (done.md5 && done.md5 !== md5) throw new CopyError(CHECKSUM_MISMATCH, true);
        } else {
          await sendPart(task, parts, settings, session, range.partNumber, bytes, md5, signal);
        }
        hasher.add(range.partNumber, bytes);
      },
      (error) => hasher.fail(error),
    );
    const digest = hasher.digest();
    if (
      (expected.md5 && digest.md5 !== expected.md5) ||
      (expected.sha256 && digest.sha256 !== null && digest.sha256 !== expected.sha256)
    ) {
      throw new CopyError(CHECKSUM_MISMATCH, true);
    }
    // Ranged reads of an object replaced mid-copy would mix two versions: the ETag must not have moved.
    const now = await statSource(task);
    if (now.etag !== info.etag) throw new CopyError(SOURCE_CHANGED, true);

    // A checksum already set at start (the source's MD5 or SHA-256) is what later syncs compare; only a copy whose
    // source had none gets the digests computed here. Azure applies metadata at completion anyway; S3 fixed it at
    // start, so its adapter adds late metadata with a server-side self CopyObject — worth paying only when needed.
    const knownAtStart = MD5_METADATA in startMetadata || SHA256_METADATA in startMetadata;
    const metadata = knownAtStart
      ? startMetadata
      : {
          ...startMetadata,
          [MD5_METADATA]: digest.md5,
          ...(digest.sha256 ? { [SHA256_METADATA]: digest.sha256 } : {}),
        };
    await settings.gate.call(
      () =>
        writeWithTags(tags, (carried) =>
          parts.complete(upload, partList(finished, ranges.length), {
            ...content,
            metadata,
            md5: digest.md5,
            tags: carried,
          }),
        ),
      task.signal,
    );
    await forget(task);
    await statDestination(task);
    return {
      method: 'parts',
      md5: digest.md5,
      sha256: digest.sha256,
      verifiedBy: expected.md5 ? 'md5' : 'sha256',
    };
  } catch (error) {
    if (spoilsUpload(error)) await discardUpload(task, parts, upload);
    throw error;
  } finally {
    memory.release();
  }
}

/**
 * Parts in flight a mirrored copy must still be able to hold: a source part size larger than the budget's share
 * would leave fewer parts in flight than a copy at Cumulo's own part size, so such a source is not mirrored.
 */
const MIRROR_PARTS_IN_BUDGET = 4;

/**
 * The source's part size when the copy can be written in the very parts the source was uploaded in
 * (source-parts.ts): the destination takes parts of that size and count, and the memory budget holds enough of
 * them. Such a copy is checked against the source's own ETag with the part MD5s the upload computes anyway: one
 * pass over the bytes, where a copy at another part size could check nothing of a multipart source (its ETag is
 * no MD5 of the object) and hashed it twice more.
 */
async function mirrorablePartSize(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  info: ObjectInfo,
): Promise<number | null> {
  const size = await sourcePartSize(task, info);
  if (size === null) return null;
  const affordable = size * MIRROR_PARTS_IN_BUDGET <= settings.memory.total;
  return partsFit(parts.limits, size, info.size) && affordable ? size : null;
}

/** Whether the destination takes an object of `total` bytes in parts of `partSize` (the last one shorter). */
export function partsFit(limits: PartsCapability['limits'], partSize: number, total: number): boolean {
  const count = Math.ceil(total / partSize);
  return (
    (count === 1 || partSize >= limits.minPart) && partSize <= limits.maxPart && count <= limits.maxParts
  );
}

/**
 * A parts copy in the source's own part layout: each part is sent and recorded with its MD5 (`sendParts`:
 * streamed and checked against the MD5 the store answers, or buffered with Content-MD5), and the MD5 of the part
 * MD5s must be the source's parts ETag before the upload is completed, and the completed object's ETag where the
 * store tells one. No part waits for an earlier one (nothing is hashed in object order); a resumed copy reads
 * none of its finished parts again, their MD5s are in the ledger. On a mismatch the source's layout
 * is looked up part by part: when it is the uniform one, the bytes were wrong (CHECKSUM_MISMATCH, the upload is
 * discarded); when it is not, nothing was wrong but the assumption, and null sends the caller to a copy at its
 * own part size.
 */
async function copyMirrored(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  ranges: PartRange[],
  source: PartsSource,
): Promise<CopyResult | null> {
  const { upload } = session;
  try {
    const digest = await sendAllParts(task, parts, settings, session, ranges, source);
    if (!matchesPartsMd5(source.info, digest)) {
      if (await sourcePartsAre(task, session.partSize)) throw new CopyError(CHECKSUM_MISMATCH, true);
      await discardUpload(task, parts, upload);
      return null;
    }
    await completeChecked(task, parts, settings, session, ranges, source, digest);
    const { md5, sha256 } = source.expected;
    return { method: 'parts', md5, sha256, verifiedBy: 'parts-md5' };
  } catch (error) {
    if (spoilsUpload(error)) await discardUpload(task, parts, upload);
    throw error;
  }
}

/**
 * A parts copy at Cumulo's own part size with every part streamed (`streamParts: 'always'`): one MD5 pass per
 * part, checked against the store's answer, and the assembled object's ETag against those MD5s; the source's
 * ETag must not have moved. Nothing is hashed whole, so the bytes read are compared with no checksum of the
 * source: the source's MD5, when known, is recorded (cumulo-md5, set at start) but was not checked. A later sync
 * knows the copy by it, or by the source version (`cumulo-source-etag`) when the source had none. A resumed copy
 * reads none of its finished parts again.
 */
async function copyStreamed(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  ranges: PartRange[],
  source: PartsSource,
): Promise<CopyResult> {
  try {
    const digest = await sendAllParts(task, parts, settings, session, ranges, source);
    await completeChecked(task, parts, settings, session, ranges, source, digest);
    const { md5, sha256 } = source.expected;
    return { method: 'parts', md5, sha256, verifiedBy: 'part-md5s' };
  } catch (error) {
    if (spoilsUpload(error)) await discardUpload(task, parts, session.upload);
    throw error;
  }
}

/** The source of a copy whose parts are recorded by their MD5s (mirrored or streamed). */
interface PartsSource {
  info: ObjectInfo;
  expected: SourceChecksums;
  metadata: Record<string, string>;
  tags: Record<string, string> | undefined;
}

/**
 * Sends every part not yet finished (`sendParts`) and answers the MD5 of the part MD5s, the finished ones' from
 * the ledger. A source replaced meanwhile explains any mismatch: it is told as such, before the bytes are judged.
 */
async function sendAllParts(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  ranges: PartRange[],
  source: PartsSource,
): Promise<{ md5: string; parts: number }> {
  const md5s = new Map<number, string>();
  for (const [partNumber, part] of session.finished) if (part.md5) md5s.set(partNumber, part.md5);
  await sendParts(task, parts, settings, session, ranges, md5s);
  const now = await statSource(task);
  if (now.etag !== source.info.etag) throw new CopyError(SOURCE_CHANGED, true);
  return { md5: partsMd5Of(ranges.map((range) => md5s.get(range.partNumber) ?? '')), parts: ranges.length };
}

/** Completes the upload with the source's content headers, metadata and tags, then checks what the store made. */
async function completeChecked(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  ranges: PartRange[],
  source: PartsSource,
  digest: { md5: string; parts: number },
): Promise<void> {
  const { md5 } = source.expected;
  const completed = await settings.gate.call(
    () =>
      writeWithTags(source.tags, (tags) =>
        parts.complete(session.upload, partList(session.finished, ranges.length), {
          ...contentOf(source.info),
          metadata: source.metadata,
          ...(md5 ? { md5 } : {}),
          tags,
        }),
      ),
    task.signal,
  );
  await forget(task);
  await checkAssembled(task, completed.etag, digest);
  await statDestination(task);
}

/**
 * The object a store assembled from parts tells, where it is an S3 store, the MD5 of the part MD5s it put
 * together (`<hex>-<count>`): it must be the one of the parts sent, or the object is not what was verified.
 * Other answers (Azure's ETag) tell nothing of the bytes and are not compared.
 */
async function checkAssembled(
  task: CopyTask,
  etag: string | null,
  digest: { md5: string; parts: number },
): Promise<void> {
  const assembled = etag ? /^([0-9a-f]{32})-(\d+)$/i.exec(etag) : null;
  if (!assembled) return;
  if (assembled[1]?.toLowerCase() === digest.md5 && Number(assembled[2]) === digest.parts) return;
  await discardDestination(task);
  throw new CopyError(CHECKSUM_MISMATCH, true);
}

/** Sends of one streamed part before a store that keeps answering another MD5 than the bytes' fails the copy. */
const PART_ATTEMPTS = 3;

/**
 * Sends the parts not yet finished, `md5s` gaining each one's MD5 as it is in. To a store that answers the MD5
 * of what it received (`answersPartMd5`, S3), each part streams from its ranged GET into its UploadPart with
 * one MD5 pass on the way and no part-sized buffer, and is taken only when the store's MD5 is that one; the
 * memory budget counts it as a stream (STREAMED_PART_COST). Elsewhere (Azure: Put Block answers no MD5 of a
 * streamed block) each part is read into a leased buffer and sent with its Content-MD5, which the store checks.
 */
async function sendParts(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  ranges: PartRange[],
  md5s: Map<number, string>,
): Promise<void> {
  const todo = ranges.filter((range) => !md5s.has(range.partNumber));
  if (!parts.answersPartMd5) {
    const memory = await settings.memory.lease(session.partSize, settings.concurrency, task.signal);
    try {
      await runParts(
        todo,
        memory.units,
        task.signal,
        async (range, signal) => {
          const bytes = await readSource(task, range, signal, { into: memory.buffer() });
          try {
            const md5 = md5Hex(bytes);
            await sendPart(task, parts, settings, session, range.partNumber, bytes, md5, signal);
            md5s.set(range.partNumber, md5);
          } finally {
            memory.recycle(bytes);
          }
        },
        () => undefined,
      );
    } finally {
      memory.release();
    }
    return;
  }
  const streams = await settings.memory.lease(STREAMED_PART_COST, settings.concurrency, task.signal);
  // Set once the store answers a streamed part without an MD5 (S3 under SSE-KMS): the rest go buffered.
  let unanswered = false;
  try {
    await runParts(
      todo,
      streams.units,
      task.signal,
      async (range, signal) => {
        const md5 = unanswered ? null : await streamPart(task, parts, settings, session, range, signal);
        if (md5 !== null) return void md5s.set(range.partNumber, md5);
        unanswered = true;
        md5s.set(range.partNumber, await sendBufferedPart(task, parts, settings, session, range, signal));
      },
      () => undefined,
    );
  } finally {
    streams.release();
  }
}

/**
 * One part streamed from its ranged GET into its UploadPart, its MD5 taken on the way and compared with the one
 * the store answers; recorded in the ledger once they agree. A store that answers another MD5 received other
 * bytes: the part is sent again (a new read, a new upload of that number, which replaces it), and after
 * PART_ATTEMPTS the copy fails with CHECKSUM_MISMATCH. A short or long read fails the part's upload, so no part
 * is stored from it. Answers null, with nothing recorded, when the store answered no MD5 to compare.
 */
async function streamPart(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  range: PartRange,
  signal: AbortSignal,
): Promise<string | null> {
  for (let attempt = 1; ; attempt++) {
    // Read and send together behind the gate: a throttled part is sent again from a fresh read.
    const sent = await settings.gate.call(async () => {
      const read = await streamSource(task, range, signal);
      const answer = await parts.uploadPart(session.upload, range.partNumber, read, { signal });
      return { ...answer, read: read.md5(), size: read.length };
    }, signal);
    if (sent.md5 === null) return null;
    if (sent.md5 === sent.read) {
      const part: FinishedPart = {
        partNumber: range.partNumber,
        size: sent.size,
        etag: sent.etag,
        md5: sent.read,
      };
      await task.ledger.recordPart(task.item.id, part);
      session.finished.set(range.partNumber, part);
      task.onBytes(sent.size);
      return sent.read;
    }
    if (attempt >= PART_ATTEMPTS) throw new CopyError(CHECKSUM_MISMATCH, true);
  }
}

/** One part read into a buffer leased for it alone and sent with its Content-MD5, for a store that checks it. */
async function sendBufferedPart(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  range: PartRange,
  signal: AbortSignal,
): Promise<string> {
  const memory = await settings.memory.lease(session.partSize, 1, signal);
  try {
    const bytes = await readSource(task, range, signal, { into: memory.buffer() });
    const md5 = md5Hex(bytes);
    await sendPart(task, parts, settings, session, range.partNumber, bytes, md5, signal);
    return md5;
  } finally {
    memory.release();
  }
}

/* The upload session and its ledger, shared with the server-side copy in parts (server-copy.ts). */

/** The part size for `size` bytes within the destination's limits: ≥ 8 MiB, ≤ maxParts parts, whole MiB. */
function partSizeOf(limits: PartsCapability['limits'], size: number, forced?: number): number {
  const needed = Math.ceil(Math.ceil(size / limits.maxParts) / MiB) * MiB;
  const partSize = Math.max(forced ?? MIN_COPY_PART, limits.minPart, needed);
  if (partSize > limits.maxPart) {
    throw new CopyError(`An object of ${size} bytes is larger than the destination accepts`, false);
  }
  return partSize;
}

interface PartRange {
  partNumber: number;
  start: number;
  end: number;
}

export function rangesOf(size: number, partSize: number): PartRange[] {
  return Array.from({ length: Math.ceil(size / partSize) }, (_, index) => ({
    partNumber: index + 1,
    start: index * partSize,
    end: Math.min(size, (index + 1) * partSize) - 1,
  }));
}

/** An open upload at the destination and the parts of it that are already done. */
interface UploadSession {
  upload: PartsUploadRef;
  partSize: number;
  finished: Map<number, FinishedPart>;
}

const uploadRef = (task: CopyTask, uploadId: string): PartsUploadRef => ({
  bucket: task.destination.bucket,
  key: task.item.destinationKey,
  uploadId,
});

/**
 * The parts an earlier attempt finished, as both the ledger and the store know them: the ledger may hold a part
 * the store lost (upload expired) and the store may hold a part whose recording was cut short by the crash; only
 * parts both agree on (number, size, ETag) are skipped. Null when the upload itself is gone.
 */
async function resumedSession(
  task: CopyTask,
  parts: PartsCapability,
  method: CopyMethod,
): Promise<UploadSession | null> {
  const { item, ledger } = task;
  if (item.method !== method || !item.uploadId || !item.partSize) return null;
  const upload = uploadRef(task, item.uploadId);
  let held;
  try {
    held = await parts.listParts(upload);
  } catch (error) {
    if (error instanceof StorageError && error.code === 'ObjectNotFound') {
      await forget(task);
      return null;
    }
    throw error;
  }
  const heldByNumber = new Map(held.map((part) => [part.partNumber, part]));
  const ranges = rangesOf(item.size, item.partSize);
  const finished = new Map<number, FinishedPart>();
  for (const recorded of await ledger.finishedParts(item.id)) {
    const range = ranges[recorded.partNumber - 1];
    const stored = heldByNumber.get(recorded.partNumber);
    const sameSize =
      range && stored && recorded.size === range.end - range.start + 1 && stored.size === recorded.size;
    const sameEtag = !recorded.etag || !stored?.etag || recorded.etag === stored.etag;
    if (sameSize && sameEtag)
      finished.set(recorded.partNumber, { ...recorded, etag: recorded.etag ?? stored.etag });
  }
  return { upload, partSize: item.partSize, finished };
}

export async function openSession(
  task: CopyTask,
  parts: PartsCapability,
  method: CopyMethod,
  startOptions: PartsStartOptions,
  settings: CopySettings,
  exactPartSize?: number,
): Promise<UploadSession> {
  const resumed = await resumedSession(task, parts, method);
  if (resumed) return resumed;
  const { item, destination, ledger } = task;
  const partSize = exactPartSize ?? partSizeOf(parts.limits, item.size, settings.partSize);
  const askedAt = new Date();
  const uploadId = await settings.gate
    .call(
      () =>
        writeWithTags(startOptions.tags, (tags) =>
          parts.start(destination.bucket, item.destinationKey, { ...startOptions, tags }),
        ),
      task.signal,
    )
    .catch(async (error: unknown) => {
      // The store may have opened the upload and lost only its answer: noted, so the sweep finds it.
      await noteLostStart(task, parts, askedAt, error);
      throw error;
    });
  try {
    await ledger.begin(item.id, method, uploadId, partSize);
  } catch (error) {
    // The lease went while the store opened the upload (the item failed or was handed on meanwhile, e.g. through
    // an outage): no ledger will ever name this upload, so nothing would abort it later. Abort it now.
    await parts.abort(uploadRef(task, uploadId)).catch(() => undefined);
    throw error;
  }
  // The task's item mirrors the ledger, so abandonCopy(task) finds this upload even if the executor never re-reads.
  Object.assign(item, { method, uploadId, partSize });
  return { upload: uploadRef(task, uploadId), partSize, finished: new Map() };
}

/** Forgets the upload in the ledger and on the task's item (after complete, abort, or when it is gone). */
export async function forget(task: CopyTask): Promise<void> {
  await task.ledger.clear(task.item.id);
  Object.assign(task.item, { uploadId: null, partSize: null });
}

/** Aborts the destination upload and forgets it: what is there cannot become a verified object. */
export async function discardUpload(
  task: CopyTask,
  parts: PartsCapability,
  upload: PartsUploadRef,
): Promise<void> {
  await parts.abort(upload).catch(() => undefined);
  await forget(task);
}

/**
 * Runs `work` over the parts with at most `concurrency` in flight, in part order. The first failure stops the
 * others (their in-flight calls are aborted) and is thrown once all have settled, so nothing is left running.
 */
export async function runParts(
  ranges: PartRange[],
  concurrency: number,
  outer: AbortSignal,
  work: (range: PartRange, signal: AbortSignal) => Promise<void>,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const inner = new AbortController();
  const stop = () => inner.abort(outer.reason);
  outer.addEventListener('abort', stop, { once: true });
  let next = 0;
  let failed: { error: unknown } | null = null;
  const worker = async () => {
    while (!failed && next < ranges.length) {
      const range = ranges[next++] as PartRange;
      try {
        await work(range, inner.signal);
      } catch (error) {
        if (!failed) {
          failed = { error };
          inner.abort(error);
          onFailure(error);
        }
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, ranges.length) }, worker));
  } finally {
    outer.removeEventListener('abort', stop);
  }
  if (failed) throw (failed as { error: unknown }).error;
}

/**
 * Sends one part with its Content-MD5 (the store refuses damaged bytes), records it in the ledger, so a successor
 * resumes after it, and counts its bytes.
 */
async function sendPart(
  task: CopyTask,
  parts: PartsCapability,
  settings: CopySettings,
  session: UploadSession,
  partNumber: number,
  bytes: Buffer,
  md5: string,
  signal: AbortSignal,
): Promise<void> {
  const { etag } = await settings.gate.call(
    () => parts.uploadPart(session.upload, partNumber, bytes, { md5, signal }),
    signal,
  );
  const part: FinishedPart = { partNumber, size: bytes.length, etag, md5 };
  await task.ledger.recordPart(task.item.id, part);
  session.finished.set(partNumber, part);
  task.onBytes(bytes.length);
}

/** Parts the next attempt cannot build on: the upload goes, the copy starts over. */
export const spoilsUpload = (error: unknown) =>
  error instanceof CopyError && (error.message === CHECKSUM_MISMATCH || error.message === SOURCE_CHANGED);

export function partList(finished: Map<number, FinishedPart>, count: number) {
  return Array.from({ length: count }, (_, index) => {
    const part = finished.get(index + 1);
    if (!part) throw new CopyError(`Part ${index + 1} of the copy is missing`, true);
    return { partNumber: part.partNumber, etag: part.etag };
  });
}
