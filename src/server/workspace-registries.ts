import { BUILTIN_NAMES, createBuiltins } from '../builtins/index.js';
import type { RestToolOptions, WorkspaceSecrets } from '../builtins/web/rest-tool.js';
import { createRestTool } from '../builtins/web/rest-tool.js';
import type { RestToolConfig } from '../builtins/web/rest-tool-config.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { READ_TOOL_OUTPUT } from '../registry/read-tool-output.js';
import { ToolRegistry, type ToolRegistryOptions } from '../registry/tool-registry.js';
import type { ToolRecord, ToolshedStore } from '../store/index.js';
import type { ServedConfig } from './served-config.js';

/** The `handler_key` of workspace REST tools created through the API. */
export const HTTP_HANDLER_KEY = 'http';

/** Options of {@link WorkspaceRegistries}. */
export interface WorkspaceRegistriesOptions {
  store: ToolshedStore;
  /**
   * The configuration served to one workspace: its tools join that workspace's registry (over the
   * built-ins of the same name), and no other workspace's.
   */
  config?: ServedConfig;
  /** Tools defined in code for every workspace (global rows of source `module`), over the built-ins of the same name. */
  everyWorkspace?: readonly ToolSpec[];
  /** Built-ins shared by every workspace (code execution, emails), added after the per-workspace ones. */
  sharedBuiltins?: readonly ToolSpec[];
  /**
   * The shared built-ins as one workspace's registry gets them, in place of `sharedBuiltins` (the
   * service binds the code-execution tools to the workspace, so no sandbox process serves two).
   */
  sharedBuiltinsFor?: (workspaceId: string) => readonly ToolSpec[];
  /** Passed to every workspace registry (approvals are always the workspace's, from the store). */
  registryOptions?: Omit<ToolRegistryOptions, 'approvals'>;
  /**
   * Passed to `createRestTool` for workspace REST tools (tests exempt a loopback fake). Their
   * `workspaceSecrets` are always the workspace's own secrets in the store.
   */
  restTool?: Omit<RestToolOptions, 'workspaceSecrets'>;
  /**
   * How tools defined as rows get their handler, by `handler_key` (besides `http`, the workspace REST
   * tools): each builds the tool of one row of one workspace, rebuilt whenever the row changes.
   */
  rowTools?: Readonly<Record<string, RowToolFactory>>;
}

/**
 * Builds the runnable tool of a row defined as data (a code tool, ...) for one workspace.
 *
 * @example
 * ```ts
 * const rowTools = { javascript: (record, workspaceId) => createCodeTool(record, sandboxFor(workspaceId)) };
 * ```
 */
export type RowToolFactory = (record: ToolRecord, workspaceId: string) => ToolSpec;

interface WorkspaceEntry {
  registry: ToolRegistry;
  /** The options of the workspace's REST tools: the shared ones with the workspace's secrets. */
  restTool: RestToolOptions;
  /** What each registered row tool (REST, code) was built from, to rebuild it when the row changed. */
  restSignatures: Map<string, string>;
}

/**
 * One {@link ToolRegistry} per workspace: the built-ins with the workspace's virtual filesystem, the
 * shared built-ins (code execution, emails), the served configuration's tools (in its workspace
 * only), and the workspace's row tools, such as REST and code tools (registered on first use and
 * rebuilt when their row changes), with the workspace's approvals in the
 * store. Requests use views of it. A workspace REST tool authenticates with the workspace's own secrets
 * (`store.secrets`, read at each call) and never with the server's environment.
 *
 * @example
 * ```ts
 * const registries = new WorkspaceRegistries({ store });
 * const registry = registries.forTools('acme', await store.tools.list('acme'));
 * await registry.call('read_file', { path: '/notes.txt' });
 * ```
 */
export class WorkspaceRegistries {
  #options: WorkspaceRegistriesOptions;
  readonly #entries = new Map<string, WorkspaceEntry>();
  readonly #resetListeners = new Set<(workspaceId: string) => void>();
  #serverToolNames: ReadonlySet<string> | undefined;

  constructor(options: WorkspaceRegistriesOptions) {
    this.#options = options;
  }

