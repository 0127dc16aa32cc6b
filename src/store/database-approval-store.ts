import { type Selectable, sql } from 'kysely';
import { canonicalJson, type PendingApproval } from '../core/approvals.js';
import { describeValue } from '../core/define-tool.js';
import type { ApprovalsTable } from './database.js';
import { approvalRecordOf, nowIso } from './row-mapping.js';
import { StoreConflictError } from './store-conflict-error.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import type { ApprovalRecord } from './store-records.js';
import { isPlainObject, isWellFormedId, requireId, requireText, STORE_LIMITS } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { WorkspaceApprovalStore } from './toolshed-store.js';

/**
 * The registry's approval store over the `approvals` table, for one workspace.
 *
 * `take` is one conditional `UPDATE ... WHERE status IN ('pending', 'approved') RETURNING`, so of any
 * number of concurrent takers, in this process or another, exactly one gets the approval; `decide`
 * works the same way from `pending`. Ids of another workspace's approvals behave as unknown ids.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry({ approvals: store.approvals('acme') });
 * // ... a call returns pending_approval with approval.id
 * await store.approvals('acme').decide(approvalId, 'approve');
 * const result = await registry.resolveApproval(approvalId, 'approve'); // runs exactly once
 * ```
 */
export class DatabaseApprovalStore implements WorkspaceApprovalStore {
  readonly #context: StoreContext;
  readonly #workspaceId: string;

  constructor(context: StoreContext, workspaceId: string) {
    this.#context = context;
    this.#workspaceId = requireId(workspaceId, 'workspaceId');
  }

  async save(approval: PendingApproval): Promise<void> {
    if (!isPlainObject(approval)) throw new StoreValidationError('approval', 'An approval must be an object.');
    const id = requireId(approval.id, 'id');
    const toolId = requireText(approval.tool, 'tool', STORE_LIMITS.nameChars);
    const argumentsText = canonicalArguments(approval.arguments);
    const agentId = approval.agentId === undefined ? null : requireId(approval.agentId, 'agentId');
    const toolCallId =
      approval.toolCallId === undefined ? null : requireText(approval.toolCallId, 'toolCallId', STORE_LIMITS.nameChars);
    const createdAt =
      typeof approval.createdAt === 'string' && !Number.isNaN(Date.parse(approval.createdAt))
        ? new Date(approval.createdAt).toISOString()
        : nowIso();
    const workspace = this.#workspaceId;
    let inserted: { id: string } | undefined;
    try {
      inserted = await this.#context.write(async (trx, changes) => {
        const written = await trx
          .insertInto('approvals')
          .values({
            id,
            workspace_id: workspace,
            agent_id: agentId,
            tool_id: toolId,
            tool_call_id: toolCallId,
            arguments: argumentsText,
            status: 'pending',
            created_at: createdAt,
          })
          .onConflict((conflict) => conflict.doNothing())
          .returning('id')
          .executeTakeFirst();
        if (written !== undefined) changes.push(approvalChange(workspace, agentId));
        return written;
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
    if (inserted === undefined) throw new StoreConflictError('approval', id, `Approval '${id}' already exists.`);
  }

  async get(id: string): Promise<PendingApproval | undefined> {
    if (!isWellFormedId(id)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('approvals')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', this.#workspaceId)
      .where('status', 'in', ['pending', 'approved'])
      .executeTakeFirst();
    return row === undefined ? undefined : pendingApprovalOf(row);
  }

  async take(id: string): Promise<PendingApproval | undefined> {
    if (!isWellFormedId(id)) return undefined;
    const workspace = this.#workspaceId;
    const row = await this.#context.write(async (trx, changes) => {
      const taken = await trx
        .updateTable('approvals')
        .set({ status: 'used', decided_at: sql<string>`coalesce(decided_at, ${nowIso()})` })
        .where('id', '=', id)
        .where('workspace_id', '=', workspace)
        .where('status', 'in', ['pending', 'approved'])
        .returningAll()
        .executeTakeFirst();
      if (taken !== undefined) changes.push(approvalChange(workspace, taken.agent_id));
      return taken;
    });
    return row === undefined ? undefined : pendingApprovalOf(row);
  }

  async decide(id: string, decision: 'approve' | 'deny'): Promise<ApprovalRecord> {
    if (decision !== 'approve' && decision !== 'deny') {
      throw new StoreValidationError(
        'decision',
        `decision must be 'approve' or 'deny', got ${describeValue(decision)}.`,
      );
    }
    const workspace = this.#workspaceId;
    if (!isWellFormedId(id)) throw approvalNotFound(String(id), workspace);
    const row = await this.#context.write(async (trx, changes) => {
      const decided = await trx
        .updateTable('approvals')
        .set({ status: decision === 'approve' ? 'approved' : 'denied', decided_at: nowIso() })
        .where('id', '=', id)
        .where('workspace_id', '=', workspace)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
      if (decided !== undefined) changes.push(approvalChange(workspace, decided.agent_id));
      return decided;
    });
    if (row !== undefined) return approvalRecordOf(row);
    const current = await this.getRecord(id);
    if (current === undefined) throw approvalNotFound(id, workspace);
    throw new StoreConflictError('approval', id, `Approval '${id}' was already decided (${current.status}).`);
  }

  async getRecord(id: string): Promise<ApprovalRecord | undefined> {
    if (!isWellFormedId(id)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('approvals')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', this.#workspaceId)
      .executeTakeFirst();
    return row === undefined ? undefined : approvalRecordOf(row);
  }
}

function canonicalArguments(value: unknown): string {
  if (typeof value !== 'string') {
    throw new StoreValidationError('arguments', `arguments must be JSON text, got ${describeValue(value)}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new StoreValidationError('arguments', 'arguments are not valid JSON.', { cause: error });
  }
  const text = canonicalJson(parsed);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > STORE_LIMITS.argumentsBytes) {
    throw new StoreValidationError(
      'arguments',
      `arguments are ${bytes} bytes of JSON; the limit is ${STORE_LIMITS.argumentsBytes} bytes.`,
    );
  }
  return text;
}

function pendingApprovalOf(row: Selectable<ApprovalsTable>): PendingApproval {
  const record = approvalRecordOf(row);
  const approval: PendingApproval = {
    id: record.id,
    tool: record.toolId,
    arguments: record.arguments,
    createdAt: record.createdAt,
  };
  if (record.toolCallId !== null) approval.toolCallId = record.toolCallId;
  if (record.agentId !== null) approval.agentId = record.agentId;
  return approval;
}

function approvalChange(workspaceId: string, agentId: string | null) {
  return agentId === null
    ? { workspaceId, kind: 'approval' as const }
    : { workspaceId, agentId, kind: 'approval' as const };
}

function approvalNotFound(id: string, workspaceId: string): StoreNotFoundError {
  return new StoreNotFoundError('approval', id, `Approval '${id}' does not exist in workspace '${workspaceId}'.`);
}
