import { type ApprovalRule, type ApprovalStore, MemoryApprovalStore } from '../core/approvals.js';
import type { CallContextOptions } from '../core/call-context.js';
import { DeadlineQueue } from '../core/deadline-queue.js';
import { createToolSpec, describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import {
  type CallHook,
  type CallInfo,
  type CallOptions,
  type DispatchRuntime,
  deliverFailure,
  dispatchCall,
  type HookErrorListener,
  type PreparedTool,
  reportHookError,
} from '../core/dispatch.js';
import { toolNotFound } from '../core/errors/failures.js';
import { ToolCallError } from '../core/errors/tool-call-error.js';
import { ToolNotFoundError } from '../core/errors/tool-not-found-error.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { OutputStore } from '../core/output-store.js';
import { fromToolProtocol, isToolProtocol, type ToolProtocol } from '../core/tool-protocol.js';
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
import { type ToolSearchHit, ToolSearchIndex, type ToolSearchOptions } from '../search/tool-search-index.js';
import { type BatchCall, readBatch, runCallMany } from './call-many.js';
import {
  type LoadedDefinition,
  loadDefinition,
  loadYamlDefinitionDirectory,
  loadYamlDefinitionFile,
  type ToolDefinition,
} from './load-definitions.js';
import { prepareTool } from './prepare-tool.js';
import { createReadToolOutputTool, READ_TOOL_OUTPUT } from './read-tool-output.js';
import { checkRegisterArguments } from './register-arguments.js';
import { RegistryExports } from './registry-exports.js';
import { type ResolveApprovalOptions, resolveApproval } from './resolve-approval.js';

export type { ToolDefinition } from './load-definitions.js';

/** Anything `register` accepts: a spec from `defineTool`, spec-shaped options, or a protocol object. */
export type RegistrableTool = ToolSpec<never> | ToolSpec | ToolProtocol | Record<string, unknown>;

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

/** Options of `register` and the declarative loaders. */
export interface RegisterOptions {
  /** Replace a tool of the same name instead of throwing `DUPLICATE_TOOL`. */
  allowOverride?: boolean;
}

/** Options of `loadYamlFile` and `registerDefinition`. */
export interface DefinitionOptions extends RegisterOptions {
  /** The folder relative handler paths resolve against (the YAML file's folder when loading a file). */
  baseDir?: string;
}

/** Options of `loadYamlDirectory`. */
export interface DirectoryOptions extends RegisterOptions {
  /** Which files to load: a glob matched against paths relative to the folder (default `*.yaml`). */
  pattern?: string;
  /** Called as files are processed, for progress output. */
  onProgress?: (done: number, total: number) => void;
}

/** What happened to the registry's tool set. */
export interface RegistryChange {
  type: 'register' | 'unregister' | 'clear';
  names: string[];
}

/** Events a registry emits; `on` returns a function that removes the listener. */
export interface RegistryEvents {
  change: (change: RegistryChange) => void;
  'hook-error': (error: unknown, hook: CallHook, call: CallInfo) => void;
}

type Entry =
  | { kind: 'tool'; prepared: PreparedTool; definition: ToolDefinition | undefined }
  | { kind: 'factory'; factory: () => RegistrableTool; prepared: PreparedTool | undefined };

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
  readonly #entries: Map<string, Entry>;
  readonly #options: ToolRegistryOptions;
  readonly #runtime: Mutable<DispatchRuntime> & { hooks: CallHook[]; hookErrorListeners: Set<HookErrorListener> };
  readonly #changeListeners = new Set<RegistryEvents['change']>();
  #sortedNames: string[] | undefined;
  #searchIndex: ToolSearchIndex | undefined;
  readonly #exports = new RegistryExports(this);
  #toolConfig: Readonly<Record<string, Record<string, unknown>>> | undefined;
  #version = 0;

  constructor(options: ToolRegistryOptions = {}) {
    this.#options = options;
    this.#entries = new Map();
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
    if (options.maxOutputChars !== undefined) this.#ensureOutputReader();
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
    return this.#version;
  }

  /** How many tools are registered. */
  get size(): number {
    return this.#entries.size;
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
    checkRegisterArguments('register', options, extra.length);
    const spec = toSpec(tool);
    this.#commit(
      [{ name: spec.name, entry: { kind: 'tool', prepared: this.#prepare(spec), definition: undefined } }],
      options,
    );
    return spec;
  }

  /**
   * Register many tools at once, all or nothing: if any is invalid or taken, none is registered.
   */
  registerAll(tools: readonly RegistrableTool[], options: RegisterOptions = {}, ...extra: never[]): ToolSpec[] {
    checkRegisterArguments('registerAll', options, extra.length);
    const specs = tools.map(toSpec);
    this.#commit(
      specs.map((spec) => ({
        name: spec.name,
        entry: { kind: 'tool', prepared: this.#prepare(spec), definition: undefined },
      })),
      options,
    );
    return specs;
  }

  /**
   * Register a tool whose construction is deferred: `factory` runs on the first `get` or `call` and its
   * tool is cached. The tool it returns must have the name registered here.
   */
  registerFactory(name: string, factory: () => RegistrableTool, options: RegisterOptions = {}): void {
    if (typeof factory !== 'function') {
      throw new ToolRegistrationError('INVALID_DEFINITION', `The factory for '${name}' must be a function.`, {
        toolName: name,
      });
    }
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new ToolRegistrationError(
        'INVALID_DEFINITION',
        `Tool name '${String(name)}' is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (${TOOL_NAME_PATTERN.source}).`,
        { field: 'name' },
      );
    }
    this.#commit([{ name, entry: { kind: 'factory', factory, prepared: undefined } }], options);
  }

  /**
   * Validate a declarative definition (the YAML form), resolve its handler and register it.
   * Throws {@link ToolRegistrationError} naming the field and the cause.
   */
  async registerDefinition(definition: unknown, options: DefinitionOptions = {}): Promise<ToolSpec> {
    const loaded = await loadDefinition(definition, options, this.#options.resolveBuiltin);
    this.#commit([this.#definitionItem(loaded)], options);
    return loaded.spec;
  }

  /** Load one YAML definition file (SPEC §4.1); errors name `file:line:col`, the field and what was expected. */
  async loadYamlFile(path: string, options: DefinitionOptions = {}): Promise<ToolSpec> {
    const loaded = await loadYamlDefinitionFile(path, options, this.#options.resolveBuiltin);
    this.#commit([{ ...this.#definitionItem(loaded), file: undefined }], options, loaded.file);
    return loaded.spec;
  }

  /**
   * Load every YAML definition in a folder matching `pattern` (default `*.yaml`; `**\/*.yaml` recurses).
   * All or nothing: when any file fails, nothing is registered and the thrown `LOAD_FAILED` error lists
   * every failing file. Returns the registered names, sorted.
   */
  async loadYamlDirectory(directory: string, options: DirectoryOptions = {}): Promise<string[]> {
    const loaded = await loadYamlDefinitionDirectory(directory, options, this.#options.resolveBuiltin);
    this.#commit(
      loaded.map((item) => this.#definitionItem(item)),
      options,
    );
    return loaded.map((item) => item.spec.name).sort();
  }

  #definitionItem(loaded: LoadedDefinition): { name: string; entry: Entry; file?: string } {
    const entry: Entry = { kind: 'tool', prepared: this.#prepare(loaded.spec), definition: loaded.definition };
    return { name: loaded.spec.name, entry, file: loaded.file };
  }

  /** The tool named `name`; throws {@link ToolNotFoundError} listing the closest and the available names. */
  get(name: string): ToolSpec {
    const prepared = this.#prepared(name);
    if (prepared === undefined) {
      const { message, suggestions } = toolNotFound(name, this.list());
      throw new ToolNotFoundError(name, message, suggestions);
    }
    return prepared.spec;
  }

  /** The declarative definition a tool was registered from (YAML, `registerDefinition`), if any. */
  getDefinition(name: string): ToolDefinition | undefined {
    const entry = this.#entry(name);
    return entry?.kind === 'tool' ? entry.definition : undefined;
  }

  /** True when a tool of that exact name is registered (own names only: `constructor` is not one). */
  has(name: string): boolean {
    return this.#entry(name) !== undefined;
  }

  /** Registered names, sorted. */
  list(): string[] {
    this.#sortedNames ??= [...this.#entries.keys()].sort();
    return [...this.#sortedNames];
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
    if (this.#entry(name) === undefined) return false;
    this.#entries.delete(name);
    this.#searchIndex?.remove(name);
    this.#changed({ type: 'unregister', names: [name] });
    return true;
  }

  /** Remove every tool. */
  clear(): void {
    const names = this.list();
    this.#entries.clear();
    this.#searchIndex?.clear();
    // A registry-wide output budget still truncates, so its reader must stay.
    if (this.#options.maxOutputChars !== undefined) this.#ensureOutputReader();
    this.#changed({ type: 'clear', names });
  }

  /**
   * A registry holding only `names` (a sub-agent's tools), sharing this registry's settings and tools.
   * With `strict` (the default), an unknown name throws {@link ToolNotFoundError} with suggestions;
   * otherwise unknown names are skipped. `config` gives per-tool configuration (an agent's attachment
   * config), handed to the handler as `ctx.config` unless a call brings its own.
   */
  subset(
    names: readonly string[],
    options: { strict?: boolean; config?: Readonly<Record<string, Record<string, unknown>>> } = {},
  ): ToolRegistry {
    const strict = options.strict ?? true;
    const view = new ToolRegistry({ ...this.#options, hooks: this.#runtime.hooks });
    if (options.config !== undefined) view.#toolConfig = options.config;
    // One store of truncated outputs for the registry and its views, so any reader finds any handle.
    view.#runtime.outputs = this.#runtime.outputs;
    if (view.#entries.delete(READ_TOOL_OUTPUT)) view.#ensureOutputReader();
    for (const name of names) {
      const entry = this.#entry(name);
      if (entry === undefined) {
        if (strict) this.get(name);
        continue;
      }
      view.#entries.set(name, entry);
    }
    if (this.has(READ_TOOL_OUTPUT) && !view.has(READ_TOOL_OUTPUT)) view.#ensureOutputReader();
    view.#changed({ type: 'register', names: view.list() });
    return view;
  }

  /**
   * Tools ranked by relevance to `query` (BM25 over name, title, description, when-to-use, tags and
   * parameters). The index is built on the first search and then kept up to date tool by tool.
   */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    if (this.#searchIndex === undefined) {
      const index = new ToolSearchIndex();
      for (const [name, entry] of this.#entries) this.#indexEntry(index, name, entry);
      this.#searchIndex = index;
    }
    return this.#searchIndex.search(typeof query === 'string' ? query : '', options);
  }

  #indexEntry(index: ToolSearchIndex, name: string, entry: Entry): void {
    if (entry.kind === 'tool') index.add(entry.prepared.spec);
    else if (entry.prepared !== undefined) index.add(entry.prepared.spec);
    else index.addName(name);
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
    const listeners = (event === 'change' ? this.#changeListeners : this.#runtime.hookErrorListeners) as Set<
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
    const prepared = typeof name === 'string' ? this.#preparedForCall(name) : undefined;
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
      const config = this.#toolConfig[name];
      return dispatchCall(prepared, args, { ...options, context: { ...options?.context, config } }, this.#runtime);
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
  callMany(
    calls: readonly BatchCall[],
    options: { signal?: AbortSignal; context?: CallContextOptions } = {},
  ): Promise<ToolResult[]> {
    const signal = options?.signal;
    const context = options?.context;
    const callOptions = (id: string | undefined): CallOptions => ({
      ...(signal === undefined ? {} : { signal }),
      ...(id === undefined ? {} : { toolCallId: id }),
      ...(context === undefined ? {} : { context }),
    });
    const reject = (problem: string, name: string, args: unknown, id: string | undefined) =>
      deliverFailure(
        name,
        args,
        callOptions(id),
        this.#runtime,
        ToolResult.error('INVALID_ARGUMENTS', problem, {
          hint: "Pass an array of calls, each { name: 'tool_name', args: {...}, id?: 'call_id' }.",
        }),
      );
    const entries = readBatch(calls);
    if (typeof entries === 'string') return reject(entries, '', undefined, undefined).then((result) => [result]);
    return runCallMany(entries, {
      run: (entry) =>
        'call' in entry
          ? this.call(entry.call.name, entry.call.args, callOptions(entry.call.id))
          : reject(entry.problem, entry.name, entry.args, entry.id),
      isReadOnly: (name) => this.#safePrepared(name)?.spec.annotations.readOnly === true,
      maxConcurrencyOf: (name) => this.#safePrepared(name)?.spec.maxConcurrency,
      maxConcurrency: this.#options.maxConcurrency ?? 8,
    });
  }

  /**
   * Decide a pending approval. `approve` runs the stored call exactly once and returns its result;
   * `deny` returns a `CANCELLED` result. Throws `APPROVAL_INVALID` for an unknown or already decided
   * id, or when `expectedArguments` differ from what was stored (tampering).
   */
  resolveApproval(id: string, decision: 'approve' | 'deny', options: ResolveApprovalOptions = {}): Promise<ToolResult> {
    return resolveApproval(this.#runtime, (name) => this.#prepared(name), id, decision, options);
  }

  /** The approval store (to list or inspect pending approvals). */
  get approvals(): ApprovalStore {
    return this.#runtime.approvals;
  }

  #prepare(spec: ToolSpec): PreparedTool {
    return prepareTool(spec, this.#options.approvalRule !== undefined);
  }

  #entry(name: string): Entry | undefined {
    return this.#entries.get(name);
  }

  #prepared(name: string): PreparedTool | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.kind === 'tool') return entry.prepared;
    if (entry.prepared === undefined) {
      const spec = toSpec(entry.factory());
      if (spec.name !== name) {
        throw new ToolRegistrationError(
          'INVALID_DEFINITION',
          `The factory registered as '${name}' made a tool named '${spec.name}'.`,
          {
            toolName: name,
          },
        );
      }
      entry.prepared = this.#prepare(spec);
    }
    return entry.prepared;
  }

  // For scheduling decisions: a tool whose factory fails counts as unknown here; its call reports why.
  #safePrepared(name: unknown): PreparedTool | undefined {
    if (typeof name !== 'string') return undefined;
    try {
      return this.#prepared(name);
    } catch {
      return undefined;
    }
  }

  #preparedForCall(name: string): PreparedTool | { failure: ReturnType<typeof ToolResult.error> } | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.kind === 'tool') return entry.prepared;
    try {
      return this.#prepared(name);
    } catch (error) {
      return {
        failure: ToolResult.error(
          'EXECUTION_FAILED',
          `Tool '${name}' could not be created: ${(error as Error).message}`,
        ),
      };
    }
  }

  #commit(items: Array<{ name: string; entry: Entry; file?: string }>, options: RegisterOptions, file?: string): void {
    if (items.length === 1 && (options.allowOverride || !this.#entries.has(items[0]!.name))) {
      this.#insert(items[0]!.name, items[0]!.entry);
      this.#changed({ type: 'register', names: [items[0]!.name] });
      return;
    }
    const errors: ToolRegistrationError[] = [];
    const seen = new Map<string, string | undefined>();
    for (const item of items) {
      const where = item.file ?? file;
      if (seen.has(item.name)) {
        const first = seen.get(item.name);
        errors.push(
          new ToolRegistrationError(
            'DUPLICATE_TOOL',
            `Tool '${item.name}' is defined twice${first === undefined ? '' : ` (also in ${first})`}.`,
            {
              toolName: item.name,
              ...(where === undefined ? {} : { file: where }),
            },
          ),
        );
      }
      seen.set(item.name, where);
      if (!options.allowOverride && this.#entries.has(item.name)) {
        errors.push(
          new ToolRegistrationError(
            'DUPLICATE_TOOL',
            `Tool '${item.name}' is already registered; pass allowOverride: true to replace it.`,
            { toolName: item.name, ...(where === undefined ? {} : { file: where }) },
          ),
        );
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) {
      throw new ToolRegistrationError(
        'LOAD_FAILED',
        `${errors.length} tools could not be registered:\n${errors.map((error) => `  ${error.message}`).join('\n')}`,
        {
          errors,
        },
      );
    }
    for (const item of items) this.#insert(item.name, item.entry);
    this.#changed({ type: 'register', names: items.map((item) => item.name) });
  }

  #insert(name: string, entry: Entry): void {
    this.#entries.set(name, entry);
    if (this.#searchIndex !== undefined) this.#indexEntry(this.#searchIndex, name, entry);
    if (entry.kind === 'tool' && entry.prepared.spec.maxOutputChars !== undefined) this.#ensureOutputReader();
  }

  #ensureOutputReader(): void {
    if (this.#entries.has(READ_TOOL_OUTPUT)) return;
    const spec = createReadToolOutputTool(this.#runtime.outputs);
    const entry: Entry = { kind: 'tool', prepared: this.#prepare(spec), definition: undefined };
    this.#entries.set(READ_TOOL_OUTPUT, entry);
    if (this.#searchIndex !== undefined) this.#indexEntry(this.#searchIndex, READ_TOOL_OUTPUT, entry);
  }

  #changed(change: RegistryChange): void {
    this.#version++;
    this.#sortedNames = undefined;
    if (this.#changeListeners.size === 0) return;
    for (const listener of this.#changeListeners) {
      try {
        listener(change);
      } catch (error) {
        reportHookError(this.#runtime.hookErrorListeners, { name: 'change listener' }, error, {
          tool: '',
          args: undefined,
          toolCallId: undefined,
          options: {},
        });
      }
    }
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function toSpec(tool: RegistrableTool): ToolSpec {
  if (isToolProtocol(tool)) return fromToolProtocol(tool);
  return createToolSpec(tool);
}
