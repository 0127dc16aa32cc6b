import type { Selectable } from 'kysely';
import type { JsonObjectSchema } from '../core/json-schema.js';
import type { ToolAnnotations, ToolExecution, ToolRequirements } from '../core/tool-spec.js';
import type {
  AgentsTable,
  ApiTokensTable,
  ApprovalsTable,
  ToolCallsTable,
  ToolsTable,
  WorkspacesTable,
} from './database.js';
import type {
  AgentRecord,
  ApiTokenRecord,
  ApprovalRecord,
  ApprovalStatus,
  ToolCallRecord,
  ToolCallStatus,
  ToolRecord,
  ToolSourceName,
  WorkspaceRecord,
} from './store-records.js';

/**
 * The current time as the store writes it: ISO-8601 with milliseconds, UTC.
 *
 * @example
 * ```ts
 * nowIso(); // '2025-12-10T10:00:00.000Z'
 * ```
 */
export function nowIso(): string {
  // Formatting a date costs more than reading the clock: a busy call log asks many times a millisecond.
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * A timestamp column as ISO-8601 text: PostgreSQL gives a `Date`, SQLite the text the store wrote.
 *
 * @example
 * ```ts
 * toIsoTimestamp(new Date(0)); // '1970-01-01T00:00:00.000Z'
 * ```
 */
export function toIsoTimestamp(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** {@link toIsoTimestamp} for nullable columns. */
export function toNullableIsoTimestamp(value: string | Date | null): string | null {
  return value === null ? null : toIsoTimestamp(value);
}

/**
 * Parse a JSON column the store wrote; `null` stays `null`.
 *
 * @example
 * ```ts
 * parseJsonColumn('{"a":1}'); // { a: 1 }
 * ```
 */
export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** A `workspaces` row as a {@link WorkspaceRecord}. */
export function workspaceRecordOf(row: Selectable<WorkspacesTable>): WorkspaceRecord {
  return { id: row.id, name: row.name, createdAt: toIsoTimestamp(row.created_at) };
}

/** An `api_tokens` row as an {@link ApiTokenRecord} (the hash stays behind). */
export function apiTokenRecordOf(row: Omit<Selectable<ApiTokensTable>, 'token_hash'>): ApiTokenRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    createdAt: toIsoTimestamp(row.created_at),
    revokedAt: toNullableIsoTimestamp(row.revoked_at),
  };
}

/**
 * The `tools.id` of a workspace tool. Tool ids are unique per workspace, not per database, so a
 * workspace tool's row is keyed by its workspace and its id; global tool names never contain `/`
 * and workspace ids cannot, so the two kinds of key never collide.
 *
 * @example
 * ```ts
 * workspaceToolKey('acme', 'my_company_api'); // 'acme/my_company_api'
 * ```
 */
export function workspaceToolKey(workspaceId: string, id: string): string {
  return `${workspaceId}/${id}`;
}

/** The id clients see for a `tools` row: the global name, or a workspace tool's own id. */
export function exposedToolId(row: { id: string; workspace_id: string | null }): string {
  return row.workspace_id === null ? row.id : row.id.slice(row.workspace_id.length + 1);
}

/** A `tools` row as a {@link ToolRecord}, its JSON columns parsed. */
export function toolRecordOf(row: Selectable<ToolsTable>): ToolRecord {
  return {
    id: exposedToolId(row),
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    parametersSchema: JSON.parse(row.parameters_schema) as JsonObjectSchema,
    handlerKey: row.handler_key,
    category: row.category,
    whenToUse: row.when_to_use,
    annotations: parseJsonColumn<ToolAnnotations>(row.annotations) ?? {},
    requires: parseJsonColumn<ToolRequirements>(row.requires) ?? {},
    tags: parseJsonColumn<string[]>(row.tags ?? '[]') ?? [],
    inputExamples: parseJsonColumn<Array<Record<string, unknown>>>(row.input_examples ?? null) ?? [],
    execution: executionOf(row.task_support ?? null),
    config: parseJsonColumn<Record<string, unknown>>(row.config),
    source: row.source as ToolSourceName,
    origin: row.origin,
    definitionHash: row.definition_hash,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at ?? row.created_at),
  };
}

/** The `task_support` column as a tool's `execution`: `{}` when it declares none. */
function executionOf(taskSupport: string | null): ToolExecution {
  return taskSupport === 'forbidden' || taskSupport === 'optional' || taskSupport === 'required' ? { taskSupport } : {};
}

/** An `agents` row as an {@link AgentRecord}. */
export function agentRecordOf(row: Selectable<AgentsTable>): AgentRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    source: row.source === 'config' ? 'config' : 'api',
    origin: row.origin,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at ?? row.created_at),
  };
}

/** A `tool_calls` row as a {@link ToolCallRecord} (PostgreSQL returns the `bigint` id as text). */
export function toolCallRecordOf(row: Selectable<ToolCallsTable>): ToolCallRecord {
  return {
    id: Number(row.id),
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    toolId: row.tool_id,
    status: row.status as ToolCallStatus,
    errorCode: row.error_code,
    durationMs: row.duration_ms,
    createdAt: toIsoTimestamp(row.created_at),
    tokenId: row.token_id ?? null,
    approvalId: row.approval_id ?? null,
    argumentsDigest: row.arguments_digest ?? null,
    resultBytes: row.result_bytes === null || row.result_bytes === undefined ? null : Number(row.result_bytes),
  };
}

/** An `approvals` row as an {@link ApprovalRecord}. */
export function approvalRecordOf(row: Selectable<ApprovalsTable>): ApprovalRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    toolId: row.tool_id,
    toolCallId: row.tool_call_id,
    arguments: row.arguments,
    status: row.status as ApprovalStatus,
    createdAt: toIsoTimestamp(row.created_at),
    decidedAt: toNullableIsoTimestamp(row.decided_at),
  };
}
