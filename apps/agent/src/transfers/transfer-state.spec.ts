import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { StateStore, type FileState, type TransferState } from './transfer-state.ts';

// What a restarted agent reads back: the snapshot (state.json) with the log of changes since (state.log), real files
// in a temporary home.

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const fileOf = (key: string): FileState => ({
  name: key,
  local: `/docs/${key}`,
  key,
  size: 10,
  status: 'pending',
  error: null,
  transferred: 0,
  blocks: [],
});

function transferOf(files: FileState[]): TransferState {
  return {
    id: 't-1',
    direction: 'download',
    cloud_account_id: '00000000-0000-4000-8000-000000000001',
    bucket_name: 'bucket',
    sources: ['docs/'],
    target: '/docs',
    chosen: ['docs'],
    isDirectory: true,
    status: 'running',
    startedAt: new Date().toISOString(),
    endedAt: null,
    resumed: false,
    listed: false,
    files,
    historyPending: false,
  };
}

function home() {
  const dir = mkdtempSync(path.join(tmpdir(), 'cumulo-state-'));
  homes.push(dir);
  return dir;
}

describe('StateStore', () => {
  it('appends what changed to the log, and a new store reads the snapshot with the log applied', async () => {
    const dir = home();
    const transfer = transferOf([fileOf('a'), fileOf('b')]);
    const store = new StateStore(dir, () => [transfer]);
    await store.flush();
    const snapshot = readFileSync(path.join(dir, 'state.json'), 'utf8');

    const [a] = transfer.files;
    if (!a) throw new Error('no file');
    a.status = 'verified';
    a.transferred = 10;
    store.fileChanged(transfer, a);
    const c = fileOf('c');
    transfer.files.push(c);
    store.fileChanged(transfer, c);
    transfer.listed = true;
    store.transferChanged(transfer);
    await vi.waitFor(() => expect(readFileSync(path.join(dir, 'state.log'), 'utf8')).toMatch(/"c"/), {
      timeout: 5000,
    });
    // The snapshot was not written again for these.
    expect(readFileSync(path.join(dir, 'state.json'), 'utf8')).toBe(snapshot);

    const [loaded] = await new StateStore(dir, () => []).load();
    expect(loaded?.listed).toBe(true);
    expect(loaded?.files.map((file) => [file.key, file.status, file.transferred])).toEqual([
      ['a', 'verified', 10],
      ['b', 'pending', 0],
      ['c', 'pending', 0],
    ]);
  });

  it('ignores log lines of an older snapshot and a line cut short by a crash', async () => {
    const dir = home();
    const transfer = transferOf([fileOf('a')]);
    const store = new StateStore(dir, () => [transfer]);
    await store.flush();
    // The snapshot's first line says its generation.
    const [header] = readFileSync(path.join(dir, 'state.json'), 'utf8').split('\n');
    const { generation } = JSON.parse(header ?? '') as { generation: number };
    const log = path.join(dir, 'state.log');
    // A crash after the next snapshot's rename and before the log was emptied leaves the last generation's lines.
    appendFileSync(
      log,
      `${JSON.stringify({ g: generation - 1, t: 't-1', f: { ...fileOf('a'), status: 'failed' } })}\n`,
    );
    appendFileSync(
      log,
      `${JSON.stringify({ g: generation, t: 't-1', f: { ...fileOf('b'), status: 'verified' } })}\n`,
    );
    appendFileSync(log, `{"g":${generation},"t":"t-1","f":{"key":"a","sta`);

    const [loaded] = await new StateStore(dir, () => []).load();
    expect(loaded?.files.map((file) => [file.key, file.status])).toEqual([
      ['a', 'pending'],
      ['b', 'verified'],
    ]);
  });

  it("writes a page's files before the continuation that follows them, so a log cut short never skips them", async () => {
    const dir = home();
    const transfer = transferOf([fileOf('a')]);
    const store = new StateStore(dir, () => [transfer]);
    await store.flush();
    // A listing page: two files added, then the continuation after them.
    for (const key of ['b', 'c']) {
      const file = fileOf(key);
      transfer.files.push(file);
      store.fileChanged(transfer, file);
    }
    transfer.continuation = 'after-c';
    store.transferChanged(transfer);
    const log = path.join(dir, 'state.log');
    await vi.waitFor(() => expect(readFileSync(log, 'utf8')).toMatch(/after-c/), { timeout: 5000 });
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/"continuation":"after-c"/);

    // Every cut of that write leaves either the continuation with both files, or no continuation.
    const whole = readFileSync(log, 'utf8');
    for (let cut = 0; cut <= whole.length; cut += 7) {
      writeFileSync(log, whole.slice(0, cut));
      const [loaded] = await new StateStore(dir, () => []).load();
      if (loaded?.continuation === 'after-c')
        expect(loaded.files.map((file) => file.key)).toEqual(['a', 'b', 'c']);
      else expect(loaded?.continuation ?? null).toBeNull();
    }
  });

  it('empties the log when it writes a new snapshot', async () => {
    const dir = home();
    const transfer = transferOf([fileOf('a')]);
    const store = new StateStore(dir, () => [transfer]);
    await store.flush();
    const a = transfer.files[0];
    if (!a) throw new Error('no file');
    a.status = 'verified';
    store.fileChanged(transfer, a);
    await vi.waitFor(() => expect(readFileSync(path.join(dir, 'state.log'), 'utf8')).not.toBe(''), {
      timeout: 5000,
    });
    await store.flush();
    expect(readFileSync(path.join(dir, 'state.log'), 'utf8')).toBe('');
    const [loaded] = await new StateStore(dir, () => []).load();
    expect(loaded?.files[0]?.status).toBe('verified');
  });

  it('writes the snapshot as lines and reads back a transfer of 60 000 files from it', async () => {
    const dir = home();
    const files = Array.from({ length: 60_000 }, (_, i) => ({
      ...fileOf(`photos/${String(i).padStart(6, '0')}.jpg`),
      status: (i % 3 === 0 ? 'verified' : 'pending') as FileState['status'],
    }));
    const transfer = { ...transferOf(files), continuation: 'page-7' };
    const store = new StateStore(dir, () => [transfer]);
    await store.flush();

    // One line for the generation, one for the transfer's own fields, one per file: several megabytes, written a
    // chunk at a time rather than as one string.
    const text = readFileSync(path.join(dir, 'state.json'), 'utf8');
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2 + files.length);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ h: { id: 't-1', continuation: 'page-7' } });

    const [loaded] = await new StateStore(dir, () => []).load();
    expect(loaded).toEqual(transfer);
  });

  it('reads a snapshot written as one object, as agents wrote it before lines, with its log', async () => {
    const dir = home();
    const transfer = transferOf([fileOf('a'), fileOf('b')]);
    writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ generation: 4, transfers: [transfer] }));
    writeFileSync(
      path.join(dir, 'state.log'),
      `${JSON.stringify({ g: 4, t: 't-1', f: { ...fileOf('b'), status: 'verified' } })}\n`,
    );
    const [loaded] = await new StateStore(dir, () => []).load();
    expect(loaded?.files.map((file) => [file.key, file.status])).toEqual([
      ['a', 'pending'],
      ['b', 'verified'],
    ]);
  });
});
