import type { Kysely } from 'kysely';
import type { FileBackend } from '../builtins/filesystem/file-backend.js';
import type { ApprovalStore, PendingApproval } from '../core/approvals.js';
import type { JsonObjectSchema } from '../core/json-schema.js';
import type { ToolAnnotations, ToolExecution, ToolRequirements, ToolSpec } from '../core/tool-spec.js';
import type { Database } from './database.js';
import type { SqliteDriver } from './sqlite/sqlite-driver.js';
import type {
  AgentRecord,
  AgentToolList,
  ApiTokenRecord,
  ApprovalRecord,
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
  MigrationReport,
  SecretRecord,
  SetSecretResult,
  SlotLease,
  StoreChangeListener,
  StoreDialectName,
  TokenIdentity,
  TokenTaken,
  ToolCallInput,
  ToolCallRecord,
  ToolCallStatus,
  ToolRecord,
  UpstreamPinRecord,
  UpstreamPinReview,
  UpstreamToolDefinition,
  WorkspaceRecord,
} from './store-records.js';

/** Workspaces: the tenants. */
export interface StoreWorkspaces {
  /**
   * Create a workspace; `id` defaults to a random `ws_...`. Throws {@link StoreConflictError} for a
   * taken id and {@link StoreValidationError} for an id outside `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`.
   */
  create(input: { id?: string; name: string }): Promise<WorkspaceRecord>;
  get(id: string): Promise<WorkspaceRecord | undefined>;
  /** Sorted by id. */
  list(): Promise<WorkspaceRecord[]>;
  /** Delete a workspace and everything in it (cascades); false when there was none. */
  delete(id: string): Promise<boolean>;
  /**
   * The workspace's default tool set (what `/mcp` serves and agents that never had an attachment use):
   * the tools it chose (`custom: true`), else every tool it sees. `undefined` for no such workspace.
   */
  defaultTools(id: string): Promise<WorkspaceToolSet | undefined>;
  /**
   * Choose the default tool set (ids of tools the workspace sees), or `null` for every tool it sees.
   * Throws the store's not-found error for an unknown workspace or tool (nothing is written then).
   */
  setDefaultTools(id: string, toolIds: readonly string[] | null): Promise<WorkspaceToolSet>;
}

/**
 * A workspace's default tool set.
 *
 * @example
 * ```ts
 * const { custom, tools }: WorkspaceToolSet = (await store.workspaces.defaultTools('acme'))!;
 * ```
 */
export interface WorkspaceToolSet {
  /** True when the workspace chose the set; false when it is every tool the workspace sees. */
  custom: boolean;
  /** Sorted by id. */
  tools: ToolRecord[];
}

/** API tokens, stored as SHA-256 hashes. */
export interface StoreTokens {
  /** Create a token; the plaintext is in the result and nowhere else, ever. */
  create(workspaceId: string, input?: { name?: string }): Promise<CreatedApiToken>;
  /**
   * Who `token` speaks for, or `undefined` when it is malformed, unknown or revoked. The hash is
   * compared in constant time.
   */
  verify(token: string): Promise<TokenIdentity | undefined>;
  /** Revoke a token of the workspace; false when there is no such active token there. */
  revoke(workspaceId: string, tokenId: string): Promise<boolean>;
  /** The workspace's tokens (metadata only), oldest first. */
  list(workspaceId: string): Promise<ApiTokenRecord[]>;
}

/** A workspace tool to create (the §5.3 REST tools and other tools defined as data). */
export interface WorkspaceToolInput {
  /** `^[a-z][a-z0-9_]{0,63}$`, not taken by a global tool. */
  id: string;
  /** Human-readable name (default: the id). */
  name?: string;
  description: string;
  parametersSchema: JsonObjectSchema;
  handlerKey: string;
  category?: string;
  whenToUse?: string | null;
  annotations?: ToolAnnotations;
  requires?: ToolRequirements;
  /** Tool-level settings, a JSON object of at most 64 KiB. */
  config?: Record<string, unknown> | null;
  /** At most 64 tags of at most 100 characters each. */
  tags?: readonly string[];
  /** At most 10 example argument objects; `null` or `[]` for none. */
  inputExamples?: ReadonlyArray<Readonly<Record<string, unknown>>> | null;
  /** `api` (default: a REST tool) or `code` (a Python or JavaScript tool). */
  source?: 'api' | 'code';
  /** How calls may run: `{ taskSupport: 'optional' }` lets MCP clients run them as tasks. */
  execution?: ToolExecution | null;
}

