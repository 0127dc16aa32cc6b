import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObjectSchema, JsonSchema } from './json-schema.js';

/** Severity of a log message a tool sends while it runs (the MCP / syslog levels). */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** A question for the person behind the client, answered through an MCP client that supports it. */
export interface ElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** A request for the client's model to generate a message (MCP sampling). */
export interface SamplingRequest {
  messages: Array<{
    role: 'user' | 'assistant';
    content: { type: 'text'; text: string } | Record<string, unknown>;
  }>;
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}

/** What the client's model answered to a {@link SamplingRequest}. */
export interface SamplingResult {
  role: 'assistant' | 'user';
  content: { type: 'text'; text: string } | Record<string, unknown>;
  model?: string;
  stopReason?: string;
  [key: string]: unknown;
}

/**
 * What a handler receives beside its arguments.
 *
 * `signal` aborts on timeout and on the caller's cancellation; `progress` and `log` reach the caller
 * (MCP progress and log notifications); `config` is the per-agent attachment config; `env` is the
 * environment the registry was given. `elicit` and `sample` work only when the caller can answer them
 * (an MCP client that declared the capability); elsewhere they reject with a clear error.
 */
export interface ToolContext<Config = Record<string, unknown>> {
  readonly signal: AbortSignal;
  readonly toolCallId: string;
  readonly tool: string;
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown): void;
  readonly config: Config;
  readonly env: Readonly<Record<string, string | undefined>>;
  elicit(message: string, requestedSchema: JsonSchema): Promise<ElicitationResult>;
  sample(request: SamplingRequest): Promise<SamplingResult>;
}

/**
 * A tool's implementation: arguments (validated, defaults applied) and context in, output out.
 *
 * Declared through a method signature so its parameter is checked bivariantly: a
 * `ToolSpec<{ a: number }>` can sit in a registry of `ToolSpec`s.
 */
export type ToolHandler<Args = Record<string, unknown>, Output = unknown> = {
  handler(args: Args, context: ToolContext): Output | Promise<Output>;
}['handler'];

/** Decides from the arguments whether a call needs approval (bivariant, like {@link ToolHandler}). */
export type ApprovalPredicate<Args = Record<string, unknown>> = {
  predicate(args: Args): boolean;
}['predicate'];

/** Hints for clients about what a tool does (MCP tool annotations). */
export interface ToolAnnotations {
  /** Does not modify its environment (default false). Read-only tools run concurrently in `callMany`. */
  readOnly?: boolean;
  /** May perform destructive updates (default true when not read-only). */
  destructive?: boolean;
  /** Calling it again with the same arguments has no further effect (default false). */
  idempotent?: boolean;
  /** Reaches an open world of external entities, such as the web (default true). */
  openWorld?: boolean;
}

/**
 * Whether a tool's calls may run as MCP tasks (the tasks extension of MCP 2025-11-25), in MCP's own
 * words: `forbidden` (the default) never, `optional` when the client asks, `required` always, so a
 * client must ask for a task to call it.
 */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** How a tool's calls may be executed (MCP's `execution` of a tool). */
export interface ToolExecution {
  /** Whether a call may run as a task that the client polls (default `forbidden`). */
  taskSupport?: TaskSupport;
}

/** An environment variable a tool needs, and where to get a value for it. */
export interface RequiredEnvVar {
  name: string;
  description?: string;
  url?: string;
}

/** What a tool needs from its environment before it can run. */
export interface ToolRequirements {
  env?: RequiredEnvVar[];
}

/**
 * The one definition of a tool, from which toolshed validates calls, dispatches them and exports the
 * tool to every consumer. Build it with {@link defineTool}; registries hold it frozen.
 */
export interface ToolSpec<Args = Record<string, unknown>> {
  /** Canonical id, `^[a-z][a-z0-9_]{0,63}$`, unique in a registry. */
  readonly name: string;
  readonly title?: string;
  /** Model-facing description, one paragraph. */
  readonly description: string;
  /** Guidance for the system prompt: when the model should reach for this tool. */
  readonly whenToUse?: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly inputSchema: JsonObjectSchema;
  /**
   * Example arguments showing the model how to call the tool well (Anthropic's `input_examples`, and the
   * system-prompt docs). Each must be valid against `inputSchema`: `registry.check()` and `toolshed
   * validate` report one that is not, and exports leave it out.
   */
  readonly inputExamples?: readonly Readonly<Record<string, unknown>>[];
  readonly outputSchema?: JsonSchema;
  /** The Standard Schema the input schema came from; it also validates (refinements, transforms). */
  readonly input?: StandardSchemaV1;
  readonly handler: ToolHandler<Args>;
  readonly timeoutMs?: number;
  /** Extend the deadline each time the tool reports progress, up to `maxTotalMs`. */
  readonly resetOnProgress?: boolean;
  readonly maxTotalMs?: number;
  readonly annotations: Readonly<ToolAnnotations>;
  /** How calls may run: `{ taskSupport: 'optional' }` lets an MCP client run a call as a task. */
  readonly execution?: Readonly<ToolExecution>;
  readonly requires: Readonly<ToolRequirements>;
  readonly maxOutputChars?: number;
  /** What to do with arguments the schema does not declare: drop them (default) or reject the call. */
  readonly extraArgs?: 'drop' | 'reject';
  /** At most this many calls of this tool run at once in `callMany`. */
  readonly maxConcurrency?: number;
  /** Calls need a person's approval first (`true`, or a rule over the arguments). */
  readonly requiresApproval?: boolean | ApprovalPredicate<Args>;
  /** Command-line keyword for runtimes without tool calling; `null` means deliberately not exposed. */
  readonly cli?: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}
