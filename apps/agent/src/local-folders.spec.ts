import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFolders } from './local-folders.ts';

// GET /files pages a folder: folders first, then names in the locale's order, hidden names and links leaving the
// added folder left out, `total` counting what the pages will show.
describe('LocalFolders.list', () => {
  let top: string;
  let folders: LocalFolders;

  beforeAll(() => {
    top = mkdtempSync(path.join(tmpdir(), 'cumulo-local-folders-'));
    const docs = path.join(top, 'docs');
    mkdirSync(path.join(docs, 'b-folder'), { recursive: true });
    mkdirSync(path.join(docs, 'A-folder'));
    mkdirSync(path.join(docs, '.hidden-folder'));
    writeFileSync(path.join(docs, 'c.txt'), 'ccc');
    writeFileSync(path.join(docs, 'B.txt'), 'bb');
    writeFileSync(path.join(docs, 'a.txt'), 'a');
    writeFileSync(path.join(docs, '.env'), 'SECRET=1');
    // A download still being written is not listed (nor uploadable, nor deletable mid-download).
    writeFileSync(path.join(docs, 'coming.bin.cumulo-part'), 'half');
    symlinkSync(path.join(docs, 'c.txt'), path.join(docs, 'link-to-c'));
    symlinkSync(path.join(docs, 'A-folder'), path.join(docs, 'link-to-folder'));
    writeFileSync(path.join(top, 'outside.txt'), 'outside');
    symlinkSync(path.join(top, 'outside.txt'), path.join(docs, 'link-outside'));
    symlinkSync(path.join(docs, 'gone.txt'), path.join(docs, 'link-broken'));
    const many = path.join(docs, 'many');
    mkdirSync(many);
    for (let n = 0; n < 5_000; n += 1)
      writeFileSync(path.join(many, `f${String(n).padStart(5, '0')}.bin`), '');
    mkdirSync(path.join(many, 'zz-sub'));
    folders = new LocalFolders(() => [docs]);
  });

  afterAll(() => rmSync(top, { recursive: true, force: true }));

  it('lists folders first, then files, in name order, with sizes; hidden names and links leaving it are not shown', async () => {
    const answer = await folders.list('/docs', 0, 100);
    expect(answer.total).toBe(8);
    expect(answer.items.map((item) => [item.name, item.isDirectory, item.size])).toEqual([
      ['A-folder', true, -1],
      ['b-folder', true, -1],
      ['link-to-folder', true, -1],
      ['many', true, -1],
      ['a.txt', false, 1],
      ['B.txt', false, 2],
      ['c.txt', false, 3],
      ['link-to-c', false, 3],
    ]);
    expect(answer.items[0]).toMatchObject({ path: '/docs/A-folder', isFile: false });
    expect(answer.items[4]).toMatchObject({ path: '/docs/a.txt', isFile: true });
    expect(Date.parse(answer.items[4]?.modified ?? '')).toBeGreaterThan(Date.now() - 3_600_000);
  });

  it('pages with skip and limit, each page in the same order and the total unchanged', async () => {
    const whole = (await folders.list('/docs', 0, 100)).items.map((item) => item.name);
    const pages: string[] = [];
    for (let skip = 0; skip < whole.length; skip += 3) {
      const page = await folders.list('/docs', skip, 3);
      expect(page.total).toBe(8);
      pages.push(...page.items.map((item) => item.name));
    }
    expect(pages).toEqual(whole);
    expect(await folders.list('/docs', 8, 3)).toEqual({ items: [], total: 8 });
  });

  it('pages through a folder of 5 001 entries: its one folder first, every file once, each with its size', async () => {
    const first = await folders.list('/docs/many', 0, 100);
    expect(first.total).toBe(5_001);
    expect(first.items[0]).toMatchObject({ name: 'zz-sub', isDirectory: true });
    expect(first.items[1]).toMatchObject({ name: 'f00000.bin', size: 0, isFile: true });
    const last = await folders.list('/docs/many', 4_950, 100);
    expect(last.items.map((item) => item.name)).toEqual(
      Array.from({ length: 51 }, (_, n) => `f${String(4_949 + n).padStart(5, '0')}.bin`),
    );
  });

  it("keeps a large folder's listing between pages, and reads it again once something is added, removed or renamed", async () => {
    // racyMs 0: the folder was just written, and the default would read it again on every page for two seconds.
    const kept = new LocalFolders(() => [path.join(top, 'docs')], { racyMs: 0 });
    const many = path.join(top, 'docs', 'many');
    const names = async (skip: number, limit: number) => {
      const page = await kept.list('/docs/many', skip, limit);
      return { total: page.total, names: page.items.map((item) => item.name) };
    };
    expect(await names(0, 3)).toEqual({ total: 5_001, names: ['zz-sub', 'f00000.bin', 'f00001.bin'] });
    // A file's size is read when its page is asked for, whatever the kept listing.
    writeFileSync(path.join(many, 'f00002.bin'), 'grown');
    expect((await kept.list('/docs/many', 3, 1)).items[0]).toMatchObject({ name: 'f00002.bin', size: 5 });

    writeFileSync(path.join(many, 'e-first.bin'), '');
    expect(await names(0, 3)).toEqual({ total: 5_002, names: ['zz-sub', 'e-first.bin', 'f00000.bin'] });
    rmSync(path.join(many, 'e-first.bin'));
    renameSync(path.join(many, 'f00000.bin'), path.join(many, 'g-last.bin'));
    expect(await names(0, 2)).toEqual({ total: 5_001, names: ['zz-sub', 'f00001.bin'] });
    expect(await names(5_000, 10)).toEqual({ total: 5_001, names: ['g-last.bin'] });
    renameSync(path.join(many, 'g-last.bin'), path.join(many, 'f00000.bin'));
    writeFileSync(path.join(many, 'f00002.bin'), '');
  });

  it('searches a folder: the names that contain the words in any case, in the same order, counted, and paged', async () => {
    const answer = await folders.list('/docs', 0, 100, 'A');
    expect(answer.items.map((item) => item.name)).toEqual(['A-folder', 'many', 'a.txt']);
    expect(answer.total).toBe(3);
    // Hidden names stay hidden, whatever the search.
    expect((await folders.list('/docs', 0, 100, '.env')).total).toBe(0);
    expect(await folders.list('/docs/many', 0, 3, 'F0499')).toMatchObject({
      total: 10,
      items: [{ name: 'f04990.bin' }, { name: 'f04991.bin' }, { name: 'f04992.bin' }],
    });
    expect((await folders.list('/docs/many', 9, 3, 'f0499')).items.map((item) => item.name)).toEqual([
      'f04999.bin',
    ]);
    // The added folders themselves, at '/'.
    expect((await folders.list('/', 0, 10, 'DOC')).items.map((item) => item.name)).toEqual(['docs']);
    expect(await folders.list('/', 0, 10, 'nothing')).toEqual({ items: [], total: 0 });
  });

  it('refuses a file given as a folder, and a path outside the added folders', async () => {
    await expect(folders.list('/docs/a.txt', 0, 10)).rejects.toMatchObject({ status: 400 });
    await expect(folders.list('/docs/../outside.txt', 0, 10)).rejects.toMatchObject({ status: 403 });
    await expect(folders.list('/docs/link-outside', 0, 10)).rejects.toMatchObject({ status: 403 });
  });
});

