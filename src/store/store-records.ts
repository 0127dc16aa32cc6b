import type { JsonObjectSchema } from '../core/json-schema.js';
import type { ToolAnnotations, ToolExecution, ToolRequirements } from '../core/tool-spec.js';

/** The SQL dialects the store runs on. */
export type StoreDialectName = 'sqlite' | 'postgres';

/** A tenant: tokens, workspace tools, agents, files, calls and approvals all belong to one. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  /** ISO-8601. */
  createdAt: string;
}

/** An API token's metadata; the token itself is never stored (only its SHA-256 hash). */
export interface ApiTokenRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: string;
  /** When it was revoked; revoked tokens no longer verify. */
  revokedAt: string | null;
}

/** A token just created: the only time its plaintext `token` is available. */
export interface CreatedApiToken extends ApiTokenRecord {
  /** `tsk_<32 hex>_<43 base64url>`: show it once, then forget it. */
  token: string;
}

/** Who a verified token speaks for. */
export interface TokenIdentity {
  tokenId: string;
  workspaceId: string;
}

/**
 * Where a tool row came from: `builtin` (the service's own, global), `config` (a YAML definition or
 * `custom_tools` REST tool of the configuration), `module` (a TypeScript/JavaScript module the
 * configuration loads), `mcp:<server>` (imported from the configuration's MCP server), `api` (a REST
 * tool created through the API) or `code` (a Python or JavaScript tool created through the API).
 */
export type ToolSourceName = 'builtin' | 'config' | 'module' | 'api' | 'code' | `mcp:${string}`;

/** The sources a configuration owns: a sync upserts and prunes only rows of these. */
export function isConfigSource(source: string): boolean {
  return source === 'config' || source === 'module' || source.startsWith('mcp:');
}

/** A tool row: a global built-in (`workspaceId` null) or a tool of one workspace. */
export interface ToolRecord {
  /** Canonical tool name, `^[a-z][a-z0-9_]{0,63}$`. */
  id: string;
  /** `null` for global tools (built-ins), visible to every workspace. */
  workspaceId: string | null;
  /** Human-readable name ("Search Emails"). */
  name: string;
  description: string;
  parametersSchema: JsonObjectSchema;
  /** Which handler runs the tool (a built-in name, `rest_api`, ...). */
  handlerKey: string;
  category: string;
  whenToUse: string | null;
  annotations: ToolAnnotations;
  requires: ToolRequirements;
  /** Free-form labels (`["search", "internal"]`); empty when none. */
  tags: string[];
  /** Example arguments for the model, each valid against `parametersSchema`; empty when none. */
  inputExamples: Array<Record<string, unknown>>;
  /** How calls may run (`{ taskSupport: 'optional' }`: as MCP tasks); `{}` when the tool declares nothing. */
  execution: ToolExecution;
  /** Tool-level settings (a REST tool's endpoint, ...); `null` when none. */
  config: Record<string, unknown> | null;
  /** Where the tool came from. */
  source: ToolSourceName;
  /** The configuration file a synced tool came from; `null` for the others. */
  origin: string | null;
  /** SHA-256 (hex) of what the row was built from; `null` for rows written before sources existed. */
  definitionHash: string | null;
  createdAt: string;
  /** ISO-8601, when the row last changed. */
  updatedAt: string;
}

/** An agent of a workspace. */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  /** `api` (created through the API) or `config` (owned by a configuration file: read-only over the API). */
  source: 'api' | 'config';
  /** The configuration file of a `config` agent; `null` for the others. */
  origin: string | null;
  createdAt: string;
  /** ISO-8601, when the agent last changed. */
  updatedAt: string;
}

/** One tool an agent may use, with the agent's config for it. */
export interface AttachedTool {
  tool: ToolRecord;
  /** The per-attachment config; `null` when none was given, and for fallback tools. */
  config: Record<string, unknown> | null;
  /** When it was attached; `null` for fallback tools. */
  attachedAt: string | null;
}

/** What `listAttachments` returns: the agent's tools, or the workspace default set. */
export interface AgentToolList {
  agentId: string;
  /** True when the agent has no attachments and `tools` is the workspace default set. */
  fallback: boolean;
  /** Sorted by tool id. */
  tools: AttachedTool[];
}

/** How a logged tool call ended: a `ToolResult` status. */
export type ToolCallStatus = 'success' | 'error' | 'timeout' | 'cancelled' | 'pending_approval';

/** Every {@link ToolCallStatus}. */
export const TOOL_CALL_STATUSES: readonly ToolCallStatus[] = Object.freeze([
  'success',
  'error',
  'timeout',
  'cancelled',
  'pending_approval',
]);