/**
 * What `tools.update` changes in an `api` or `code` tool: the fields given, each checked as on
 * creation; the others are kept. `whenToUse: null` clears it. For an `api` tool `config` is its REST
 * definition and for a `code` tool `{type, code}`: the caller checks what it holds (the REST API
 * re-validates a REST definition as `POST /api/tools` does), the store only its size.
 *
 * @example
 * ```ts
 * const patch: ToolPatch = { description: 'Search the wiki.', tags: ['search', 'internal'] };
 * await store.tools.update('acme', 'company_search', patch);
 * ```
 */
export interface ToolPatch {
  name?: string;
  description?: string;
  whenToUse?: string | null;
  category?: string;
  tags?: readonly string[];
  /** `null` or `[]` removes them. */
  inputExamples?: ReadonlyArray<Readonly<Record<string, unknown>>> | null;
  annotations?: ToolAnnotations;
  /** `null` or `{}` removes it. */
  execution?: ToolExecution | null;
  parametersSchema?: JsonObjectSchema;
  config?: Record<string, unknown> | null;
}

/**
 * What `agents.update` changes: the fields given, the others kept; `description: null` clears it.
 *
 * @example
 * ```ts
 * const patch: AgentPatch = { name: 'Research (EU)' };
 * await store.agents.update('acme', 'research', patch);
 * ```
 */
export interface AgentPatch {
  name?: string;
  description?: string | null;
}

/** The parts of a {@link ToolSpec} the `tools` table keeps (a whole `ToolSpec` fits). */
export type BuiltinToolSpec = Pick<
  ToolSpec,
  'name' | 'title' | 'description' | 'whenToUse' | 'category' | 'inputSchema' | 'annotations' | 'requires'
> &
  Partial<Pick<ToolSpec, 'tags' | 'inputExamples' | 'execution'>>;

/** Options of `tools.upsertBuiltins`. */
export interface UpsertBuiltinsOptions {
  /** The `handler_key` of a built-in (default: its name). */
  handlerKey?: (spec: BuiltinToolSpec) => string;
  /** Also delete global tools of the same source that are not in `specs` (their attachments go with them). */
  prune?: boolean;
  /** The rows' source: `builtin` (default, the service's own) or `module` (tools a program defines in code). */
  source?: 'builtin' | 'module';
}

/** What `tools.upsertBuiltins` did. */
export interface UpsertBuiltinsResult {
  /** Ids inserted or updated. */
  upserted: string[];
  /** Ids whose row already matched the spec (nothing written, nothing announced). */
  unchanged: string[];
  /** Ids skipped because a workspace tool already has them. */
  conflicts: string[];
  /** Ids of global tools deleted by `prune`. */
  removed: string[];
}

