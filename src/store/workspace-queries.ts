import { randomId } from './random-id.js';
import { readCachesOf, workspaceKeys, writeDropping } from './read-cache.js';
import { nowIso, workspaceRecordOf } from './row-mapping.js';
import { SourceSyncQueries } from './source-sync-queries.js';
import { StoreConflictError } from './store-conflict-error.js';
import type { StoreContext } from './store-context.js';
import type { WorkspaceRecord } from './store-records.js';
import { isPlainObject, isWellFormedId, requireId, requireText, STORE_LIMITS } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreWorkspaces, WorkspaceToolSet } from './toolshed-store.js';

/**
 * The `workspaces` part of a store.
 *
 * @example
 * ```ts
 * const workspace = await store.workspaces.create({ id: 'acme', name: 'Acme' });
 * await store.workspaces.get('acme'); // { id: 'acme', name: 'Acme', createdAt: '...' }
 * ```
 */
export class WorkspaceQueries implements StoreWorkspaces {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async create(input: { id?: string; name: string }): Promise<WorkspaceRecord> {
    if (!isPlainObject(input)) throw new StoreValidationError('input', 'A workspace needs an object with a name.');
    const id = input.id === undefined ? randomId('ws') : requireId(input.id, 'id');
    const name = requireText(input.name, 'name', STORE_LIMITS.nameChars);
    const createdAt = nowIso();
    const inserted = await this.#context.write((trx) =>
      trx
        .insertInto('workspaces')
        .values({ id, name, created_at: createdAt })
        .onConflict((conflict) => conflict.doNothing())
        .returning('id')
        .executeTakeFirst(),
    );
    if (inserted === undefined) {
      throw new StoreConflictError('workspace', id, `Workspace '${id}' already exists; choose another id.`);
    }
    return { id, name, createdAt };
  }

  async get(id: string): Promise<WorkspaceRecord | undefined> {
    if (!isWellFormedId(id)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : workspaceRecordOf(row);
  }

  defaultTools(id: string): Promise<WorkspaceToolSet | undefined> {
    if (!isWellFormedId(id)) return Promise.resolve(undefined);
    return new SourceSyncQueries(this.#context).defaultToolSet(id);
  }

  setDefaultTools(id: string, toolIds: readonly string[] | null): Promise<WorkspaceToolSet> {
    return new SourceSyncQueries(this.#context).setDefaultToolSet(id, toolIds);
  }

  async list(): Promise<WorkspaceRecord[]> {
    const rows = await this.#context.dialect.db.selectFrom('workspaces').selectAll().orderBy('id').execute();
    return rows.map(workspaceRecordOf);
  }

  async delete(id: string): Promise<boolean> {
    if (!isWellFormedId(id)) return false;
    // Its tokens, tools and agents go with it (ON DELETE CASCADE): drop them before the commit, so
    // change listeners read the new rows, and again once the write settled.
    const drop = () => {
      const caches = readCachesOf(this.#context);
      caches.tokens.invalidate((_key, identity) => identity?.workspaceId === id);
      caches.tools.invalidate(workspaceKeys(id));
      caches.attachments.invalidate(workspaceKeys(id));
    };
    return writeDropping(this.#context, drop, async (trx, changes) => {
      const result = await trx.deleteFrom('workspaces').where('id', '=', id).executeTakeFirst();
      const deleted = result.numDeletedRows > 0n;
      if (deleted) changes.push({ workspaceId: id, kind: 'workspace' });
      return deleted;
    });
  }
}
