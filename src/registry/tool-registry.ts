import { type ApprovalRule, type ApprovalStore, MemoryApprovalStore } from '../core/approvals.js';
import { DeadlineQueue } from '../core/deadline-queue.js';
import { describeValue } from '../core/define-tool.js';
import {
  type CallHook,
  type CallInfo,
  type CallOptions,
  type DispatchRuntime,
  deliverFailure,
  dispatchCall,
  type HookErrorListener,
} from '../core/dispatch.js';
import { toolNotFound } from '../core/errors/failures.js';
import { ToolCallError } from '../core/errors/tool-call-error.js';
import { OutputStore } from '../core/output-store.js';
import { ToolResult, toModelText } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { AnthropicTool, AnthropicToolsOptions } from '../exporters/anthropic/index.js';
import type { BedrockTool, BedrockToolsOptions } from '../exporters/bedrock/index.js';
import type { ExportCheckReport } from '../exporters/check-exports.js';
import type { GeminiTool, GeminiToolsOptions } from '../exporters/gemini/index.js';
import type { McpToolEntry } from '../exporters/mcp/index.js';
import {
  decodeStrictArguments,
  type OpenAIChatTool,
  type OpenAIChatToolsOptions,
  type OpenAIResponsesExportOptions,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolParam,
  type OpenAIResponsesToolsOptions,
  type OpenAIToolSearchCall,
  type OpenAIToolSearchOutput,
} from '../exporters/openai/index.js';
import type { PromptDocsOptions } from '../exporters/prompt-docs/index.js';
import type { DeferLoadingOptions } from '../exporters/shared/defer-loading.js';
import type { ExportResult } from '../exporters/shared/export-result.js';
import type { ToolSearchHit, ToolSearchOptions } from '../search/tool-search-index.js';
import { type BatchCall, type CallManyOptions, callMany } from './call-many.js';
import type { ToolDefinition } from './load-definitions.js';
import type {
  DefinitionOptions,
  DirectoryOptions,
  RegisterOptions,
  RegistrableTool,
  RegistryChange,
} from './registration.js';
import { RegistryExports } from './registry-exports.js';
import { type ResolveApprovalOptions, resolveApproval } from './resolve-approval.js';
import { fillSubsetView, type SubsetOptions } from './subset-view.js';
import { ToolTable } from './tool-table.js';

export type { ToolDefinition } from './load-definitions.js';

/** Settings of a {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Timeout of a call when neither the call nor the tool sets one (default 30 000 ms). */
  defaultTimeoutMs?: number;
  /** What to do with undeclared arguments when the tool does not say (default `'drop'`). */
  extraArgs?: 'drop' | 'reject';
  /** Output budget for tools that set none; longer output is truncated and kept for `read_tool_output`. */
  maxOutputChars?: number;
  /** How many characters of truncated outputs to keep in memory (default 50 000 000). */
  outputStoreChars?: number;
  /** Environment for credential checks and `ctx.env` (default `process.env` where there is one). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Middleware run around every call. */
  hooks?: CallHook[];
  /** Registry-wide bound on concurrent calls in `callMany` (default 8). */
  maxConcurrency?: number;
  /** Which calls need approval, beyond tools marked `requiresApproval`. */
  approvalRule?: ApprovalRule;
  /** Where pending approvals are kept (default: in memory). */
  approvals?: ApprovalStore;
  /** Resolves `builtin:NAME` handler references in declarative definitions. */
  resolveBuiltin?: (name: string) => ToolSpec['handler'] | undefined;
}

/** Events a registry emits; `on` returns a function that removes the listener. */
export interface RegistryEvents {
  change: (change: RegistryChange) => void;
  'hook-error': (error: unknown, hook: CallHook, call: CallInfo) => void;
}

const processEnv: Readonly<Record<string, string | undefined>> =
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

let defaultRegistry: ToolRegistry | undefined;

