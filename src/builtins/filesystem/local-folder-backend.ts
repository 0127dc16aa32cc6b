import { randomBytes } from 'node:crypto';
import { constants, type Dirent, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { FileAccessError } from './file-access-error.js';
import type { FileBackend, FileEntry, FileReadOptions, FileWalkOptions, FileWriteOptions } from './file-backend.js';
import { hasControlCharacter, joinVirtual, normalizeVirtualPath, virtualSegments } from './normalize-virtual-path.js';

/** Folders {@link LocalFolderBackend.walk} skips unless told otherwise. */
export const DEFAULT_IGNORED_DIRECTORIES: readonly string[] = Object.freeze(['.git', '.hg', '.svn', 'node_modules']);

/** Options of {@link LocalFolderBackend}. */
export interface LocalFolderBackendOptions {
  /** Folder names `walk` does not descend into (default {@link DEFAULT_IGNORED_DIRECTORIES}). */
  ignoreDirectories?: readonly string[];
}

// O_NOFOLLOW: the last component was resolved by realpath just before, so a symlink there now means the
// tree changed under us; refuse rather than follow. O_NONBLOCK: opening a FIFO must not hang the tool.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * A {@link FileBackend} over a folder of the local disk, confined to it.
 *
 * Paths are virtual (`/` is the folder itself). Before any read, listing or write, the real path of the
 * target (or, for a new file, of every existing folder on the way to it) is resolved with `realpath`
 * and must lie inside the real path of the root, so a symbolic link cannot lead out; writes through a
 * dangling link are refused. Files are opened without following a final symbolic link, writes go to a
 * temporary file renamed over the target (a hard link to an outside file is replaced, not written
 * through), and only regular files are read (never devices, FIFOs or sockets).
 *
 * The checks assume nobody else swaps folders for symbolic links inside the root while a call runs:
 * the tools themselves cannot create links.
 *
 * @example
 * ```ts
 * const backend = new LocalFolderBackend('./workspace');
 * await backend.write('/notes/todo.txt', new TextEncoder().encode('buy milk'));
 * const entries = await backend.list('/notes'); // [{ path: '/notes/todo.txt', type: 'file', size: 8 }]
 * ```
 */
export class LocalFolderBackend implements FileBackend {
  /** The root folder, as an absolute host path. */
  readonly root: string;
  readonly #ignored: ReadonlySet<string>;
  #realRoot: Promise<string> | undefined;

  constructor(root: string, options: LocalFolderBackendOptions = {}) {
    if (typeof root !== 'string' || root === '') throw new TypeError('LocalFolderBackend needs a root folder path.');
    this.root = resolve(root);
    this.#ignored = new Set(options.ignoreDirectories ?? DEFAULT_IGNORED_DIRECTORIES);
  }

  async stat(path: string): Promise<FileEntry | undefined> {
    const virtual = normalizeVirtualPath(path);
    let real: string;
    try {
      real = await this.#resolveExisting(virtual);
    } catch (error) {
      if (FileAccessError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
    const stats = await fsCall(virtual, () => stat(real));
    return entryOf(virtual, stats);
  }

  async read(path: string, options: FileReadOptions = {}): Promise<Uint8Array> {
    const virtual = normalizeVirtualPath(path);
    const real = await this.#resolveExisting(virtual);
    const handle = await fsCall(virtual, () => open(real, READ_FLAGS));
    try {
      const stats = await handle.stat();
      if (stats.isDirectory())
        throw new FileAccessError('NOT_A_FILE', virtual, `'${virtual}' is a folder, not a file.`);
      if (!stats.isFile()) {
        throw new FileAccessError(
          'NOT_A_FILE',
          virtual,
          `'${virtual}' is not a regular file (device, pipe or socket).`,
        );
      }
      const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
      if (stats.size > limit) {
        throw new FileAccessError(
          'TOO_LARGE',
          virtual,
          `File '${virtual}' is ${stats.size} bytes, over the limit of ${limit} bytes.`,
          { size: { actual: stats.size, limit } },
        );
      }
      const buffer = Buffer.alloc(stats.size);
      let offset = 0;
      while (offset < buffer.length) {
        const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
      }
      return new Uint8Array(buffer.buffer, buffer.byteOffset, offset);
    } finally {
      await handle.close();
    }
  }

  async write(path: string, content: Uint8Array, options: FileWriteOptions = {}): Promise<{ created: boolean }> {
    const virtual = normalizeVirtualPath(path);
    if (virtual === '/') throw new FileAccessError('NOT_A_FILE', virtual, `'/' is the root folder, not a file.`);
    const realRoot = await this.#root();
    const segments = virtualSegments(virtual);
    // Walk down from the root one component at a time, resolving each existing one, so that no symbolic
    // link on the way (dangling or not) can carry the write outside the root.
    let current = realRoot;
    let index = 0;
    let existing: Stats | undefined;
    for (; index < segments.length; index++) {
      const candidate = join(current, segments[index]!);
      const soFar = `/${segments.slice(0, index + 1).join('/')}`;
      let stats: Stats;
      try {
        stats = await lstat(candidate);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') break;
        throw fsError(soFar, error);
      }
      if (stats.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(candidate);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') {
            throw new FileAccessError(
              'OUTSIDE_ROOT',
              virtual,
              soFar === virtual
                ? `The path '${virtual}' is a symbolic link to nothing; refusing to write through it.`
                : `The path '${virtual}' goes through '${soFar}', a symbolic link to nothing; refusing to write through it.`,
            );
          }
          throw fsError(soFar, error);
        }
        if (!isWithin(realRoot, target)) throw outsideRoot(virtual, soFar);
        stats = await fsCall(soFar, () => stat(target));
        current = target;
      } else {
        current = candidate;
      }
      const last = index === segments.length - 1;
      if (!last && !stats.isDirectory()) {
        throw new FileAccessError(
          'NOT_A_DIRECTORY',
          virtual,
          `Cannot write '${virtual}': '${soFar}' is a file, not a folder.`,
        );
      }
      if (last) existing = stats;
    }

    let target: string;
    if (existing !== undefined) {
      if (existing.isDirectory())
        throw new FileAccessError('NOT_A_FILE', virtual, `'${virtual}' is a folder, not a file.`);
      if (!existing.isFile()) {
        throw new FileAccessError(
          'NOT_A_FILE',
          virtual,
          `'${virtual}' is not a regular file (device, pipe or socket).`,
        );
      }
      target = current;
    } else {
      const missing = segments.slice(index);
      if (missing.length > 1) {
        if (options.createDirs === false) {
          const parent = `/${segments.slice(0, segments.length - 1).join('/')}`;
          throw new FileAccessError(
            'NOT_FOUND',
            virtual,
            `Cannot write '${virtual}': folder '${parent}' does not exist.`,
          );
        }
        const folder = join(current, ...missing.slice(0, -1));
        await fsCall(virtual, () => mkdir(folder, { recursive: true }));
        current = folder;
      }
      target = join(current, missing[missing.length - 1]!);
    }
    const folder = join(target, '..');
    const temporary = join(folder, `.toolshed-${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await fsCall(virtual, () => open(temporary, CREATE_FLAGS, 0o666));
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      if (existing !== undefined) {
        const mode = existing.mode & 0o7777;
        await fsCall(virtual, () => chmod(temporary, mode));
      }
      await fsCall(virtual, () => rename(temporary, target));
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    return { created: existing === undefined };
  }

  async list(path: string): Promise<FileEntry[]> {
    const virtual = normalizeVirtualPath(path);
    const real = await this.#resolveExisting(virtual);
    const stats = await fsCall(virtual, () => stat(real));
    if (!stats.isDirectory()) {
      throw new FileAccessError('NOT_A_DIRECTORY', virtual, `'${virtual}' is a file, not a folder.`);
    }
    const children = await fsCall(virtual, () => readdir(real, { withFileTypes: true }));
    const entries: FileEntry[] = [];
    for (const child of children) {
      const entry = await this.#childEntry(real, virtual, child, true);
      if (entry !== undefined) entries.push(entry);
    }
    return sortEntries(entries);
  }

  async *walk(path = '/', options: FileWalkOptions = {}): AsyncIterable<FileEntry> {
    const virtual = normalizeVirtualPath(path);
    const real = await this.#resolveExisting(virtual);
    const stats = await fsCall(virtual, () => stat(real));
    if (!stats.isDirectory()) {
      throw new FileAccessError('NOT_A_DIRECTORY', virtual, `'${virtual}' is a file, not a folder.`);
    }
    // Symbolic links are not followed while walking (like ripgrep): no cycles, and an in-root target is
    // visited at its own place anyway.
    const stack: Array<{ real: string; virtual: string }> = [{ real, virtual }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return;
      const folder = stack.pop()!;
      let children: Dirent[];
      try {
        children = await readdir(folder.real, { withFileTypes: true });
      } catch {
        continue; // an unreadable folder is skipped, not fatal for a search
      }
      const files: FileEntry[] = [];
      const folders: Array<{ real: string; virtual: string }> = [];
      for (const child of children.sort((a, b) => compareNames(a.name, b.name))) {
        if (!isUsableName(child.name)) continue;
        if (child.isDirectory()) {
          if (!this.#ignored.has(child.name)) {
            folders.push({ real: join(folder.real, child.name), virtual: joinVirtual(folder.virtual, child.name) });
          }
        } else if (child.isFile()) {
          const entry = await this.#childEntry(folder.real, folder.virtual, child, false);
          if (entry !== undefined) files.push(entry);
        }
      }
      for (const file of files) yield file;
      for (let index = folders.length - 1; index >= 0; index--) stack.push(folders[index]!);
    }
  }

  #root(): Promise<string> {
    this.#realRoot ??= realpath(this.root).catch((error: unknown) => {
      this.#realRoot = undefined;
      throw new FileAccessError('IO_ERROR', '/', 'The workspace root folder does not exist or cannot be read.', {
        cause: error,
      });
    });
    return this.#realRoot;
  }

  /** The real host path of an existing virtual path, checked to lie inside the root. */
  async #resolveExisting(virtual: string): Promise<string> {
    const realRoot = await this.#root();
    const host = join(realRoot, ...virtualSegments(virtual));
    let real: string;
    try {
      real = await realpath(host);
    } catch (error) {
      throw fsError(virtual, error);
    }
    // realpath resolves every component, so this one check covers symbolic links anywhere on the path.
    if (!isWithin(realRoot, real)) throw outsideRoot(virtual, virtual);
    return real;
  }

  async #childEntry(
    folderReal: string,
    folderVirtual: string,
    child: Dirent,
    followLinks: boolean,
  ): Promise<FileEntry | undefined> {
    if (!isUsableName(child.name)) return undefined;
    const hostPath = join(folderReal, child.name);
    const virtual = joinVirtual(folderVirtual, child.name);
    try {
      if (child.isSymbolicLink()) {
        if (!followLinks) return undefined;
        // Links that dangle or lead out of the root are not listed: no tool could open them.
        const target = await realpath(hostPath);
        if (!isWithin(await this.#root(), target)) return undefined;
        return entryOf(virtual, await stat(target));
      }
      return entryOf(virtual, await lstat(hostPath));
    } catch {
      return undefined;
    }
  }
}

function entryOf(virtual: string, stats: Stats): FileEntry | undefined {
  if (stats.isDirectory()) return { path: virtual, type: 'directory', size: 0 };
  if (stats.isFile()) return { path: virtual, type: 'file', size: stats.size };
  return undefined;
}

function sortEntries(entries: FileEntry[]): FileEntry[] {
  return entries.sort((a, b) => {
    if (a.type !== b.type) return a.type === 'directory' ? -1 : 1;
    return compareNames(a.path, b.path);
  });
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names that survive {@link normalizeVirtualPath} unchanged; others could not be addressed by a tool. */
function isUsableName(name: string): boolean {
  return !name.includes('\\') && !hasControlCharacter(name);
}

function isWithin(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function outsideRoot(virtual: string, through: string): FileAccessError {
  const via = through === virtual ? '' : ` (through '${through}')`;
  return new FileAccessError(
    'OUTSIDE_ROOT',
    virtual,
    `The path '${virtual}' resolves through a symbolic link${via} to a place outside the workspace root; refusing to access it.`,
  );
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? ((error as { code?: unknown }).code as string) : undefined;
}

async function fsCall<T>(virtual: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw fsError(virtual, error);
  }
}

function fsError(virtual: string, error: unknown): FileAccessError {
  if (FileAccessError.isInstance(error)) return error;
  const code = errorCode(error);
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileAccessError('NOT_FOUND', virtual, `'${virtual}' does not exist.`, { cause: error });
    case 'ELOOP':
      return new FileAccessError(
        'INVALID_PATH',
        virtual,
        `The path '${virtual}' goes through a loop of symbolic links.`,
        { cause: error },
      );
    case 'ENAMETOOLONG':
      return new FileAccessError('INVALID_PATH', virtual, `A name in the path '${virtual}' is too long.`, {
        cause: error,
      });
    case 'EISDIR':
      return new FileAccessError('NOT_A_FILE', virtual, `'${virtual}' is a folder, not a file.`, { cause: error });
    case 'EACCES':
    case 'EPERM':
      return new FileAccessError('IO_ERROR', virtual, `Permission denied for '${virtual}'.`, { cause: error });
    default:
      return new FileAccessError(
        'IO_ERROR',
        virtual,
        `Could not access '${virtual}' (${code ?? (error as Error)?.name ?? 'unknown error'}).`,
        { cause: error },
      );
  }
}
