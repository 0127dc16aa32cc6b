import type { DispatchRuntime, PreparedTool } from '../core/dispatch.js';
import { reportHookError } from '../core/dispatch.js';
import { toolNotFound } from '../core/errors/failures.js';
import { ToolNotFoundError } from '../core/errors/tool-not-found-error.js';
import { type ToolFailure, ToolResult } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolSearchHit, ToolSearchOptions } from '../search/tool-search-index.js';
import {
  type BuiltinResolver,
  type LoadedDefinition,
  loadDefinition,
  loadYamlDefinitionDirectory,
  loadYamlDefinitionFile,
} from './load-definitions.js';
import { prepareTool } from './prepare-tool.js';
import { createReadToolOutputTool, READ_TOOL_OUTPUT } from './read-tool-output.js';
import { checkRegisterArguments } from './register-arguments.js';
import {
  checkFactory,
  checkNames,
  type DefinitionOptions,
  type DirectoryOptions,
  type Entry,
  type RegisterOptions,
  type RegistrableTool,
  type RegistrationItem,
  type RegistryChange,
  specFromFactory,
  toSpec,
} from './registration.js';
import { RegistrySearch } from './registry-search.js';

/**
 * A registry's tools by name, and everything that changes them: registration with its checks (in
 * code, from factories, from declarative definitions), removal, the `read_tool_output` tool that an
 * output budget needs, the version and the `change` listeners, the search index. `ToolRegistry` is
 * a façade over it; its call path reads `entries` directly.
 *
 * @example
 * ```ts
 * const table = new ToolTable(runtime, undefined);
 * table.register(defineTool({ name: 'add', description: 'Add.', handler: ({ a, b }) => a + b }));
 * table.prepared('add')?.spec.name; // 'add'
 * ```
 */
export class ToolTable {
  /** The entries by name. */
  readonly entries = new Map<string, Entry>();
  /** Told of every change of the tool set. */
  readonly changeListeners = new Set<(change: RegistryChange) => void>();
  /** Increases on every change of the tool set. */
  version = 0;
  readonly #runtime: DispatchRuntime;
  readonly #resolveBuiltin: BuiltinResolver;
  readonly #search = new RegistrySearch();
  #sortedNames: string[] | undefined;

  /**
   * `runtime` is read when needed, not copied: its `outputs` back the `read_tool_output` tool, its
   * `approvalRule` decides how tools are prepared, its hook-error listeners hear of throwing `change`
   * listeners.
   */
  constructor(runtime: DispatchRuntime, resolveBuiltin: BuiltinResolver) {
    this.#runtime = runtime;
    this.#resolveBuiltin = resolveBuiltin;
  }

  /** Register one tool (see `ToolRegistry.register`); `extra` counts the arguments after the options. */
  register(tool: RegistrableTool, options: RegisterOptions, extra: number): ToolSpec {
    checkRegisterArguments('register', options, extra);
    const spec = toSpec(tool);
    this.#commit([{ name: spec.name, entry: this.#toolEntry(spec, undefined) }], options);
    return spec;
  }

