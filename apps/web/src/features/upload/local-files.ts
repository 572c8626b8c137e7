/** A local file chosen for upload, with its path inside the picked folder ('' parts never appear). */
export interface LocalFile {
  file: File;
  /** 'photo.jpg' for a picked file, 'holiday/day1/photo.jpg' for one inside a picked or dropped folder. */
  relativePath: string;
}

/** Spec 001 §4/§5: names starting with a dot are skipped, and so is everything inside a dot-folder. */
export function isHiddenPath(relativePath: string): boolean {
  return relativePath.split('/').some((segment) => segment.startsWith('.'));
}

/** What tells two picks of one local file apart from two files: its path in the pick, size and date. */
export const localFileKey = (local: LocalFile) =>
  `${local.relativePath}\u0000${local.file.size}\u0000${local.file.lastModified}`;

/** The top folder of a file picked within a folder, or null for a loose file. */
export function topFolder(relativePath: string): string | null {
  const slash = relativePath.indexOf('/');
  return slash > 0 ? relativePath.slice(0, slash) : null;
}

/** Files chosen for upload, and how many hidden ones were left out (the summary says so). */
export interface ChosenFiles {
  files: LocalFile[];
  hiddenSkipped: number;
}

/** Files of an `<input type=file>` (with or without `webkitdirectory`), hidden ones left out and counted. */
export function filesFromInput(list: FileList | readonly File[]): ChosenFiles {
  const all = Array.from(list).map((file) => ({ file, relativePath: file.webkitRelativePath || file.name }));
  const files = all.filter((local) => !isHiddenPath(local.relativePath));
  return { files, hiddenSkipped: all.length - files.length };
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walkEntry(entry: FileSystemEntry, prefix: string, out: ChosenFiles): Promise<void> {
  if (entry.name.startsWith('.')) {
    // A hidden folder counts as one: its content is never read.
    out.hiddenSkipped += 1;
    return;
  }
  const relativePath = `${prefix}${entry.name}`;
  if (entry.isFile) {
    out.files.push({ file: await entryFile(entry as FileSystemFileEntry), relativePath });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in chunks (about 100 at a time) until it answers an empty list.
  for (;;) {
    const children = await readEntries(reader);
    if (children.length === 0) break;
    for (const child of children) await walkEntry(child, `${relativePath}/`, out);
  }
}

/** Files and folders dropped on the page; folders are walked through `webkitGetAsEntry`. */
export async function filesFromDrop(transfer: DataTransfer): Promise<ChosenFiles> {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(transfer.items)) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const file = item.getAsFile();
      if (file) loose.push(file);
    }
  }
  const out = filesFromInput(loose);
  for (const entry of entries) await walkEntry(entry, '', out);
  return out;
}

/** FNV-1a, 32 bits: only shortens an over-long fingerprint, no security role. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

const FINGERPRINT_MAX = 512;

/**
 * Identifies a local file across page reloads (the server resumes the session of the same fingerprint): name,
 * size, last modification and the path inside the picked folder. Computed the same way every time.
 */
export function fileFingerprint(local: LocalFile): string {
  const { name, size, lastModified } = local.file;
  const full = `${size}:${lastModified}:${name}:${local.relativePath}`;
  if (full.length <= FINGERPRINT_MAX) return full;
  return `${full.slice(0, FINGERPRINT_MAX - 10)}~${fnv1a(full)}`;
}