/** Tools: global built-ins plus each workspace's own. */
export interface StoreTools {
  /**
   * Insert or update the global built-ins from their specs, in one transaction. An id a workspace
   * tool already has is skipped and reported in `conflicts`; unchanged rows are not rewritten.
   */
  upsertBuiltins(specs: readonly BuiltinToolSpec[], options?: UpsertBuiltinsOptions): Promise<UpsertBuiltinsResult>;
  /** Create a tool of the workspace. Throws {@link StoreConflictError} when the id is taken. */
  createWorkspaceTool(workspaceId: string, input: WorkspaceToolInput): Promise<ToolRecord>;
  /** A global tool or one of the workspace's; another workspace's tool is `undefined`. */
  get(workspaceId: string, id: string): Promise<ToolRecord | undefined>;
  /** Global tools and the workspace's, sorted by id, optionally of one category. */
  list(workspaceId: string, options?: { category?: string }): Promise<ToolRecord[]>;
  /**
   * Change an `api` or `code` tool of the workspace (see {@link ToolPatch}), in one transaction: sets
   * `updatedAt`, recomputes `definitionHash` and announces a `tool` change; a patch that changes
   * nothing writes nothing. Throws {@link StoreNotFoundError} for a tool the workspace does not see,
   * {@link StoreReadOnlyError} for a built-in or a configuration's tool (naming the file to edit), and
   * {@link StoreValidationError} naming the field (nothing is written then).
   */
  update(workspaceId: string, id: string, patch: ToolPatch): Promise<ToolRecord>;
  /**
   * Delete an `api` or `code` tool of the workspace with its attachments (and default-set entry);
   * false when the workspace sees no such tool. Throws {@link StoreReadOnlyError} for a built-in or a
   * configuration's tool, which only the service or the configuration can remove.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Make the workspace's configuration-owned tools (`config`, `module`, `mcp:<server>` rows) match
   * `input.tools`: insert new ones, update changed ones (by definition hash), delete the ones that are
   * gone (with their attachments) except those of `keepSources`; and, with `builtins`, hide every
   * global tool not named there in this workspace. Rows of other sources are never written: a name an
   * `api`/`code` tool or a visible global tool holds is a conflict, skipped. One transaction.
   */
  sync(workspaceId: string, input: SyncToolsInput): Promise<ToolSyncResult>;
}

/** A tool a configuration defines, as `tools.sync` takes it. */
export interface SyncedToolInput
  extends Omit<BuiltinToolSpec, 'annotations' | 'requires'>,
    Partial<Pick<BuiltinToolSpec, 'annotations' | 'requires'>> {
  source: 'config' | 'module' | `mcp:${string}`;
}

/** What `tools.sync` writes. */
export interface SyncToolsInput {
  /** The configuration file the tools come from (shown in messages that refuse to edit them). */
  origin: string;
  tools: readonly SyncedToolInput[];
  /** The global tools (built-ins) the workspace has; every other global tool is hidden there. Omit to leave them. */
  builtins?: readonly string[];
  /** Sources whose missing rows are kept rather than pruned (an MCP server that did not come up). */
  keepSources?: readonly string[];
}

/**
 * What `tools.sync` did, each list of tool ids sorted.
 *
 * @example
 * ```ts
 * const { added, removed }: ToolSyncResult = await store.tools.sync('default', input);
 * ```
 */
export interface ToolSyncResult {
  added: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  /** Names an `api`/`code` tool or a global tool already holds in the workspace; not synced. */
  conflicts: string[];
}

/** Agents of a workspace. */
export interface StoreAgents {
  /**
   * Create an agent; `id` defaults to a random `agt_...`, `name` to the id. Throws
   * {@link StoreConflictError} for a taken id and {@link StoreNotFoundError} for an unknown workspace.
   */
  create(workspaceId: string, input: { id?: string; name?: string; description?: string | null }): Promise<AgentRecord>;
  get(workspaceId: string, id: string): Promise<AgentRecord | undefined>;
  /** Sorted by id. */
  list(workspaceId: string): Promise<AgentRecord[]>;
  /**
   * Rename an agent or change its description (see {@link AgentPatch}); sets `updatedAt` and announces
   * an `agent` change unless nothing changed. Throws {@link StoreNotFoundError} for an agent the
   * workspace does not have, {@link StoreReadOnlyError} for a `config` agent (naming its file) and
   * {@link StoreValidationError} naming the field.
   */
  update(workspaceId: string, id: string, patch: AgentPatch): Promise<AgentRecord>;
  /**
   * Delete an agent and its attachments; false when the workspace has no such agent. Throws
   * {@link StoreReadOnlyError} for a `config` agent: its configuration file decides whether it exists.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Make the workspace's `config` agents match `input.agents`: create or update each with exactly its
   * listed tools attached (with their config), delete the `config` agents that are gone. An id an
   * `api` agent (or another workspace) holds is a conflict, skipped; a tool the workspace does not
   * have is left out and listed in `missingTools`. One transaction.
   */
  sync(workspaceId: string, input: SyncAgentsInput): Promise<AgentSyncResult>;
}