/** A call to log with `toolCalls.record`. */
export interface ToolCallInput {
  agentId?: string | null;
  toolId: string;
  status: ToolCallStatus;
  /** The `ToolError` code of a failed call. */
  errorCode?: string | null;
  /** Milliseconds; rounded to a whole number. */
  durationMs: number;
  /** ISO-8601; default now. */
  createdAt?: string;
  /** The id of the API token the call came with (never the token itself). */
  tokenId?: string | null;
  /** The approval the call ran under, for an approved call. */
  approvalId?: string | null;
  /** SHA-256 of the canonical JSON of the arguments, 64 lowercase hex digits. */
  argumentsDigest?: string | null;
  /** Bytes of the UTF-8 JSON of the result, a whole number of at least 0. */
  resultBytes?: number | null;
}

/** A logged tool call. */
export interface ToolCallRecord {
  /** Increases with every call; newest calls have the highest ids. */
  id: number;
  workspaceId: string;
  agentId: string | null;
  toolId: string;
  status: ToolCallStatus;
  errorCode: string | null;
  durationMs: number;
  createdAt: string;
  tokenId: string | null;
  approvalId: string | null;
  argumentsDigest: string | null;
  resultBytes: number | null;
}

/**
 * Where an approval is: `pending` (waiting), `approved` or `denied` (decided), `used` (taken by the
 * call that ran, or by the registry when it resolved the approval itself).
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used';

/** An approval row with its status. */
export interface ApprovalRecord {
  id: string;
  workspaceId: string;
  agentId: string | null;
  toolId: string;
  toolCallId: string | null;
  /** Canonical JSON of the arguments the approver saw. */
  arguments: string;
  status: ApprovalStatus;
  createdAt: string;
  decidedAt: string | null;
}

/**
 * A workspace secret as the store shows it: its name and dates, never its value.
 *
 * @example
 * ```ts
 * const [first]: SecretRecord[] = await store.secrets.list('acme'); // { name, createdAt, updatedAt }
 * ```
 */
export interface SecretRecord {
  /** Like an environment variable name: `^[A-Za-z_][A-Za-z0-9_]{0,127}$`. */
  name: string;
  /** ISO-8601, when it was first stored. */
  createdAt: string;
  /** ISO-8601, when its value was last set. */
  updatedAt: string;
}

/**
 * What `secrets.set` did: the secret's record, and whether it is new.
 *
 * @example
 * ```ts
 * const { created }: SetSecretResult = await store.secrets.set('acme', 'TOKEN', 'tok_live_123');
 * ```
 */
export interface SetSecretResult extends SecretRecord {
  /** True when the workspace had no secret of that name before. */
  created: boolean;
}

/**
 * One tool of an MCP server as toolshed pins it: the upstream name, the SHA-256 (lowercase hex) of its
 * definition and that definition as canonical JSON text (name, description, schemas, annotations).
 *
 * @example
 * ```ts
 * const given: UpstreamToolDefinition = { tool: 'read_graph', hash: 'a3f1...', definition: '{"description":"..."}' };
 * ```
 */
export interface UpstreamToolDefinition {
  tool: string;
  hash: string;
  definition: string;
}

/**
 * What `upstreamPins.review` found for one tool: `new` (pinned now, as first seen), `pinned` (as
 * approved) or `changed` (differs from the approved definition, which `pinned` holds: quarantined).
 *
 * @example
 * ```ts
 * const review: UpstreamPinReview = { tool: 'read_graph', status: 'changed', pinned: { hash, definition } };
 * ```
 */
export interface UpstreamPinReview {
  tool: string;
  status: 'new' | 'pinned' | 'changed';
  /** The approved definition (for `new`, the one just pinned). */
  pinned: { hash: string; definition: string };
}

/**
 * A pinned upstream tool: its approved definition and, while its server lists a different one, that
 * change waiting for approval.
 *
 * @example
 * ```ts
 * const [pin]: UpstreamPinRecord[] = await store.upstreamPins.list('default', 'memory');
 * pin.pending?.definition; // the definition waiting for approval
 * ```
 */
export interface UpstreamPinRecord {
  server: string;
  tool: string;
  hash: string;
  definition: string;
  /** ISO-8601: when the definition was first seen or last approved. */
  approvedAt: string;
  pending?: { hash: string; definition: string; since: string };
}

/** What changed, as delivered to `onChange` listeners (and, on PostgreSQL, to other processes). */
export type StoreChangeKind = 'workspace' | 'tool' | 'agent' | 'attachment' | 'approval' | 'token' | 'resync';

/**
 * A change notification. `workspaceId` is `null` for global tools (every workspace is concerned);
 * `agentId` is set for attachment and agent changes. `workspace` means the workspace was deleted;
 * `token` that one of its tokens was revoked.
 * `resync` (with `workspaceId` null) means notifications may have been missed because the PostgreSQL
 * listener reconnected: reload whatever you cache.
 */
