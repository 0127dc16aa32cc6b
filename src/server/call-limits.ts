import { randomBytes } from 'node:crypto';
import { type ToolFailure, ToolResult } from '../core/tool-result.js';
import {
  type CallLimitInput,
  type CallLimitScope,
  callLimitKey,
  requireCallLimit,
  type ToolshedStore,
} from '../store/index.js';

/** How long a slot under a concurrency cap is leased before its server must renew it, in milliseconds. */
export const DEFAULT_SLOT_LEASE_MS = 30_000;

/** How long a workspace's stored limits are read from memory before the store is asked again, in milliseconds. */
export const LIMITS_CACHE_MS = 1_000;

/**
 * A workspace's limits read this close to the end of their copy, in milliseconds, are read again in
 * the background while the copy is still used, so calls do not wait for the read.
 *
 * @example
 * ```ts
 * const readAgainAfter = LIMITS_CACHE_MS - LIMITS_REFRESH_MS; // 900 ms into a copy's life
 * ```
 */
export const LIMITS_REFRESH_MS = 100;

/** The retry time a call refused by a concurrency cap is given: a slot frees when a running call ends. */
export const CONCURRENCY_RETRY_MS = 1_000;

/** A limit as it is enforced: normalized, with where it came from. */
export interface ActiveCallLimit {
  scope: CallLimitScope;
  target: string | null;
  callsPerMinute: number | null;
  burst: number | null;
  maxConcurrent: number | null;
  /** `config` (toolshed.yaml, `server.limits`) or `api` (a row set through the REST API). */
  source: 'config' | 'api';
}

/** Options of {@link CallLimits}. */
export interface CallLimitsOptions {
  /** Limits of the configuration, per workspace: a stored limit of the same scope and target wins. */
  configured?: Readonly<Record<string, readonly CallLimitInput[]>>;
  /** Lease of a concurrency slot (default {@link DEFAULT_SLOT_LEASE_MS}); renewed every third of it. */
  slotLeaseMs?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Who makes a call and of what: the keys of the limits it counts against. */
export interface LimitedCall {
  workspaceId: string;
  tokenId: string;
  agentId?: string | null;
  tool: string;
}

/** A call the limits let in: `release()` frees its slots (more calls are harmless). */
export interface LimitsPassed {
  admitted: true;
  release(): void;
}

/** A call a limit turned away: the `RATE_LIMITED` result, and the milliseconds to wait. */
export interface LimitsRefused {
  admitted: false;
  result: ToolFailure;
  retryAfterMs: number;
}

/**
 * The rate limits (token buckets) and concurrency caps of each workspace, per tool, agent, API token
 * and the workspace as a whole, from the configuration (`server.limits`) and the store's
 * `call_limits` rows. The counts live in the database (`store.callLimits`), so servers on one
 * PostgreSQL database share them; a concurrency slot is a lease this server renews while the call
 * runs, so a server that dies frees its slots once they expire.
 *
 * A call is checked against every limit that names it: its slots are taken first (given back if a
 * later limit refuses), then a token from each rate limit. A refused call gets a retryable
 * `RATE_LIMITED` result whose `error.details.retryAfterMs` says when to try again.
 *
 * @example
 * ```ts
 * const limits = new CallLimits(store, { configured: { acme: [{ scope: 'tool', target: 'fetch_url', callsPerMinute: 60 }] } });
 * const admission = await limits.admit({ workspaceId: 'acme', tokenId: 'tok_1', tool: 'fetch_url' });
 * if (!admission.admitted) return admission.result;
 * try {
 *   return await registry.call('fetch_url', args);
 * } finally {
 *   admission.release();
 * }
 * ```
 */
export class CallLimits {
  readonly #store: ToolshedStore;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #holder = `srv_${randomBytes(12).toString('hex')}`;
  #configured = new Map<string, ActiveCallLimit[]>();
  readonly #cache = new Map<string, { limits: ActiveCallLimit[]; until: number }>();
  /** The read of each workspace's stored limits under way, shared by the calls that wait for it. */
  readonly #loading = new Map<string, { generation: number; limits: Promise<ActiveCallLimit[]> }>();
  /** Counts the changes of what a read may return: a read started before one is neither shared after it nor kept. */
  #generation = 0;
  #held = 0;
  #renewal: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(store: ToolshedStore, options: CallLimitsOptions = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
    const lease = options.slotLeaseMs ?? DEFAULT_SLOT_LEASE_MS;
    if (!Number.isInteger(lease) || lease < 30) {
      throw new TypeError(`slotLeaseMs must be a whole number of at least 30, got ${String(lease)}.`);
    }
    this.#leaseMs = lease;
    for (const [workspaceId, limits] of Object.entries(options.configured ?? {})) {
      this.setConfigured(workspaceId, limits);
    }
  }