/** What `agents.sync` writes. */
export interface SyncAgentsInput {
  /** The configuration file the agents come from. */
  origin: string;
  agents: ReadonlyArray<{
    id: string;
    name?: string;
    description?: string | null;
    tools: ReadonlyArray<{ toolId: string; config?: Record<string, unknown> | null }>;
  }>;
}

/**
 * What `agents.sync` did, each list sorted.
 *
 * @example
 * ```ts
 * const { added, missingTools }: AgentSyncResult = await store.agents.sync('default', input);
 * ```
 */
export interface AgentSyncResult {
  added: string[];
  updated: string[];
  removed: string[];
  conflicts: string[];
  /** `agent/tool` pairs left out: the workspace has no such tool. */
  missingTools: string[];
}

/** Which tools each agent may use. */
export interface StoreAttachments {
  /**
   * Attach a tool (global or the workspace's) to an agent of the workspace, with an optional config
   * (a JSON object of at most 64 KiB). Throws {@link StoreNotFoundError} (agent or tool),
   * {@link StoreConflictError} (already attached), {@link StoreReadOnlyError} (a `config` agent, whose
   * tools its configuration file lists) or {@link StoreValidationError}.
   */
  attach(
    workspaceId: string,
    agentId: string,
    toolId: string,
    config?: Record<string, unknown> | null,
  ): Promise<AttachedTool>;
  /**
   * Detach a tool; false when it was not attached (or the agent is not the workspace's). Throws
   * {@link StoreReadOnlyError} for a `config` agent.
   */
  detach(workspaceId: string, agentId: string, toolId: string): Promise<boolean>;
  /**
   * The agent's tools with their config, or, when it has none, the workspace default set with
   * `fallback: true`. Throws {@link StoreNotFoundError} for an agent the workspace does not have.
   */
  listAttachments(workspaceId: string, agentId: string): Promise<AgentToolList>;
}

/** Options of `toolCalls.listRecent`. */
export interface RecentToolCallsOptions {
  agentId?: string;
  toolId?: string;
  /** Only calls that ended with this status. */
  status?: ToolCallStatus;
  /** Only calls made with this API token (its id). */
  tokenId?: string;
  /** Only calls logged at or after this ISO-8601 time. */
  since?: string;
  /** Only calls logged before this ISO-8601 time. */
  until?: string;
  /** Only calls older than the call with this id (the next page after it). */
  beforeId?: number;
  /** 1 to 500 (default 50). */
  limit?: number;
}

/** The prompts, resources and resource templates each workspace serves over MCP (`mcp_catalog`). */
export interface StoreMcpCatalog {
  /** The workspace's entries, by kind then key; only one kind when given. */
  list(workspaceId: string, kind?: McpCatalogKind): Promise<McpCatalogRecord[]>;
  /**
   * Make the workspace's rows of `input.origin` exactly `input.entries` (added, updated when their
   * definition or agents changed, removed when gone); rows of other origins are left alone, and an
   * entry whose key another origin holds is refused. Throws the store's not-found error for an
   * unknown workspace.
   */
  sync(workspaceId: string, input: McpCatalogSyncInput): Promise<McpCatalogSyncResult>;
}

/** The tool call log. */
export interface StoreToolCalls {
  /** Log a call; resolves once it is durable (committed, or written to the store's call journal). */
  record(workspaceId: string, call: ToolCallInput): Promise<ToolCallRecord>;
  /** The workspace's most recent calls, newest first. */
  listRecent(workspaceId: string, options?: RecentToolCallsOptions): Promise<ToolCallRecord[]>;
  /**
   * Delete every workspace's calls logged before `before` (ISO-8601); resolves with how many were
   * deleted. Throws {@link StoreValidationError} for a time that is not ISO-8601.
   */
  pruneBefore(before: string): Promise<number>;
  /**
   * With the `callJournal` option: take the journal if no other store has it, and copy every call
   * journaled so far (a previous owner's too) into `tool_calls`; on PostgreSQL, write every call
   * acknowledged and not yet written. Without it, nothing to do.
   */
  flush(): Promise<void>;
}

