import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { LocalFolders } from '../local-folders.ts';
import { ServerError, type CumuloServer } from '../server-client.ts';
import { Downloader } from './download.ts';
import { endedTransfer } from '../testing/transfer-manager.ts';
import { TransferManager } from './transfer-manager.ts';
import type { FileState, TransferState } from './transfer-state.ts';

// Which signed URLs a download holds and asks for: the listing's, up to a cap, then batches of the next files' as the
// downloads reach them; a resumed transfer is not listed again. The object store is a local HTTP server answering
// Range GETs (404 for a key it does not hold); the Cumulo server is a stand-in object answering the two device
// calls, since only their shapes matter here (the real routes have their own tests in apps/server).

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const LIMITS = { listedUrlsHeld: 5, urlBatch: 3 };
const PAGE = 4;

describe('Downloader: the URLs a download holds and asks for', () => {
  let top: string;
  let store: http.Server;
  let base: string;
  const objects = new Map<string, Buffer>();
  /** While set, every GET waits for it: the listing ends before any file does. */
  let gate: Promise<void> | null = null;
  /** GETs the store answered, by key. */
  const gets = new Map<string, number>();

  beforeAll(async () => {
    top = mkdtempSync(path.join(tmpdir(), 'cumulo-download-'));
    for (let n = 1; n <= 12; n += 1)
      objects.set(`data/f${String(n).padStart(2, '0')}.bin`, Buffer.from(`file ${n} `.repeat(50 * n)));
    store = http.createServer((request, response) => {
      void (async () => {
        if (gate) await gate;
        const key = decodeURIComponent(new URL(request.url ?? '/', 'http://store').pathname.slice(1));
        gets.set(key, (gets.get(key) ?? 0) + 1);
        const bytes = objects.get(key);
        if (!bytes) return response.writeHead(404).end();
        const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
        if (!range) return response.writeHead(200, { 'content-length': bytes.length }).end(bytes);
        const slice = bytes.subarray(Number(range[1]), Number(range[2]) + 1);
        response.writeHead(206, { 'content-length': slice.length }).end(slice);
      })();
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => store.close(resolve));
    rmSync(top, { recursive: true, force: true });
  });

  /**
   * The device calls a download makes, recorded; the listing pages the keys PAGE at a time. `failOnce`: the page
   * after that continuation fails once (a 500), after calling `onFail`.
   */
  function standIn(
    onListed: () => void = () => undefined,
    failure: { failOnce?: string; onFail?: () => void } = {},
  ) {
    const listings: Array<string | null> = [];
    const urlCalls: string[][] = [];
    const keys = [...objects.keys()];
    let failOnce = failure.failOnce;
    const server = {
      async device<T>(_method: string, route: string, body: unknown, answer: z.ZodType<T>): Promise<T> {
        if (route === '/agent/history') return answer.parse({});
        if (route === '/agent/downloads') {
          const { continuation } = body as { continuation: string | null };
          listings.push(continuation);
          if (continuation !== null && !/^\d+$/.test(continuation))
            throw new ServerError(400, 'This continuation is not one this server gave for these paths.');
          if (continuation === failOnce) {
            failOnce = undefined;
            failure.onFail?.();
            throw new ServerError(500, 'The listing failed.');
          }
          const from = Number(continuation ?? 0);
          const page = keys.slice(from, from + PAGE);
          const next = from + PAGE < keys.length ? String(from + PAGE) : null;
          if (next === null) onListed();
          return answer.parse({
            files: page.map((key) => {
              const bytes = objects.get(key) ?? Buffer.alloc(0);
              return { key, relative_path: key, size: bytes.length, etag: md5(bytes), url: `${base}/${key}` };
            }),
            continuation: next,
          });
        }
        if (route === '/agent/downloads/urls') {
          const asked = (body as { keys: string[] }).keys;
          urlCalls.push(asked);
          return answer.parse({ urls: asked.map((key) => ({ key, url: `${base}/${key}` })) });
        }
        throw new Error(`unexpected call ${route}`);
      },
    };
    return { server: server as unknown as CumuloServer, listings, urlCalls };
  }

  const fileOf = (folder: string, key: string, status: FileState['status']): FileState => {
    const bytes = objects.get(key) ?? Buffer.from('gone');
    return {
      name: key,
      local: `/${folder}/${key}`,
      key,
      size: bytes.length,
      etag: md5(bytes),
      status,
      error: null,
      transferred: 0,
      blocks: [],
    };
  };

  function transferInto(folder: string, files: FileState[], listed: boolean): TransferState {
    mkdirSync(path.join(top, folder), { recursive: true });
    return {
      id: folder,
      direction: 'download',
      cloud_account_id: '00000000-0000-4000-8000-000000000001',
      bucket_name: 'bucket',
      sources: ['data/'],
      target: `/${folder}`,
      chosen: ['data'],
      isDirectory: true,
      status: 'running',
      startedAt: new Date().toISOString(),
      endedAt: null,
      resumed: listed,
      listed,
      files,
      historyPending: false,
    };
  }

  async function run(transfer: TransferState, server: CumuloServer, signal = new AbortController().signal) {
    const folder = transfer.target.slice(1);
    const context = {
      server,
      folders: new LocalFolders(() => [path.join(top, folder)]),
      transfer,
      signal,
      changed: () => undefined,
      fileEnded: async () => undefined,
    };
    await new Downloader(context, () => undefined, LIMITS).run();
  }

  it('holds the URLs of the first files listed, and asks for the others a batch at a time, each key once', async () => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    const { server, listings, urlCalls } = standIn(() => {
      // The last page is answered: let the files come once the agent has read it.
      setTimeout(() => {
        gate = null;
        open();
      }, 50);
    });
    const transfer = transferInto('fresh', [], false);
    await run(transfer, server);

    expect(listings).toEqual([null, '4', '8']);
    expect(transfer.listed).toBe(true);
    expect(transfer.files.map((file) => [file.key, file.status])).toEqual(
      [...objects.keys()].map((key) => [key, 'verified']),
    );
    for (const [key, bytes] of objects)
      expect(md5(readFileSync(path.join(top, 'fresh', key))), key).toBe(md5(bytes));
    // No file had ended when the listing did: the listing left exactly five URLs, and the seven other files were
    // asked for in batches of at most three, none twice.
    const asked = urlCalls.flat();
    expect(urlCalls.every((batch) => batch.length <= LIMITS.urlBatch)).toBe(true);
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.sort()).toEqual([...objects.keys()].slice(5));
  });

  it('does not list a resumed transfer again: its pending files get their URLs in batches, a vanished one fails', async () => {
    const keys = [...objects.keys()];
    const files = [
      fileOf('resumed', keys[0] ?? '', 'verified'),
      fileOf('resumed', keys[1] ?? '', 'verified'),
      fileOf('resumed', keys[2] ?? '', 'running'),
      fileOf('resumed', 'data/vanished.bin', 'pending'),
      fileOf('resumed', keys[3] ?? '', 'pending'),
      fileOf('resumed', keys[4] ?? '', 'pending'),
    ];
    const { server, listings, urlCalls } = standIn();
    const transfer = transferInto('resumed', files, true);
    await run(transfer, server);

    expect(listings).toEqual([]);
    expect(urlCalls.flat().sort()).toEqual([keys[2], keys[3], keys[4], 'data/vanished.bin'].sort());
    expect(urlCalls.every((batch) => batch.length <= LIMITS.urlBatch)).toBe(true);
    expect(transfer.files.map((file) => file.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'failed',
      'verified',
      'verified',
    ]);
    expect(transfer.files[3]?.error).toBe('data/vanished.bin is no longer in the bucket.');
    for (const key of [keys[2], keys[3], keys[4]])
      expect(md5(readFileSync(path.join(top, 'resumed', key ?? '')))).toBe(
        md5(objects.get(key ?? '') ?? Buffer.alloc(0)),
      );
  });

  it('goes on listing a transfer stopped half-way from the page it saved, and finishes its files', async () => {
    const keys = [...objects.keys()];
    // A first run read the first two pages (8 files) and downloaded three of them before it stopped.
    const files = keys
      .slice(0, 8)
      .map((key, i) => fileOf('halfway', key, i < 3 ? 'verified' : i === 3 ? 'running' : 'pending'));
    const transfer = { ...transferInto('halfway', files, false), continuation: '8', resumed: true };
    const { server, listings } = standIn();
    await run(transfer, server);

    expect(listings).toEqual(['8']);
    expect(transfer.listed).toBe(true);
    expect(transfer.continuation).toBeNull();
    expect(transfer.files.map((file) => [file.key, file.status])).toEqual(
      keys.map((key) => [key, 'verified']),
    );
    for (const key of keys.slice(3))
      expect(md5(readFileSync(path.join(top, 'halfway', key)))).toBe(
        md5(objects.get(key) ?? Buffer.alloc(0)),
      );
  });

  it('starts the listing over when the server no longer takes the saved continuation, each file once', async () => {
    const keys = [...objects.keys()];
    const files = keys.slice(0, 4).map((key) => fileOf('stale', key, 'pending'));
    const transfer = { ...transferInto('stale', files, false), continuation: 'gone-stale', resumed: true };
    const { server, listings } = standIn();
    await run(transfer, server);

    expect(listings).toEqual(['gone-stale', null, '4', '8']);
    expect(transfer.files.map((file) => [file.key, file.status])).toEqual(
      keys.map((key) => [key, 'verified']),
    );
  });

  it('keeps a listing stopped half-way unfinished, with where it stopped', async () => {
    const { server, listings } = standIn();
    const controller = new AbortController();
    const listingServer = {
      async device<T>(method: string, route: string, body: unknown, answer: z.ZodType<T>): Promise<T> {
        const answered = await server.device(method as 'POST', route, body, answer);
        // Cancelled once the first page is in.
        if (route === '/agent/downloads') controller.abort('cancel');
        return answered;
      },
    } as unknown as CumuloServer;
    const transfer = transferInto('stopped', [], false);
    await run(transfer, listingServer, controller.signal);

    expect(listings).toEqual([null]);
    expect(transfer.listed).toBe(false);
    expect(transfer.continuation).toBe('4');
  });

  it('lets the files under way end before a listing that failed half-way fails the download', async () => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    // Eight files listed (two pages), all eight taken and held at the store when the third page fails.
    const { server } = standIn(undefined, {
      failOnce: '8',
      onFail: () =>
        setTimeout(() => {
          gate = null;
          open();
        }, 50),
    });
    const transfer = transferInto('listing-failed', [], false);
    await expect(run(transfer, server)).rejects.toThrow('The listing failed.');

    expect(transfer.files.map((file) => file.status)).toEqual(Array(8).fill('verified'));
    expect(transfer.listed).toBe(false);
    expect(transfer.continuation).toBe('8');
  });

  it('retries a download whose listing failed half-way from where it stopped, fetching no verified file again', async () => {
    gets.clear();
    const home = mkdtempSync(path.join(tmpdir(), 'cumulo-retry-home-'));
    mkdirSync(path.join(top, 'retried'), { recursive: true });
    const { server, listings } = standIn(undefined, { failOnce: '8' });
    const manager = new TransferManager(home, server, new LocalFolders(() => [path.join(top, 'retried')]));
    const ended = (id: string) => endedTransfer(manager, id);
    try {
      const first = await manager.startDownload({
        remotePaths: ['data/'],
        cloud_account_id: '00000000-0000-4000-8000-000000000001',
        bucket_name: 'bucket',
        localPath: '/retried',
      });
      const failed = await ended(first);
      // All eight files the listing named were verified: the transfer still failed, saying why.
      expect(failed).toMatchObject({ status: 'failed', filesDone: 8 });
      expect(failed.transferErrors).toEqual([{ file: 'data', error: 'The listing failed.' }]);

      const again = await manager.retry(first);
      if (!again) throw new Error('nothing retried');
      const retried = await ended(again);
      expect(retried.status).toBe('completed');
      expect(listings).toEqual([null, '4', '8', '8']);
      // Every file is in place, and each was fetched once over both transfers.
      for (const [key, bytes] of objects)
        expect(md5(readFileSync(path.join(top, 'retried', key))), key).toBe(md5(bytes));
      expect([...gets.entries()].sort()).toEqual([...objects.keys()].map((key) => [key, 1]));
    } finally {
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
