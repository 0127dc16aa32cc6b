import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { describeValue } from '../core/define-tool.js';
import type { CallLimitsTable } from './database.js';
import { nowIso, toIsoTimestamp } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import {
  CALL_LIMIT_SCOPES,
  type CallLimitInput,
  type CallLimitRecord,
  type CallLimitScope,
  type SlotLease,
  type TokenTaken,
} from './store-records.js';
import { isPlainObject, isWellFormedId, requireId, requireText, STORE_LIMITS } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreCallLimits } from './toolshed-store.js';

/** The largest `calls_per_minute`, `burst` and `max_concurrent` a limit may have. */
export const MAX_CALL_LIMIT = 1_000_000;

/** The smallest `calls_per_minute`: one call in 1 000 minutes, so a refused call's wait stays a number of seconds. */
export const MIN_CALLS_PER_MINUTE = 0.001;

/**
 * The `call_limits` part of a store, and the shared state that enforces them: token buckets
 * (`call_limit_buckets`) and leased slots (`call_limit_leases`). Both are kept in the database so that
 * every server on one PostgreSQL counts against the same numbers; each take is one statement or one
 * short transaction.
 *
 * @example
 * ```ts
 * await store.callLimits.set('acme', { scope: 'tool', target: 'fetch_url', callsPerMinute: 60, maxConcurrent: 4 });
 * await store.callLimits.takeToken('acme\ntool\nfetch_url', { capacity: 1, refillPerMs: 0.001, now: Date.now() });
 * ```
 */
