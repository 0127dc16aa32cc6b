import { type Kysely, sql } from 'kysely';
import { FileAccessError } from '../builtins/filesystem/file-access-error.js';
import type {
  FileBackend,
  FileEntry,
  FileReadOptions,
  FileWalkOptions,
  FileWriteOptions,
} from '../builtins/filesystem/file-backend.js';
import { joinVirtual, normalizeVirtualPath, virtualSegments } from '../builtins/filesystem/normalize-virtual-path.js';
import type { Database } from './database.js';
import { nowIso } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { requireId } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';

/** The largest file the database filesystem stores, in bytes (the write tool's own default cap is 5 MB). */
export const MAX_DATABASE_FILE_BYTES = 32 * 1024 * 1024;

/**
 * A {@link FileBackend} over the `files` table, confined to one workspace: the virtual filesystem of
 * the service's file built-ins.
 *
 * Paths go through {@link normalizeVirtualPath} like every backend's, so `..`, drive letters and
 * control characters are refused the same way, and every query is keyed by the workspace, so no path
 * reaches another workspace's files. Only files are stored; a folder exists while a file lies under
 * it (the root `/` always exists), and writing creates the folders on the way implicitly. Errors are
 * {@link FileAccessError}s with the same codes and messages as the local-folder backend's.
 *
 * @example
 * ```ts
 * const files = store.files('acme');
 * await files.write('/notes/todo.txt', new TextEncoder().encode('buy milk'));
 * await files.list('/notes'); // [{ path: '/notes/todo.txt', type: 'file', size: 8 }]
 * const tools = createFileTools({ backend: files });
 * ```
 */
export class DatabaseFileBackend implements FileBackend {
  readonly #context: StoreContext;
  readonly #workspaceId: string;

  constructor(context: StoreContext, workspaceId: string) {
    this.#context = context;
    this.#workspaceId = requireId(workspaceId, 'workspaceId');
  }