/**
 * Each workspace's call limits (rows set through the API) and the shared counters that enforce every
 * limit: token buckets and leased slots, kept in the database so that servers on one database count
 * together. Keys are {@link callLimitKey}s.
 *
 * @example
 * ```ts
 * await store.callLimits.set('acme', { scope: 'agent', target: 'research', callsPerMinute: 120, burst: 10 });
 * await store.callLimits.list('acme'); // [{ scope: 'agent', target: 'research', callsPerMinute: 120, ... }]
 * ```
 */
export interface StoreCallLimits {
  /** The workspace's limits, by scope and target. */
  list(workspaceId: string): Promise<CallLimitRecord[]>;
  /**
   * Set the limit of one scope and target, replacing the one it had (its bucket starts full again).
   * Throws {@link StoreValidationError} for a malformed limit, {@link StoreNotFoundError} for an
   * unknown workspace.
   */
  set(workspaceId: string, limit: CallLimitInput): Promise<CallLimitRecord>;
  /** Remove the limit of one scope and target; false when there was none. */
  delete(workspaceId: string, scope: CallLimitScope, target?: string | null): Promise<boolean>;
  /**
   * Take one token from the bucket at `key` (full, `capacity` tokens, the first time), refilled at
   * `refillPerMs` tokens a millisecond since it was last taken from, in one atomic statement; or say
   * how many milliseconds until a token will be there.
   */
  takeToken(key: string, bucket: { capacity: number; refillPerMs: number; now: number }): Promise<TokenTaken>;
  /**
   * Take a slot under the cap at `key` when fewer than `max` unexpired leases hold one (expired ones
   * are deleted first); false when the cap is full. Servers taking slots of one key take turns.
   */
  acquireSlot(key: string, max: number, lease: SlotLease, now: number): Promise<boolean>;
  /** Give a slot back. */
  releaseSlot(leaseId: string): Promise<void>;
  /** Move the expiry of every slot `holder` holds to `expiresAt`; resolves with how many it holds. */
  renewSlots(holder: string, expiresAt: number): Promise<number>;
}

/**
 * Each workspace's named secrets, for its REST tools (`auth: {type: bearer, secret: NAME}`). Values are
 * encrypted at rest with AES-256-GCM under the server's key (`TOOLSHED_SECRET_KEY`, or on SQLite the
 * `<database>-secret.key` file); listings show names and dates only.
 *
 * @example
 * ```ts
 * await store.secrets.set('acme', 'COMPANY_API_TOKEN', 'tok_live_123'); // { name, createdAt, updatedAt, created: true }
 * await store.secrets.list('acme'); // [{ name: 'COMPANY_API_TOKEN', createdAt: '...', updatedAt: '...' }]
 * await store.secrets.delete('acme', 'COMPANY_API_TOKEN'); // true
 * ```
 */
export interface StoreSecrets {
  /**
   * Store `value` under `name` in the workspace, replacing any value it had. Throws
   * {@link StoreValidationError} for a name outside `^[A-Za-z_][A-Za-z0-9_]{0,127}$` or a value that is
   * not a non-empty string of at most 8 KiB, {@link StoreNotFoundError} for an unknown workspace, and
   * {@link StoreError} `SECRET_KEY` when there is no usable key.
   */
  set(workspaceId: string, name: string, value: string): Promise<SetSecretResult>;
  /** The workspace's secrets, sorted by name: names and dates, never values. */
  list(workspaceId: string): Promise<SecretRecord[]>;
  /** Delete a secret of the workspace; false when it had none of that name. */
  delete(workspaceId: string, name: string): Promise<boolean>;
  /**
   * The plaintext of a secret, or `undefined` when the workspace has none of that name. For the server
   * building a request only: never send it to a client, a log or a model. Throws {@link StoreError}
   * `SECRET_KEY` when the value was stored with another key, is damaged, or there is no key.
   */
  reveal(workspaceId: string, name: string): Promise<string | undefined>;
}

