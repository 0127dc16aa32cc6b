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
  // Plain JSON data (what a parsed body or a tool's arguments are) is written directly; anything else
  // (toJSON, class instances, undefined, cycles, BigInt) goes through JSON.stringify with a replacer
  // that sorts each object, whose text the direct paths give too.
  if (inCanonicalOrder(value, 0)) return JSON.stringify(value);
  return plainCanonicalJson(value, 0) ?? JSON.stringify(value, sortingReplacer);
}

function sortingReplacer(_key: string, child: unknown): unknown {
  if (child === null || typeof child !== 'object' || Array.isArray(child)) return child;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(child).sort()) sorted[key] = (child as Record<string, unknown>)[key];
  return sorted;
}

/** Deeper than this, the direct paths leave the value to the replacer (which also finds cycles). */
const PLAIN_DEPTH = 64;

/**
 * What the direct paths may write of a container at `depth`: a list, a plain object (no prototype but
 * Object's, no `toJSON`), or `undefined` for one they leave to the replacer.
 */
function plainKind(value: object, depth: number): 'array' | 'object' | undefined {
  if (depth === PLAIN_DEPTH) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Array.prototype) return 'array';
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  return typeof (value as { toJSON?: unknown }).toJSON === 'function' ? undefined : 'object';
}

/**
 * A key whose object the direct paths leave to the replacer: index-like keys come first in its sorted
 * copy whatever their order, and a copy cannot hold `__proto__`.
 */
function leftToReplacer(key: string): boolean {
  const lead = key.charCodeAt(0);
  return (lead >= 0x30 && lead <= 0x39) || key === '__proto__';
}

/**
 * Whether `value` is plain JSON data whose objects already list their keys sorted (as most argument
 * objects do), so that JSON.stringify alone writes its canonical text.
 */
function inCanonicalOrder(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'bigint';
  const kind = plainKind(value, depth);
  if (kind === 'array') {
    const list = value as unknown[];
    for (let index = 0; index < list.length; index++) {
      if (!inCanonicalOrder(list[index], depth + 1)) return false;
    }
    return true;
  }
  if (kind === undefined) return false;
  const object = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const key in object) {
    if (!Object.hasOwn(object, key) || leftToReplacer(key)) return false;
    if (previous !== undefined && !(previous < key)) return false;
    if (!inCanonicalOrder(object[key], depth + 1)) return false;
    previous = key;
  }
  return true;
}

/**
 * {@link canonicalJson} of plain JSON data whose keys are not in order, without a replacer or a sorted
 * copy of each object; `undefined` for a value it leaves to the replacer.
 */
function plainCanonicalJson(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const kind = plainKind(value, depth);
  if (kind === 'array') {
    const list = value as unknown[];
    let text = '[';
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      const written =
        item === undefined || typeof item === 'function' || typeof item === 'symbol'
          ? 'null'
          : plainCanonicalJson(item, depth + 1);
      if (written === undefined) return undefined;
      text += index === 0 ? written : `,${written}`;
    }
    return `${text}]`;
  }
  if (kind === undefined) return undefined;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    if (leftToReplacer(key)) return undefined;
    const child = object[key];
    if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
    const written = plainCanonicalJson(child, depth + 1);
    if (written === undefined) return undefined;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${written}`;
  }
  return `${text}}`;
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
