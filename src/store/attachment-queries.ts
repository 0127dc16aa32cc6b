import type { Kysely } from 'kysely';
import { TOOL_NAME_PATTERN } from '../core/define-tool.js';
import type { Database } from './database.js';
import { cacheKey, readCachesOf, writeDropping } from './read-cache.js';
import { nowIso, parseJsonColumn, toIsoTimestamp, toolRecordOf, workspaceToolKey } from './row-mapping.js';
import { StoreConflictError } from './store-conflict-error.js';
import type { StoreContext } from './store-context.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import type { AgentToolList, AttachedTool, StoreChange } from './store-records.js';
import { isWellFormedId, requireId, STORE_LIMITS, serializeJsonObject } from './store-validation.js';
import { defaultToolRecords, sortById, visibleToolById, visibleTools } from './tool-rows.js';
import type { StoreAttachments } from './toolshed-store.js';

/**
 * The `agent_tools` part of a store: which tools each agent may use, and with what config.
 *
 * @example
 * ```ts
 * await store.attachments.attach('acme', 'research', 'email_search', { default_limit: 20 });
 * const { tools, fallback } = await store.attachments.listAttachments('acme', 'research'); // fallback: false
 * ```
 */
export class AttachmentQueries implements StoreAttachments {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async attach(
    workspaceId: string,
    agentId: string,
    toolId: string,
    config?: Record<string, unknown> | null,
  ): Promise<AttachedTool> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const agent = requireId(agentId, 'agentId');
    const tool = requireId(toolId, 'toolId', TOOL_NAME_PATTERN);
    const configText = serializeJsonObject(config, 'config', STORE_LIMITS.configBytes);
    const rowLocks = this.#context.dialect.supportsRowLocks;
    try {
      return await this.#writeDroppingList(workspace, agent, async (trx, changes) => {
        // FOR KEY SHARE (where rows can be locked) keeps the agent and the tool from being deleted
        // until this commits; SQLite writers are serialized by BEGIN IMMEDIATE already.
        const agentRow = await trx
          .selectFrom('agents')
          .select('id')
          .where('id', '=', agent)
          .where('workspace_id', '=', workspace)
          .$if(rowLocks, (query) => query.forKeyShare())
          .executeTakeFirst();
        if (agentRow === undefined) throw agentNotFound(workspace, agent);
        const toolRow = await visibleToolById(trx, workspace, tool)
          .$if(rowLocks, (query) => query.forKeyShare())
          .executeTakeFirst();
        if (toolRow === undefined) {
          throw new StoreNotFoundError('tool', tool, `Tool '${tool}' does not exist in workspace '${workspace}'.`);
        }
        const inserted = await trx
          .insertInto('agent_tools')
          .values({ agent_id: agent, tool_id: toolRow.id, config: configText, created_at: nowIso() })
          .onConflict((conflict) => conflict.columns(['agent_id', 'tool_id']).doNothing())
          .returning('created_at')
          .executeTakeFirst();
        if (inserted === undefined) {
          throw new StoreConflictError(
            'attachment',
            `${agent}/${tool}`,
            `Tool '${tool}' is already attached to agent '${agent}'; detach it first to change its config.`,
          );
        }
        // From now on the agent has its own tools: detaching the last one leaves it with none.
        await trx.updateTable('agents').set({ had_attachments: 1 }).where('id', '=', agent).execute();
        changes.push({ workspaceId: workspace, agentId: agent, kind: 'attachment' });
        return {
          tool: toolRecordOf(toolRow),
          config: parseJsonColumn<Record<string, unknown>>(configText),
          attachedAt: toIsoTimestamp(inserted.created_at),
        };
      });
    } catch (error) {
      if (this.#context.dialect.classifyError(error) === 'foreign-key') {
        throw new StoreNotFoundError(
          'attachment',
          `${agent}/${tool}`,
          `Agent '${agent}' or tool '${tool}' was deleted while attaching.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  async detach(workspaceId: string, agentId: string, toolId: string): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(agentId) || !isWellFormedId(toolId, TOOL_NAME_PATTERN)) {
      return false;
    }
    return this.#writeDroppingList(workspaceId, agentId, async (trx, changes) => {
      const result = await trx
        .deleteFrom('agent_tools')
        .where('agent_id', '=', agentId)
        // The agent is the workspace's, so its row can only hold a global name or this workspace's key.
        .where('tool_id', 'in', [toolId, workspaceToolKey(workspaceId, toolId)])
        .where('agent_id', 'in', (eb) =>
          eb.selectFrom('agents').select('id').where('id', '=', agentId).where('workspace_id', '=', workspaceId),
        )
        .executeTakeFirst();
      const deleted = result.numDeletedRows > 0n;
      if (deleted) changes.push({ workspaceId, agentId, kind: 'attachment' });
      return deleted;
    });
  }

  async listAttachments(workspaceId: string, agentId: string): Promise<AgentToolList> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(agentId)) throw agentNotFound(workspaceId, agentId);
    // Read on every request of an agent's tools: kept briefly, dropped by this store's writes to it.
    const list = await readCachesOf(this.#context).attachments.get(cacheKey(workspaceId, agentId), () =>
      this.#loadAttachments(workspaceId, agentId),
    );
    return { ...list, tools: [...list.tools] };
  }

  async #writeDroppingList<T>(
    workspaceId: string,
    agentId: string,
    work: (trx: Kysely<Database>, changes: StoreChange[]) => Promise<T>,
  ): Promise<T> {
    const key = cacheKey(workspaceId, agentId);
    // Before the commit, so change listeners read the new list, and again once the write settled.
    const drop = () => readCachesOf(this.#context).attachments.invalidate((cached) => cached === key);
    return writeDropping(this.#context, drop, async (trx, changes) => {
      const result = await work(trx, changes);
      return result;
    });
  }

  async #loadAttachments(workspaceId: string, agentId: string): Promise<AgentToolList> {
    const db = this.#context.dialect.db;
    const agent = await db
      .selectFrom('agents')
      .select(['id', 'had_attachments'])
      .where('id', '=', agentId)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (agent === undefined) throw agentNotFound(workspaceId, agentId);
    const rows = await visibleTools(db, workspaceId)
      .innerJoin('agent_tools', 'agent_tools.tool_id', 'tools.id')
      .select(['agent_tools.config as attachment_config', 'agent_tools.created_at as attached_at'])
      .where('agent_tools.agent_id', '=', agentId)
      .execute();
    if (rows.length > 0) {
      const tools = rows.map((row) => ({
        tool: toolRecordOf(row),
        config: parseJsonColumn<Record<string, unknown>>(row.attachment_config),
        attachedAt: toIsoTimestamp(row.attached_at),
      }));
      return { agentId, fallback: false, tools: sortById(tools, (each) => each.tool.id) };
    }
    // An agent that ever had a tool attached keeps exactly its attachments: removing access never widens it.
    if (Number(agent.had_attachments) === 1) return { agentId, fallback: false, tools: [] };
    const tools = (await defaultToolRecords(this.#context, workspaceId)).map((tool) => ({
      tool,
      config: null,
      attachedAt: null,
    }));
    return { agentId, fallback: true, tools };
  }
}

function agentNotFound(workspaceId: string, agentId: string): StoreNotFoundError {
  return new StoreNotFoundError(
    'agent',
    String(agentId),
    `Agent '${String(agentId)}' does not exist in workspace '${String(workspaceId)}'.`,
  );
}