/**
 * The definitions of the tools each workspace's MCP servers (`mcp_servers:`) list, pinned when first
 * seen: a tool whose definition changes afterwards is quarantined until the change is approved.
 *
 * @example
 * ```ts
 * const reviews = await store.upstreamPins.review('default', 'memory', definitions);
 * const quarantined = reviews.filter((review) => review.status === 'changed');
 * await store.upstreamPins.approve('default', 'memory'); // ['read_graph']
 * ```
 */
export interface StoreUpstreamPins {
  /**
   * Compare what `server` lists now with the pins: a tool seen for the first time is pinned as it is;
   * one that differs from its pin is recorded as a pending change (the latest one seen) and reported
   * `changed`; one back to its pinned definition has its pending change dropped. Throws
   * {@link StoreValidationError} for a malformed server name, tool name, hash or definition and
   * {@link StoreNotFoundError} for an unknown workspace.
   */
  review(workspaceId: string, server: string, tools: readonly UpstreamToolDefinition[]): Promise<UpstreamPinReview[]>;
  /** The workspace's pins (of one server when given), sorted by server and tool. */
  list(workspaceId: string, server?: string): Promise<UpstreamPinRecord[]>;
  /**
   * Approve the pending changes of `server` (only `tool`'s when given): each becomes the pinned
   * definition. Returns the tools approved, sorted; empty when nothing was pending.
   */
  approve(workspaceId: string, server: string, tool?: string): Promise<string[]>;
}

/**
 * MCP sessions over Streamable HTTP that any server on the database may answer, and the signals
 * between those servers about them (client messages for the server running a request, a session's
 * end). Session ids are 1-128 visible ASCII characters; a malformed one reads as absent.
 *
 * @example
 * ```ts
 * const stop = store.mcpSessions.onSignal((signal) => console.log(signal.kind, signal.sessionId));
 * await store.mcpSessions.signal({ sessionId: 'a1', origin: 'srv_1', kind: 'closed' });
 * stop();
 * ```
 */
export interface StoreMcpSessions {
  /**
   * Keep a new session. Throws {@link StoreValidationError} for malformed fields (client info or
   * capabilities over 16 KiB of JSON), the store's not-found error for an unknown workspace, and its
   * conflict error kind `unique` for a taken id.
   */
  create(input: McpSessionInput): Promise<McpSessionRecord>;
  /** The session unless it expired (before `now`, default the current time). */
  get(id: string, now?: number): Promise<McpSessionRecord | undefined>;
  /** Mark the session seen and move its expiry to `expiresAt`; false when it is gone or expired. */
  touch(id: string, expiresAt: number, now?: number): Promise<boolean>;
  /** Forget the session; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Delete the sessions expired by `now` (default the current time); how many. */
  pruneExpired(now?: number): Promise<number>;
  /**
   * Tell every server on the database (this one included) about a session. Throws
   * {@link StoreValidationError} for a malformed signal or one over 7 900 bytes of JSON.
   */
  signal(signal: McpSessionSignal): Promise<void>;
  /** Hear every well-formed signal; returns a function that stops listening. */
  onSignal(listener: (signal: McpSessionSignal) => void): () => void;
}

/**
 * MCP tasks of each workspace, kept so that any server on the database can answer for them and they
 * outlive a restart. A task belongs to a workspace and the agent view it was started in; a lookup
 * names the workspace, so another workspace's task id reads as absent. Expired tasks (past
 * `expiresAt`) read as absent and are deleted by `pruneExpired`. A running task is held by its
 * server's lease (`renew`); a `working` task whose lease lapsed (its server died) ends as `failed`
 * with a message saying so when it is next read. A task id that is malformed reads as absent.
 *
 * @example
 * ```ts
 * const task = await store.mcpTasks.create({ workspaceId: 'acme', tool: 'build_report', ttlMs: 3_600_000, pollIntervalMs: 1000, owner: 'srv_1', leaseExpiresAt: Date.now() + 30_000 });
 * await store.mcpTasks.finish('acme', task.id, { status: 'completed', result: { content: [] } });
 * ```
 */
