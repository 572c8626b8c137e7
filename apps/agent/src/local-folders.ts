import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { agentMessages, type AgentFilesAnswer, type AgentLocalFile } from '@cumulo/contract';

/**
 * The agent's virtual paths over the folders its user added (`cumulo-agent add`): '/' lists those folders (named
 * by their base name), '/<name>/sub/file' is a file inside one. Nothing else on the machine can be reached: a path
 * with a '..' segment, a NUL, a name that is no added folder (an absolute OS path such as '/etc/passwd' or
 * 'C:\\'), or one whose real path (after symlinks) leaves its folder is refused, on every access.
 */

export class LocalRefusal extends Error {
  override readonly name = 'LocalRefusal';
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

const localMessages = {
  notFound: 'No such file or folder among the folders added to the transfer agent.',
  exists: 'A file or folder with this name already exists.',
  notFolder: 'This path is not a folder.',
  fileInTheWay: 'A file of that name is in the way: a folder cannot be made there.',
  nameTooLong: 'This name is too long for the file system.',
  hiddenName: 'A folder name cannot start with a dot: the transfer agent does not show hidden names.',
} as const;

const refused = () => new LocalRefusal(403, agentMessages.pathOutside);

export interface RootFolder {
  /** The name the page sees ('/<name>'). */
  name: string;
  /** The folder as added (absolute). */
  folder: string;
}

/** Hidden names (a leading dot) are never listed nor sent. */
export const isHiddenName = (name: string) => name.startsWith('.');

/** What a download writes into before its file is checked and renamed into place (transfers/download.ts). */
export const PART_SUFFIX = '.cumulo-part';

/**
 * A local name the panel neither lists nor uploads: a hidden one, or a download still being written (it would be
 * listed half-written, and could be uploaded or deleted mid-download).
 */
export const isUnlistedName = (name: string) => isHiddenName(name) || name.endsWith(PART_SUFFIX);

/** The added folders with unique names: a second 'photos' becomes 'photos (2)'. */
export function rootsOf(folders: string[]): RootFolder[] {
  const taken = new Set<string>();
  return folders.map((folder) => {
    const base = path.basename(folder) || folder.replace(/[\\/:]+/g, '') || 'folder';
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base} (${n})`;
    taken.add(name);
    return { name, folder };
  });
}

/** A virtual path cut into its names; refused when it holds NUL, '..' or '.'. */
export function segmentsOf(virtual: string): string[] {
  if (virtual.includes('\u0000')) throw refused();
  // A backslash separates names on Windows; elsewhere it is a character a name may hold ('back\\slash.txt').
  const segments = virtual
    .split(process.platform === 'win32' ? /[\\/]/ : /\//)
    .filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment === '.')) throw refused();
  return segments;
}

/** An entry of a listed folder before its page is chosen: its type from the listing, a symlink's from its target. */
interface Candidate {
  name: string;
  isDirectory: boolean;
  /** A link's target; a file's or folder's own path is its folder's and its name. */
  osPath?: string;
}

/** The locale's order of names, as String.localeCompare gives it, without building a collator per comparison. */
const byName = new Intl.Collator().compare;

const within = (root: string, target: string) =>
  target === root || target.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);

export interface ResolvedPath {
  root: RootFolder;
  /** Names under the root ([] for the root itself). */
  inside: string[];
  /**
   * The OS path to use: the real path when it exists; otherwise the real path of its nearest existing parent with
   * the missing names after it (none of which can be a symlink, since they do not exist).
   */
  osPath: string;
  exists: boolean;
}

/**
 * A folder's listing is kept for its next page when it has at least this many shown entries: a folder of a hundred
 * thousand files took 0.3–0.6 s a page to list, filter and sort again (the locale sort most of it) for each "Load
 * more", 1.5–19 ms from the kept listing.
 */
const KEEP_LISTING_FROM = 1000;
/** The kept listing is dropped once no page of it was asked for this long. */
const KEEP_LISTING_MS = 2 * 60_000;
/**
 * A folder changed this recently is listed again on every page: a change within the same tick of the file system's
 * clock (a second or two on some) leaves its modification time as it was.
 */
const RACY_MS = 2000;

/** The sorted listing of the folder paged through last, and the folder's times when it was read. */
interface KeptListing {
  osPath: string;
  mtimeMs: number;
  ctimeMs: number;
  shown: Candidate[];
}

export class LocalFolders {
  #kept: KeptListing | null = null;
  #dropKept: NodeJS.Timeout | null = null;
  readonly #racyMs: number;

  /** `racyMs`: how long after its last change a folder's listing is read again on every page (specs set 0). */
  constructor(
    private readonly folders: () => string[],
    { racyMs = RACY_MS }: { racyMs?: number } = {},
  ) {
    this.#racyMs = racyMs;
  }

  roots(): RootFolder[] {
    return rootsOf(this.folders());
  }

  /** Resolves a virtual path below '/', checking its real path stays in its added folder. */
  async resolve(virtual: string): Promise<ResolvedPath> {
    const segments = segmentsOf(virtual);
    const [first, ...inside] = segments;
    const root = this.roots().find((candidate) => candidate.name === first);
    if (!root) throw first === undefined ? new LocalRefusal(403, agentMessages.readOnlyRoot) : refused();
    let realRoot: string;
    try {
      realRoot = await realpath(root.folder);
    } catch {
      throw new LocalRefusal(404, localMessages.notFound);
    }
    const missing: string[] = [];
    const existing = [...inside];
    for (;;) {
      const candidate = path.join(root.folder, ...existing);
      try {
        const real = await realpath(candidate);
        if (!within(realRoot, real)) throw refused();
        return { root, inside, osPath: path.join(real, ...missing), exists: missing.length === 0 };
      } catch (error) {
        if (error instanceof LocalRefusal) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENAMETOOLONG') throw new LocalRefusal(400, localMessages.nameTooLong);
        if ((code !== 'ENOENT' && code !== 'ENOTDIR') || existing.length === 0) throw refused();
        const last = existing.pop();
        if (last !== undefined) missing.unshift(last);
      }
    }
  }

  async resolveExisting(virtual: string): Promise<ResolvedPath> {
    const resolved = await this.resolve(virtual);
    if (!resolved.exists) throw new LocalRefusal(404, localMessages.notFound);
    return resolved;
  }

  /**
   * GET /files: the added folders at '/', else a folder's entries (folders first), hidden names left out; with
   * `search`, only the names that contain it, whatever their case (`total` counts those).
   */
  async list(virtual: string, skip: number, limit: number, search = ''): Promise<AgentFilesAnswer> {
    const needle = search.trim().toLocaleLowerCase();
    const matches = (name: string) => needle === '' || name.toLocaleLowerCase().includes(needle);
    if (segmentsOf(virtual).length === 0) {
      const items = await Promise.all(
        this.roots()
          .filter((root) => matches(root.name))
          .map(async (root): Promise<AgentLocalFile> => {
            const info = await stat(root.folder).catch(() => null);
            return {
              name: root.name,
              path: `/${root.name}`,
              size: -1,
              isFile: false,
              isDirectory: true,
              modified: info ? info.mtime.toISOString() : null,
            };
          }),
      );
      return { items: items.slice(skip, skip + limit), total: items.length };
    }
    const resolved = await this.resolveExisting(virtual);
    const listed = await this.#shown(resolved);
    const shown = needle === '' ? listed : listed.filter((candidate) => matches(candidate.name));
    const base = `/${[resolved.root.name, ...resolved.inside].join('/')}`;
    const page = await Promise.all(
      shown.slice(skip, skip + limit).map(async (candidate): Promise<AgentLocalFile | null> => {
        // Removed since the listing: left off this page rather than failing it.
        const info = await stat(candidate.osPath ?? path.join(resolved.osPath, candidate.name)).catch(
          () => null,
        );
        if (!info || !(info.isFile() || info.isDirectory())) return null;
        return {
          name: candidate.name,
          path: `${base}/${candidate.name}`,
          size: info.isDirectory() ? -1 : info.size,
          isFile: info.isFile(),
          isDirectory: info.isDirectory(),
          modified: info.mtime.toISOString(),
        };
      }),
    );
    return { items: page.filter((item): item is AgentLocalFile => item !== null), total: shown.length };
  }

  /**
   * A folder's shown entries in their order (folders first, then by name). The order and the count come from the
   * directory listing alone; only the entries on a page are stat'ed, so paging through a folder of a hundred
   * thousand files costs a page of stats per call, not the whole folder's. A symlink is shown only when it leads
   * somewhere inside the same added folder, so those (few) are resolved before counting. A large folder's listing is
   * kept for its next page while the folder's times say nothing was added, removed or renamed in it.
   */
  async #shown(resolved: ResolvedPath): Promise<Candidate[]> {
    const folder = await stat(resolved.osPath);
    if (!folder.isDirectory()) throw new LocalRefusal(400, localMessages.notFolder);
    const kept = this.#kept;
    if (
      kept?.osPath === resolved.osPath &&
      kept.mtimeMs === folder.mtimeMs &&
      kept.ctimeMs === folder.ctimeMs
    ) {
      this.#keep(kept);
      return kept.shown;
    }
    const readAt = Date.now();
    const shown = await this.#read(resolved);
    const settled = Math.max(folder.mtimeMs, folder.ctimeMs) < readAt - this.#racyMs;
    if (shown.length >= KEEP_LISTING_FROM && settled)
      this.#keep({ osPath: resolved.osPath, mtimeMs: folder.mtimeMs, ctimeMs: folder.ctimeMs, shown });
    return shown;
  }

  #keep(listing: KeptListing) {
    this.#kept = listing;
    if (this.#dropKept) clearTimeout(this.#dropKept);
    this.#dropKept = setTimeout(() => {
      this.#kept = null;
    }, KEEP_LISTING_MS);
    this.#dropKept.unref();
  }

  async #read(resolved: ResolvedPath): Promise<Candidate[]> {
    const realRoot = await realpath(resolved.root.folder);
    let entries: Dirent[];
    try {
      entries = await readdir(resolved.osPath, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR')
        throw new LocalRefusal(400, localMessages.notFolder);
      throw error;
    }
    // Files and folders are known from the listing itself; only links take a promise (and a realpath) each.
    const shown: Candidate[] = [];
    const links: Array<Promise<Candidate | null>> = [];
    for (const entry of entries) {
      if (isUnlistedName(entry.name)) continue;
      if (entry.isFile() || entry.isDirectory())
        shown.push({ name: entry.name, isDirectory: entry.isDirectory() });
      else if (entry.isSymbolicLink()) links.push(linkCandidate(resolved.osPath, realRoot, entry.name));
    }
    for (const link of await Promise.all(links)) if (link) shown.push(link);
    shown.sort((a, b) => Number(b.isDirectory) - Number(a.isDirectory) || byName(a.name, b.name));
    return shown;
  }

  /** POST /mkdir: a new folder inside an added folder (its parents are made as needed). */
  async makeFolder(virtual: string): Promise<void> {
    // A new name the panel would hide (a leading dot) would seem never to be made.
    if (isUnlistedName(virtual.split('/').at(-1) ?? ''))
      throw new LocalRefusal(400, localMessages.hiddenName);
    const resolved = await this.resolve(virtual);
    if (resolved.inside.length === 0) throw new LocalRefusal(403, agentMessages.readOnlyRoot);
    if (resolved.exists) throw new LocalRefusal(409, localMessages.exists);
    // The parents as needed, then the folder itself, not recursively: a second request for the same folder, sent
    // while the first was on its way, finds it made (EEXIST) rather than succeeding twice.
    await mkdir(path.dirname(resolved.osPath), { recursive: true }).catch(
      mkdirRefusal(localMessages.fileInTheWay),
    );
    await mkdir(resolved.osPath).catch(mkdirRefusal(localMessages.exists));
  }

  /** POST /delete: a file, or a folder with everything in it; a symlink is removed itself, never its target. */
  async remove(virtual: string): Promise<void> {
    const segments = segmentsOf(virtual);
    if (segments.length <= 1) {
      if (segments.length === 1 && !this.roots().some((root) => root.name === segments[0])) throw refused();
      throw new LocalRefusal(403, agentMessages.readOnlyRoot);
    }
    const name = segments.at(-1) ?? '';
    const parent = await this.resolveExisting(`/${segments.slice(0, -1).join('/')}`);
    const target = path.join(parent.osPath, name);
    const info = await lstat(target).catch(() => null);
    if (!info) throw new LocalRefusal(404, localMessages.notFound);
    await rm(target, { recursive: true, force: true });
  }
}

/** A folder that cannot be made, in words: `taken` when a name on its way is taken (EEXIST, ENOTDIR). */
const mkdirRefusal =
  (taken: string) =>
  (error: unknown): never => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new LocalRefusal(409, taken);
    if (code === 'ENAMETOOLONG') throw new LocalRefusal(400, localMessages.nameTooLong);
    throw error;
  };

/** A link shown in a listing: only one that leads to a file or folder inside the same added folder. */
async function linkCandidate(folder: string, realRoot: string, name: string): Promise<Candidate | null> {
  const real = await realpath(path.join(folder, name)).catch(() => null);
  if (!real || !within(realRoot, real)) return null;
  const info = await stat(real).catch(() => null);
  if (!info || !(info.isFile() || info.isDirectory())) return null;
  return { name, isDirectory: info.isDirectory(), osPath: real };
}
