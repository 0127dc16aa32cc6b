/**
 * The JSON shapes the REST API answers with, as types only: the one statement of them, built by
 * `api-views.ts` and read by the web catalog (`web/src/api-types.ts` re-exports them), so a change
 * here that the catalog does not follow fails its build. Imports types only, from modules that import
 * nothing of Node, so the browser build can read it.
 */
import type { RequiredEnvVar, ToolRequirements } from '../core/tool-spec.js';
import type { ToolCallStatus, ToolSourceName } from '../store/store-records.js';

/**
 * A tool as the API shows it (snake_case, as in the database-backed registry design): an item of
 * `GET /api/tools`.
 *
 * @example
 * ```ts
 * const { tools } = (await (await fetch('/api/tools')).json()) as { tools: ToolView[] };
 * ```
 */
export interface ToolView {
  id: string;
  name: string;
  description: string;
  parameters_schema: Record<string, unknown>;
  handler_key: string;
  category: string;
  /** `global` for built-ins, `workspace` for the workspace's own tools. */
  scope: 'global' | 'workspace';
  when_to_use: string | null;
  /** The tool's hints, every one decided: what MCP clients and the exports are told. */
  annotations: ToolAnnotationsView;
  /** Whether each call waits for a person's approval (tools made through the API only). */
  requires_approval?: boolean;
  /** What the tool needs from the server's environment (`env`: variables with where to get them). */
  requires: ToolRequirements;
  tags: string[];
  /** Example arguments for the model, each valid against `parameters_schema`; empty when none. */
  input_examples: Array<Record<string, unknown>>;
  /**
   * How calls may run, as MCP lists it: `taskSupport` `optional` or `required` lets MCP clients run
   * calls as tasks; absent when the tool declares nothing (MCP's default, `forbidden`).
   */
  execution?: { taskSupport: 'forbidden' | 'optional' | 'required' };
  /**
   * Where the tool comes from: `builtin`, `config`, `module` or `mcp:<server>` (read-only through the
   * API), `api` (a REST tool created through it) or `code` (a code tool created through it).
   */
  source: ToolSourceName;
  /** The configuration file a `config`, `module` or `mcp:<server>` tool is defined in; `null` for the others. */
  origin: string | null;
  created_at: string;
  updated_at: string;
  /**
   * Whether this server can run it now (listings only). A tool whose configuration is not served
   * here, or whose MCP server is down, is listed but unavailable, with `unavailable_reason`.
   */
  available?: boolean;
  unavailable_reason?: string;
  /** True for an MCP server's tool whose definition changed since it was approved (unavailable until then). */
  quarantined?: true;
}

/**
 * A tool's hints as the API shows them: the spelling `POST /api/tools` takes, with MCP's defaults
 * filled in where the tool sets none (MCP lists the same values as `readOnlyHint` and so on).
 *
 * @example
 * ```ts
 * const hints: ToolAnnotationsView = { read_only: true, destructive: false, idempotent: false, open_world: true };
 * ```
 */
export interface ToolAnnotationsView {
  read_only: boolean;
  destructive: boolean;
  idempotent: boolean;
  open_world: boolean;
}

/** An environment variable a tool needs, with whether the server has it set (`GET /api/tools/:id`). */
export type RequiredEnvVarStatus = RequiredEnvVar & { set: boolean };

/**
 * A tool as `GET /api/tools/:id` shows it: whether what it needs is there, never a value.
 *
 * @example
 * ```ts
 * const tool = (await (await fetch('/api/tools/serper_search')).json()) as ToolDetailView;
 * tool.requires.env.filter((variable) => !variable.set);
 * ```
 */
export interface ToolDetailView extends ToolView {
  requires: {
    /** The server's variables a global or `--config` tool needs, each with whether it is set (none for workspace tools). */
    env: RequiredEnvVarStatus[];
    /** The workspace secret a workspace REST tool authenticates with, and whether the workspace has it. */
    secrets?: Array<{ name: string; set: boolean }>;
  };
  /** A code tool's language, as `POST /api/tools` took it. */
  type?: 'python' | 'javascript';
  /** A code tool's code, as `POST /api/tools` took it. */
  code?: string;
}

/**
 * A tool attached to an agent (or in its fallback set): the tool with the attachment's config, an
 * item of `GET /api/agents/:id/tools`.
 *
 * @example
 * ```ts
 * const list = (await (await fetch('/api/agents/agt_1/tools')).json()) as { tools: AttachedToolView[] };
 * ```
 */
export interface AttachedToolView extends ToolView {
  config: Record<string, unknown> | null;
  attached_at: string | null;
}