export class CallLimitQueries implements StoreCallLimits {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async list(workspaceId: string): Promise<CallLimitRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('call_limits')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('scope')
      .orderBy('target')
      .execute();
    return rows.map(callLimitRecordOf);
  }

  async set(workspaceId: string, input: CallLimitInput): Promise<CallLimitRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const limit = requireCallLimit(input);
    const now = nowIso();
    const values = {
      workspace_id: workspace,
      scope: limit.scope,
      target: limit.target ?? '',
      calls_per_minute: limit.callsPerMinute,
      burst: limit.burst,
      max_concurrent: limit.maxConcurrent,
      created_at: now,
      updated_at: now,
    };
    try {
      const row = await this.#context.dialect.db
        .insertInto('call_limits')
        .values(values)
        .onConflict((conflict) =>
          conflict.columns(['workspace_id', 'scope', 'target']).doUpdateSet({
            calls_per_minute: values.calls_per_minute,
            burst: values.burst,
            max_concurrent: values.max_concurrent,
            updated_at: now,
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      // A changed rate starts from a full bucket.
      await this.#context.dialect.db
        .deleteFrom('call_limit_buckets')
        .where('key', '=', callLimitKey(workspace, limit.scope, limit.target))
        .execute();
      return callLimitRecordOf(row);
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }

  async delete(workspaceId: string, scope: CallLimitScope, target?: string | null): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !CALL_LIMIT_SCOPES.includes(scope)) return false;
    const result = await this.#context.dialect.db
      .deleteFrom('call_limits')
      .where('workspace_id', '=', workspaceId)
      .where('scope', '=', scope)
      .where('target', '=', scope === 'workspace' ? '' : (target ?? ''))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async takeToken(key: string, bucket: { capacity: number; refillPerMs: number; now: number }): Promise<TokenTaken> {
    const { capacity, refillPerMs } = bucket;
    const now = Math.floor(bucket.now);
    const db = this.#context.dialect.db;
    // What the bucket holds now: what it held, refilled for the time since, up to its capacity (a
    // clock behind the last taker's counts as no time).
    const elapsed = sql`(case when cast(${now} as bigint) > call_limit_buckets.refilled_at then cast(${now} as bigint) - call_limit_buckets.refilled_at else 0 end)`;
    const refilled = sql`(call_limit_buckets.tokens + ${elapsed} * cast(${refillPerMs} as double precision))`;
    const available = sql`(case when ${refilled} > cast(${capacity} as double precision) then cast(${capacity} as double precision) else ${refilled} end)`;
    const taken = await sql<{ tokens: number }>`
      insert into call_limit_buckets (key, tokens, refilled_at)
      values (${key}, cast(${capacity - 1} as double precision), cast(${now} as bigint))
      on conflict (key) do update set
        tokens = ${available} - 1,
        refilled_at = case when cast(${now} as bigint) > call_limit_buckets.refilled_at then cast(${now} as bigint) else call_limit_buckets.refilled_at end
      where ${available} >= 1
      returning tokens`.execute(db);
    if (taken.rows.length > 0) return { taken: true };
    const row = await db
      .selectFrom('call_limit_buckets')
      .select(['tokens', 'refilled_at'])
      .where('key', '=', key)
      .executeTakeFirst();
    const held =
      row === undefined
        ? capacity
        : Math.min(capacity, row.tokens + Math.max(0, now - Number(row.refilled_at)) * refillPerMs);
    return { taken: false, retryAfterMs: Math.max(1, Math.ceil((1 - held) / refillPerMs)) };
  }

  async acquireSlot(key: string, max: number, lease: SlotLease, now: number): Promise<boolean> {
    const { dialect } = this.#context;
    return dialect.transaction(async (trx) => {
      // Servers taking a slot of one cap take turns on a lock of that cap alone (on PostgreSQL an
      // advisory lock keyed by the cap, which writes no row; on SQLite the write lock): caps of other
      // tools, agents, tokens or workspaces never wait for it.
      await dialect.lock(trx, `call_limit\n${key}`);
      const { all, live } = await trx
        .selectFrom('call_limit_leases')
        .select((expression) => [
          expression.fn.countAll<number | string>().as('all'),
          expression.fn.sum<number | string | null>(sql`case when expires_at > ${now} then 1 else 0 end`).as('live'),
        ])
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      // Leases a server that died left behind count no more; they are cleared when there are some.
      if (Number(all) > Number(live ?? 0)) {
        await trx.deleteFrom('call_limit_leases').where('key', '=', key).where('expires_at', '<=', now).execute();
      }
      if (Number(live ?? 0) >= max) return false;
      await trx
        .insertInto('call_limit_leases')
        .values({ id: lease.id, key, holder: lease.holder, expires_at: lease.expiresAt })
        .execute();
      return true;
    });
  }

  async releaseSlot(leaseId: string): Promise<void> {
    await this.#context.dialect.db.deleteFrom('call_limit_leases').where('id', '=', leaseId).execute();
  }

  async renewSlots(holder: string, expiresAt: number): Promise<number> {
    const result = await this.#context.dialect.db
      .updateTable('call_limit_leases')
      .set({ expires_at: expiresAt })
      .where('holder', '=', holder)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

/**
 * The key of a limit's bucket and slots: the workspace, the scope and the target, one per line.
 *
 * @example
 * ```ts
 * callLimitKey('acme', 'tool', 'fetch_url'); // 'acme\ntool\nfetch_url'
 * ```
 */
export function callLimitKey(workspaceId: string, scope: CallLimitScope, target?: string | null): string {
  return `${workspaceId}\n${scope}\n${scope === 'workspace' ? '' : (target ?? '')}`;
}

/**
 * A call limit checked and normalized: a known scope, a target for every scope but `workspace` (none
 * for it), at least one of `callsPerMinute` and `maxConcurrent`, each in range, and `burst` only with
 * a rate. Throws {@link StoreValidationError} naming the field.
 *
 * @example
 * ```ts
 * requireCallLimit({ scope: 'agent', target: 'research', maxConcurrent: 4 });
 * // { scope: 'agent', target: 'research', callsPerMinute: null, burst: null, maxConcurrent: 4 }
 * ```
 */
export function requireCallLimit(input: unknown): Required<{
  [K in keyof CallLimitInput]: NonNullable<CallLimitInput[K]> | null;
}> & {
  scope: CallLimitScope;
} {
  if (!isPlainObject(input))
    throw new StoreValidationError('limit', `A call limit must be an object, got ${describeValue(input)}.`);
  const scope = input.scope;
  if (typeof scope !== 'string' || !CALL_LIMIT_SCOPES.includes(scope as CallLimitScope)) {
    throw new StoreValidationError(
      'scope',
      `scope must be one of ${CALL_LIMIT_SCOPES.join(', ')}, got ${describeValue(scope)}.`,
    );
  }
  const target = input.target ?? null;
  if (scope === 'workspace') {
    if (target !== null) {
      throw new StoreValidationError('target', `A workspace limit has no target, got ${describeValue(target)}.`);
    }
  } else {
    requireText(target, 'target', STORE_LIMITS.nameChars);
  }
  const callsPerMinute = optionalNumber(input.callsPerMinute, 'callsPerMinute', false);
  const burst = optionalNumber(input.burst, 'burst', true);
  const maxConcurrent = optionalNumber(input.maxConcurrent, 'maxConcurrent', true);
  if (callsPerMinute === null && maxConcurrent === null) {
    throw new StoreValidationError('limit', 'A call limit needs callsPerMinute, maxConcurrent or both.');
  }
  if (burst !== null && callsPerMinute === null) {
    throw new StoreValidationError('burst', 'burst is the size of a rate limit: give callsPerMinute with it.');
  }
  return { scope: scope as CallLimitScope, target: target as string | null, callsPerMinute, burst, maxConcurrent };
}

function optionalNumber(value: unknown, field: string, whole: boolean): number | null {
  if (value === undefined || value === null) return null;
  const valid =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= (whole ? 1 : MIN_CALLS_PER_MINUTE) &&
    value <= MAX_CALL_LIMIT &&
    (!whole || Number.isInteger(value));
  if (!valid) {
    throw new StoreValidationError(
      field,
      `${field} must be ${whole ? 'a whole number from 1' : `a number from ${MIN_CALLS_PER_MINUTE}`} to ${MAX_CALL_LIMIT}, got ${describeValue(value)}.`,
    );
  }
  return value;
}

function callLimitRecordOf(row: Selectable<CallLimitsTable>): CallLimitRecord {
  return {
    workspaceId: row.workspace_id,
    scope: row.scope as CallLimitScope,
    target: row.scope === 'workspace' ? null : row.target,
    callsPerMinute: row.calls_per_minute === null ? null : Number(row.calls_per_minute),
    burst: row.burst,
    maxConcurrent: row.max_concurrent,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
  };
}