export interface StoreMcpTasks {
  /**
   * Keep a new `working` task. Throws {@link StoreValidationError} for malformed fields and the store's
   * not-found error for an unknown workspace.
   */
  create(input: McpTaskInput, now?: number): Promise<McpTaskRecord>;
  /**
   * The workspace's task, restricted to one agent view when `agentId` is given (`null`: the default
   * view); `undefined` when there is none, it expired or it is another workspace's or view's.
   */
  get(
    workspaceId: string,
    id: string,
    options?: { agentId?: string | null; now?: number },
  ): Promise<McpTaskRecord | undefined>;
  /**
   * A page of the workspace's tasks, newest first (of one agent view when `agentId` is given), at most
   * `limit` (default and most 100), and the cursor of the next page. Throws
   * {@link StoreValidationError} for a cursor it did not hand out.
   */
  list(
    workspaceId: string,
    options?: { agentId?: string | null; cursor?: string; limit?: number; now?: number },
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }>;
  /**
   * End a task that is still `working` or `input_required`: false (and nothing written) when it had
   * already ended, expired or does not exist. Throws {@link StoreValidationError} for a result over
   * 1 MiB of JSON.
   */
  finish(workspaceId: string, id: string, outcome: McpTaskOutcome, now?: number): Promise<boolean>;
  /**
   * Extend the lease of `owner`'s running tasks to `leaseExpiresAt`; returns which of `held` are no
   * longer running (cancelled, ended elsewhere, expired or deleted), so their runs can stop.
   */
  renew(owner: string, held: readonly string[], leaseExpiresAt: number, now?: number): Promise<string[]>;
  /** End `owner`'s running tasks as failed with `message` (its server is shutting down); how many. */
  release(owner: string, message: string, now?: number): Promise<number>;
  /** Delete the tasks expired by `now` (default the current time); how many. */
  pruneExpired(now?: number): Promise<number>;
}

/**
 * Events of MCP sessions' SSE streams, kept for clients that resume a stream on another server than
 * the one writing it. Malformed session ids, stream keys or sequence numbers read as nothing kept.
 *
 * @example
 * ```ts
 * await store.mcpStreamEvents.append(sessionId, [{ streamKey, seq: 0, message: null, expiresAt: Date.now() + 300_000 }]);
 * const missed = await store.mcpStreamEvents.from(sessionId, streamKey, 0, 100);
 * ```
 */
export interface StoreMcpStreamEvents {
  /**
   * Keep events of a session's stream (an event already kept stays as it is); how many were added.
   * Throws {@link StoreValidationError} for a malformed event or one over 4 MiB of JSON; adds nothing
   * (0) when the session is gone.
   */
  append(sessionId: string, events: readonly McpStreamEvent[]): Promise<number>;
  /** The stream's events from `seq` on, oldest first, at most `limit` (at most 10 000), none expired by `now`. */
  from(sessionId: string, streamKey: string, seq: number, limit: number, now?: number): Promise<McpStreamEvent[]>;
  /** Forget the stream's events up to `throughSeq`; how many. */
  drop(sessionId: string, streamKey: string, throughSeq: number): Promise<number>;
  /** Delete the events expired by `now` (default the current time); how many. */
  pruneExpired(now?: number): Promise<number>;
}

/**
 * The registry's {@link ApprovalStore} for one workspace, plus the decision step of the REST API.
 * `take` is atomic: of any number of concurrent takers exactly one gets the approval.
 */
export interface WorkspaceApprovalStore extends ApprovalStore {
  /** Store a pending approval (the registry calls this). */
  save(approval: PendingApproval): Promise<void>;
  /** The approval while it is pending or approved (not yet taken). */
  get(id: string): Promise<PendingApproval | undefined>;
  /** Mark a pending or approved approval `used` and return it; `undefined` for everyone after the first. */
  take(id: string): Promise<PendingApproval | undefined>;
  /**
   * Record a person's decision on a pending approval, exactly once. Throws {@link StoreNotFoundError}
   * or, when it was already decided or taken, {@link StoreConflictError}.
   */
  decide(id: string, decision: 'approve' | 'deny'): Promise<ApprovalRecord>;
  /** The approval whatever its status. */
  getRecord(id: string): Promise<ApprovalRecord | undefined>;
}

