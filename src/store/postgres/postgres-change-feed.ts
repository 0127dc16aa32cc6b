import { type Kysely, sql } from 'kysely';
import type { ChangeFeed } from '../change-feed.js';
import { ChangeListeners } from '../change-listeners.js';
import type { Database } from '../database.js';
import type { StoreChange, StoreChangeKind, StoreChangeListener } from '../store-records.js';
import { isPlainObject } from '../store-validation.js';
import type { PostgresListenClient, PostgresNotification } from './postgres-driver.js';

/** The PostgreSQL channel store changes are announced on; its payload is a {@link StoreChange} as JSON. */
export const CHANGE_CHANNEL = 'toolshed_changes';

/**
 * The PostgreSQL channel of {@link PostgresChangeFeed.signal}: short messages between processes (the
 * MCP session signals of `store.mcpSessions`), each a JSON payload of at most 7 900 bytes.
 *
 * @example
 * ```ts
 * await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
 * client.on('notification', (message) => console.log(message.payload));
 * ```
 */
export const SIGNAL_CHANNEL = 'toolshed_signals';

const KINDS: ReadonlySet<StoreChangeKind> = new Set([
  'workspace',
  'tool',
  'agent',
  'attachment',
  'approval',
  'token',
  'resync',
]);
const FIRST_RETRY_MS = 250;
// At most 5 s between attempts: once PostgreSQL is back, changes and signals are heard again soon.
const LAST_RETRY_MS = 5000;

/** Options of {@link PostgresChangeFeed}. */
export interface PostgresChangeFeedOptions {
  /** A new, unconnected client for the listening connection. */
  createClient: () => PostgresListenClient;
  /** Sends a signal (a `NOTIFY` outside any transaction), on the store's pool. */
  notify: (channel: string, payload: string) => Promise<void>;
  /** Listen for changes (false: hear only this store's own changes, in process; they are still sent to others). */
  listen: boolean;
  onError: (error: unknown) => void;
}

/**
 * Change notifications on PostgreSQL with LISTEN/NOTIFY, so every process on the database hears of
 * every change. A write sends `pg_notify('toolshed_changes', json)` inside its transaction, which the
 * server delivers only if and when it commits; a dedicated connection LISTENs and hands each payload
 * to the listeners, this process's own changes included. When that connection drops, the feed
 * reconnects with backoff and then emits `{kind: 'resync', workspaceId: null}`, since notifications
 * sent in the gap are lost.
 *
 * @example
 * ```ts
 * const feed = new PostgresChangeFeed({ createClient: () => new pg.Client({ connectionString: url }), listen: true, onError: console.error });
 * await feed.start();
 * feed.subscribe((change) => console.log(change));
 * ```
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #options: PostgresChangeFeedOptions;
  readonly #listeners: ChangeListeners;
  readonly #signals: ChangeListeners<string>;
  #client: PostgresListenClient | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: PostgresChangeFeedOptions) {
    this.#options = options;
    this.#listeners = new ChangeListeners(options.onError);
    this.#signals = new ChangeListeners<string>(options.onError);
  }

  /** Connect the listening connection; resolves once it is LISTENing (nothing to do when not listening). */
  async start(): Promise<void> {
    if (this.#options.listen) await this.#connect();
  }

  async publish(trx: Kysely<Database>, changes: readonly StoreChange[]): Promise<void> {
    // Sent even when this store does not listen: other processes may.
    for (const change of changes) {
      await sql`select pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify(change)})`.execute(trx);
    }
  }

  committed(changes: readonly StoreChange[]): void {
    // When listening, this process's own changes come back through LISTEN like everyone else's.
    if (this.#options.listen) return;
    for (const change of changes) this.#listeners.emit(change);
  }

  subscribe(listener: StoreChangeListener): () => void {
    return this.#listeners.add(listener);
  }

  async signal(payload: string): Promise<void> {
    await this.#options.notify(SIGNAL_CHANNEL, payload);
    // When listening, this process's own signal comes back through LISTEN like everyone else's.
    if (!this.#options.listen) queueMicrotask(() => this.#signals.emit(payload));
  }

  onSignal(listener: (payload: string) => void): () => void {
    return this.#signals.add(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#signals.clear();
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = this.#options.createClient();
    client.on('notification', (message) => this.#deliver(message));
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  #lost(client: PostgresListenClient, error: Error | undefined): void {
    if (this.#closed || client !== this.#client) return;
    this.#client = undefined;
    const cause = error === undefined ? 'the connection ended' : error.message;
    this.#options.onError(new Error(`The PostgreSQL change listener lost its connection (${cause}); reconnecting.`));
    client.end().catch(() => undefined);
    this.#reconnect(FIRST_RETRY_MS);
  }

  #reconnect(delayMs: number): void {
    if (this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect().then(
        () => {
          if (!this.#closed) this.#listeners.emit({ workspaceId: null, kind: 'resync' });
        },
        (error: unknown) => {
          this.#options.onError(error);
          this.#reconnect(Math.min(delayMs * 2, LAST_RETRY_MS));
        },
      );
    }, delayMs);
    this.#retry.unref?.();
  }

  #deliver(message: PostgresNotification): void {
    if (message.payload === undefined) return;
    if (message.channel === SIGNAL_CHANNEL) {
      this.#signals.emit(message.payload);
      return;
    }
    if (message.channel !== CHANGE_CHANNEL) return;
    let change: unknown;
    try {
      change = JSON.parse(message.payload);
    } catch {
      return; // someone else's NOTIFY on our channel; not ours to interpret
    }
    if (isStoreChange(change)) this.#listeners.emit(change);
  }
}

function isStoreChange(value: unknown): value is StoreChange {
  if (!isPlainObject(value)) return false;
  const { workspaceId, agentId, kind } = value;
  return (
    (workspaceId === null || typeof workspaceId === 'string') &&
    (agentId === undefined || typeof agentId === 'string') &&
    typeof kind === 'string' &&
    KINDS.has(kind as StoreChangeKind)
  );
}
