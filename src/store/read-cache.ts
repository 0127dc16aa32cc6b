import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { StoreContext } from './store-context.js';
import type { AgentToolList, StoreChange, TokenIdentity, ToolRecord } from './store-records.js';

/**
 * How long a cached read may be served, in milliseconds: the longest another process's write (on
 * the same SQLite file) can go unseen by this store's hot reads. This store's own writes are seen at
 * once, because they drop what they change before they commit.
 */
export const READ_CACHE_MS = 250;

/** Entries a cache holds at most; a full cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * An entry read this close to its end, in milliseconds, is loaded again in the background while it
 * is still served, so a key read all the time is never missed (and no request waits for its load).
 *
 * @example
 * ```ts
 * const reloadsFrom = READ_CACHE_MS - READ_CACHE_REFRESH_MS; // 200 ms after an entry was read
 * ```
 */
export const READ_CACHE_REFRESH_MS = 50;

/**
 * A short-lived cache of one kind of read, keyed by text. Entries live {@link READ_CACHE_MS} at
 * most; failed loads and loads that resolve to `undefined` are not kept. A load that was running while the cache was invalidated is
 * returned to its caller but not kept, so a read racing a write never caches what the write changed.
 * Callers that miss the same key while its load runs share that load (one database read when an
 * entry expires under concurrent requests, not one per request), unless the cache was invalidated
 * since it started: a caller after an invalidation always gets a load of its own. An entry read in
 * its last {@link READ_CACHE_REFRESH_MS} is loaded again in the background: what is served is never
 * older than {@link READ_CACHE_MS}, and a key in constant use is not missed. A background load that
 * finds nothing (a revoked token) drops the entry at once.
 *
 * @example
 * ```ts
 * const cache = new ReadCache<ToolRecord[]>();
 * const tools = await cache.get(`acme\u0000`, () => loadTools('acme'));
 * cache.invalidate((key) => key.startsWith('acme\u0000'));
 * ```
 */
export class ReadCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  /** The load running for each key, with the generation it started in. */
  readonly #loading = new Map<string, { generation: number; value: Promise<V> }>();
  readonly #enabled: boolean;
  #generation = 0;

  /** A disabled cache loads every time. */
  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  /**
   * The cached value of `key`, or the result of the load running for it since the last invalidation,
   * or the result of `load` (kept when no invalidation ran meanwhile).
   */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#enabled) return load();
    const now = performance.now();
    const entry = this.#entries.get(key);
    const running = this.#loading.get(key);
    const shared = running !== undefined && running.generation === this.#generation ? running.value : undefined;
    if (entry !== undefined && entry.until > now) {
      if (shared === undefined && entry.until - now <= READ_CACHE_REFRESH_MS) {
        this.#load(key, load, now).catch(() => undefined);
      }
      return entry.value;
    }
    return shared ?? this.#load(key, load, now);
  }

  /** Run `load` for `key` as the key's shared load, and keep what it finds unless the cache was invalidated meanwhile. */
  #load(key: string, load: () => Promise<V>, now: number): Promise<V> {
    const generation = this.#generation;
    const value = Promise.resolve()
      .then(load)
      .then((loaded) => {
        if (generation === this.#generation) {
          if (loaded === undefined) {
            this.#entries.delete(key);
          } else {
            if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
            this.#entries.set(key, { value: loaded, until: now + READ_CACHE_MS });
          }
        }
        return loaded;
      });
    const flight = { generation, value };
    this.#loading.set(key, flight);
    const done = () => {
      if (this.#loading.get(key) === flight) this.#loading.delete(key);
    };
    value.then(done, done);
    return value;
  }

  /** Drop the entries `matches` selects (every entry without it), and keep no load running now. */
  invalidate(matches?: (key: string, value: V) => boolean): void {
    this.#generation += 1;
    if (matches === undefined) {
      this.#entries.clear();
      return;
    }
    for (const [key, entry] of this.#entries) if (matches(key, entry.value)) this.#entries.delete(key);
  }
}

/** The hot reads of one store that are cached: token checks, tool lists and agents' tool lists. */
export interface StoreReadCaches {
  /** `verify` results that succeeded, keyed by the token's SHA-256 (hex). */
  readonly tokens: ReadCache<TokenIdentity | undefined>;
  /** `tools.list`, keyed by `workspace \0 category`. */
  readonly tools: ReadCache<ToolRecord[]>;
  /** `attachments.listAttachments`, keyed by `workspace \0 agent`. */
  readonly attachments: ReadCache<AgentToolList>;
}

