import type { ToolSpec } from '../core/tool-spec.js';

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
