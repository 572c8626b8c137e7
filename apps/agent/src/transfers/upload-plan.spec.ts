import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentMessages } from '@cumulo/contract';
import { LocalFolders } from '../local-folders.ts';
import type { CumuloServer } from '../server-client.ts';
import { endedTransfer } from '../testing/transfer-manager.ts';
import { TransferManager } from './transfer-manager.ts';
import { planUpload } from './upload.ts';

// What the walk of an upload does with entries it cannot read. The tests run as root in CI, where no permission
// bit refuses a read, and a file cannot be made to vanish between the walk's readdir and its stat on cue: so
// node:fs/promises is the real module with readdir and stat wrapped, and the wrappers refuse the paths a test names
// with the error the OS gives (EACCES, ENOENT, EIO). Everything else is a real folder tree in a temporary directory.

const refusals = new Map<string, { call: 'readdir' | 'stat'; code: string }>();

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const refuse = (call: 'readdir' | 'stat', target: unknown) => {
    const refusal = refusals.get(String(target));
    if (refusal?.call !== call) return null;
    return Promise.reject(
      Object.assign(new Error(`${refusal.code}: refused, ${call}`), { code: refusal.code }),
    );
  };
  return {
    ...real,
    readdir: ((target: string, options: object) =>
      refuse('readdir', target) ?? real.readdir(target, options)) as typeof real.readdir,
    stat: ((target: string) => refuse('stat', target) ?? real.stat(target)) as typeof real.stat,
  };
});

describe('planUpload: entries the walk cannot read', () => {
  let top: string;
  let docs: string;

  beforeAll(() => {
    top = mkdtempSync(path.join(tmpdir(), 'cumulo-plan-'));
    docs = path.join(top, 'docs');
    for (const folder of ['sub', 'locked']) mkdirSync(path.join(docs, folder), { recursive: true });
    for (const file of ['a.txt', 'gone.txt', 'sub/b.txt', 'locked/c.txt'])
      writeFileSync(path.join(docs, file), `${file}\n`);
  });

  afterAll(() => rmSync(top, { recursive: true, force: true }));

  it('fails a folder it may not read and a file gone since the listing, each alone and in words, and plans the rest', async () => {
    refusals.clear();
    refusals.set(path.join(docs, 'locked'), { call: 'readdir', code: 'EACCES' });
    refusals.set(path.join(docs, 'gone.txt'), { call: 'stat', code: 'ENOENT' });
    const plan = await planUpload(new LocalFolders(() => [docs]), ['/docs'], 'backup');

    expect(plan.files.map((file) => [file.key, file.status, file.error, file.unlisted ?? false])).toEqual([
      ['backup/docs/a.txt', 'pending', null, false],
      ['backup/docs/gone.txt', 'failed', agentMessages.fileVanished('docs/gone.txt'), true],
      ['backup/docs/locked', 'failed', agentMessages.noPermission('docs/locked'), true],
      ['backup/docs/sub/b.txt', 'pending', null, false],
    ]);
  });

  it('refuses the upload on any other error', async () => {
    refusals.clear();
    refusals.set(path.join(docs, 'sub'), { call: 'readdir', code: 'EIO' });
    await expect(planUpload(new LocalFolders(() => [docs]), ['/docs'], 'backup')).rejects.toMatchObject({
      code: 'EIO',
    });
  });

  it('answers an upload at once and walks it when it runs: a walk that fails ends the transfer failed, in words, and a retry walks again', async () => {
    refusals.clear();
    refusals.set(path.join(docs, 'sub'), { call: 'readdir', code: 'EIO' });
    const home = mkdtempSync(path.join(tmpdir(), 'cumulo-plan-home-'));
    // The walk fails before any file is sent: the server is never called.
    const server = {
      device: () => Promise.reject(new Error('no server call expected')),
    } as unknown as CumuloServer;
    const manager = new TransferManager(home, server, new LocalFolders(() => [docs]));
    const ended = (id: string) => endedTransfer(manager, id);
    try {
      const id = await manager.startUpload(['/docs'], {
        cloud_account_id: '00000000-0000-4000-8000-000000000001',
        bucket_name: 'bucket',
        path: 'backup',
      });
      const failed = await ended(id);
      // The unreadable folder is a failure, not a file: no file is known, and the files are not all known.
      expect(failed).toMatchObject({ status: 'failed', filesTotal: 0, listedWhole: false });
      expect(failed.transferErrors).toEqual([{ file: 'docs', error: 'EIO: refused, readdir' }]);

      // The folder is still unreadable: the retry walks again and fails the same way.
      const again = await manager.retry(id);
      if (!again) throw new Error('nothing retried');
      expect(again).not.toBe(id);
      expect((await ended(again)).transferErrors).toEqual(failed.transferErrors);
    } finally {
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('Retry Failed Files walks again what the walk could not read: still refused, it fails in words again; once readable, its files go under the keys and names the first walk would have given them', async () => {
    refusals.clear();
    refusals.set(path.join(docs, 'locked'), { call: 'readdir', code: 'EACCES' });
    const home = mkdtempSync(path.join(tmpdir(), 'cumulo-plan-home-'));
    // The server refuses every batch of files: what matters here is which files the agent asks to send.
    const sent: string[] = [];
    const server = {
      device: (_method: string, route: string, body: { files?: Array<{ key: string }> }) => {
        if (route === '/transfers/uploads/batch') sent.push(...(body.files ?? []).map((file) => file.key));
        return Promise.reject(new Error('The test server refuses.'));
      },
    } as unknown as CumuloServer;
    const manager = new TransferManager(home, server, new LocalFolders(() => [docs]));
    const ended = (id: string) => endedTransfer(manager, id);
    const errorsOf = async (id: string) =>
      Object.fromEntries((await ended(id)).transferErrors.map((failure) => [failure.file, failure.error]));
    try {
      const id = await manager.startUpload(['/docs'], {
        cloud_account_id: '00000000-0000-4000-8000-000000000001',
        bucket_name: 'bucket',
        path: 'backup',
      });
      expect((await errorsOf(id))['docs/locked']).toBe(agentMessages.noPermission('docs/locked'));
      expect(sent.sort()).toEqual(['backup/docs/a.txt', 'backup/docs/gone.txt', 'backup/docs/sub/b.txt']);

      // Still refused: the retry sends the failed files again and fails the folder again, in the same words.
      sent.length = 0;
      const second = await manager.retry(id);
      if (!second) throw new Error('nothing retried');
      expect((await errorsOf(second))['docs/locked']).toBe(agentMessages.noPermission('docs/locked'));
      expect(sent.sort()).toEqual(['backup/docs/a.txt', 'backup/docs/gone.txt', 'backup/docs/sub/b.txt']);

      // The user gave the permission: the retry walks the folder and sends its file where the first walk would have.
      refusals.clear();
      sent.length = 0;
      const third = await manager.retry(second);
      if (!third) throw new Error('nothing retried');
      const errors = await errorsOf(third);
      expect(Object.keys(errors).sort()).toEqual([
        'docs/a.txt',
        'docs/gone.txt',
        'docs/locked/c.txt',
        'docs/sub/b.txt',
      ]);
      expect(sent.sort()).toEqual([
        'backup/docs/a.txt',
        'backup/docs/gone.txt',
        'backup/docs/locked/c.txt',
        'backup/docs/sub/b.txt',
      ]);
    } finally {
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