// POST /mkdir: a new folder in words whatever stands in its way; names as the machine's file system takes them.
describe('LocalFolders.makeFolder', () => {
  let top: string;
  let folders: LocalFolders;

  beforeAll(() => {
    top = mkdtempSync(path.join(tmpdir(), 'cumulo-make-folder-'));
    mkdirSync(path.join(top, 'work'));
    writeFileSync(path.join(top, 'work', 'empty.txt'), '');
    folders = new LocalFolders(() => [path.join(top, 'work')]);
  });

  afterAll(() => rmSync(top, { recursive: true, force: true }));

  it('makes a folder and its parents once: the same folder asked twice at once is made by one, refused to the other', async () => {
    await folders.makeFolder('/work/a/b');
    expect((await folders.list('/work/a', 0, 10)).items.map((item) => item.name)).toEqual(['b']);
    const twice = await Promise.allSettled([
      folders.makeFolder('/work/twice'),
      folders.makeFolder('/work/twice'),
    ]);
    expect(twice.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(twice.find((result) => result.status === 'rejected')).toMatchObject({ reason: { status: 409 } });
  });

  it('refuses in words a file in the way, a name too long, and a hidden name, never a 500', async () => {
    await expect(folders.makeFolder('/work/empty.txt/sub')).rejects.toMatchObject({
      status: 409,
      message: 'A file of that name is in the way: a folder cannot be made there.',
    });
    await expect(folders.makeFolder(`/work/${'n'.repeat(300)}`)).rejects.toMatchObject({
      status: 400,
      message: 'This name is too long for the file system.',
    });
    await expect(folders.makeFolder('/work/.secret')).rejects.toMatchObject({ status: 400 });
  });

  it.runIf(process.platform !== 'win32')(
    'takes a backslash as a character of a name outside Windows',
    async () => {
      writeFileSync(path.join(top, 'work', 'back\\slash.txt'), 'x');
      await folders.makeFolder('/work/with\\back');
      const names = (await folders.list('/work', 0, 20)).items.map((item) => item.name);
      expect(names).toEqual(expect.arrayContaining(['with\\back', 'back\\slash.txt']));
      expect(names).not.toContain('with');
      await folders.remove('/work/back\\slash.txt');
      expect((await folders.list('/work', 0, 20)).items.map((item) => item.name)).not.toContain(
        'back\\slash.txt',
      );
    },
  );
});
