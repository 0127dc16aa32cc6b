import { ToolResult } from '../core/tool-result.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { AttachedTool, TokenIdentity, ToolRecord, ToolshedStore } from '../store/index.js';
import { notFound } from './api-error.js';
import type { CallQuotas } from './call-quotas.js';
import type { ServerMetrics } from './server-metrics.js';
import type { WorkspaceRegistries } from './workspace-registries.js';

/** What the routes share. */
export interface ServerContext {
  store: ToolshedStore;
  registries: WorkspaceRegistries;
  metrics: ServerMetrics;
  /** How many calls each API token and workspace may have running at once. */
  calls: CallQuotas;
  /** The operator's log of server-side failures (`ServerOptions.onError`). */
  report: (error: unknown) => void;
  /** The environment the tools see (the registries' `env`, default `process.env`). */
  env: Readonly<Record<string, string | undefined>>;
}

/** The tools a request may use: an agent's (or the workspace default set) in the workspace registry. */
export interface ToolView {
  registry: ToolRegistry;
  /** The names callable in this view. */
  names: Set<string>;
  /** Per-tool attachment config, handed to handlers as `ctx.config`. */
  config: Record<string, Record<string, unknown>>;
}

/**
 * The tools of `agentId` (its attachments with their config, or the workspace default set when it has
 * none), or with no agent every tool the workspace sees, plus the `--config` tools. Throws the store's
 * not-found error for an agent the workspace does not have.
 *
 * @example
 * ```ts
 * const view = await toolViewOf(context, 'acme', 'agt_1');
 * ```
 */
export async function toolViewOf(context: ServerContext, workspaceId: string, agentId?: string): Promise<ToolView> {
  // What the view is made of: the store's records (the same objects while its read cache holds them)
  // and, for an agent, each attachment (tool and config) and whether it is the fallback set.
  let sources: readonly object[];
  let includeExtra = true;
  if (agentId === undefined) {
    sources = await context.store.tools.list(workspaceId);
  } else {
    const list = await context.store.attachments.listAttachments(workspaceId, agentId);
    sources = list.tools;
    includeExtra = list.fallback;
  }
  const memos = memosOf(context);
  const key = `${workspaceId}\u0000${agentId ?? ''}`;
  const memo = memos.get(key);
  if (
    memo !== undefined &&
    memo.includeExtra === includeExtra &&
    memo.view.registry === context.registries.peek(workspaceId) &&
    sameItems(memo.sources, sources)
  ) {
    return memo.view;
  }
  const view = buildView(context, workspaceId, sources, agentId !== undefined, includeExtra);
  if (memos.size >= MAX_VIEW_MEMOS) memos.clear();
  memos.set(key, { sources, includeExtra, view });
  return view;
}

/** Views kept per server at most; a full memo starts over. */
const MAX_VIEW_MEMOS = 10_000;

interface ViewMemo {
  sources: readonly object[];
  includeExtra: boolean;
  view: ToolView;
}

/**
 * The last view of each workspace and agent, reused while the store hands out the same records: a
 * changed tool or attachment is a new object (the store's cache is dropped and reloaded), so a view
 * built from the same objects is the same view. Saves rebuilding it for every call.
 */
const viewMemos = new WeakMap<ServerContext, Map<string, ViewMemo>>();

function memosOf(context: ServerContext): Map<string, ViewMemo> {
  let memos = viewMemos.get(context);
  if (memos === undefined) {
    memos = new Map();
    viewMemos.set(context, memos);
  }
  return memos;
}

function sameItems(left: readonly object[], right: readonly object[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

function buildView(
  context: ServerContext,
  workspaceId: string,
  sources: readonly object[],
  attached: boolean,
  includeExtra: boolean,
): ToolView {
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
  const names = new Set(records.map((record) => record.id));
  if (includeExtra) for (const name of context.registries.extraToolNames) names.add(name);
  return { registry, names, config };
}

/** The view's tools that have a handler on this server, sorted. */
export function servedNames(view: ToolView): string[] {
  return [...view.names].filter((name) => view.registry.has(name)).sort();
}

/** A registry holding only the view's tools that have a handler here, for exports and prompt docs. */
export function viewRegistry(view: ToolView): ToolRegistry {
  return view.registry.subset(servedNames(view), { strict: false, config: view.config });
}

/**
 * Call `name` in the view for the request's token, log the call in `tool_calls` and count it in the
 * metrics. A name outside the view is a 404; a tool without a handler on this server is an
 * `EXECUTION_FAILED` result; a call past the token's or workspace's concurrent-call quota is a
 * `RATE_LIMITED` result, counted but neither run nor logged.
 */
export async function callInView(
  context: ServerContext,
  identity: TokenIdentity,
  view: ToolView,
  name: string,
  args: unknown,
  agentId: string | undefined,
): Promise<ToolResult> {
  if (!view.names.has(name)) {
    throw notFound(
      agentId === undefined
        ? `Tool '${name}' does not exist in this workspace.`
        : `Tool '${name}' is not available to agent '${agentId}'.`,
    );
  }
  if (!view.registry.has(name)) {
    const result = ToolResult.error('EXECUTION_FAILED', `Tool '${name}' has no handler on this server.`, {
      metadata: { tool: name },
    });
    await recordCall(context, identity.workspaceId, name, result, agentId);
    return result;
  }
  const admission = context.calls.admit(identity, name);
  if (!admission.admitted) {
    context.metrics.observe(name, admission.result);
    return admission.result;
  }
  let result: ToolResult;
  try {
    result = await view.registry.call(name, args, {
      context: {
        ...(Object.hasOwn(view.config, name) ? { config: view.config[name] } : {}),
        // Stored with an approval the call may need, so the approved call runs in the same view.
        ...(agentId === undefined ? {} : { agentId }),
      },
    });
  } finally {
    admission.release();
  }
  await recordCall(context, identity.workspaceId, name, result, agentId);
  return result;
}

/** Log a finished call and count it. */
export async function recordCall(
  context: ServerContext,
  workspaceId: string,
  name: string,
  result: ToolResult,
  agentId: string | undefined | null,
): Promise<void> {
  context.metrics.observe(name, result);
  await context.store.toolCalls.record(workspaceId, {
    agentId: agentId ?? null,
    toolId: name,
    status: result.status,
    errorCode: result.status === 'success' || result.status === 'pending_approval' ? null : result.error.code,
    durationMs: Math.max(0, result.metadata.durationMs),
  });
}