  /** Register all of `tools` or none of them (see `ToolRegistry.registerAll`). */
  registerAll(tools: readonly RegistrableTool[], options: RegisterOptions, extra: number): ToolSpec[] {
    checkRegisterArguments('registerAll', options, extra);
    const specs = tools.map(toSpec);
    this.#commit(
      specs.map((spec) => ({ name: spec.name, entry: this.#toolEntry(spec, undefined) })),
      options,
    );
    return specs;
  }

  /** Register a factory run on the tool's first use (see `ToolRegistry.registerFactory`). */
  registerFactory(name: string, factory: () => RegistrableTool, options: RegisterOptions): void {
    checkFactory(name, factory);
    this.#commit([{ name, entry: { kind: 'factory', factory, prepared: undefined } }], options);
  }

  /** Register a declarative definition (see `ToolRegistry.registerDefinition`). */
  async registerDefinition(definition: unknown, options: DefinitionOptions): Promise<ToolSpec> {
    const loaded = await loadDefinition(definition, options, this.#resolveBuiltin);
    this.#commit([this.#definitionItem(loaded)], options);
    return loaded.spec;
  }

  /** Register the tool of one YAML file (see `ToolRegistry.loadYamlFile`). */
  async loadYamlFile(path: string, options: DefinitionOptions): Promise<ToolSpec> {
    const loaded = await loadYamlDefinitionFile(path, options, this.#resolveBuiltin);
    this.#commit([{ ...this.#definitionItem(loaded), file: undefined }], options, loaded.file);
    return loaded.spec;
  }

  /** Register the tools of a folder of YAML files, all or none (see `ToolRegistry.loadYamlDirectory`). */
  async loadYamlDirectory(directory: string, options: DirectoryOptions): Promise<string[]> {
    const loaded = await loadYamlDefinitionDirectory(directory, options, this.#resolveBuiltin);
    this.#commit(
      loaded.map((item) => this.#definitionItem(item)),
      options,
    );
    return loaded.map((item) => item.spec.name).sort();
  }

  /** The prepared tool named `name`, its factory run once; throws what a failing factory throws. */
  prepared(name: string): PreparedTool | undefined {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.kind === 'tool') return entry.prepared;
    if (entry.prepared === undefined) entry.prepared = this.#prepare(specFromFactory(name, entry.factory));
    return entry.prepared;
  }

  /** As `prepared`, for a call: a factory that fails becomes the `EXECUTION_FAILED` result to answer. */
  preparedForCall(name: string): PreparedTool | { failure: ToolFailure } | undefined {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.kind === 'tool') return entry.prepared;
    try {
      return this.prepared(name);
    } catch (error) {
      return {
        failure: ToolResult.error(
          'EXECUTION_FAILED',
          `Tool '${name}' could not be created: ${(error as Error).message}`,
        ),
      };
    }
  }

  /** As `prepared`, for scheduling decisions: a tool whose factory fails counts as unknown here; its call reports why. */
  safePrepared(name: unknown): PreparedTool | undefined {
    if (typeof name !== 'string') return undefined;
    try {
      return this.prepared(name);
    } catch {
      return undefined;
    }
  }

  /** The tool named `name`; throws {@link ToolNotFoundError} listing the closest and the available names. */
  get(name: string): ToolSpec {
    const prepared = this.prepared(name);
    if (prepared === undefined) {
      const { message, suggestions } = toolNotFound(name, this.list());
      throw new ToolNotFoundError(name, message, suggestions);
    }
    return prepared.spec;
  }

  /** Registered names, sorted (a new array each time). */
  list(): string[] {
    this.#sortedNames ??= [...this.entries.keys()].sort();
    return [...this.#sortedNames];
  }

  /** Remove a tool; false when there was none of that name. */
  unregister(name: string): boolean {
    if (!this.entries.delete(name)) return false;
    this.#search.removed(name);
    this.changed({ type: 'unregister', names: [name] });
    return true;
  }

  /** Remove every tool; with `keepOutputReader` (a registry-wide output budget), `read_tool_output` comes back. */
  clear(keepOutputReader: boolean): void {
    const names = this.list();
    this.entries.clear();
    this.#search.cleared();
    if (keepOutputReader) this.ensureOutputReader();
    this.changed({ type: 'clear', names });
  }

  /** Tools ranked by relevance to `query`; the index is built on the first search. */
  search(query: string, options: ToolSearchOptions): ToolSearchHit[] {
    return this.#search.search(this.entries, query, options);
  }

  /** Set `entry` under `name` with no checks and no `change` event (for building a view). */
  adopt(name: string, entry: Entry): void {
    this.entries.set(name, entry);
    this.#search.added(name, entry);
  }

  /** Add `read_tool_output` over the runtime's outputs unless there is one (no `change` event). */
  ensureOutputReader(): void {
    if (this.entries.has(READ_TOOL_OUTPUT)) return;
    this.adopt(READ_TOOL_OUTPUT, this.#toolEntry(createReadToolOutputTool(this.#runtime.outputs), undefined));
  }

  /** Count the version up and tell the `change` listeners; a throwing listener is reported as a hook error. */
  changed(change: RegistryChange): void {
    this.version++;
    this.#sortedNames = undefined;
    if (this.changeListeners.size === 0) return;
    for (const listener of this.changeListeners) {
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

  #prepare(spec: ToolSpec): PreparedTool {
    return prepareTool(spec, this.#runtime.approvalRule !== undefined);
  }

  #toolEntry(spec: ToolSpec, definition: LoadedDefinition['definition'] | undefined): Entry {
    return { kind: 'tool', prepared: this.#prepare(spec), definition };
  }

  #definitionItem(loaded: LoadedDefinition): RegistrationItem {
    return { name: loaded.spec.name, entry: this.#toolEntry(loaded.spec, loaded.definition), file: loaded.file };
  }

  #commit(items: readonly RegistrationItem[], options: RegisterOptions, file?: string): void {
    if (items.length !== 1 || (!options.allowOverride && this.entries.has(items[0]!.name))) {
      checkNames(items, options, (name) => this.entries.has(name), file);
    }
    for (const item of items) this.#insert(item.name, item.entry);
    this.changed({ type: 'register', names: items.map((item) => item.name) });
  }

  #insert(name: string, entry: Entry): void {
    this.adopt(name, entry);
    if (entry.kind === 'tool' && entry.prepared.spec.maxOutputChars !== undefined) this.ensureOutputReader();
  }
}