  /**
   * Replace the configuration's limits of a workspace (at start and when the configuration is
   * reloaded). Throws `TypeError` naming the entry for a malformed limit, keeping the previous ones.
   */
  setConfigured(workspaceId: string, limits: readonly CallLimitInput[]): void {
    const normalized = limits.map((limit, index) => {
      try {
        return { ...requireCallLimit(limit), source: 'config' as const };
      } catch (error) {
        throw new TypeError(`limit ${index + 1}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    const next = new Map(this.#configured);
    if (normalized.length === 0) next.delete(workspaceId);
    else next.set(workspaceId, normalized);
    this.#configured = next;
    this.invalidate(workspaceId);
  }

  /**
   * The limits in force in a workspace: stored ones, and the configuration's where none is stored for
   * the same scope and target. Calls that find no fresh copy while the store is being read share that
   * read; a copy used in its last {@link LIMITS_REFRESH_MS} is read again in the background.
   */
  async list(workspaceId: string): Promise<ActiveCallLimit[]> {
    const now = this.#now();
    return this.#fresh(workspaceId, now) ?? this.#shared(workspaceId) ?? this.#load(workspaceId, now);
  }

  /** The fresh copy of a workspace's limits, if this server holds one (read again in the background near its end). */
  #fresh(workspaceId: string, now: number): ActiveCallLimit[] | undefined {
    const cached = this.#cache.get(workspaceId);
    if (cached === undefined || cached.until <= now) return undefined;
    if (cached.until - now <= LIMITS_REFRESH_MS && this.#shared(workspaceId) === undefined) {
      this.#load(workspaceId, now).catch(() => undefined);
    }
    return cached.limits;
  }

  /** The read of a workspace's limits under way that a call may share (begun since the last change). */
  #shared(workspaceId: string): Promise<ActiveCallLimit[]> | undefined {
    const running = this.#loading.get(workspaceId);
    return running !== undefined && running.generation === this.#generation ? running.limits : undefined;
  }

  /** Read a workspace's limits as the read calls share, kept unless they changed meanwhile. */
  #load(workspaceId: string, now: number): Promise<ActiveCallLimit[]> {
    const generation = this.#generation;
    const limits = Promise.resolve()
      .then(() => this.#read(workspaceId))
      .then((read) => {
        if (generation === this.#generation)
          this.#cache.set(workspaceId, { limits: read, until: now + LIMITS_CACHE_MS });
        return read;
      });
    const flight = { generation, limits };
    this.#loading.set(workspaceId, flight);
    const done = () => {
      if (this.#loading.get(workspaceId) === flight) this.#loading.delete(workspaceId);
    };
    limits.then(done, done);
    return limits;
  }

  async #read(workspaceId: string): Promise<ActiveCallLimit[]> {
    const stored: ActiveCallLimit[] = (await this.#store.callLimits.list(workspaceId)).map((row) => ({
      scope: row.scope,
      target: row.target,
      callsPerMinute: row.callsPerMinute,
      burst: row.burst,
      maxConcurrent: row.maxConcurrent,
      source: 'api',
    }));
    const named = new Set(stored.map((limit) => callLimitKey(workspaceId, limit.scope, limit.target)));
    return [
      ...stored,
      ...(this.#configured.get(workspaceId) ?? []).filter(
        (limit) => !named.has(callLimitKey(workspaceId, limit.scope, limit.target)),
      ),
    ];
  }

  /** Forget what was read of a workspace's stored limits (after this server changed them). */
  invalidate(workspaceId: string): void {
    this.#generation += 1;
    this.#cache.delete(workspaceId);
  }

  /**
   * {@link CallLimits.admit}, answered at once (without a promise) when this server holds a fresh copy
   * of the workspace's limits and none of them names the call: the common case, which then costs no
   * wait at all.
   *
   * @example
   * ```ts
   * const admission = limits.admitNow({ workspaceId: 'acme', tokenId: 'tok_1', tool: 'search' });
   * const settled = admission instanceof Promise ? await admission : admission;
   * ```
   */
  admitNow(call: LimitedCall): LimitsPassed | Promise<LimitsPassed | LimitsRefused> {
    const limits = this.#fresh(call.workspaceId, this.#now());
    if (limits !== undefined && !limits.some((limit) => appliesTo(limit, call))) return UNLIMITED;
    return this.admit(call);
  }

  /** Let a call in under every limit that names it, or refuse it with the first limit it is past. */
  async admit(call: LimitedCall): Promise<LimitsPassed | LimitsRefused> {
    const all = await this.list(call.workspaceId);
    if (all.length === 0) return { admitted: true, release: () => {} };
    const applying = all.filter((limit) => appliesTo(limit, call));
    if (applying.length === 0) return { admitted: true, release: () => {} };
    const leases: string[] = [];
    const release = () => {
      const ids = leases.splice(0);
      this.#held -= ids.length;
      for (const id of ids) this.#store.callLimits.releaseSlot(id).catch(() => {});
      if (this.#held === 0) this.#stopRenewal();
    };
    try {
      for (const limit of applying) {
        if (limit.maxConcurrent === null) continue;
        const now = this.#now();
        const lease = {
          id: `lse_${randomBytes(12).toString('hex')}`,
          holder: this.#holder,
          expiresAt: now + this.#leaseMs,
        };
        const key = callLimitKey(call.workspaceId, limit.scope, limit.target);
        if (!(await this.#store.callLimits.acquireSlot(key, limit.maxConcurrent, lease, now))) {
          release();
          return refusal(call, limit, 'concurrency', CONCURRENCY_RETRY_MS);
        }
        leases.push(lease.id);
        this.#held += 1;
        this.#startRenewal();
      }
      for (const limit of applying) {
        if (limit.callsPerMinute === null) continue;
        const key = callLimitKey(call.workspaceId, limit.scope, limit.target);
        const taken = await this.#store.callLimits.takeToken(key, {
          capacity: burstOf(limit),
          refillPerMs: limit.callsPerMinute / 60_000,
          now: this.#now(),
        });
        if (!taken.taken) {
          release();
          return refusal(call, limit, 'rate', taken.retryAfterMs);
        }
      }
    } catch (error) {
      release();
      throw error;
    }
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        release();
      },
    };
  }

  /** Stop renewing leases (the slots still held expire by themselves). */
  close(): void {
    this.#closed = true;
    this.#stopRenewal();
  }

  #startRenewal(): void {
    if (this.#renewal !== undefined || this.#closed) return;
    this.#renewal = setInterval(
      () => {
        this.#store.callLimits.renewSlots(this.#holder, this.#now() + this.#leaseMs).catch(() => {});
      },
      Math.floor(this.#leaseMs / 3),
    );
    this.#renewal.unref();
  }

  #stopRenewal(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }
}

/** The admission of a call no limit names: nothing to release. */
const UNLIMITED: LimitsPassed = Object.freeze({ admitted: true as const, release: () => {} });

/**
 * The bucket size of a rate limit: its `burst`, or one second's worth of calls (at least 1).
 *
 * @example
 * ```ts
 * burstOf({ callsPerMinute: 600, burst: null }); // 10
 * ```
 */
export function burstOf(limit: { callsPerMinute: number | null; burst: number | null }): number {
  return limit.burst ?? Math.max(1, Math.floor((limit.callsPerMinute ?? 0) / 60));
}

function appliesTo(limit: ActiveCallLimit, call: LimitedCall): boolean {
  switch (limit.scope) {
    case 'workspace':
      return true;
    case 'token':
      return limit.target === call.tokenId;
    case 'agent':
      return call.agentId !== undefined && call.agentId !== null && limit.target === call.agentId;
    case 'tool':
      return limit.target === call.tool;
    default: {
      const unreachable: never = limit.scope;
      return unreachable;
    }
  }
}

function holderOf(limit: ActiveCallLimit): string {
  switch (limit.scope) {
    case 'workspace':
      return 'this workspace';
    case 'token':
      return `API token '${limit.target}'`;
    case 'agent':
      return `agent '${limit.target}'`;
    case 'tool':
      return `tool '${limit.target}'`;
    default: {
      const unreachable: never = limit.scope;
      return unreachable;
    }
  }
}

/**
 * The errors of calls a limit refused, so the REST route can answer them 429: the error object, which
 * the copies dispatch makes of a refusal while it stamps the call's metadata keep.
 */
const refusals = new WeakSet<object>();

/**
 * Whether `result` is a refusal by a call limit (never a tool's own `RATE_LIMITED`): the REST call
 * route answers it 429 with `Retry-After`.
 *
 * @example
 * ```ts
 * if (isLimitRefusal(result)) reply.code(429).header('retry-after', String(Math.ceil(retryAfterMsOf(result) / 1000)));
 * ```
 */
export function isLimitRefusal(result: unknown): result is ToolFailure {
  if (typeof result !== 'object' || result === null) return false;
  const error = (result as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && refusals.has(error);
}

/**
 * The milliseconds a limit's refusal says to wait (0 for any other result).
 *
 * @example
 * ```ts
 * retryAfterMsOf(refused.result); // 250
 * ```
 */
export function retryAfterMsOf(result: ToolFailure): number {
  const details = result.error.details as { retryAfterMs?: unknown } | undefined;
  return typeof details?.retryAfterMs === 'number' ? details.retryAfterMs : 0;
}

function refusal(
  call: LimitedCall,
  limit: ActiveCallLimit,
  kind: 'rate' | 'concurrency',
  retryAfterMs: number,
): LimitsRefused {
  const concurrency = kind === 'concurrency';
  const message = concurrency
    ? `Too many calls running at once for ${holderOf(limit)} (limit ${limit.maxConcurrent}); '${call.tool}' was not run.`
    : `Rate limit of ${holderOf(limit)} reached (${limit.callsPerMinute} calls a minute, bursts of ${burstOf(limit)}); '${call.tool}' was not run.`;
  const result = ToolResult.error('RATE_LIMITED', message, {
    hint: concurrency
      ? `Try again in about ${retryAfterMs} ms, once a running call has finished.`
      : `Try again in ${retryAfterMs} ms.`,
    details: {
      retryAfterMs,
      limit: {
        scope: limit.scope,
        target: limit.target,
        ...(concurrency
          ? { maxConcurrent: limit.maxConcurrent }
          : { callsPerMinute: limit.callsPerMinute, burst: burstOf(limit) }),
      },
    },
    metadata: { tool: call.tool },
  });
  refusals.add(result.error);
  return { admitted: false, retryAfterMs, result };
}