/**
 * The service's database: workspaces, tokens, tools, agents and their attachments, the virtual
 * filesystem, the call log, approvals and workspace secrets, over SQLite or PostgreSQL.
 *
 * Every method takes the workspace it acts for and never shows or touches another workspace's rows:
 * an id of another workspace behaves exactly like an id that does not exist. Every method that
 * writes runs in one transaction. Create one with {@link createStore}.
 *
 * @example
 * ```ts
 * const store = await createStore(':memory:');
 * await store.migrate();
 * const workspace = await store.workspaces.create({ id: 'default', name: 'Default' });
 * const { token } = await store.tokens.create(workspace.id, { name: 'cli' });
 * await store.agents.create(workspace.id, { id: 'research', name: 'Research' });
 * const tools = await store.attachments.listAttachments(workspace.id, 'research'); // fallback: true
 * await store.close();
 * ```
 */
export interface ToolshedStore {
  readonly dialect: StoreDialectName;
  /**
   * Whether several `toolshed serve` processes are expected on this database (PostgreSQL), so that
   * per-connection state such as MCP sessions must be kept in it rather than in one process.
   */
  readonly sharedAcrossInstances: boolean;
  /**
   * The Kysely instance, for modules that keep tables of their own in the store's database (the
   * email corpus) and for tests. Queries made through it bypass the workspace scoping of the methods.
   */
  readonly db: Kysely<Database>;
  readonly workspaces: StoreWorkspaces;
  readonly tokens: StoreTokens;
  readonly tools: StoreTools;
  readonly agents: StoreAgents;
  readonly attachments: StoreAttachments;
  readonly toolCalls: StoreToolCalls;
  readonly secrets: StoreSecrets;
  readonly upstreamPins: StoreUpstreamPins;
  readonly callLimits: StoreCallLimits;
  /** The prompts, resources and resource templates each workspace serves over MCP. */
  readonly mcpCatalog: StoreMcpCatalog;
  /** MCP sessions any server on the database may answer, and the signals about them. */
  readonly mcpSessions: StoreMcpSessions;
  /** Events of MCP sessions' streams, for a client that resumes its stream on another server. */
  readonly mcpStreamEvents: StoreMcpStreamEvents;
  /** MCP tasks of each workspace, readable from any server on the database. */
  readonly mcpTasks: StoreMcpTasks;
  /**
   * The better-sqlite3 driver under {@link ToolshedStore.db} on SQLite, `undefined` on PostgreSQL:
   * for modules that need what Kysely does not speak (statements prepared once and run many times,
   * FTS5, attached database files), as the email index does. Use it inside
   * `store.db.connection().execute(...)` so that Kysely keeps its own queries off it meanwhile; like
   * `db`, it bypasses the workspace scoping of the methods.
   *
   * @example
   * ```ts
   * const driver = store.sqliteDriver();
   * await store.db.connection().execute(async () => driver?.prepare('select 1 as one').all([]));
   * ```
   */
  sqliteDriver(): SqliteDriver | undefined;
  /** The workspace's virtual filesystem, for the file built-ins. */
  files(workspaceId: string): FileBackend;
  /** The workspace's approvals, to pass to a `ToolRegistry` as `approvals`. */
  approvals(workspaceId: string): WorkspaceApprovalStore;
  /**
   * Call `listener` after every committed change to tools, agents, attachments and approvals. On
   * PostgreSQL this includes changes made by other processes on the same database (LISTEN/NOTIFY);
   * on SQLite only this store's own. Returns a function that removes the listener.
   */
  onChange(listener: StoreChangeListener): () => void;
  /** Bring the schema up to date; running it again does nothing. */
  migrate(): Promise<MigrationReport>;
  /** Close the connections (and the PostgreSQL listener). */
  close(): Promise<void>;
}
