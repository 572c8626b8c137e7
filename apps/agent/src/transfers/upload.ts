import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  AGENT_BLOCK_SIZE,
  AGENT_CLIENTS,
  AGENT_PARALLEL_FILES,
  UPLOAD_BATCH_MAX,
  agentMessages,
  completeUploadAnswer,
  completeUploadBatchAnswer,
  signPartsAnswer,
  startUploadBatchAnswer,
  uploadSession,
  type SignedPart,
  type StartUploadBatchAnswer,
  type UploadSession,
} from '@cumulo/contract';
import { z } from 'zod';
import { isUnlistedName, LocalRefusal, type LocalFolders, type ResolvedPath } from '../local-folders.ts';
import { DeviceUnknown } from '../server-client.ts';
import { HashingStream, MULTIPART_ETAG, PLAIN_MD5, md5OfRange, multipartEtag } from './checksums.ts';
import { etagOf, httpRequest, type HttpAnswer } from '../http-client.ts';
import {
  FileFailure,
  STORE_ATTEMPTS,
  eachLimited,
  isAbort,
  localFailure,
  sleep,
  type TransferContext,
} from './transfer-context.ts';
import type { FileState } from './transfer-state.ts';
import { bandwidth } from './bandwidth.ts';

/**
 * Uploads through the server's direct-upload API with the device token: files of one block or less are opened and
 * completed a hundred at a time (POST /transfers/uploads/batch), larger ones in parts of a session
 * (POST /transfers/uploads, parts signed shortly before use, AGENT_CLIENTS parts in flight). Every file is read
 * from disk as it is sent and checked against what the store says it stored.
 */

/** Parts signed per call: a few rounds of the file's parallel requests, so a URL is used soon after it is made. */
const SIGN_AHEAD = AGENT_CLIENTS * 4;
const abortAnswer = z.object({ message: z.string() });

/** A stable id of a local file (its absolute path, size and modification time): the server resumes by it. */
function fingerprintOf(osPath: string, size: number, mtimeMs: number): string {
  return createHash('sha256').update(`${osPath}\u0000${size}\u0000${mtimeMs}`).digest('hex');
}

/** One chosen path of an upload, resolved inside its added folder. */
interface ChosenPath {
  resolved: ResolvedPath;
  /** Its own name, kept in the keys. */
  top: string;
  /** Its virtual path. */
  base: string;
  info: Stats;
}

/**
 * The chosen virtual paths as an upload takes them, without walking anything: each must exist inside an added folder
 * (else refused, as the page is told at once); hidden names are left out.
 */
export async function chooseUpload(
  folders: LocalFolders,
  chosen: string[],
): Promise<{ paths: ChosenPath[]; names: string[]; isDirectory: boolean }> {
  const paths: ChosenPath[] = [];
  for (const virtual of chosen) {
    const resolved = await folders.resolveExisting(virtual);
    const top = resolved.inside.at(-1) ?? resolved.root.name;
    if (isUnlistedName(top)) continue;
    const base = `/${[resolved.root.name, ...resolved.inside].join('/')}`;
    paths.push({ resolved, top, base, info: await stat(resolved.osPath) });
  }
  return {
    paths,
    names: paths.map((chosenPath) => chosenPath.top),
    isDirectory: paths.some((chosenPath) => chosenPath.info.isDirectory()),
  };
}

/** Entries of one folder stat'ed at once while an upload is planned (the walk's order is kept). */
const WALK_STATS = 32;

/**
 * The files under the chosen virtual paths, with their object keys under `remoteFolder`: a chosen folder is walked
 * (hidden names and symlinks leaving the added folder skipped), keeping its own name in the keys. Depth first,
 * names sorted: the order files are sent in is the order a listing shows them. An entry the walk cannot read (no
 * permission) or that went meanwhile is a failed row of its own, with why and no object; any other error refuses
 * the upload. `signal` stops the walk between folders.
 */