const caches = new WeakMap<StoreContext, StoreReadCaches>();

/**
 * The read caches of the store `context` belongs to, shared by its query classes so that a write in
 * one (a deleted workspace, a new tool) drops what another cached.
 *
 * Every write drops what it changes just before it commits and again once it settled, and a load that
 * raced an invalidation is never kept, so this process's own writes are seen at once. Other processes'
 * writes arrive as change notifications, which drop the entries they concern ({@link dropForChange},
 * subscribed by the store before any other listener): on PostgreSQL through LISTEN/NOTIFY, so caching
 * is on only while the store listens (`notifications`, the default). On SQLite, another process
 * writing the same file is seen when the entry expires ({@link READ_CACHE_MS}).
 *
 * @example
 * ```ts
 * readCachesOf(context).attachments.invalidate(workspaceKeys('acme'));
 * ```
 */
export function readCachesOf(context: StoreContext): StoreReadCaches {
  let found = caches.get(context);
  if (found === undefined) {
    const enabled = !context.dialect.readCacheNeedsNotifications || context.options.notifications;
    found = { tokens: new ReadCache(enabled), tools: new ReadCache(enabled), attachments: new ReadCache(enabled) };
    caches.set(context, found);
  }
  return found;
}

/**
 * Drop what a change notification may have made stale: everything on a `resync` (notifications may
 * have been lost), a workspace's entries when it was deleted or its tools changed (every workspace's
 * for a global tool), one agent's list for an agent or attachment change, a workspace's tokens for a
 * revocation.
 *
 * @example
 * ```ts
 * store.onChange((change) => dropForChange(readCachesOf(context), change));
 * ```
 */
export function dropForChange(caches: StoreReadCaches, change: StoreChange): void {
  const workspace = change.workspaceId;
  const ofWorkspace = workspace === null ? undefined : workspaceKeys(workspace);
  switch (change.kind) {
    case 'resync':
      caches.tokens.invalidate();
      caches.tools.invalidate();
      caches.attachments.invalidate();
      return;
    case 'workspace':
    case 'token':
      caches.tokens.invalidate((_key, identity) => workspace === null || identity?.workspaceId === workspace);
      if (change.kind === 'token') return;
      caches.tools.invalidate(ofWorkspace);
      caches.attachments.invalidate(ofWorkspace);
      return;
    case 'tool':
      caches.tools.invalidate(ofWorkspace);
      caches.attachments.invalidate(ofWorkspace);
      return;
    case 'agent':
    case 'attachment': {
      if (workspace === null || change.agentId === undefined) {
        caches.attachments.invalidate(ofWorkspace);
        return;
      }
      const key = cacheKey(workspace, change.agentId);
      caches.attachments.invalidate((cached) => cached === key);
      return;
    }
    case 'approval':
      return;
  }
}

/**
 * A cache key of a workspace and one more part (`\0` cannot occur in ids).
 *
 * @example
 * ```ts
 * cacheKey('acme', 'agt_1'); // 'acme\u0000agt_1'
 * ```
 */
export function cacheKey(workspaceId: string, part: string): string {
  return `${workspaceId}\u0000${part}`;
}

/**
 * Selects the entries of one workspace, for {@link ReadCache.invalidate}.
 *
 * @example
 * ```ts
 * readCachesOf(context).tools.invalidate(workspaceKeys('acme'));
 * ```
 */
export function workspaceKeys(workspaceId: string): (key: string) => boolean {
  const prefix = `${workspaceId}\u0000`;
  return (key) => key.startsWith(prefix);
}

/**
 * Run a store write that changes what the read caches hold: `drop` runs inside the transaction just
 * before it commits (so change listeners, called after the commit, read fresh rows) and again once
 * the write settled, whether it committed or failed (so no read that raced it keeps old rows).
 *
 * @example
 * ```ts
 * await writeDropping(context, () => readCachesOf(context).tools.invalidate(workspaceKeys('acme')), (trx) =>
 *   trx.deleteFrom('tools').where('workspace_id', '=', 'acme').execute(),
 * );
 * ```
 */
export async function writeDropping<T>(
  context: StoreContext,
  drop: () => void,
  work: (trx: Kysely<Database>, changes: StoreChange[]) => Promise<T>,
): Promise<T> {
  try {
    return await context.write(async (trx, changes) => {
      const result = await work(trx, changes);
      drop();
      return result;
    });
  } finally {
    drop();
  }
}
