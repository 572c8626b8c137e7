import type { ObjectStore } from '@cumulo/storage';
import { isFolderPlaceholder } from './keys.ts';

/** Keys per deleteMany call (S3's DeleteObjects limit; the adapters batch larger calls themselves). */
const DELETE_BATCH = 1000;

/**
 * After a move has emptied its source, the folder placeholders left under the moved folders go too, so the
 * folders the user moved disappear from the source as a file manager's move makes them disappear. The planner
 * does not copy placeholders (the keys below them recreate the folder at the destination), and the objects are
 * deleted one by one as their copies verify: what is left under a moved root is placeholders, and any object
 * that stayed (written meanwhile). A placeholder with any object left below it is kept.
 *
 * One listing per root, streamed: keys under a placeholder follow it in listing order (UTF-8 byte order, "a/"
 * then "a/…"), so the placeholders still open are a stack no deeper than the folder tree. Answers how many
 * placeholders were deleted.
 */
export async function removeEmptyFolders(
  store: ObjectStore,
  bucket: string,
  roots: string[],
): Promise<number> {
  let deleted = 0;
  let doomed: string[] = [];
  const flush = async (force: boolean) => {
    if (doomed.length === 0 || (!force && doomed.length < DELETE_BATCH)) return;
    const result = await store.deleteMany(bucket, doomed);
    deleted += result.deleted.length;
    doomed = [];
  };
  for (const root of distinctRoots(roots)) {
    const open: Array<{ key: string; kept: boolean }> = [];
    const close = async (done: (key: string) => boolean) => {
      for (let folder = open.at(-1); folder && done(folder.key); folder = open.at(-1)) {
        open.pop();
        if (!folder.kept) doomed.push(folder.key);
        await flush(false);
      }
    };
    for await (const page of store.list(bucket, { prefix: root })) {
      for (const object of page.objects) {
        await close((folder) => !object.key.startsWith(folder));
        if (isFolderPlaceholder(object)) {
          open.push({ key: object.key, kept: false });
        } else {
          for (const folder of open) folder.kept = true;
        }
      }
    }
    await close(() => true);
  }
  await flush(true);
  return deleted;
}

/** Roots nested in another root are covered by its listing. */
function distinctRoots(roots: string[]): string[] {
  const sorted = [...new Set(roots)].sort();
  return sorted.filter((root, index) => !sorted.slice(0, index).some((outer) => root.startsWith(outer)));
}
