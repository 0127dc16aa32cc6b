import { describeValue } from '../core/define-tool.js';
import { nowIso, toolCallRecordOf } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { TOOL_CALL_STATUSES, type ToolCallInput, type ToolCallRecord, type ToolCallStatus } from './store-records.js';
import {
  isPlainObject,
  isWellFormedId,
  requireId,
  requireLimit,
  requireText,
  STORE_LIMITS,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { RecentToolCallsOptions, StoreToolCalls } from './toolshed-store.js';

/**
 * The `tool_calls` part of a store: the call log behind `GET /api/calls`.
 *
 * Tool ids are logged as the caller gave them (a model may call a tool that does not exist), so they
 * are checked for type and length only.
 *
 * @example
 * ```ts
 * await store.toolCalls.record('acme', { agentId: 'research', toolId: 'read_file', status: 'success', durationMs: 12 });
 * await store.toolCalls.listRecent('acme', { agentId: 'research', limit: 20 });
 * ```
 */
export class ToolCallQueries implements StoreToolCalls {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async record(workspaceId: string, call: ToolCallInput): Promise<ToolCallRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(call)) throw new StoreValidationError('call', 'A tool call must be an object.');
    const agentId = call.agentId === undefined || call.agentId === null ? null : requireId(call.agentId, 'agentId');
    const toolId = requireText(call.toolId, 'toolId', STORE_LIMITS.nameChars);
    if (!TOOL_CALL_STATUSES.includes(call.status)) {
      throw new StoreValidationError(
        'status',
        `status ${describeValue(call.status)} is invalid: use one of ${TOOL_CALL_STATUSES.join(', ')}.`,
      );
    }
    const errorCode =
      call.errorCode === undefined || call.errorCode === null
        ? null
        : requireText(call.errorCode, 'errorCode', STORE_LIMITS.nameChars);
    if (typeof call.durationMs !== 'number' || !Number.isFinite(call.durationMs) || call.durationMs < 0) {
      throw new StoreValidationError(
        'durationMs',
        `durationMs must be a finite number of at least 0, got ${describeValue(call.durationMs)}.`,
      );
    }
    const createdAt = call.createdAt === undefined ? nowIso() : isoTimestamp(call.createdAt);
    try {
      const row = await this.#context.write((trx) =>
        trx
          .insertInto('tool_calls')
          .values({
            workspace_id: workspace,
            agent_id: agentId,
            tool_id: toolId,
            status: call.status satisfies ToolCallStatus,
            error_code: errorCode,
            duration_ms: Math.round(call.durationMs),
            created_at: createdAt,
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
      return toolCallRecordOf(row);
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }

  async listRecent(workspaceId: string, options: RecentToolCallsOptions = {}): Promise<ToolCallRecord[]> {
    if (!isPlainObject(options)) throw new StoreValidationError('options', 'listRecent options must be an object.');
    const limit = requireLimit(options.limit, 50, STORE_LIMITS.recentCalls);
    const { agentId, toolId } = options;
    for (const [field, value] of [
      ['agentId', agentId],
      ['toolId', toolId],
    ] as const) {
      if (value !== undefined && typeof value !== 'string') {
        throw new StoreValidationError(field, `${field} must be a string, got ${describeValue(value)}.`);
      }
    }
    if (!isWellFormedId(workspaceId)) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('tool_calls')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .$if(agentId !== undefined, (query) => query.where('agent_id', '=', agentId as string))
      .$if(toolId !== undefined, (query) => query.where('tool_id', '=', toolId as string))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toolCallRecordOf);
  }
}

function isoTimestamp(value: unknown): string {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new StoreValidationError(
      'createdAt',
      `createdAt must be an ISO-8601 timestamp, got ${describeValue(value)}.`,
    );
  }
  return new Date(time).toISOString();
}
