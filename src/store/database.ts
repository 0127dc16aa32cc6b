import type { ColumnType, Generated } from 'kysely';

/**
 * A timestamp column: written as ISO-8601 text; read back as that text on SQLite and as a `Date` on
 * PostgreSQL (`timestamptz`). The store turns both into ISO-8601 strings.
 */
export type TimestampColumn = ColumnType<string | Date, string | undefined, string>;

/** A nullable {@link TimestampColumn}. */
export type NullableTimestampColumn = ColumnType<string | Date | null, string | null | undefined, string | null>;

/** `workspaces`: the tenants; every other row belongs to one (global tools excepted). */
export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: TimestampColumn;
  /** 1 when the workspace chose its default tool set (`workspace_default_tools`); 0: every tool it sees. */
  custom_default_tools: ColumnType<number, number | undefined, number>;
}

/** `api_tokens`: bearer tokens, stored as SHA-256 hashes only. */
export interface ApiTokensTable {
  id: string;
  workspace_id: string;
  /** Lowercase hex SHA-256 of the whole token text. */
  token_hash: string;
  name: string;
  created_at: TimestampColumn;
  revoked_at: NullableTimestampColumn;
}

/** `tools`: global built-ins (`workspace_id` NULL) and workspace tools. JSON columns hold JSON text. */
export interface ToolsTable {
  id: string;
  workspace_id: string | null;
  name: string;
  description: string;
  parameters_schema: string;
  handler_key: string;
  category: ColumnType<string, string | undefined, string>;
  created_at: TimestampColumn;
  when_to_use: string | null;
  annotations: ColumnType<string, string | undefined, string>;
  requires: ColumnType<string, string | undefined, string>;
  config: string | null;
  /** Where the tool came from: `builtin`, `config`, `module`, `mcp:<server>`, `api` or `code`. */
  source: ColumnType<string, string | undefined, string>;
  /** The configuration file a synced row came from; `null` for the others. */
  origin: ColumnType<string | null, string | null | undefined, string | null>;
  /** SHA-256 (hex) of what the row was built from; a sync skips rows whose hash did not change. */
  definition_hash: ColumnType<string | null, string | null | undefined, string | null>;
  updated_at: NullableTimestampColumn;
  /** The tool's tags, a JSON array of strings (`'[]'` for none). */
  tags: ColumnType<string, string | undefined, string>;
  /** The tool's example arguments, a JSON array of objects; `null` when it has none. */
  input_examples: ColumnType<string | null, string | null | undefined, string | null>;
  /** The tool's `execution.taskSupport` (`forbidden`, `optional`, `required`); `null` when it declares none. */
  task_support: ColumnType<string | null, string | null | undefined, string | null>;
}

/** `agents`: each belongs to one workspace. */
export interface AgentsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  created_at: TimestampColumn;
  /** `api` (created through the API) or `config` (synced from a configuration file, which owns it). */
  source: ColumnType<string, string | undefined, string>;
  /** The configuration file of a `config` agent. */
  origin: ColumnType<string | null, string | null | undefined, string | null>;
  updated_at: NullableTimestampColumn;
  /** 1 once any tool was attached: the agent no longer falls back to the workspace's default set. */
  had_attachments: ColumnType<number, number | undefined, number>;
}

/** `agent_tools`: which tools an agent may use, with a per-attachment config (JSON text). */
export interface AgentToolsTable {
  agent_id: string;
  tool_id: string;
  config: string | null;
  created_at: TimestampColumn;
}

/** `files`: the virtual filesystem, one row per file; folders are implied by paths. */
export interface FilesTable {
  workspace_id: string;
  /** Normalized virtual path (`/a/b.txt`). */
  path: string;
  content: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
  size: number;
  updated_at: TimestampColumn;
}

/** `tool_calls`: the call log. `id` increases with every call (PostgreSQL returns it as text). */
export interface ToolCallsTable {
  id: Generated<number | string>;
  workspace_id: string;
  agent_id: string | null;
  tool_id: string;
  status: string;
  error_code: string | null;
  duration_ms: number;
  created_at: TimestampColumn;
  token_id: string | null;
  approval_id: string | null;
  arguments_digest: string | null;
  /** PostgreSQL returns the `bigint` as text. */
  result_bytes: number | string | null;
}

/** A call's `tool_calls` columns as the store writes them, before its id is known. */
export interface ToolCallValues {
  workspace_id: string;
  agent_id: string | null;
  tool_id: string;
  status: string;
  error_code: string | null;
  duration_ms: number;
  created_at: string;
  token_id: string | null;
  approval_id: string | null;
  arguments_digest: string | null;
  result_bytes: number | null;
}

/** `approvals`: calls waiting for, or past, a person's decision. */
export interface ApprovalsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  tool_id: string;
  tool_call_id: string | null;
  /** Canonical JSON (sorted keys) of the arguments the approver saw. */
  arguments: string;
  status: ColumnType<string, string | undefined, string>;
  created_at: TimestampColumn;
  decided_at: NullableTimestampColumn;
}

/**
 * `secrets`: each workspace's named secrets for its REST tools. `value_encrypted` is AES-256-GCM
 * ciphertext (see `secret-cipher.ts`); the plaintext is never stored.
 *
 * @example
 * ```ts
 * const names = await store.db.selectFrom('secrets').select('name').where('workspace_id', '=', 'acme').execute();
 * ```
 */
export interface SecretsTable {
  workspace_id: string;
  /** Like an environment variable name: `^[A-Za-z_][A-Za-z0-9_]{0,127}$`. */
  name: string;
  value_encrypted: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
  created_at: TimestampColumn;
  updated_at: TimestampColumn;
}

