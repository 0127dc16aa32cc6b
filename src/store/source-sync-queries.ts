import { TOOL_NAME_PATTERN } from '../core/define-tool.js';
import { readCachesOf, workspaceKeys, writeDropping } from './read-cache.js';
import { nowIso, workspaceToolKey } from './row-mapping.js';
import type { StoreContext } from './store-context.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import { isConfigSource } from './store-records.js';
import {
  isPlainObject,
  optionalText,
  requireId,
  requireText,
  STORE_LIMITS,
  serializeJsonObject,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import { defaultToolRecords, definitionHash, specColumns, visibleTools } from './tool-rows.js';
import type {
  AgentSyncResult,
  SyncAgentsInput,
  SyncedToolInput,
  SyncToolsInput,
  ToolSyncResult,
  WorkspaceToolSet,
} from './toolshed-store.js';

/**
 * Make a workspace's configuration-owned rows match a configuration: its tools (`config`, `module`,
 * `mcp:<server>` rows), its agents (`config` agents with their attachments), and which global tools the
 * workspace has at all. Rows of other sources (`api`, `code`, global built-ins) are never written,
 * and a name one of them holds is reported as a conflict and skipped.
 *
 * @example
 * ```ts
 * const sync = new SourceSyncQueries(context);
 * await sync.syncTools('default', { origin: 'toolshed.yaml', tools: [{ ...spec, source: 'config' }] });
 * ```
 */
export class SourceSyncQueries {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** See `StoreTools.sync`. */
  async syncTools(workspaceId: string, input: SyncToolsInput): Promise<ToolSyncResult> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (typeof input !== 'object' || input === null || !Array.isArray(input.tools)) {
      throw new StoreValidationError('tools', 'A tool sync needs { origin, tools: [...] }.');
    }
    const origin = requireText(input.origin, 'origin', STORE_LIMITS.textChars);
    const keep = new Set(input.keepSources ?? []);
    const rows = new Map<string, SyncedRow>();
    for (const tool of input.tools) {
      const row = syncedRow(workspace, origin, tool);
      if (rows.has(row.name)) throw new StoreValidationError('tools', `Tool '${row.name}' is listed twice.`);
      rows.set(row.name, row);
    }
    const hidden = input.builtins === undefined ? undefined : [...new Set(input.builtins)];
    return this.#write(workspace, async (trx, changes) => {
      const result: ToolSyncResult = { added: [], updated: [], unchanged: [], removed: [], conflicts: [] };
      const exists = await trx.selectFrom('workspaces').select('id').where('id', '=', workspace).executeTakeFirst();
      if (exists === undefined) {
        throw new StoreNotFoundError('workspace', workspace, `Workspace '${workspace}' does not exist.`);
      }
      let changed = false;
      if (hidden !== undefined) {
        // The global tools the configuration leaves out are hidden in this workspace; the rest shown.
        const globals = await trx.selectFrom('tools').select('id').where('workspace_id', 'is', null).execute();
        const wanted = new Set(hidden);
        const hide = globals.map((row) => row.id).filter((id) => !wanted.has(id));
        const before = await trx
          .selectFrom('workspace_hidden_tools')
          .select('tool_id')
          .where('workspace_id', '=', workspace)
          .execute();
        const same = before.length === hide.length && before.every((row) => hide.includes(row.tool_id));
        if (!same) {
          await trx.deleteFrom('workspace_hidden_tools').where('workspace_id', '=', workspace).execute();
          if (hide.length > 0) {
            await trx
              .insertInto('workspace_hidden_tools')
              .values(hide.map((id) => ({ workspace_id: workspace, tool_id: id })))
              .execute();
          }
          changed = true;
        }
      }
      const visibleGlobals = new Set(
        (
          await trx
            .selectFrom('tools')
            .select('id')
            .where('workspace_id', 'is', null)
            .where('id', 'not in', (eb) =>
              eb.selectFrom('workspace_hidden_tools').select('tool_id').where('workspace_id', '=', workspace),
            )
            .execute()
        ).map((row) => row.id),
      );
      const existing = await trx.selectFrom('tools').selectAll().where('workspace_id', '=', workspace).execute();
      const byKey = new Map(existing.map((row) => [row.id, row]));
      for (const row of rows.values()) {
        const current = byKey.get(row.id);
        if (visibleGlobals.has(row.name) || (current !== undefined && !isConfigSource(current.source))) {
          result.conflicts.push(row.name);
          continue;
        }
        if (current === undefined) {
          // One reading for both: two could fall on either side of a millisecond.
          const now = nowIso();
          await trx
            .insertInto('tools')
            .values({ ...row.values, created_at: now, updated_at: now })
            .execute();
          result.added.push(row.name);
        } else if (current.definition_hash === row.values.definition_hash && current.source === row.values.source) {
          if (current.origin !== origin)
            await trx.updateTable('tools').set({ origin }).where('id', '=', row.id).execute();
          result.unchanged.push(row.name);
        } else {
          const { id: _id, workspace_id: _workspace, ...values } = row.values;
          await trx
            .updateTable('tools')
            .set({ ...values, updated_at: nowIso() })
            .where('id', '=', row.id)
            .execute();
          result.updated.push(row.name);
        }
      }
      for (const current of existing) {
        if (!isConfigSource(current.source) || keep.has(current.source)) continue;
        const name = current.id.slice(workspace.length + 1);
        if (rows.has(name)) continue;
        // Its attachments and default-set entries go with it (ON DELETE CASCADE).
        await trx.deleteFrom('tools').where('id', '=', current.id).execute();
        result.removed.push(name);
      }
      for (const list of [result.added, result.updated, result.unchanged, result.removed, result.conflicts])
        list.sort();
      if (changed || result.added.length + result.updated.length + result.removed.length > 0) {
        changes.push({ workspaceId: workspace, kind: 'tool' });
      }
      return result;
    });
  }

  /** See `StoreAgents.sync`. */
  async syncAgents(workspaceId: string, input: SyncAgentsInput): Promise<AgentSyncResult> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (typeof input !== 'object' || input === null || !Array.isArray(input.agents)) {
      throw new StoreValidationError('agents', 'An agent sync needs { origin, agents: [...] }.');
    }
    const origin = requireText(input.origin, 'origin', STORE_LIMITS.textChars);
    const listed: SyncAgentsInput['agents'] = input.agents;
    const agents = listed.map((agent) => {
      const id = requireId(agent.id, 'agents.id');
      return {
        id,
        name: agent.name === undefined ? id : requireText(agent.name, `${id}.name`, STORE_LIMITS.nameChars),
        description: optionalText(agent.description, `${id}.description`, STORE_LIMITS.textChars),
        tools: agent.tools.map((tool) => ({
          id: requireId(tool.toolId, `${id}.tools`, TOOL_NAME_PATTERN),
          config: serializeJsonObject(tool.config ?? null, `${id}.config`, STORE_LIMITS.configBytes),
        })),
      };
    });
    return this.#write(workspace, async (trx, changes) => {
      const result: AgentSyncResult = { added: [], updated: [], removed: [], conflicts: [], missingTools: [] };
      const existing = await trx
        .selectFrom('agents')
        .selectAll()
        .where('id', 'in', ['', ...agents.map((agent) => agent.id)])
        .execute();
      const byId = new Map(existing.map((row) => [row.id, row]));
      const now = nowIso();
      for (const agent of agents) {
        const current = byId.get(agent.id);
        if (current !== undefined && (current.workspace_id !== workspace || current.source !== 'config')) {
          result.conflicts.push(agent.id);
          continue;
        }
        const values = {
          name: agent.name,
          description: agent.description,
          source: 'config',
          origin,
          had_attachments: 1,
          updated_at: now,
        };
        if (current === undefined) {
          await trx
            .insertInto('agents')
            .values({ id: agent.id, workspace_id: workspace, created_at: now, ...values })
            .execute();
          result.added.push(agent.id);
        } else {
          await trx.updateTable('agents').set(values).where('id', '=', agent.id).execute();
          result.updated.push(agent.id);
        }
        await trx.deleteFrom('agent_tools').where('agent_id', '=', agent.id).execute();
        for (const tool of agent.tools) {
          const row = await trx
            .selectFrom('tools')
            .select('id')
            .where((eb) =>
              eb.or([
                eb.and([
                  eb('workspace_id', 'is', null),
                  eb('id', '=', tool.id),
                  eb(
                    'id',
                    'not in',
                    eb.selectFrom('workspace_hidden_tools').select('tool_id').where('workspace_id', '=', workspace),
                  ),
                ]),
                eb.and([eb('workspace_id', '=', workspace), eb('id', '=', workspaceToolKey(workspace, tool.id))]),
              ]),
            )
            .executeTakeFirst();
          if (row === undefined) {
            result.missingTools.push(`${agent.id}/${tool.id}`);
            continue;
          }
          await trx
            .insertInto('agent_tools')
            .values({ agent_id: agent.id, tool_id: row.id, config: tool.config, created_at: now })
            .onConflict((conflict) => conflict.columns(['agent_id', 'tool_id']).doNothing())
            .execute();
        }
        changes.push({ workspaceId: workspace, agentId: agent.id, kind: 'agent' });
      }
      const listed = new Set(agents.map((agent) => agent.id));
      const stale = await trx
        .selectFrom('agents')
        .select('id')
        .where('workspace_id', '=', workspace)
        .where('source', '=', 'config')
        .execute();
      for (const row of stale) {
        if (listed.has(row.id)) continue;
        await trx.deleteFrom('agents').where('id', '=', row.id).execute();
        result.removed.push(row.id);
        changes.push({ workspaceId: workspace, agentId: row.id, kind: 'agent' });
      }
      for (const list of Object.values(result)) list.sort();
      return result;
    });
  }

  /** See `StoreWorkspaces.defaultTools`. */
  async defaultToolSet(workspaceId: string): Promise<WorkspaceToolSet | undefined> {
    const workspace = await this.#context.dialect.db
      .selectFrom('workspaces')
      .select('custom_default_tools')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (workspace === undefined) return undefined;
    return {
      custom: Number(workspace.custom_default_tools) === 1,
      tools: await defaultToolRecords(this.#context, workspaceId),
    };
  }

  /** See `StoreWorkspaces.setDefaultTools`. */
  async setDefaultToolSet(workspaceId: string, toolIds: readonly string[] | null): Promise<WorkspaceToolSet> {
    const workspace = requireId(workspaceId, 'workspaceId');
    let ids: string[] | null = null;
    if (toolIds !== null) {
      if (!Array.isArray(toolIds))
        throw new StoreValidationError('toolIds', 'toolIds must be an array of tool ids or null.');
      if (toolIds.length > STORE_LIMITS.toolSetItems) {
        throw new StoreValidationError('toolIds', `A default set holds at most ${STORE_LIMITS.toolSetItems} tools.`);
      }
      ids = [...new Set(toolIds.map((id) => requireId(id, 'toolIds', TOOL_NAME_PATTERN)))];
    }
    await this.#write(workspace, async (trx, changes) => {
      const exists = await trx.selectFrom('workspaces').select('id').where('id', '=', workspace).executeTakeFirst();
      if (exists === undefined)
        throw new StoreNotFoundError('workspace', workspace, `Workspace '${workspace}' does not exist.`);
      await trx.deleteFrom('workspace_default_tools').where('workspace_id', '=', workspace).execute();
      if (ids !== null) {
        const keys = [...ids, ...ids.map((id) => workspaceToolKey(workspace, id))];
        const rows = ids.length === 0 ? [] : await visibleTools(trx, workspace).where('tools.id', 'in', keys).execute();
        const found = new Map(
          rows.map((row) => [row.workspace_id === null ? row.id : row.id.slice(workspace.length + 1), row.id]),
        );
        const missing = ids.find((id) => !found.has(id));
        if (missing !== undefined) {
          throw new StoreNotFoundError(
            'tool',
            missing,
            `Tool '${missing}' does not exist in workspace '${workspace}'.`,
          );
        }
        if (ids.length > 0) {
          const now = nowIso();
          await trx
            .insertInto('workspace_default_tools')
            .values(ids.map((id) => ({ workspace_id: workspace, tool_id: found.get(id) as string, created_at: now })))
            .execute();
        }
      }
      await trx
        .updateTable('workspaces')
        .set({ custom_default_tools: ids === null ? 0 : 1 })
        .where('id', '=', workspace)
        .execute();
      changes.push({ workspaceId: workspace, kind: 'tool' });
    });
    return (await this.defaultToolSet(workspace)) as WorkspaceToolSet;
  }

  #write<T>(workspaceId: string, work: Parameters<typeof writeDropping<T>>[2]): Promise<T> {
    const drop = () => {
      const caches = readCachesOf(this.#context);
      caches.tools.invalidate(workspaceKeys(workspaceId));
      caches.attachments.invalidate(workspaceKeys(workspaceId));
    };
    return writeDropping(this.#context, drop, work);
  }
}