export async function planUpload(
  folders: LocalFolders,
  chosen: string[],
  remoteFolder: string,
  signal?: AbortSignal,
  /** Put before every file's name (the path of a walk's chosen item's parent, for walkAgain). */
  namePrefix = '',
): Promise<{ files: FileState[]; isDirectory: boolean; names: string[] }> {
  const prefix = remoteFolder && !remoteFolder.endsWith('/') ? `${remoteFolder}/` : remoteFolder;
  const { paths, names, isDirectory } = await chooseUpload(folders, chosen);
  const files: FileState[] = [];
  const fileRow = (relative: string, at: string, info: { size: number; mtimeMs: number }): FileState => ({
    name: `${namePrefix}${relative}`,
    local: at,
    key: `${prefix}${relative}`,
    size: info.size,
    mtimeMs: info.mtimeMs,
    status: 'pending',
    error: null,
    transferred: 0,
  });
  const unreadableRow = (error: unknown, relative: string, at: string): FileState => {
    const failure = localFailure(error, `${namePrefix}${relative}`);
    if (!failure) throw error;
    return {
      name: `${namePrefix}${relative}`,
      local: at,
      key: `${prefix}${relative}`,
      size: 0,
      status: 'failed',
      error: failure.message,
      transferred: 0,
      unlisted: true,
    };
  };
  for (const { resolved, top, base, info } of paths) {
    if (info.isFile()) {
      files.push(fileRow(top, base, info));
      continue;
    }
    if (!info.isDirectory()) continue;
    const realRoot = await realpath(resolved.root.folder);
    /** A file's row, a folder to walk, or nothing (a link leading out or to a folder, a special file). */
    const look = async (
      entry: Dirent,
      full: string,
      relative: string,
      at: string,
    ): Promise<FileState | 'folder' | null> => {
      if (entry.isDirectory()) return 'folder';
      if (entry.isFile())
        return stat(full).then(
          (found) => fileRow(relative, at, found),
          (error: unknown) => unreadableRow(error, relative, at),
        );
      if (!entry.isSymbolicLink()) return null;
      // A link to a file inside the same added folder is sent; links to folders are not followed (no loops).
      const real = await realpath(full).catch(() => null);
      if (!real || !(real === realRoot || real.startsWith(`${realRoot}${path.sep}`))) return null;
      // A target gone since realpath is a dangling link, skipped as those are.
      const target = await lstat(real).catch(() => null);
      return target?.isFile() ? fileRow(relative, at, target) : null;
    };
    const walk = async (osDir: string, relative: string, at: string): Promise<void> => {
      signal?.throwIfAborted();
      let listed: Dirent[];
      try {
        listed = await readdir(osDir, { withFileTypes: true });
      } catch (error) {
        files.push(unreadableRow(error, relative, at));
        return;
      }
      const entries = listed
        .filter((entry) => !isUnlistedName(entry.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (let from = 0; from < entries.length; from += WALK_STATS) {
        const slice = entries.slice(from, from + WALK_STATS).map((entry) => ({
          entry,
          full: path.join(osDir, entry.name),
          relative: `${relative}/${entry.name}`,
          at: `${at}/${entry.name}`,
        }));
        const found = await Promise.all(
          slice.map(async (item) => ({
            item,
            result: await look(item.entry, item.full, item.relative, item.at),
          })),
        );
        for (const { item, result } of found) {
          if (result === 'folder') await walk(item.full, item.relative, item.at);
          else if (result) files.push(result);
        }
      }
    };
    await walk(resolved.osPath, top, base);
  }
  return { files, isDirectory, names };
}

/**
 * A row the walk could not read (a folder or a file: `unlisted`), walked again for Retry Failed Files: its files
 * under the same bucket folder and with the names the first walk would have given them. Still unreadable, gone
 * meanwhile or no longer inside its added folder: the row again, failed with why now.
 */
export async function walkAgain(
  folders: LocalFolders,
  row: FileState,
  signal?: AbortSignal,
): Promise<FileState[]> {
  // The row's name is its path under the chosen item's parent, and its key that path under the upload's folder.
  const top = row.name.slice(row.name.lastIndexOf('/') + 1);
  const parentName = row.name.slice(0, row.name.length - top.length);
  const remoteFolder = row.key.slice(0, row.key.length - top.length);
  try {
    return (await planUpload(folders, [row.local], remoteFolder, signal, parentName)).files;
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = error instanceof LocalRefusal ? error.message : localFailure(error, row.name)?.message;
    if (message === undefined) throw error;
    return [{ ...row, status: 'failed', error: message, transferred: 0 }];
  }
}

/** The local file, checked again (real path inside its folder, same size and time as planned). */
async function openLocal(context: TransferContext, file: FileState): Promise<string> {
  let osPath: string;
  try {
    osPath = (await context.folders.resolveExisting(file.local)).osPath;
  } catch (error) {
    if ((error as { status?: number }).status === 404)
      throw new FileFailure(agentMessages.fileVanished(file.name));
    throw new FileFailure(error instanceof Error ? error.message : agentMessages.pathOutside);
  }
  const info = await stat(osPath).catch((error: unknown) => {
    throw localFailure(error, file.name) ?? error;
  });
  // A file replaced or rewritten since the transfer began is not the file the user chose.
  if (!info.isFile() || info.size !== file.size || info.mtimeMs !== file.mtimeMs)
    throw new FileFailure(agentMessages.fileVanished(file.name));
  return osPath;
}

/** A byte range of the file as a stream that hashes what it gives. */
function rangeStream(osPath: string, start: number, length: number) {
  const hashing = new HashingStream();
  const source =
    length === 0 ? Readable.from([]) : createReadStream(osPath, { start, end: start + length - 1 });
  source.once('error', (error: Error) => hashing.destroy(error));
  if (bandwidth.rate === 0) return { stream: source.pipe(hashing), hashing };
  const pacer = bandwidth.pacer();
  pacer.once('error', (error: Error) => hashing.destroy(error));
  return { stream: source.pipe(pacer).pipe(hashing), hashing };
}

/** Azure checks a block against its Content-MD5; it is told the MD5 of the bytes before they are sent. */
const wantsContentMd5 = (headers: Record<string, string>, mode?: string) =>
  mode === 'azure-blocks' || Object.keys(headers).some((name) => name.toLowerCase() === 'x-ms-blob-type');

/**
 * Whether the store's answer proves it stored exactly the bytes sent: an S3 ETag is their MD5; GCS answers
 * `x-goog-hash: md5=…`; Azure refused the request itself had the Content-MD5 it was given not matched.
 */
function storedExactly(answer: HttpAnswer, md5: Buffer, sentContentMd5: boolean): boolean {
  const googHash = answer.headers['x-goog-hash'];
  const googMd5 = (Array.isArray(googHash) ? googHash.join(',') : (googHash ?? ''))
    .split(',')
    .map((part) => part.trim())
    .find((part) => part.startsWith('md5='));
  if (googMd5) return googMd5.slice(4) === md5.toString('base64');
  const etag = etagOf(answer.headers);
  if (etag && PLAIN_MD5.test(etag)) return etag.toLowerCase() === md5.toString('hex');
  return sentContentMd5;
}

const ok = (answer: HttpAnswer) => answer.status >= 200 && answer.status < 300;

/** Retries a request to the store; a local failure (file gone) or an abort ends it at once. */
async function withRetries<T>(context: TransferContext, file: FileState, send: () => Promise<T>): Promise<T> {
  let last: unknown = null;
  for (let attempt = 0; attempt < STORE_ATTEMPTS; attempt += 1) {
    if (attempt > 0) await sleep(500 * 2 ** attempt, context.signal);
    try {
      return await send();
    } catch (error) {
      if (context.signal.aborted || isAbort(error)) throw error;
      const local = localFailure(error, file.name);
      if (local) throw local;
      if (error instanceof FileFailure && error.message === agentMessages.verifyFailed(file.name))
        throw error;
      if (error instanceof DeviceUnknown) throw error;
      last = error;
    }
  }
  throw last instanceof FileFailure ? last : new FileFailure(errorText(last));
}

const errorText = (error: unknown) =>
  error instanceof Error && error.message ? error.message : 'The object store refused the upload.';

/** Sends the pending and interrupted files of an upload transfer. */
export async function runUpload(context: TransferContext, onFileDone: (file: FileState) => void) {
  const { transfer } = context;
  const todo = transfer.files.filter((file) => file.status === 'pending' || file.status === 'running');
  const small = todo.filter((file) => file.size <= AGENT_BLOCK_SIZE);
  const large = todo.filter((file) => file.size > AGENT_BLOCK_SIZE);

  const end = async (file: FileState, error: unknown) => {
    if (error === null) {
      file.status = 'verified';
      file.error = null;
      file.transferred = file.size;
    } else if (context.signal.aborted) {
      file.status = 'cancelled';
    } else if (error instanceof DeviceUnknown) {
      throw error;
    } else {
      file.status = 'failed';
      file.error = error instanceof FileFailure ? error.message : errorText(error);
      file.transferred = 0;
    }
    onFileDone(file);
    await context.fileEnded(file);
  };

  // Small files in batches, one batch signed ahead of the one being sent.
  const batches: FileState[][] = [];
  for (let i = 0; i < small.length; i += UPLOAD_BATCH_MAX) batches.push(small.slice(i, i + UPLOAD_BATCH_MAX));
  const signBatch = async (batch: FileState[]) => {
    for (const file of batch) file.status = 'running';
    const described = await Promise.all(
      batch.map(async (file) => {
        try {
          const osPath = await openLocal(context, file);
          return { file, osPath, error: null };
        } catch (error) {
          return { file, osPath: '', error };
        }
      }),
    );
    const ready = described.filter((entry) => entry.error === null);
    for (const entry of described) if (entry.error !== null) await end(entry.file, entry.error);
    if (ready.length === 0) return { ready, answer: null };
    const answer = await context.server.device(
      'POST',
      '/transfers/uploads/batch',
      {
        cloud_account_id: transfer.cloud_account_id,
        bucket_name: transfer.bucket_name,
        files: ready.map(({ file, osPath }) => ({
          key: file.key,
          size: file.size,
          fingerprint: fingerprintOf(osPath, file.size, file.mtimeMs ?? 0),
        })),
      },
      startUploadBatchAnswer,
    );
    return { ready, answer };
  };
  const completions: Array<Promise<void>> = [];
  let signing = batches[0] ? signBatch(batches[0]) : null;
  for (let b = 0; b < batches.length && signing; b += 1) {
    let signed: Awaited<ReturnType<typeof signBatch>>;
    try {
      signed = await signing;
    } catch (error) {
      if (error instanceof DeviceUnknown) throw error;
      const batch = batches[b] ?? [];
      for (const file of batch) if (file.status === 'running') await end(file, error);
      signing = batches[b + 1] ? signBatch(batches[b + 1] ?? []) : null;
      continue;
    }
    const next = batches[b + 1];
    signing = next && !context.signal.aborted ? signBatch(next) : null;
    // A failed sign-ahead is met when its turn comes.
    signing?.catch(() => undefined);
    const { ready, answer } = signed;
    if (!answer) continue;
    const sent: Array<{ file: FileState; sessionId: string }> = [];
    await eachLimited(
      ready.map((entry, i) => ({ ...entry, target: answer.files[i] })),
      AGENT_PARALLEL_FILES,
      context.signal,
      async ({ file, osPath, target }) => {
        try {
          if (!target) throw new FileFailure(errorText(null));
          await withRetries(context, file, () =>
            sendSmall(osPath, file, target, answer.form_fields, context),
          );
          file.transferred = file.size;
          context.changed(file);
          sent.push({ file, sessionId: target.session_id });
        } catch (error) {
          if (error instanceof DeviceUnknown) throw error;
          if (target && !context.signal.aborted)
            await context.server
              .device('DELETE', `/transfers/uploads/${target.session_id}`, undefined, abortAnswer)
              .catch(() => undefined);
          await end(file, error);
        }
      },
    );
    if (context.signal.aborted) {
      // Sent but never completed: the cancel call aborts their sessions (they are still open on the server).
      for (const { file, sessionId } of sent) {
        file.sessionId = sessionId;
        await end(file, new FileFailure(agentMessages.cancelled));
      }
      break;
    }
    if (sent.length === 0) continue;
    // The batch is completed while the next one is sent: the store is never idle waiting for the server's check.
    const completion = context.server
      .device(
        'POST',
        '/transfers/uploads/batch/complete',
        { session_ids: sent.map((entry) => entry.sessionId) },
        completeUploadBatchAnswer,
      )
      .then(async (completed) => {
        const outcome = new Map(completed.files.map((entry) => [entry.session_id, entry.error]));
        for (const { file, sessionId } of sent) {
          const error = outcome.get(sessionId);
          await end(file, error ? new FileFailure(error) : null);
        }
      })
      .catch(async (error: unknown) => {
        if (error instanceof DeviceUnknown) throw error;
        for (const { file } of sent) await end(file, error);
      });
    completion.catch(() => undefined);
    completions.push(completion);
  }
  await Promise.all(completions);

  await eachLimited(large, AGENT_PARALLEL_FILES, context.signal, async (file) => {
    file.status = 'running';
    context.changed(file);
    try {
      await sendLarge(context, file);
      await end(file, null);
    } catch (error) {
      if (error instanceof DeviceUnknown) throw error;
      if (file.sessionId && !context.signal.aborted) {
        // A file that failed for good leaves nothing half-stored with the provider.
        await context.server
          .device('DELETE', `/transfers/uploads/${file.sessionId}`, undefined, abortAnswer)
          .catch(() => undefined);
        file.sessionId = null;
      }
      await end(file, error);
    }
  });
}

/** One small file: a PUT of its bytes, or a form POST (fields, key, Content-Type, then the file). */
async function sendSmall(
  osPath: string,
  file: FileState,
  target: StartUploadBatchAnswer['files'][number],
  formFields: Record<string, string> | null,
  context: TransferContext,
): Promise<void> {
  const contentMd5 = wantsContentMd5(target.headers) ? await md5OfRange(osPath, 0, file.size) : null;
  const { stream, hashing } = rangeStream(osPath, 0, file.size);
  let answer: HttpAnswer;
  if (target.method === 'PUT') {
    const headers = { ...target.headers };
    if (contentMd5) headers['content-md5'] = Buffer.from(contentMd5, 'hex').toString('base64');
    answer = await httpRequest({
      method: 'PUT',
      url: target.url,
      headers,
      body: { stream, length: file.size },
      signal: context.signal,
    });
  } else {
    const boundary = `cumulo-agent-${createHash('md5').update(file.key).digest('hex')}`;
    const field = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const fields = {
      ...formFields,
      ...target.fields,
      key: target.key,
      'Content-Type': 'application/octet-stream',
    };
    const head = Buffer.from(
      `${Object.entries(fields)
        .map(([name, value]) => field(name, value))
        .join(
          '',
        )}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${encodeURIComponent(
        path.basename(file.key),
      )}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Readable.from(
      (async function* () {
        yield head;
        for await (const chunk of stream) yield chunk as Buffer;
        yield tail;
      })(),
    );
    answer = await httpRequest({
      method: 'POST',
      url: target.url,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: { stream: body, length: head.length + file.size + tail.length },
      signal: context.signal,
    });
  }
  if (!ok(answer)) throw new FileFailure(`The object store answered HTTP ${answer.status}.`);
  if (hashing.bytes !== file.size) throw new FileFailure(agentMessages.fileVanished(file.name));
  if (!storedExactly(answer, hashing.hash.digest(), contentMd5 !== null))
    throw new FileFailure(agentMessages.verifyFailed(file.name));
}

/** A file of several blocks, through an upload session that resumes by fingerprint. */
async function sendLarge(context: TransferContext, file: FileState): Promise<void> {
  const { transfer, server } = context;
  const osPath = await openLocal(context, file);
  const session: UploadSession = await server.device(
    'POST',
    '/transfers/uploads',
    {
      cloud_account_id: transfer.cloud_account_id,
      bucket_name: transfer.bucket_name,
      key: file.key,
      size: file.size,
      fingerprint: fingerprintOf(osPath, file.size, file.mtimeMs ?? 0),
    },
    uploadSession,
  );
  file.sessionId = session.session_id;
  context.changed(file);
  const partSize = session.part_size;
  const partLength = (n: number) => Math.min(partSize, file.size - (n - 1) * partSize);
  const partsTotal = session.mode === 'single' ? 1 : session.parts_total;
  /** Part number → the MD5 (hex) of its bytes, or the store's etag (Azure, GCS) where no MD5 is known. */
  const md5s = new Map<number, string>();
  const etags = new Map<number, string | null>();
  file.transferred = 0;
  // Parts the store already holds (a resumed session) are checked against the local bytes, not trusted.
  for (const part of session.finished_parts) {
    if (session.mode === 's3-multipart') {
      if (!part.etag || !PLAIN_MD5.test(part.etag.replace(/"/g, ''))) continue;
      const local = await md5OfRange(osPath, (part.part_number - 1) * partSize, partLength(part.part_number));
      if (local !== part.etag.replace(/"/g, '').toLowerCase()) continue;
      md5s.set(part.part_number, local);
    }
    etags.set(part.part_number, part.etag);
    file.transferred += part.size;
  }
  const pending: number[] = [];
  for (let n = 1; n <= partsTotal; n += 1) if (!etags.has(n)) pending.push(n);

  const signatures = new Map<number, Promise<SignedPart>>();
  const sign = (partNumber: number): Promise<SignedPart> => {
    const known = signatures.get(partNumber);
    if (known) return known;
    const batch = [partNumber, ...pending.filter((n) => n > partNumber && !signatures.has(n))].slice(
      0,
      SIGN_AHEAD,
    );
    const call = server.device(
      'GET',
      `/transfers/url_signer_v4?${new URLSearchParams({
        session_id: session.session_id,
        part_numbers: batch.join(','),
      }).toString()}`,
      undefined,
      signPartsAnswer,
    );
    for (const n of batch) {
      const promise = call.then((answer) => {
        const part = answer.parts.find((candidate) => candidate.part_number === n);
        if (!part) throw new FileFailure(errorText(null));
        return part;
      });
      promise.catch(() => undefined);
      signatures.set(n, promise);
    }
    return signatures.get(partNumber) ?? Promise.reject(new FileFailure(errorText(null)));
  };

  const sendPart = async (partNumber: number) => {
    const start = (partNumber - 1) * partSize;
    const length = session.mode === 'single' ? file.size : partLength(partNumber);
    await withRetries(context, file, async () => {
      try {
        const signed = await sign(partNumber);
        const headers = { ...signed.headers };
        const azure = wantsContentMd5(headers, session.mode);
        if (azure)
          headers['content-md5'] = Buffer.from(await md5OfRange(osPath, start, length), 'hex').toString(
            'base64',
          );
        const { stream, hashing } = rangeStream(osPath, start, length);
        const answer = await httpRequest({
          method: 'PUT',
          url: signed.url,
          headers,
          body: { stream, length },
          signal: context.signal,
        });
        const accepted = ok(answer) || (session.mode === 'gcs-resumable' && answer.status === 308);
        if (!accepted) throw new FileFailure(`The object store answered HTTP ${answer.status}.`);
        if (hashing.bytes !== length) throw new FileFailure(agentMessages.fileVanished(file.name));
        const md5 = hashing.hash.digest();
        const etag = etagOf(answer.headers);
        if (session.mode === 's3-multipart' || session.mode === 'single') {
          if (!storedExactly(answer, md5, azure))
            throw new FileFailure(agentMessages.verifyFailed(file.name));
        }
        md5s.set(partNumber, md5.toString('hex'));
        etags.set(partNumber, session.mode === 's3-multipart' ? (etag ?? md5.toString('hex')) : etag);
        file.transferred += length;
        context.changed(file);
      } catch (error) {
        // The next attempt gets a fresh URL (this one may have expired or been refused).
        signatures.delete(partNumber);
        throw error;
      }
    });
  };
  const sequential = session.mode === 'gcs-resumable' || session.mode === 'single';
  await eachLimited(pending, sequential ? 1 : AGENT_CLIENTS, context.signal, sendPart);
  context.signal.throwIfAborted();

  const completed = await server.device(
    'POST',
    `/transfers/uploads/${session.session_id}/complete`,
    {
      parts:
        session.mode === 'single'
          ? []
          : [...etags.entries()]
              .sort(([a], [b]) => a - b)
              .map(([part_number, etag]) => ({ part_number, etag })),
    },
    completeUploadAnswer,
  );
  file.sessionId = null;
  if (completed.size !== file.size) throw new FileFailure(agentMessages.verifyFailed(file.name));
  // The object's own multipart ETag must be the one its parts' MD5s give.
  const objectEtag = completed.etag?.replace(/"/g, '') ?? null;
  if (session.mode === 's3-multipart' && objectEtag && MULTIPART_ETAG.test(objectEtag)) {
    const ordered = Array.from({ length: partsTotal }, (_, i) => md5s.get(i + 1) ?? '');
    if (multipartEtag(ordered) !== objectEtag.toLowerCase())
      throw new FileFailure(agentMessages.verifyFailed(file.name));
  }
}