/**
 * The Kysely schema of the store: one property per table, SQL column names as in the database-backed
 * registry design (`parameters_schema`, `handler_key`, ...).
 *
 * @example
 * ```ts
 * const rows = await store.db.selectFrom('tools').select(['id', 'category']).where('workspace_id', 'is', null).execute();
 * ```
 */
export interface Database {
  workspaces: WorkspacesTable;
  api_tokens: ApiTokensTable;
  tools: ToolsTable;
  agents: AgentsTable;
  agent_tools: AgentToolsTable;
  files: FilesTable;
  tool_calls: ToolCallsTable;
  approvals: ApprovalsTable;
  secrets: SecretsTable;
  mcp_catalog: McpCatalogTable;
  workspace_default_tools: WorkspaceToolSetTable;
  workspace_hidden_tools: Omit<WorkspaceToolSetTable, 'created_at'>;
  upstream_pins: UpstreamPinsTable;
  call_limits: CallLimitsTable;
  call_limit_buckets: CallLimitBucketsTable;
  call_limit_leases: CallLimitLeasesTable;
  call_limit_locks: { key: string };
  mcp_sessions: McpSessionsTable;
  mcp_stream_events: McpStreamEventsTable;
  mcp_tasks: McpTasksTable;
}

/**
 * `mcp_tasks`: MCP tasks of each workspace and agent view (times in epoch milliseconds; PostgreSQL
 * returns each `bigint` as text).
 *
 * @example
 * ```ts
 * const working = await store.db.selectFrom('mcp_tasks').select('id').where('status', '=', 'working').execute();
 * ```
 */
export interface McpTasksTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  tool: string;
  /** `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  status: string;
  status_message: string | null;
  /** The stored `tools/call` result, JSON text; `null` until the task ends. */
  result: string | null;
  ttl_ms: number | string;
  poll_interval_ms: number;
  /** The server running the task; `null` once it ended. */
  owner: string | null;
  lease_expires_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
  expires_at: number | string;
}

/**
 * `mcp_sessions`: MCP sessions any server on the database may answer (times in epoch milliseconds).
 *
 * @example
 * ```ts
 * const live = await store.db.selectFrom('mcp_sessions').select('id').where('expires_at', '>', Date.now()).execute();
 * ```
 */
export interface McpSessionsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  token_id: string | null;
  scope: string;
  protocol_version: string;
  /** JSON text. */
  client_info: string;
  /** JSON text. */
  client_capabilities: string;
  created_at: TimestampColumn;
  /** PostgreSQL returns the `bigint` as text. */
  last_seen_at: number | string;
  expires_at: number | string;
}

/**
 * `mcp_stream_events`: events of MCP sessions' SSE streams kept for a client that resumes its stream on
 * another server (times in epoch milliseconds).
 *
 * @example
 * ```ts
 * const kept = await store.db.selectFrom('mcp_stream_events').select(['stream_key', 'seq']).where('session_id', '=', id).execute();
 * ```
 */
export interface McpStreamEventsTable {
  session_id: string;
  stream_key: string;
  /** PostgreSQL returns the `bigint` as text. */
  seq: number | string;
  /** JSON text; `null` for a priming event. */
  message: string | null;
  expires_at: number | string;
}

/**
 * `upstream_pins`: per workspace, MCP server and upstream tool name, the tool's approved definition
 * (canonical JSON text and its SHA-256) and, while the server lists another one, that pending change.
 */
export interface UpstreamPinsTable {
  workspace_id: string;
  server: string;
  tool: string;
  definition_hash: string;
  definition: string;
  approved_at: TimestampColumn;
  pending_hash: string | null;
  pending_definition: string | null;
  pending_since: NullableTimestampColumn;
}

/** `call_limits`: a workspace's rate limit and concurrency cap for one scope and target. */
export interface CallLimitsTable {
  workspace_id: string;
  scope: string;
  /** `''` for the workspace scope. */
  target: string;
  calls_per_minute: number | null;
  burst: number | null;
  max_concurrent: number | null;
  created_at: TimestampColumn;
  updated_at: TimestampColumn;
}

/** `call_limit_buckets`: a rate limit's token bucket (PostgreSQL returns the `bigint` as text). */
export interface CallLimitBucketsTable {
  key: string;
  tokens: number;
  refilled_at: number | string;
}

/** `call_limit_leases`: a call running under a concurrency cap, until it ends or its lease expires. */
export interface CallLimitLeasesTable {
  id: string;
  key: string;
  holder: string;
  expires_at: number | string;
}

/**
 * `workspace_default_tools` (the tools a workspace's default view serves, when it chose them) and
 * `workspace_hidden_tools` (global tools the workspace does not have): `tool_id` is a `tools.id` (a
 * global name or a workspace tool's key); both FKs cascade.
 */
export interface WorkspaceToolSetTable {
  workspace_id: string;
  tool_id: string;
  created_at: TimestampColumn;
}

/** `mcp_catalog`: the prompts, resources and resource templates each workspace serves over MCP. */
export interface McpCatalogTable {
  workspace_id: string;
  /** `prompt`, `resource` or `resource_template`. */
  kind: string;
  /** A prompt's name, a resource's URI or a template's URI template. */
  key: string;
  name: string;
  description: string | null;
  /** The declarative definition, JSON text. */
  definition: string;
  /** The agent ids whose endpoints serve it, a JSON array. */
  agents: ColumnType<string, string | undefined, string>;
  source: ColumnType<string, string | undefined, string>;
  origin: string | null;
  created_at: TimestampColumn;
  updated_at: TimestampColumn;
}
