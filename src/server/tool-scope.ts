import type { ToolRegistry } from '../registry/tool-registry.js';
import type { AttachedTool, ToolRecord } from '../store/index.js';
import type { ServerContext } from './server-context.js';

/**
 * The tools a request may use: an agent's (or the workspace default set) in the workspace registry.
 * Not an API shape (those are the `*View` types of `api-views.ts`).
 */
export interface ToolScope {
  registry: ToolRegistry;
  /** The names callable in this scope (rows; a row without a handler here is unavailable). */
  names: Set<string>;
  /** The row of each name. */
  records: Map<string, ToolRecord>;
  /** Per-tool attachment config, handed to handlers as `ctx.config`. */
  config: Record<string, Record<string, unknown>>;
}

/**
 * Which tools a scope without an agent holds: `all` (every tool the workspace sees: REST calls and
 * exports) or `default` (the workspace's default tool set: what `/mcp` serves).
 */
export type WorkspaceView = 'all' | 'default';

/**
 * The tools of `agentId` (its attachments with their config, or the workspace default set when it
 * never had any), or with no agent the workspace's tools (`view`: all of them, or its default set).
 * Throws the store's not-found error for an agent the workspace does not have.
 *
 * @example
 * ```ts
 * const scope = await toolScopeOf(context, 'acme', 'agt_1');
 * scope.names.has('read_file');
 * ```
 */
export async function toolScopeOf(
  context: ServerContext,
  workspaceId: string,
  agentId?: string,
  view: WorkspaceView = 'all',
): Promise<ToolScope> {
  // What the scope is made of: the store's records (the same objects while its read cache holds them)
  // and, for an agent, each attachment (tool and config).
  let sources: readonly object[];
  let attached = false;
  if (agentId !== undefined) {
    sources = (await context.store.attachments.listAttachments(workspaceId, agentId)).tools;
    attached = true;
  } else if (view === 'default') {
    sources = (await context.store.workspaces.defaultTools(workspaceId))?.tools ?? [];
  } else {
    sources = await context.store.tools.list(workspaceId);
  }
  const memos = memosOf(context);
  const key = `${workspaceId}\u0000${agentId ?? ''}\u0000${view}`;
  const memo = memos.get(key);
  if (
    memo !== undefined &&
    memo.scope.registry === context.registries.peek(workspaceId) &&
    sameItems(memo.sources, sources)
  ) {
    return memo.scope;
  }
  const scope = buildScope(context, workspaceId, sources, attached);
  if (memos.size >= MAX_SCOPE_MEMOS) memos.clear();
  memos.set(key, { sources, scope });
  return scope;
}

/** Scopes kept per server at most; a full memo starts over. */
const MAX_SCOPE_MEMOS = 10_000;

interface ScopeMemo {
  sources: readonly object[];
  scope: ToolScope;
}

/**
 * The last scope of each workspace and agent, reused while the store hands out the same records: a
 * changed tool or attachment is a new object (the store's cache is dropped and reloaded), so a scope
 * built from the same objects is the same scope. Saves rebuilding it for every call.
 */
const scopeMemos = new WeakMap<ServerContext, Map<string, ScopeMemo>>();

function memosOf(context: ServerContext): Map<string, ScopeMemo> {
  let memos = scopeMemos.get(context);
  if (memos === undefined) {
    memos = new Map();
    scopeMemos.set(context, memos);
  }
  return memos;
}

function sameItems(left: readonly object[], right: readonly object[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

function buildScope(
  context: ServerContext,
  workspaceId: string,
  sources: readonly object[],
  attached: boolean,
): ToolScope {
  const config: Record<string, Record<string, unknown>> = {};
  let records: readonly ToolRecord[];
  if (attached) {
    const tools = sources as readonly AttachedTool[];
    records = tools.map((item) => item.tool);
    for (const item of tools) if (item.config !== null) config[item.tool.id] = item.config;
  } else {
    records = sources as readonly ToolRecord[];
  }
  const registry = context.registries.forTools(workspaceId, records);
  const byName = new Map(records.map((record) => [record.id, record]));
  return { registry, names: new Set(byName.keys()), records: byName, config };
}

/** The scope's tools that have a handler on this server, sorted. */
export function servedNames(scope: ToolScope): string[] {
  return [...scope.names].filter((name) => scope.registry.has(name)).sort();
}

/** A registry holding only the scope's tools that have a handler here, for exports and prompt docs. */
export function scopeRegistry(scope: ToolScope): ToolRegistry {
  return scope.registry.subset(servedNames(scope), { strict: false, config: scope.config });
}