interface SyncedRow {
  id: string;
  name: string;
  values: {
    id: string;
    workspace_id: string;
    name: string;
    description: string;
    parameters_schema: string;
    handler_key: string;
    category: string;
    when_to_use: string | null;
    annotations: string;
    requires: string;
    tags: string;
    input_examples: string | null;
    task_support: string | null;
    config: string | null;
    source: string;
    origin: string;
    definition_hash: string;
  };
}

function syncedRow(workspaceId: string, origin: string, tool: SyncedToolInput): SyncedRow {
  if (!isPlainObject(tool)) throw new StoreValidationError('tools', 'Each synced tool must be an object.');
  const name = requireId(tool.name, 'name', TOOL_NAME_PATTERN);
  const source = tool.source;
  if (typeof source !== 'string' || !isConfigSource(source) || source.length > STORE_LIMITS.nameChars) {
    throw new StoreValidationError(`${name}.source`, `A synced tool's source must be config, module or mcp:<server>.`);
  }
  const columns = specColumns(tool, name);
  const values = {
    id: workspaceToolKey(workspaceId, name),
    workspace_id: workspaceId,
    ...columns,
    handler_key: name,
    config: null,
    source,
    origin,
    definition_hash: '',
  };
  values.definition_hash = definitionHash(values);
  return { id: values.id, name, values };
}