/**
 * Holds tools by name and sends every model tool call through one defensive door.
 *
 * `call(name, args)` never throws: an unknown name, bad JSON, invalid arguments, missing credentials,
 * a throwing handler, a timeout, a cancellation or bad output all come back as a {@link ToolResult}
 * a model can act on. Registration errors (a taken name, a bad definition) throw
 * {@link ToolRegistrationError}: they are the program's mistakes, not the model's.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { ToolRegistry, defineTool, toModelText } from 'toolshed';
 *
 * const registry = new ToolRegistry();
 * registry.register(
 *   defineTool({
 *     name: 'add',
 *     description: 'Add two numbers.',
 *     input: z.object({ a: z.number(), b: z.number() }),
 *     handler: ({ a, b }) => a + b,
 *   }),
 * );
 * const result = await registry.call('add', '{"a": 1, "b": 2}');
 * console.log(toModelText(result)); // "3"
 * ```
 */
export class ToolRegistry {
  readonly #table: ToolTable;
  readonly #options: ToolRegistryOptions;
  readonly #runtime: Mutable<DispatchRuntime> & { hooks: CallHook[]; hookErrorListeners: Set<HookErrorListener> };
  readonly #exports = new RegistryExports(this);
  #toolConfig: Readonly<Record<string, Record<string, unknown>>> | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    this.#options = options;
    const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    if (!(defaultTimeoutMs > 0))
      throw new RangeError(`defaultTimeoutMs must be greater than 0, got ${defaultTimeoutMs}.`);
    this.#runtime = {
      env: options.env ?? processEnv,
      defaultTimeoutMs,
      extraArgs: options.extraArgs ?? 'drop',
      maxOutputChars: options.maxOutputChars,
      outputs: new OutputStore(options.outputStoreChars),
      deadlines: new DeadlineQueue(),
      hooks: [...(options.hooks ?? [])],
      hookErrorListeners: new Set(),
      approvalRule: options.approvalRule,
      approvals: options.approvals ?? new MemoryApprovalStore(),
      // Models in OpenAI strict mode send null for optional arguments they leave out.
      decodeNulls: decodeStrictArguments as DispatchRuntime['decodeNulls'],
    };
    this.#table = new ToolTable(this.#runtime, options.resolveBuiltin);
    if (options.maxOutputChars !== undefined) this.#table.ensureOutputReader();
  }

  /** The process-wide registry, for apps that want one (tests should use fresh instances). */
  static default(): ToolRegistry {
    defaultRegistry ??= new ToolRegistry();
    return defaultRegistry;
  }

  /** Forget the process-wide registry; the next `default()` makes a new one. */
  static resetDefault(): void {
    defaultRegistry = undefined;
  }

  /** Increases on every change of the tool set; caches keyed by it know when to rebuild. */
  get version(): number {
    return this.#table.version;
  }

  /** How many tools are registered. */
  get size(): number {
    return this.#table.entries.size;
  }

  /**
   * Register a tool: a spec from `defineTool`, an object of the same shape, or any object following
   * the structural tool protocol (`name`, `description`, `parameters`, `execute`/`executeAsync`).
   *
   * Throws `DUPLICATE_TOOL` when the name is taken, unless `allowOverride`; `INVALID_DEFINITION` when
   * the tool breaks the model, and when given more than one tool (`register(...tools)` would put the
   * second where the options go): use {@link registerAll} for several. Returns the registered spec.
   */
  register(tool: RegistrableTool, options: RegisterOptions = {}, ...extra: never[]): ToolSpec {
    return this.#table.register(tool, options, extra.length);
  }

  /**
   * Register many tools at once, all or nothing: if any is invalid or taken, none is registered.
   */
  registerAll(tools: readonly RegistrableTool[], options: RegisterOptions = {}, ...extra: never[]): ToolSpec[] {
    return this.#table.registerAll(tools, options, extra.length);
  }

  /**
   * Register a tool whose construction is deferred: `factory` runs on the first `get` or `call` and its
   * tool is cached. The tool it returns must have the name registered here.
   */
  registerFactory(name: string, factory: () => RegistrableTool, options: RegisterOptions = {}): void {
    this.#table.registerFactory(name, factory, options);
  }

  /**
   * Validate a declarative definition (the YAML form), resolve its handler and register it.
   * Throws {@link ToolRegistrationError} naming the field and the cause.
   */
  registerDefinition(definition: unknown, options: DefinitionOptions = {}): Promise<ToolSpec> {
    return this.#table.registerDefinition(definition, options);
  }

  /** Load one YAML definition file (SPEC §4.1); errors name `file:line:col`, the field and what was expected. */
  loadYamlFile(path: string, options: DefinitionOptions = {}): Promise<ToolSpec> {
    return this.#table.loadYamlFile(path, options);
  }

  /**
   * Load every YAML definition in a folder matching `pattern` (default `*.yaml`; `**\/*.yaml` recurses).
   * All or nothing: when any file fails, nothing is registered and the thrown `LOAD_FAILED` error lists
   * every failing file. Returns the registered names, sorted.
   */
  loadYamlDirectory(directory: string, options: DirectoryOptions = {}): Promise<string[]> {
    return this.#table.loadYamlDirectory(directory, options);
  }

  /** The tool named `name`; throws {@link ToolNotFoundError} listing the closest and the available names. */
  get(name: string): ToolSpec {
    return this.#table.get(name);
  }

  /** The declarative definition a tool was registered from (YAML, `registerDefinition`), if any. */
  getDefinition(name: string): ToolDefinition | undefined {
    const entry = this.#table.entries.get(name);
    return entry?.kind === 'tool' ? entry.definition : undefined;
  }

  /** True when a tool of that exact name is registered (own names only: `constructor` is not one). */
  has(name: string): boolean {
    return this.#table.entries.has(name);
  }

  /** Registered names, sorted. */
  list(): string[] {
    return this.#table.list();
  }

  /** Every registered tool, in name order (factories run). */
  tools(): ToolSpec[] {
    return this.list().map((name) => this.get(name));
  }

  /** `[name, tool]` pairs in name order. */
  entries(): Array<[string, ToolSpec]> {
    return this.list().map((name) => [name, this.get(name)]);
  }

  /** Remove a tool; false when there was none of that name. */
  unregister(name: string): boolean {
    return this.#table.unregister(name);
  }

  /** Remove every tool. */
  clear(): void {
    // A registry-wide output budget still truncates, so its reader must stay.
    this.#table.clear(this.#options.maxOutputChars !== undefined);
  }

  /**
   * A registry holding only `names` (a sub-agent's tools), sharing this registry's settings and tools.
   * With `strict` (the default), an unknown name throws {@link ToolNotFoundError} with suggestions;
   * otherwise unknown names are skipped. `config` gives per-tool configuration (an agent's attachment
   * config), handed to the handler as `ctx.config` unless a call brings its own.
   */
  subset(names: readonly string[], options: SubsetOptions = {}): ToolRegistry {
    const view = new ToolRegistry({ ...this.#options, hooks: this.#runtime.hooks });
    if (options.config !== undefined) view.#toolConfig = options.config;
    // One store of truncated outputs for the registry and its views, so any reader finds any handle.
    view.#runtime.outputs = this.#runtime.outputs;
    fillSubsetView(view.#table, this.#table, names, options.strict ?? true);
    return view;
  }

  /**
   * Tools ranked by relevance to `query` (BM25 over name, title, description, when-to-use, tags and
   * parameters). The index is built on the first search and then kept up to date tool by tool.
   */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    return this.#table.search(query, options);
  }

  /**
   * The tools in OpenAI function-calling form (Chat Completions by default, or `api: 'responses'`),
   * optionally strict. Cached until the tool set changes.
   */
  toOpenAITools(options?: OpenAIChatToolsOptions): ExportResult<OpenAIChatTool>;
  toOpenAITools(options: OpenAIResponsesToolsOptions & DeferLoadingOptions): ExportResult<OpenAIResponsesTool>;
  toOpenAITools(
    options: OpenAIChatToolsOptions | (OpenAIResponsesToolsOptions & DeferLoadingOptions) = { api: 'chat' },
  ): ExportResult<OpenAIChatTool> | ExportResult<OpenAIResponsesTool> {
    return this.#exports.toOpenAITools(options);
  }

  /**
   * The tools for the OpenAI Responses API with namespaces (one per category) and tool search:
   * deferred tools found by OpenAI's hosted `tool_search` or by a client-executed one whose calls
   * {@link ToolRegistry.answerOpenAIToolSearch} answers. Cached until the tool set changes.
   *
   * @example
   * ```ts
   * const { tools } = registry.toOpenAIResponsesTools({ namespaces: true, deferLoading: true, toolSearch: 'client' });
   * ```
   */
  toOpenAIResponsesTools(options: OpenAIResponsesExportOptions = {}): ExportResult<OpenAIResponsesToolParam> {
    return this.#exports.toOpenAIResponsesTools(options);
  }

  /**
   * Answer a client-executed `tool_search_call` from the Responses API with the registry's best
   * matches for its `query` (at most its `limit`, default 5), exported with the same `options` as the
   * tool list, so the model loads them in the same form.
   *
   * @example
   * ```ts
   * const options = { namespaces: true, deferLoading: true, toolSearch: 'client' } as const;
   * for (const item of response.output) {
   *   if (item.type === 'tool_search_call') input.push(item, registry.answerOpenAIToolSearch(item, options));
   * }
   * ```
   */
  answerOpenAIToolSearch(
    call: OpenAIToolSearchCall,
    options: OpenAIResponsesExportOptions = {},
  ): OpenAIToolSearchOutput {
    return this.#exports.answerOpenAIToolSearch(call, options);
  }

  /**
   * The tools in Anthropic's `{name, description, input_schema}` form. With `deferLoading`, tools are
   * marked `defer_loading` and the `search_tools` tool (registered if missing) stays loaded, so the
   * model finds the rest by searching. With `strict: true`, tools use strict tool use where they can
   * (see `toAnthropicTools`). Cached until the tool set changes.
   */
  toAnthropicTools(options: DeferLoadingOptions & AnthropicToolsOptions = {}): ExportResult<AnthropicTool> {
    return this.#exports.toAnthropicTools(options);
  }

  /**
   * The tools as Gemini `functionDeclarations`: in Gemini's OpenAPI subset (`parameters`), or as JSON
   * Schema (`parametersJsonSchema`) with `{schemaMode: 'json-schema'}`. Cached until the tool set changes.
   */
  toGeminiTools(options: GeminiToolsOptions = {}): ExportResult<GeminiTool> {
    return this.#exports.toGeminiTools(options);
  }

  /**
   * The tools as AWS Bedrock Converse `toolSpec`s, for `toolConfig.tools`; `{strict: true}` sets each
   * tool's `strict` flag. Cached until the tool set changes.
   */
  toBedrockTools(options: BedrockToolsOptions = {}): ExportResult<BedrockTool> {
    return this.#exports.toBedrockTools(options);
  }

  /** The tools as MCP `tools/list` entries. Cached until the tool set changes. */
  toMcpTools(): ExportResult<McpToolEntry> {
    return this.#exports.toMcpTools();
  }

  /** The system-prompt block describing the tools (SPEC §5.2). */
  renderPromptDocs(options: PromptDocsOptions = {}): string {
    return this.#exports.renderPromptDocs(options);
  }

  /** Compile every tool for every export target and report, per tool and target, what was rewritten or left out. */
  check(): ExportCheckReport {
    return this.#exports.check();
  }

  /** Add middleware run around every call (logging, metrics, tracing). */
  use(hook: CallHook): this {
    this.#runtime.hooks.push(hook);
    return this;
  }

  /**
   * The whole text of an output that an output budget cut (its handle is the result's
   * `metadata.outputHandle`), or `undefined` when the handle is unknown or the output was evicted.
   *
   * @example
   * ```ts
   * const result = await registry.call('dump_logs', {});
   * const full = registry.readOutput(String(result.metadata.outputHandle));
   * ```
   */
  readOutput(handle: string): string | undefined {
    if (typeof handle !== 'string') return undefined;
    return this.#runtime.outputs.read(handle, 0, Number.MAX_SAFE_INTEGER)?.text;
  }

  /** Listen to `change` (tool set changed) or `hook-error`; returns a function that stops listening. */
  on<E extends keyof RegistryEvents>(event: E, listener: RegistryEvents[E]): () => void {
    const listeners = (event === 'change' ? this.#table.changeListeners : this.#runtime.hookErrorListeners) as Set<
      RegistryEvents[E]
    >;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /**
   * Call a tool the way a model does: by name, with arguments as an object or JSON text. Runs the whole
   * defensive pipeline and **never throws**.
   */
  call(name: string, args?: unknown, options?: CallOptions): Promise<ToolResult> {
    const prepared = typeof name === 'string' ? this.#table.preparedForCall(name) : undefined;
    if (prepared === undefined || 'failure' in prepared) {
      const shownName = typeof name === 'string' ? name : describeValue(name);
      const failure =
        prepared?.failure ??
        ToolResult.error('TOOL_NOT_FOUND', toolNotFound(name, this.list()).message, {
          hint: 'Call one of the available tools by its exact name.',
        });
      return deliverFailure(shownName, args, options, this.#runtime, failure);
    }
    if (
      this.#toolConfig !== undefined &&
      options?.context?.config === undefined &&
      Object.hasOwn(this.#toolConfig, name)
    ) {
      // Copies given their keys, not spreads followed by new keys: slow on Node 20 (decision 019).
      const context: NonNullable<CallOptions['context']> = Object.assign({}, options?.context);
      context.config = this.#toolConfig[name];
      const withConfig: CallOptions = Object.assign({}, options);
      withConfig.context = context;
      return dispatchCall(prepared, args, withConfig, this.#runtime);
    }
    return dispatchCall(prepared, args, options, this.#runtime);
  }

  /** Like `call`, but returns the data of a success and throws {@link ToolCallError} otherwise. */
  async callOrThrow(name: string, args?: unknown, options?: CallOptions): Promise<unknown> {
    const result = await this.call(name, args, options);
    if (result.status === 'success') return result.data;
    if (result.status === 'pending_approval') {
      const failure = ToolResult.error('EXECUTION_FAILED', toModelText(result), {
        metadata: result.metadata,
      });
      throw new ToolCallError(toModelText(result), failure);
    }
    throw new ToolCallError(toModelText(result), result);
  }

  /**
   * Run a model's parallel tool calls. Read-only tools run concurrently; any other tool waits for the
   * calls before it and runs alone, in the order given. Results come back in the calls' order, one per
   * index, and like `call` it **never throws**.
   *
   * An entry that is not a call — `null`, a hole in a sparse array, a number, a string, an array, an
   * object without a string `name` or with a non-string `id`, or one whose properties throw when read —
   * gets an `INVALID_ARGUMENTS` result at its index (`metadata.tool` is `''` when no name could be read)
   * and the other calls run. An argument that is not an array gets a list of one `INVALID_ARGUMENTS`
   * result saying so.
   *
   * @example
   * ```ts
   * const results = await registry.callMany([{ id: 'call_1', name: 'search', args: { query: 'x' } }, null]);
   * // results[1].error.message: 'Call 1 must be an object with a tool name, got null.'
   * ```
   */
  callMany(calls: readonly BatchCall[], options: CallManyOptions = {}): Promise<ToolResult[]> {
    return callMany(
      {
        call: (name, args, callOptions) => this.call(name, args, callOptions),
        find: (name) => this.#table.safePrepared(name),
        runtime: this.#runtime,
        maxConcurrency: this.#options.maxConcurrency ?? 8,
      },
      calls,
      options,
    );
  }

  /**
   * Decide a pending approval. `approve` runs the stored call exactly once and returns its result;
   * `deny` returns a `CANCELLED` result. Throws `APPROVAL_INVALID` for an unknown or already decided
   * id, or when `expectedArguments` differ from what was stored (tampering).
   */
  resolveApproval(id: string, decision: 'approve' | 'deny', options: ResolveApprovalOptions = {}): Promise<ToolResult> {
    return resolveApproval(this.#runtime, (name) => this.#table.prepared(name), id, decision, options);
  }

  /** The approval store (to list or inspect pending approvals). */
  get approvals(): ApprovalStore {
    return this.#runtime.approvals;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
