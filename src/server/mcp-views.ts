import type { ToolSpec } from '../core/tool-spec.js';
import { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { type StoreChange, StoreNotFoundError } from '../store/index.js';
import type { ServerContext } from './server-context.js';
import { servedNames, toolScopeOf } from './tool-scope.js';
import { syncViewCatalog } from './view-catalog.js';

/**
 * The tools one MCP endpoint serves, kept current: `registry` gains and loses tools as attachments,
 * workspace tools and agents change in the store (which makes every MCP session on it send
 * `notifications/tools/list_changed`), and `config` is the attachment config of each tool now.
 */
export interface LiveToolView {
  readonly workspaceId: string;
  /** The agent, or `undefined` for the workspace's default view. */
  readonly agentId: string | undefined;
  readonly registry: ToolRegistry;
  /** The prompts and resources the endpoint serves (see `syncViewCatalog`), kept current the same way. */
  readonly catalog: ContentCatalog;
  /** Per-tool attachment config, handed to handlers as `ctx.config`. */
  readonly config: Readonly<Record<string, Record<string, unknown>>>;
  /** False once the agent or its workspace was deleted; the registry is then empty. */
  readonly live: boolean;
}

interface ViewState {
  workspaceId: string;
  agentId: string | undefined;
  registry: ToolRegistry;
  catalog: ContentCatalog;
  config: Record<string, Record<string, unknown>>;
  live: boolean;
  /**
   * The tools this view put in `registry`, as the workspace registry's objects they came from (a
   * subset may add `read_tool_output` by itself, which is not listed here).
   */
  sources: Map<string, ToolSpec>;
  refreshing: Promise<void> | undefined;
  again: boolean;
}

/**
 * Live per-agent (and per-workspace default) views for the MCP endpoints of the service. One view per
 * (workspace, agent) is shared by all its sessions. Store change notifications (on PostgreSQL also
 * those of other server processes, by LISTEN/NOTIFY) refresh the views they concern; refreshes of one
 * view never overlap, and a change during a refresh triggers one more.
 *
 * @example
 * ```ts
 * const views = new McpViews(context, (error) => console.error(error));
 * const view = await views.open('default', 'agt_4f2a');
 * view.registry.on('change', () => console.log('attachments changed'));
 * views.close();
 * ```
 */
export class McpViews {
  readonly #context: ServerContext;
  readonly #report: (error: unknown) => void;
  readonly #views = new Map<string, ViewState>();
  readonly #opening = new Map<string, Promise<ViewState>>();
  readonly #unsubscribe: () => void;

  constructor(context: ServerContext, report: (error: unknown) => void = () => {}) {
    this.#context = context;
    this.#report = report;
    const unsubscribe = context.store.onChange((change) => this.#onChange(change));
    // A reloaded configuration gives its workspace new handlers: its views take them.
    const unreset = context.registries.onReset((workspaceId) => this.#onChange({ workspaceId, kind: 'tool' }));
    this.#unsubscribe = () => {
      unsubscribe();
      unreset();
    };
  }

  /**
   * The live view of `agentId` in `workspaceId` (or the workspace's default view). Throws the store's
   * not-found error when the workspace has no such agent.
   */
  async open(workspaceId: string, agentId?: string): Promise<LiveToolView> {
    const key = viewKey(workspaceId, agentId);
    const known = this.#views.get(key);
    if (known?.live === true) return known;
    let opening = this.#opening.get(key);
    if (opening === undefined) {
      opening = this.#create(workspaceId, agentId).finally(() => this.#opening.delete(key));
      this.#opening.set(key, opening);
    }
    return opening;
  }

  /**
   * Resolves once `view` has taken in every change heard so far (at once when no refresh is under way).
   */
  async settled(view: LiveToolView): Promise<void> {
    const state = view as ViewState;
    while (state.refreshing !== undefined) await state.refreshing;
  }

  /** Stop following store changes. */
  close(): void {
    this.#unsubscribe();
    this.#views.clear();
  }

  async #create(workspaceId: string, agentId: string | undefined): Promise<ViewState> {
    const fresh = await toolScopeOf(this.#context, workspaceId, agentId, 'default');
    const names = servedNames(fresh);
    const state: ViewState = {
      workspaceId,
      agentId,
      registry: fresh.registry.subset(names, { strict: false }),
      catalog: new ContentCatalog(),
      config: fresh.config,
      live: true,
      sources: new Map(names.map((name) => [name, fresh.registry.get(name)])),
      refreshing: undefined,
      again: false,
    };
    await syncViewCatalog(
      state.catalog,
      this.#context.registries.config,
      workspaceId,
      agentId,
      state.registry,
      this.#context.store.files(workspaceId),
    );
    this.#views.set(viewKey(workspaceId, agentId), state);
    return state;
  }

  #onChange(change: StoreChange): void {
    for (const state of this.#views.values()) {
      if (concerns(state, change)) this.#refresh(state);
    }
  }

  #refresh(state: ViewState): void {
    if (state.refreshing !== undefined) {
      state.again = true;
      return;
    }
    state.refreshing = this.#sync(state)
      .catch((error: unknown) => this.#report(error))
      .finally(() => {
        state.refreshing = undefined;
        if (state.again) {
          state.again = false;
          this.#refresh(state);
        }
      });
  }

  async #sync(state: ViewState): Promise<void> {
    let fresh: Awaited<ReturnType<typeof toolScopeOf>>;
    try {
      fresh = await toolScopeOf(this.#context, state.workspaceId, state.agentId, 'default');
    } catch (error) {
      if (!StoreNotFoundError.isInstance(error)) throw error;
      // The agent is gone: its sessions keep an empty list until their clients go away.
      this.#retire(state);
      return;
    }
    const wanted = new Set(servedNames(fresh));
    state.config = fresh.config;
    for (const name of [...state.sources.keys()]) {
      if (wanted.has(name)) continue;
      state.registry.unregister(name);
      state.sources.delete(name);
    }
    for (const name of wanted) {
      const tool = fresh.registry.get(name);
      // A workspace REST tool whose row changed is a new tool object in the workspace registry.
      if (state.sources.get(name) === tool) continue;
      state.registry.register(tool, { allowOverride: true });
      state.sources.set(name, tool);
    }
    await syncViewCatalog(
      state.catalog,
      this.#context.registries.config,
      state.workspaceId,
      state.agentId,
      state.registry,
    );
  }

  #retire(state: ViewState): void {
    state.live = false;
    for (const name of state.sources.keys()) state.registry.unregister(name);
    state.sources.clear();
    state.catalog.clear();
    state.config = {};
    const key = viewKey(state.workspaceId, state.agentId);
    if (this.#views.get(key) === state) this.#views.delete(key);
  }
}

function viewKey(workspaceId: string, agentId: string | undefined): string {
  return `${workspaceId}\u0000${agentId ?? ''}`;
}

/** Whether a store change may alter what `state` serves. */
function concerns(state: ViewState, change: StoreChange): boolean {
  if (change.kind === 'resync' || change.workspaceId === null) return true;
  if (change.workspaceId !== state.workspaceId) return false;
  switch (change.kind) {
    case 'workspace':
    case 'tool':
      return true;
    case 'agent':
    case 'attachment':
      return state.agentId !== undefined && change.agentId === state.agentId;
    default:
      return false;
  }
}