  /**
   * The names of the tools this server defines: the built-ins, the shared built-ins, the served
   * configuration's tools and `read_tool_output`. Any other name is a workspace's own tool.
   */
  get serverToolNames(): ReadonlySet<string> {
    this.#serverToolNames ??= new Set([
      ...BUILTIN_NAMES,
      ...(this.#options.sharedBuiltins ?? []).map((tool) => tool.name),
      ...(this.#options.config?.tools ?? []).map((tool) => tool.spec.name),
      ...(this.#options.everyWorkspace ?? []).map((tool) => tool.name),
      READ_TOOL_OUTPUT,
    ]);
    return this.#serverToolNames;
  }

  /** The workspace's registry, with the REST tools among `tools` registered and current. */
  forTools(workspaceId: string, tools: readonly ToolRecord[]): ToolRegistry {
    const entry = this.#entry(workspaceId);
    for (const tool of tools) {
      if (tool.workspaceId !== workspaceId || tool.config === null) continue;
      const factory = tool.handlerKey === HTTP_HANDLER_KEY ? undefined : this.#options.rowTools?.[tool.handlerKey];
      if (tool.handlerKey !== HTTP_HANDLER_KEY && factory === undefined) continue;
      const signature = `${tool.createdAt}\u0000${tool.definitionHash ?? ''}\u0000${JSON.stringify(tool.config)}`;
      if (entry.restSignatures.get(tool.id) === signature) continue;
      entry.restSignatures.set(tool.id, signature);
      try {
        const spec =
          factory === undefined
            ? createRestTool(tool.config as unknown as RestToolConfig, entry.restTool)
            : factory(tool, workspaceId);
        entry.registry.register(spec, { allowOverride: true });
        rowBuildErrorsOf(entry.registry).delete(tool.id);
      } catch (error) {
        // One row that cannot be built is unavailable, with the reason; the workspace's other tools serve on.
        if (entry.registry.has(tool.id)) entry.registry.unregister(tool.id);
        rowBuildErrorsOf(entry.registry).set(tool.id, error instanceof Error ? error.message : String(error));
      }
    }
    return entry.registry;
  }

  /** The workspace's registry if it has one yet (without creating it or registering anything). */
  peek(workspaceId: string): ToolRegistry | undefined {
    return this.#entries.get(workspaceId)?.registry;
  }

  /** Forget a workspace's registry (after it was deleted). */
  drop(workspaceId: string): void {
    this.#entries.delete(workspaceId);
  }

  /** The configuration served now, if any. */
  get config(): ServedConfig | undefined {
    return this.#options.config;
  }

  /**
   * Serve another configuration (a reload): the workspaces of the old and the new one get fresh
   * registries with the new handlers, and each `onReset` listener hears of them.
   */
  setConfig(config: ServedConfig | undefined): void {
    const touched = new Set([this.#options.config?.workspaceId, config?.workspaceId]);
    this.#options = config === undefined ? { ...this.#options, config: undefined } : { ...this.#options, config };
    this.#serverToolNames = undefined;
    for (const workspaceId of touched) {
      if (workspaceId === undefined) continue;
      this.#entries.delete(workspaceId);
      for (const listener of this.#resetListeners) listener(workspaceId);
    }
  }

  /** Be told when a workspace's registry was replaced (its tools may have new handlers). */
  onReset(listener: (workspaceId: string) => void): () => void {
    this.#resetListeners.add(listener);
    return () => this.#resetListeners.delete(listener);
  }

  #entry(workspaceId: string): WorkspaceEntry {
    let entry = this.#entries.get(workspaceId);
    if (entry === undefined) {
      const { store } = this.#options;
      const registry = new ToolRegistry({ ...this.#options.registryOptions, approvals: store.approvals(workspaceId) });
      registry.registerAll(createBuiltins({ files: { backend: store.files(workspaceId) } }));
      registry.registerAll(this.#options.sharedBuiltinsFor?.(workspaceId) ?? this.#options.sharedBuiltins ?? []);
      registry.registerAll(this.#options.everyWorkspace ?? [], { allowOverride: true });
      const config = this.#options.config;
      if (config?.workspaceId === workspaceId) {
        registry.registerAll(
          config.tools.map((tool) => tool.spec),
          { allowOverride: true },
        );
      }
      const workspaceSecrets: WorkspaceSecrets = {
        workspaceId,
        reveal: (name) => store.secrets.reveal(workspaceId, name),
      };
      entry = { registry, restTool: { ...this.#options.restTool, workspaceSecrets }, restSignatures: new Map() };
      this.#entries.set(workspaceId, entry);
    }
    return entry;
  }
}

const rowBuildErrors = new WeakMap<ToolRegistry, Map<string, string>>();

/**
 * Why rows of a workspace registry could not be built into tools (a stored definition the current
 * version refuses), by tool id: such a tool is unavailable, with this reason.
 *
 * @example
 * ```ts
 * rowBuildErrorsOf(registry).get('company_search'); // "Tool 'company_search' needs a non-empty description, ..."
 * ```
 */
export function rowBuildErrorsOf(registry: ToolRegistry): Map<string, string> {
  let errors = rowBuildErrors.get(registry);
  if (errors === undefined) {
    errors = new Map();
    rowBuildErrors.set(registry, errors);
  }
  return errors;
}
