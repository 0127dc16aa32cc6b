import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { StoreDialect } from './store-dialect.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import type { ResolvedStoreOptions } from './store-options.js';
import type { StoreChange } from './store-records.js';

/**
 * What the query classes of a store share: the dialect, the options, and the one way to write.
 *
 * @example
 * ```ts
 * await context.write(async (trx, changes) => {
 *   await trx.deleteFrom('agents').where('id', '=', agentId).execute();
 *   changes.push({ workspaceId, agentId, kind: 'agent' });
 * });
 * ```
 */
export interface StoreContext {
  readonly dialect: StoreDialect;
  readonly options: ResolvedStoreOptions;
  /**
   * Run `work` in one write transaction. The changes it pushes are published with the transaction
   * and delivered to listeners after it commits; `work` may be retried, so it must only touch `trx`.
   */
  write<T>(work: (trx: Kysely<Database>, changes: StoreChange[]) => Promise<T>): Promise<T>;
}

/**
 * Rethrow a foreign-key violation as "the workspace does not exist": every write that names a
 * workspace inserts a row referencing it, so that is the one foreign key such an insert can break.
 *
 * @example
 * ```ts
 * try {
 *   await insertAgent();
 * } catch (error) {
 *   throw workspaceNotFoundOn(context, error, workspaceId);
 * }
 * ```
 */
export function workspaceNotFoundOn(context: StoreContext, error: unknown, workspaceId: string): unknown {
  if (context.dialect.classifyError(error) === 'foreign-key') {
    return new StoreNotFoundError('workspace', workspaceId, `Workspace '${workspaceId}' does not exist.`, {
      cause: error,
    });
  }
  return error;
}
