/**
 * toolshed/store — the service's database: workspaces, API tokens, tools, agents and their tool
 * attachments, the virtual filesystem, the call log, approvals and workspace secrets, on SQLite
 * (better-sqlite3) or PostgreSQL (pg), through Kysely. Node-only: import it from this subpath, never from the root entry.
 * The query classes, dialects and change feeds behind `createStore` are internal and not exported.
 */

export { callLimitKey, MAX_CALL_LIMIT, MIN_CALLS_PER_MINUTE, requireCallLimit } from './call-limit-queries.js';
export { createStore, DEFAULT_STORE_PATH } from './create-store.js';
export type {
  AgentsTable,
  AgentToolsTable,
  ApiTokensTable,
  ApprovalsTable,
  CallLimitBucketsTable,
  CallLimitLeasesTable,
  CallLimitsTable,
  Database,
  FilesTable,
  McpSessionsTable,
  McpStreamEventsTable,
  McpTasksTable,
  NullableTimestampColumn,
  SecretsTable,
  TimestampColumn,
  ToolCallsTable,
  ToolsTable,
  WorkspacesTable,
} from './database.js';
export { MAX_DATABASE_FILE_BYTES } from './database-file-backend.js';
export { createPostgresStore } from './postgres/create-postgres-store.js';
export { CHANGE_CHANNEL, SIGNAL_CHANNEL } from './postgres/postgres-change-feed.js';
export { SECRET_KEY_ENV, SECRET_KEY_FILE_SUFFIX } from './secret-key.js';
export { requireSecretName } from './secret-queries.js';
export { createSqliteStore } from './sqlite/create-sqlite-store.js';
export type { SqliteDriver } from './sqlite/sqlite-driver.js';
export { StoreConflictError } from './store-conflict-error.js';
export type { StoreErrorCode } from './store-error.js';
export { StoreError } from './store-error.js';
export type { StoreResource } from './store-not-found-error.js';
export { StoreNotFoundError } from './store-not-found-error.js';
export type { StoreOptions } from './store-options.js';
export { StoreReadOnlyError } from './store-read-only-error.js';
export type {
  AgentRecord,
  AgentToolList,
  ApiTokenRecord,
  ApprovalRecord,
  ApprovalStatus,
  AttachedTool,
  CallLimitInput,
  CallLimitRecord,
  CallLimitScope,
  CreatedApiToken,
  McpCatalogKind,
  McpCatalogRecord,
  McpCatalogSyncInput,
  McpCatalogSyncResult,
  McpSessionInput,
  McpSessionRecord,
  McpSessionSignal,
  McpStreamEvent,
  McpTaskInput,
  McpTaskOutcome,
  McpTaskRecord,
  McpTaskStatus,
  MigrationReport,
  SecretRecord,
  SetSecretResult,
  SlotLease,
  StoreChange,
  StoreChangeKind,
  StoreChangeListener,
  StoreDialectName,
  TokenIdentity,
  TokenTaken,
  ToolCallInput,
  ToolCallRecord,
  ToolCallStatus,
  ToolRecord,
  ToolSourceName,
  UpstreamPinRecord,
  UpstreamPinReview,
  UpstreamToolDefinition,
  WorkspaceRecord,
} from './store-records.js';
export { CALL_LIMIT_SCOPES, isConfigSource, TOOL_CALL_STATUSES } from './store-records.js';
export { MCP_SERVER_NAME_PATTERN, RESOURCE_ID_PATTERN, SECRET_NAME_PATTERN, STORE_LIMITS } from './store-validation.js';
export { StoreValidationError } from './store-validation-error.js';
export type {
  AgentPatch,
  AgentSyncResult,
  BuiltinToolSpec,
  RecentToolCallsOptions,
  StoreAgents,
  StoreAttachments,
  StoreCallLimits,
  StoreMcpCatalog,
  StoreMcpSessions,
  StoreMcpStreamEvents,
  StoreMcpTasks,
  StoreSecrets,
  StoreTokens,
  StoreToolCalls,
  StoreTools,
  StoreUpstreamPins,
  StoreWorkspaces,
  SyncAgentsInput,
  SyncedToolInput,
  SyncToolsInput,
  ToolPatch,
  ToolSyncResult,
  ToolshedStore,
  UpsertBuiltinsOptions,
  UpsertBuiltinsResult,
  WorkspaceApprovalStore,
  WorkspaceToolInput,
  WorkspaceToolSet,
} from './toolshed-store.js';