  async stat(path: string): Promise<FileEntry | undefined> {
    const virtual = normalizeVirtualPath(path);
    if (virtual === '/') return { path: '/', type: 'directory', size: 0 };
    const db = this.#context.dialect.db;
    const size = await this.#fileSize(db, virtual);
    if (size !== undefined) return { path: virtual, type: 'file', size };
    if (await this.#hasChildren(db, virtual)) return { path: virtual, type: 'directory', size: 0 };
    return undefined;
  }

  async read(path: string, options: FileReadOptions = {}): Promise<Uint8Array> {
    const virtual = normalizeVirtualPath(path);
    if (virtual === '/') throw notAFile(virtual);
    const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const db = this.#context.dialect.db;
    // One query: the size always, the content only when it is within the limit.
    const row = await db
      .selectFrom('files')
      .select((eb) => [
        'size',
        Number.isFinite(limit)
          ? sql<Uint8Array | null>`case when ${eb.ref('size')} <= ${Math.floor(limit)} then ${eb.ref('content')} end`.as(
              'content',
            )
          : eb.ref('content').as('content'),
      ])
      .where('workspace_id', '=', this.#workspaceId)
      .where('path', '=', virtual)
      .executeTakeFirst();
    if (row === undefined) {
      if (await this.#hasChildren(db, virtual)) throw notAFile(virtual);
      throw notFound(virtual);
    }
    if (row.size > limit || row.content === null) {
      throw new FileAccessError(
        'TOO_LARGE',
        virtual,
        `File '${virtual}' is ${row.size} bytes, over the limit of ${limit} bytes.`,
        { size: { actual: row.size, limit } },
      );
    }
    const content = row.content;
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  }

  async write(path: string, content: Uint8Array, options: FileWriteOptions = {}): Promise<{ created: boolean }> {
    const virtual = normalizeVirtualPath(path);
    if (virtual === '/') throw new FileAccessError('NOT_A_FILE', virtual, `'/' is the root folder, not a file.`);
    if (!(content instanceof Uint8Array)) {
      throw new StoreValidationError('content', 'File content must be a Uint8Array.');
    }
    if (content.byteLength > MAX_DATABASE_FILE_BYTES) {
      throw new FileAccessError(
        'TOO_LARGE',
        virtual,
        `Content for '${virtual}' is ${content.byteLength} bytes, over the limit of ${MAX_DATABASE_FILE_BYTES} bytes.`,
        { size: { actual: content.byteLength, limit: MAX_DATABASE_FILE_BYTES } },
      );
    }
    const segments = virtualSegments(virtual);
    const ancestors = segments.slice(0, -1).map((_, index) => `/${segments.slice(0, index + 1).join('/')}`);
    const parent = ancestors.at(-1) ?? '/';
    const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const workspace = this.#workspaceId;
    const dialect = this.#context.dialect;
    try {
      return await dialect.transaction(async (trx) => {
        // File-versus-folder checks read several rows; serialize the workspace's writers so two
        // writes cannot make one path both a file and a folder.
        await dialect.lock(trx, `files:${workspace}`);
        if (ancestors.length > 0) {
          const blocking = await trx
            .selectFrom('files')
            .select('path')
            .where('workspace_id', '=', workspace)
            .where('path', 'in', ancestors)
            .orderBy('path')
            .executeTakeFirst();
          if (blocking !== undefined) {
            throw new FileAccessError(
              'NOT_A_DIRECTORY',
              virtual,
              `Cannot write '${virtual}': '${blocking.path}' is a file, not a folder.`,
            );
          }
        }
        if (await this.#hasChildren(trx, virtual)) throw notAFile(virtual);
        if (options.createDirs === false && parent !== '/' && !(await this.#hasChildren(trx, parent))) {
          throw new FileAccessError(
            'NOT_FOUND',
            virtual,
            `Cannot write '${virtual}': folder '${parent}' does not exist.`,
          );
        }
        const values = { content: bytes, size: bytes.byteLength, updated_at: nowIso() };
        const inserted = await trx
          .insertInto('files')
          .values({ workspace_id: workspace, path: virtual, ...values })
          .onConflict((conflict) => conflict.columns(['workspace_id', 'path']).doNothing())
          .returning('path')
          .executeTakeFirst();
        if (inserted !== undefined) return { created: true };
        await trx
          .updateTable('files')
          .set(values)
          .where('workspace_id', '=', workspace)
          .where('path', '=', virtual)
          .execute();
        return { created: false };
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }

  async list(path: string): Promise<FileEntry[]> {
    const virtual = normalizeVirtualPath(path);
    const rows = await this.#folderContents(virtual);
    const prefix = virtual === '/' ? '/' : `${virtual}/`;
    const folders = new Map<string, FileEntry>();
    const files: FileEntry[] = [];
    for (const row of rows) {
      const rest = row.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash === -1) {
        files.push({ path: row.path, type: 'file', size: row.size });
      } else {
        const folder = joinVirtual(virtual, rest.slice(0, slash));
        if (!folders.has(folder)) folders.set(folder, { path: folder, type: 'directory', size: 0 });
      }
    }
    const byPath = (a: FileEntry, b: FileEntry) => compareNames(a.path, b.path);
    return [...[...folders.values()].sort(byPath), ...files.sort(byPath)];
  }

  async *walk(path = '/', options: FileWalkOptions = {}): AsyncIterable<FileEntry> {
    const virtual = normalizeVirtualPath(path);
    const rows = await this.#folderContents(virtual);
    const ordered = rows
      .map((row) => ({ path: row.path, segments: virtualSegments(row.path), size: row.size }))
      .sort(walkOrder);
    for (const row of ordered) {
      if (options.signal?.aborted) return;
      yield { path: row.path, type: 'file', size: row.size };
    }
  }

  /** Every file under the folder `virtual` (path and size), or the errors `list` and `walk` share. */
  async #folderContents(virtual: string): Promise<Array<{ path: string; size: number }>> {
    const db = this.#context.dialect.db;
    if (virtual !== '/' && (await this.#fileSize(db, virtual)) !== undefined) {
      throw new FileAccessError('NOT_A_DIRECTORY', virtual, `'${virtual}' is a file, not a folder.`);
    }
    const rows = await db
      .selectFrom('files')
      .select(['path', 'size'])
      .where('workspace_id', '=', this.#workspaceId)
      .$if(virtual !== '/', (query) => {
        const [from, to] = descendantRange(virtual);
        return query.where('path', '>=', from).where('path', '<', to);
      })
      .execute();
    if (virtual !== '/' && rows.length === 0) throw notFound(virtual);
    return rows;
  }

  async #fileSize(db: Kysely<Database>, virtual: string): Promise<number | undefined> {
    const row = await db
      .selectFrom('files')
      .select('size')
      .where('workspace_id', '=', this.#workspaceId)
      .where('path', '=', virtual)
      .executeTakeFirst();
    return row?.size;
  }

  /** Whether a file lies under `virtual`, which makes it a folder. */
  async #hasChildren(db: Kysely<Database>, virtual: string): Promise<boolean> {
    const [from, to] = descendantRange(virtual);
    const row = await db
      .selectFrom('files')
      .select('path')
      .where('workspace_id', '=', this.#workspaceId)
      .where('path', '>=', from)
      .where('path', '<', to)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/**
 * The byte-wise range holding exactly the paths under a folder: `[folder + '/', folder + '0')`, since
 * `'0'` follows `'/'`. A range (unlike `LIKE`) needs no escaping of `%` and `_` and uses the primary
 * key; PostgreSQL compares `path` byte-wise because the column is `COLLATE "C"`.
 */
function descendantRange(folder: string): [string, string] {
  return [`${folder}/`, `${folder}0`];
}

/** The order `walk` yields files in: a folder's own files first, then its sub-folders, each by name. */
function walkOrder(a: { segments: string[] }, b: { segments: string[] }): number {
  const shared = Math.min(a.segments.length, b.segments.length);
  for (let index = 0; index < shared; index++) {
    const left = a.segments[index]!;
    const right = b.segments[index]!;
    if (left === right) continue;
    const leftIsFile = index === a.segments.length - 1;
    const rightIsFile = index === b.segments.length - 1;
    if (leftIsFile !== rightIsFile) return leftIsFile ? -1 : 1;
    return compareNames(left, right);
  }
  return a.segments.length - b.segments.length;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function notFound(virtual: string): FileAccessError {
  return new FileAccessError('NOT_FOUND', virtual, `'${virtual}' does not exist.`);
}

function notAFile(virtual: string): FileAccessError {
  return new FileAccessError('NOT_A_FILE', virtual, `'${virtual}' is a folder, not a file.`);
}