export interface StoreChange {
  workspaceId: string | null;
  agentId?: string;
  kind: StoreChangeKind;
}

/** A function called with every {@link StoreChange}. */
export type StoreChangeListener = (change: StoreChange) => void;

/** What `migrate()` did. */
export interface MigrationReport {
  /** Migrations applied by this call, in order (empty when the schema was already current). */
  applied: string[];
}

/** What a call limit applies to: the whole workspace, one API token, one agent or one tool. */
export type CallLimitScope = 'workspace' | 'token' | 'agent' | 'tool';

/** Every {@link CallLimitScope}, widest first. */
export const CALL_LIMIT_SCOPES: readonly CallLimitScope[] = Object.freeze(['workspace', 'token', 'agent', 'tool']);

/**
 * A rate limit and/or concurrency cap to set: `target` names the token (its id), agent or tool, and
 * is absent for `workspace`. `callsPerMinute` refills a token bucket of `burst` calls (default: one
 * second's worth, at least 1); `maxConcurrent` caps the calls running at once.
 */
export interface CallLimitInput {
  scope: CallLimitScope;
  target?: string | null;
  callsPerMinute?: number | null;
  burst?: number | null;
  maxConcurrent?: number | null;
}

/** A stored call limit. */
export interface CallLimitRecord {
  workspaceId: string;
  scope: CallLimitScope;
  /** `null` for the workspace scope. */
  target: string | null;
  callsPerMinute: number | null;
  burst: number | null;
  maxConcurrent: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What an `mcp_catalog` row holds: a prompt, a resource or a resource template. */
export type McpCatalogKind = 'prompt' | 'resource' | 'resource_template';

/**
 * A prompt, resource or resource template a workspace serves over MCP, as the store keeps it.
 *
 * @example
 * ```ts
 * const entry: McpCatalogRecord = {
 *   workspaceId: 'default', kind: 'prompt', key: 'summarize', name: 'summarize', description: 'Summarize a text.',
 *   definition: { name: 'summarize' }, agents: ['writer'], source: 'config', origin: 'toolshed.yaml',
 *   createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
 * };
 * ```
 */
export interface McpCatalogRecord {
  workspaceId: string;
  kind: McpCatalogKind;
  /** A prompt's name, a resource's URI or a template's URI template. */
  key: string;
  name: string;
  description: string | null;
  /** The declarative definition (a `prompts:` or `resources:` entry of a configuration). */
  definition: Record<string, unknown>;
  /** The agents whose MCP endpoints serve it (the workspace's `/mcp` serves every entry). */
  agents: string[];
  source: string;
  origin: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A slot under a concurrency cap: its id, the server holding it, and when it expires (ms since the epoch). */
export interface SlotLease {
  id: string;
  holder: string;
  expiresAt: number;
}

/** A token taken from a rate limit's bucket, or how long until one can be. */
export type TokenTaken = { taken: true } | { taken: false; retryAfterMs: number };

/**
 * What `mcpCatalog.sync` makes a workspace's rows of one origin: exactly these entries.
 *
 * @example
 * ```ts
 * const input: McpCatalogSyncInput = { origin: 'toolshed.yaml', entries: [{ kind: 'prompt', key: 'summarize', name: 'summarize', definition: {}, agents: [] }] };
 * ```
 */
export interface McpCatalogSyncInput {
  origin: string;
  entries: ReadonlyArray<{
    kind: McpCatalogKind;
    key: string;
    name: string;
    description?: string;
    definition: Record<string, unknown>;
    agents: readonly string[];
  }>;
}

/** What `mcpCatalog.sync` changed, as `kind:key` strings. */
export interface McpCatalogSyncResult {
  added: string[];
  updated: string[];
  removed: string[];
}

/**
 * An MCP session over Streamable HTTP as the store keeps it, so that any server on the database can
 * answer its requests: who opened it, what its `initialize` said, and when it expires.
 *
 * @example
 * ```ts
 * const session: McpSessionRecord = {
 *   id: '5f0c…', workspaceId: 'acme', agentId: 'support', tokenId: 'tok_1', scope: '/mcp/agents/support',
 *   protocolVersion: '2025-11-25', clientInfo: { name: 'claude', version: '1.0.0' }, clientCapabilities: {},
 *   createdAt: '2026-01-01T00:00:00.000Z', lastSeenAt: 1767225600000, expiresAt: 1767227400000,
 * };
 * ```
 */
export interface McpSessionRecord {
  id: string;
  workspaceId: string;
  /** The agent whose view the session serves, `null` for the workspace's default view. */
  agentId: string | null;
  /** The API token that opened it, `null` when none did. */
  tokenId: string | null;
  /** Where the session answers (its path and caller); a request with another scope does not find it. */
  scope: string;
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
  createdAt: string;
  /** Milliseconds since the epoch. */
  lastSeenAt: number;
  /** Milliseconds since the epoch; an expired session is not found. */
  expiresAt: number;
}

/**
 * What `mcpSessions.create` takes: a {@link McpSessionRecord} without its timestamps of record.
 *
 * @example
 * ```ts
 * const input: McpSessionInput = { id: randomUUID(), workspaceId: 'acme', scope: '/mcp', protocolVersion: '2025-11-25', clientInfo: {}, clientCapabilities: {}, expiresAt: Date.now() + 1_800_000 };
 * ```
 */
export type McpSessionInput = Omit<McpSessionRecord, 'createdAt' | 'lastSeenAt' | 'agentId' | 'tokenId'> & {
  agentId?: string | null;
  tokenId?: string | null;
};

/**
 * An event of an MCP session's SSE stream, kept for a client that resumes the stream on another
 * server: its stream key and sequence number (the event id is `<streamKey>.<seq>`), the JSON-RPC
 * message as JSON text (`null` for the empty priming event), and when it expires.
 *
 * @example
 * ```ts
 * const event: McpStreamEvent = { streamKey: '1b4e…', seq: 1, message: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}', expiresAt: Date.now() + 300_000 };
 * ```
 */
export interface McpStreamEvent {
  streamKey: string;
  seq: number;
  message: string | null;
  /** Milliseconds since the epoch; an expired event is not read. */
  expiresAt: number;
}

/**
 * A message between the servers on one database about an MCP session: client messages (a
 * cancellation, the answer to an elicitation) for whichever server runs the request they concern,
 * word that the session was closed, or (kind `events`) a request to keep the events of the streams
 * named in `messages` (stream keys) where every server can read them. `origin` names the sending
 * server, which ignores its own.
 *
 * @example
 * ```ts
 * const signal: McpSessionSignal = {
 *   sessionId: '5f0c…', origin: 'srv_1', kind: 'messages',
 *   messages: [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }],
 * };
 * ```
 */
export interface McpSessionSignal {
  sessionId: string;
  origin: string;
  kind: 'messages' | 'closed' | 'events';
  /** JSON-RPC messages from the client (kind `messages`), or stream keys (kind `events`). */
  messages?: unknown[];
}

/**
 * The status of an MCP task, in MCP's words: `working` (and `input_required`) until it ends as
 * `completed`, `failed` or `cancelled`.
 *
 * @example
 * ```ts
 * const status: McpTaskStatus = 'working';
 * ```
 */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * An MCP task: one `tools/call` run as a task, kept per workspace and agent view (times in
 * milliseconds since the epoch).
 *
 * @example
 * ```ts
 * const task: McpTaskRecord = {
 *   id: 'task_3f9c0a5b7e21d4c86a0f1b2c', workspaceId: 'acme', agentId: null, tool: 'build_report',
 *   status: 'completed', statusMessage: null, result: { content: [{ type: 'text', text: 'done' }] },
 *   ttlMs: 3_600_000, pollIntervalMs: 1000, owner: null, leaseExpiresAt: null,
 *   createdAt: 1_764_000_000_000, updatedAt: 1_764_000_004_000, expiresAt: 1_764_003_600_000,
 * };
 * ```
 */
export interface McpTaskRecord {
  /** `task_` and 24 hex digits. */
  id: string;
  workspaceId: string;
  /** The agent view the task was started in; `null` for the workspace's default view (`/mcp`). */
  agentId: string | null;
  tool: string;
  status: McpTaskStatus;
  statusMessage: string | null;
  /** The `tools/call` result as the client gets it from `tasks/result`; `null` until the task ends. */
  result: Record<string, unknown> | null;
  ttlMs: number;
  pollIntervalMs: number;
  /** The server running the task; `null` once it ended. */
  owner: string | null;
  /** Until when the owner's lease holds; a working task past it ends as failed when next read. */
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** When the task and its result are deleted (`createdAt + ttlMs`). */
  expiresAt: number;
}

/**
 * What `mcpTasks.create` takes: the task starts `working`, held by `owner` until `leaseExpiresAt`.
 *
 * @example
 * ```ts
 * const input: McpTaskInput = { workspaceId: 'acme', tool: 'build_report', ttlMs: 3_600_000, pollIntervalMs: 1000, owner: 'srv_1', leaseExpiresAt: Date.now() + 30_000 };
 * ```
 */
export interface McpTaskInput {
  workspaceId: string;
  agentId?: string | null;
  tool: string;
  ttlMs: number;
  pollIntervalMs: number;
  owner: string;
  leaseExpiresAt: number;
}

/**
 * How an MCP task ended: its terminal status, an optional message and the result to keep.
 *
 * @example
 * ```ts
 * const outcome: McpTaskOutcome = { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } };
 * ```
 */
export interface McpTaskOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  statusMessage?: string | null;
  result?: Record<string, unknown> | null;
}
