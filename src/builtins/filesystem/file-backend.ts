/** One file or folder of a {@link FileBackend}, named by its virtual path (`/data/report.txt`). */
export interface FileEntry {
  /** Normalized virtual path: starts with `/`, no `.`/`..` segments, no trailing slash. */
  path: string;
  type: 'file' | 'directory';
  /** Size in bytes (0 for folders). */
  size: number;
}

/** Options of {@link FileBackend.read}. */
export interface FileReadOptions {
  /** Refuse (`TOO_LARGE`) a file bigger than this many bytes, without reading it. */
  maxBytes?: number;
}

/** Options of {@link FileBackend.write}. */
export interface FileWriteOptions {
  /** Create missing parent folders (default true). */
  createDirs?: boolean;
}

/** Options of {@link FileBackend.walk}. */
export interface FileWalkOptions {
  /** Stop walking when this signal aborts. */
  signal?: AbortSignal;
}

/**
 * Where the filesystem built-ins read and write: a local folder ({@link LocalFolderBackend}) or, for
 * the service, the virtual filesystem in the database.
 *
 * Every path a backend receives is already normalized by {@link normalizeVirtualPath}: it starts with
 * `/` (the root of the backend), has no `.` or `..` segments and no NUL or control characters. A
 * backend must still keep every operation inside its root (a local folder checks symbolic links) and
 * report problems as {@link FileAccessError}s, so the tools can explain them to the model.
 *
 * @example
 * ```ts
 * // A minimal in-memory backend, enough for the file tools.
 * const files = new Map<string, Uint8Array>();
 * const memory: FileBackend = {
 *   async stat(path) {
 *     const content = files.get(path);
 *     return content && { path, type: 'file', size: content.byteLength };
 *   },
 *   async read(path) {
 *     const content = files.get(path);
 *     if (!content) throw new FileAccessError('NOT_FOUND', path, `File '${path}' does not exist.`);
 *     return content;
 *   },
 *   async write(path, content) {
 *     const created = !files.has(path);
 *     files.set(path, content);
 *     return { created };
 *   },
 *   async list() {
 *     return [...files].map(([path, content]) => ({ path, type: 'file', size: content.byteLength }));
 *   },
 *   async *walk() {
 *     for (const [path, content] of files) yield { path, type: 'file', size: content.byteLength };
 *   },
 * };
 * const tools = createFileTools({ backend: memory });
 * ```
 */
export interface FileBackend {
  /** What is at `path`, or `undefined` when nothing is. */
  stat(path: string): Promise<FileEntry | undefined>;
  /** The bytes of the file at `path`. */
  read(path: string, options?: FileReadOptions): Promise<Uint8Array>;
  /** Create or replace the file at `path`; `created` is false when a file was replaced. */
  write(path: string, content: Uint8Array, options?: FileWriteOptions): Promise<{ created: boolean }>;
  /** The direct children of the folder at `path`: folders first, then files, each sorted by name. */
  list(path: string): Promise<FileEntry[]>;
  /** Every file under the folder at `path` (default `/`), depth first, in name order. */
  walk(path?: string, options?: FileWalkOptions): AsyncIterable<FileEntry>;
}
