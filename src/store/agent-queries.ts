import { describeValue } from '../core/define-tool.js';
import { randomId } from './random-id.js';
import { cacheKey, readCachesOf, writeDropping } from './read-cache.js';
import { agentRecordOf, nowIso } from './row-mapping.js';
import { SourceSyncQueries } from './source-sync-queries.js';
import { StoreConflictError } from './store-conflict-error.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import { StoreReadOnlyError } from './store-read-only-error.js';
import type { AgentRecord } from './store-records.js';
import {
  isPlainObject,
  isWellFormedId,
  optionalText,
  requireId,
  requireText,
  STORE_LIMITS,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { AgentPatch, AgentSyncResult, StoreAgents, SyncAgentsInput } from './toolshed-store.js';

/**
 * The `agents` part of a store.
 *
 * @example
 * ```ts
 * await store.agents.create('acme', { id: 'research', name: 'Research', description: 'Finds sources.' });
 * await store.agents.list('acme'); // [{ id: 'research', ... }]
 * ```
 */
export class AgentQueries implements StoreAgents {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async create(
    workspaceId: string,
    input: { id?: string; name?: string; description?: string | null },
  ): Promise<AgentRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(input)) throw new StoreValidationError('input', 'An agent must be an object.');
    const id = input.id === undefined ? randomId('agt') : requireId(input.id, 'id');
    // One reading for both: two could fall on either side of a millisecond.
    const now = nowIso();
    const record: AgentRecord = {
      id,
      workspaceId: workspace,
      name: input.name === undefined ? id : requireText(input.name, 'name', STORE_LIMITS.nameChars),
      description: optionalText(input.description, 'description', STORE_LIMITS.textChars),
      source: 'api',
      origin: null,
      createdAt: now,
      updatedAt: now,
    };
    let inserted: { id: string } | undefined;
    try {
      inserted = await this.#context.write(async (trx, changes) => {
        const written = await trx
          .insertInto('agents')
          .values({
            id,
            workspace_id: workspace,
            name: record.name,
            description: record.description,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .onConflict((conflict) => conflict.doNothing())
          .returning('id')
          .executeTakeFirst();
        if (written !== undefined) changes.push({ workspaceId: workspace, agentId: id, kind: 'agent' });
        return written;
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
    if (inserted === undefined) {
      throw new StoreConflictError('agent', id, `Agent id '${id}' is already taken; choose another id.`);
    }
    return record;
  }

  sync(workspaceId: string, input: SyncAgentsInput): Promise<AgentSyncResult> {
    return new SourceSyncQueries(this.#context).syncAgents(workspaceId, input);
  }

  async get(workspaceId: string, id: string): Promise<AgentRecord | undefined> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(id)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('agents')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return row === undefined ? undefined : agentRecordOf(row);
  }

  async list(workspaceId: string): Promise<AgentRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute();
    return rows.map(agentRecordOf);
  }

  async update(workspaceId: string, id: string, patch: AgentPatch): Promise<AgentRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(patch)) {
      throw new StoreValidationError('patch', `An agent patch must be an object, got ${describeValue(patch)}.`);
    }
    for (const key of Object.keys(patch)) {
      if (key !== 'name' && key !== 'description') {
        throw new StoreValidationError(key, `An agent patch cannot change '${key}'; it may change name, description.`);
      }
    }
    const values: { name?: string; description?: string | null } = {};
    if (patch.name !== undefined) values.name = requireText(patch.name, 'name', STORE_LIMITS.nameChars);
    if (patch.description !== undefined) {
      values.description = optionalText(patch.description, 'description', STORE_LIMITS.textChars);
    }
    if (!isWellFormedId(id)) throw agentNotFound(workspace, id);
    const rowLocks = this.#context.dialect.supportsRowLocks;
    return this.#context.write(async (trx, changes) => {
      const current = await trx
        .selectFrom('agents')
        .selectAll()
        .where('id', '=', id)
        .where('workspace_id', '=', workspace)
        .$if(rowLocks, (query) => query.forUpdate())
        .executeTakeFirst();
      if (current === undefined) throw agentNotFound(workspace, id);
      if (current.source === 'config') throw StoreReadOnlyError.forAgent(id, current.origin);
      const next = { ...current, ...values };
      // Saved unchanged: nothing to write or announce.
      if (next.name === current.name && next.description === current.description) return agentRecordOf(current);
      const updatedAt = nowIso();
      await trx
        .updateTable('agents')
        .set({ ...values, updated_at: updatedAt })
        .where('id', '=', id)
        .where('workspace_id', '=', workspace)
        .execute();
      changes.push({ workspaceId: workspace, agentId: id, kind: 'agent' });
      return agentRecordOf({ ...next, updated_at: updatedAt });
    });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(id)) return false;
    const key = cacheKey(workspaceId, id);
    // Before the commit, so change listeners read the new list, and again once the write settled.
    const drop = () => readCachesOf(this.#context).attachments.invalidate((cached) => cached === key);
    return writeDropping(this.#context, drop, async (trx, changes) => {
      const current = await trx
        .selectFrom('agents')
        .select(['source', 'origin'])
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      if (current === undefined) return false;
      if (current.source === 'config') throw StoreReadOnlyError.forAgent(id, current.origin);
      // agent_tools rows go with the agent (ON DELETE CASCADE).
      const result = await trx
        .deleteFrom('agents')
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      const deleted = result.numDeletedRows > 0n;
      if (deleted) changes.push({ workspaceId, agentId: id, kind: 'agent' });
      return deleted;
    });
  }
}

function agentNotFound(workspaceId: string, id: unknown): StoreNotFoundError {
  return new StoreNotFoundError(
    'agent',
    String(id),
    `Agent '${String(id)}' does not exist in workspace '${workspaceId}'.`,
  );
}
