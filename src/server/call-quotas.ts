import { type ToolFailure, ToolResult } from '../core/tool-result.js';
import type { TokenIdentity } from '../store/index.js';

/**
 * The default of `maxConcurrentCallsPerToken`: most tool calls one API token may have running at once,
 * over REST and MCP together.
 *
 * @example
 * ```ts
 * createServer({ store, calls: { maxConcurrentCallsPerToken: DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN * 2 } });
 * ```
 */
export const DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN = 32;

/**
 * The default of `maxConcurrentCallsPerWorkspace`: most tool calls one workspace may have running at
 * once, all its tokens together.
 *
 * @example
 * ```ts
 * createServer({ store, calls: { maxConcurrentCallsPerWorkspace: 16 } });
 * ```
 */
export const DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE = 64;

/** Options of {@link CallQuotas}: how many calls may run at once per API token and per workspace. */
export interface CallQuotaOptions {
  /** Most calls one API token may have running at once (default {@link DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN}). */
  maxConcurrentCallsPerToken?: number;
  /** Most calls one workspace may have running at once (default {@link DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE}). */
  maxConcurrentCallsPerWorkspace?: number;
}

/** A call let in: call `release()` once it has finished (more calls are harmless). */
export interface CallAdmitted {
  admitted: true;
  release(): void;
}

/** A call turned away: `result` is the `RATE_LIMITED` result to answer with. */
export interface CallRefused {
  admitted: false;
  result: ToolFailure;
}

/** What a refusal says of each quota: who holds it, and the option and flag that raise it. */
const TOKEN_QUOTA = {
  holder: 'this API token',
  option: 'maxConcurrentCallsPerToken',
  flag: '--max-concurrent-calls-per-token',
} as const;
const WORKSPACE_QUOTA = {
  holder: 'this workspace',
  option: 'maxConcurrentCallsPerWorkspace',
  flag: '--max-concurrent-calls-per-workspace',
} as const;

/**
 * Counts the tool calls running for each API token and each workspace of a server, and turns away a
 * call that would take either past its limit, so one tenant's burst of calls cannot take every slow
 * resource (sandbox processes, upstream connections, outbound requests) the others need. A refused
 * call never runs: it is answered at once with a `RATE_LIMITED` result (retryable) naming the limit it
 * hit. The counts live in this process.
 *
 * @example
 * ```ts
 * const quotas = new CallQuotas({ maxConcurrentCallsPerToken: 4 });
 * const admission = quotas.admit({ workspaceId: 'acme', tokenId: 'tok_1' }, 'search');
 * if (!admission.admitted) return admission.result;
 * try {
 *   return await registry.call('search', args);
 * } finally {
 *   admission.release();
 * }
 * ```
 */
export class CallQuotas {
  readonly #perToken: number;
  readonly #perWorkspace: number;
  readonly #perTokenRunning = new Map<string, number>();
  readonly #perWorkspaceRunning = new Map<string, number>();

  constructor(options: CallQuotaOptions = {}) {
    this.#perToken = callLimit(
      'maxConcurrentCallsPerToken',
      options.maxConcurrentCallsPerToken,
      DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN,
    );
    this.#perWorkspace = callLimit(
      'maxConcurrentCallsPerWorkspace',
      options.maxConcurrentCallsPerWorkspace,
      DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE,
    );
  }

  /** Let a call of `tool` for `identity` in, or refuse it when its token or workspace is at its limit. */
  admit(identity: TokenIdentity, tool: string): CallAdmitted | CallRefused {
    // Every call passes here: two map reads and two writes, and no key built.
    const { tokenId, workspaceId } = identity;
    const forToken = this.#perTokenRunning.get(tokenId) ?? 0;
    if (forToken >= this.#perToken) return refusal(TOKEN_QUOTA, this.#perToken, tool);
    const forWorkspace = this.#perWorkspaceRunning.get(workspaceId) ?? 0;
    if (forWorkspace >= this.#perWorkspace) return refusal(WORKSPACE_QUOTA, this.#perWorkspace, tool);
    this.#perTokenRunning.set(tokenId, forToken + 1);
    this.#perWorkspaceRunning.set(workspaceId, forWorkspace + 1);
    const tokens = this.#perTokenRunning;
    const workspaces = this.#perWorkspaceRunning;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        countDown(tokens, tokenId);
        countDown(workspaces, workspaceId);
      },
    };
  }

  /** How many calls are running for a token (`{ tokenId }`) or a workspace (`{ workspaceId }`). */
  running(of: { tokenId: string } | { workspaceId: string }): number {
    return 'tokenId' in of
      ? (this.#perTokenRunning.get(of.tokenId) ?? 0)
      : (this.#perWorkspaceRunning.get(of.workspaceId) ?? 0);
  }
}

function countDown(running: Map<string, number>, key: string): void {
  const left = (running.get(key) ?? 1) - 1;
  if (left === 0) running.delete(key);
  else running.set(key, left);
}

/** The `RATE_LIMITED` answer to a call past `quota`'s `limit`. */
function refusal(quota: typeof TOKEN_QUOTA | typeof WORKSPACE_QUOTA, limit: number, tool: string): CallRefused {
  return {
    admitted: false,
    result: ToolResult.error(
      'RATE_LIMITED',
      `Too many tool calls running at once for ${quota.holder} (limit ${limit}); '${tool}' was not run.`,
      {
        hint: `Wait for a running call to finish, then try again, or have the operator raise ${quota.option} (toolshed serve ${quota.flag}).`,
        metadata: { tool },
      },
    ),
  };
}
function callLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number of at least 1, got ${String(value)}.`);
  }
  return value;
}
