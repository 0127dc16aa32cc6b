import { ToolshedError } from './errors/toolshed-error.js';
import { type ResultMetadata, ToolResult } from './tool-result.js';
import type { ToolSpec } from './tool-spec.js';

/** A call waiting for a person's decision. */
export interface PendingApproval {
  id: string;
  tool: string;
  /** The arguments that will run, as canonical JSON (sorted keys): what the approver saw. */
  arguments: string;
  createdAt: string;
  toolCallId?: string;
  agentId?: string;
}

/**
 * Where pending approvals live. `take` must be atomic: it returns the approval once and removes it,
 * so an approved call runs exactly once however many times the decision is replayed.
 */
export interface ApprovalStore {
  save(approval: PendingApproval): void | Promise<void>;
  take(id: string): PendingApproval | undefined | Promise<PendingApproval | undefined>;
  get(id: string): PendingApproval | undefined | Promise<PendingApproval | undefined>;
}

/** Decides which calls need approval beyond the tools marked `requiresApproval`. */
export type ApprovalRule = (tool: ToolSpec, args: Record<string, unknown>) => boolean;

/**
 * The default {@link ApprovalStore}: a map in memory, bounded (oldest pending approvals are dropped
 * past `capacity`).
 */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #pending = new Map<string, PendingApproval>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  save(approval: PendingApproval): void {
    this.#pending.set(approval.id, approval);
    if (this.#pending.size > this.#capacity) {
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) this.#pending.delete(oldest);
    }
  }

  take(id: string): PendingApproval | undefined {
    const approval = this.#pending.get(id);
    this.#pending.delete(id);
    return approval;
  }

  get(id: string): PendingApproval | undefined {
    return this.#pending.get(id);
  }
}

/**
 * JSON with object keys sorted at every level: two equal argument objects give the same text, so an
 * approval can be checked for tampering by comparing strings.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: { d: 2, c: 3 } }); // '{"a":{"c":3,"d":2},"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, child: unknown) => {
    if (child === null || typeof child !== 'object' || Array.isArray(child)) return child;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(child).sort()) sorted[key] = (child as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * The approval gate of dispatch: when the tool's `requiresApproval` or the registry's `rule` says a
 * call needs a person's decision, store it in `store` and answer the `pending_approval` result (a
 * promise of it while a database-backed store saves). Undefined when the call may run.
 *
 * @example
 * ```ts
 * const pending = requestApproval(spec, { path: '/tmp/x' }, { tool: 'delete', durationMs: 0 }, undefined, undefined, store);
 * // pending?.status === 'pending_approval' when spec.requiresApproval is true
 * ```
 */
export function requestApproval(
  spec: ToolSpec,
  args: Record<string, unknown>,
  metadata: ResultMetadata,
  agentId: string | undefined,
  rule: ApprovalRule | undefined,
  store: ApprovalStore,
): ToolResult | Promise<ToolResult> | undefined {
  const own = spec.requiresApproval;
  const needed =
    own === true ||
    (typeof own === 'function' && (own as (args: Record<string, unknown>) => boolean)(args)) ||
    (rule?.(spec, args) ?? false);
  if (!needed) return undefined;
  const canonical = canonicalJson(args);
  const approval: PendingApproval = {
    id: `appr_${globalThis.crypto.randomUUID().replaceAll('-', '')}`,
    tool: spec.name,
    arguments: canonical,
    createdAt: new Date().toISOString(),
  };
  if (typeof metadata.toolCallId === 'string') approval.toolCallId = metadata.toolCallId;
  if (agentId !== undefined) approval.agentId = agentId;
  const pending = ToolResult.pendingApproval(approval.id, JSON.parse(canonical));
  const saved = store.save(approval);
  return saved instanceof Promise ? saved.then(() => pending) : pending;
}

/**
 * Take a pending approval out of `store` to decide it, exactly once. Throws `APPROVAL_INVALID` for an
 * unknown or already decided id, or when `expectedArguments` differ from what was stored (tampering).
 *
 * @example
 * ```ts
 * const approval = await takeApproval(store, 'appr_1', { path: '/tmp/x' });
 * ```
 */
export async function takeApproval(
  store: ApprovalStore,
  id: string,
  expectedArguments: unknown,
): Promise<PendingApproval> {
  const pending = await store.get(id);
  if (pending === undefined) {
    throw new ToolshedError('APPROVAL_INVALID', `Approval '${id}' is unknown or was already decided.`);
  }
  if (expectedArguments !== undefined && canonicalJson(expectedArguments) !== pending.arguments) {
    throw new ToolshedError(
      'APPROVAL_INVALID',
      `Approval '${id}' was given for other arguments than the stored call; refusing to run it.`,
    );
  }
  const taken = await store.take(id);
  if (taken === undefined) {
    throw new ToolshedError('APPROVAL_INVALID', `Approval '${id}' is unknown or was already decided.`);
  }
  return taken;
}