/**
 * An agent as the API shows it (`GET /api/agents`, `GET /api/agents/:id`).
 *
 * @example
 * ```ts
 * const { agents } = (await (await fetch('/api/agents')).json()) as { agents: AgentView[] };
 * ```
 */
export interface AgentView {
  id: string;
  name: string;
  description: string | null;
  /** `api` (created through the API) or `config` (defined in `origin`, read-only through the API). */
  source: 'api' | 'config';
  /** The configuration file of a `config` agent; `null` for the others. */
  origin: string | null;
  created_at: string;
  /** When the agent was last renamed or re-described (or, for a `config` agent, synced). */
  updated_at: string;
}

/**
 * The workspace's default tool set (`GET`, `PUT` and `DELETE /api/workspace/default-tools`): the tools
 * `/mcp` serves and an agent that never had an attachment uses. `custom: false` means every tool the
 * workspace sees (tools added later included); `true`, the tools chosen with `PUT`.
 *
 * @example
 * ```ts
 * const set = (await (await fetch('/api/workspace/default-tools')).json()) as DefaultToolSetView;
 * set.custom ? set.tools.map((tool) => tool.id) : 'every tool';
 * ```
 */
export interface DefaultToolSetView {
  custom: boolean;
  tools: ToolView[];
}

/**
 * A logged call as the API shows it (`GET /api/calls`).
 *
 * @example
 * ```ts
 * const { calls } = (await (await fetch('/api/calls?limit=10')).json()) as { calls: ToolCallView[] };
 * ```
 */
export interface ToolCallView {
  /** Increases with every call; newest calls have the highest ids. */
  id: number;
  agent_id: string | null;
  tool_id: string;
  status: ToolCallStatus;
  error_code: string | null;
  duration_ms: number;
  created_at: string;
  /** The id of the API token the call came with (never the token); null for calls logged before it was kept. */
  token_id: string | null;
  /** The approval an approved call ran under, or a pending call waits for. */
  approval_id: string | null;
  /** SHA-256 (hex) of the canonical JSON of the arguments. */
  arguments_digest: string | null;
  /** Bytes of the result's JSON. */
  result_bytes: number | null;
}

/**
 * A call limit as the API shows it (`GET /api/limits`): `source` says whether it is a row set through
 * the API or comes from the server's configuration (`server.limits` in toolshed.yaml).
 *
 * @example
 * ```ts
 * const { limits } = (await (await fetch('/api/limits')).json()) as { limits: CallLimitView[] };
 * ```
 */
export interface CallLimitView {
  scope: 'workspace' | 'token' | 'agent' | 'tool';
  target: string | null;
  calls_per_minute: number | null;
  /** The bucket size: the `burst` set, or one second's worth of calls (at least 1) when a rate has none. */
  burst: number | null;
  max_concurrent: number | null;
  source: 'config' | 'api';
}

/**
 * A changed upstream tool waiting for approval, as the API shows it: the definition as approved and
 * as the server lists it now (parsed), the fields that differ, and `diff`, the change as lines
 * (`-` approved, `+` now).
 *
 * @example
 * ```ts
 * const change: UpstreamChangeView = { server: 'memory', tool: 'read_graph', changed: ['description'], ... };
 * ```
 */
export interface UpstreamChangeView {
  server: string;
  tool: string;
  changed: string[];
  approved_at: string;
  pending_since: string;
  approved: unknown;
  current: unknown;
  diff: string;
}

/**
 * An MCP server as `GET /api/mcp-servers` shows it: its state (see {@link McpServerStatus}) and its
 * tools' changes waiting for approval.
 *
 * @example
 * ```ts
 * const view: UpstreamServerView = { name: 'memory', state: 'up', since: '...', tools: 9, reconnects: 0, changes: [] };
 * ```
 */
export interface UpstreamServerView {
  name: string;
  state: 'up' | 'down' | 'failed' | 'not_connected';
  since?: string;
  last_error?: string;
  tools?: number;
  reconnects?: number;
  changes: UpstreamChangeView[];
}

/**
 * An MCP task as `GET /api/tasks/:id` shows it (and, without `result`, an item of `GET /api/tasks`).
 *
 * @example
 * ```ts
 * const task = (await (await fetch(`/api/tasks/${id}`)).json()) as TaskView;
 * ```
 */
export interface TaskView {
  id: string;
  /** The tool the task calls. */
  tool: string;
  /** The agent view it was started in; `null` for the workspace's `/mcp`. */
  agent_id: string | null;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  status_message: string | null;
  created_at: string;
  updated_at: string;
  /** When the task and its result are deleted. */
  expires_at: string;
  ttl_ms: number;
  poll_interval_ms: number;
  /** The `tools/call` result (as `tasks/result` gives it); `null` while the task runs. */
  result?: Record<string, unknown> | null;
}
