import type { ChangeFeed } from '../change-feed.js';
import { ChangeListeners } from '../change-listeners.js';
import type { StoreChange, StoreChangeListener } from '../store-records.js';

/**
 * Change notifications on SQLite: in this process only, delivered right after each commit. SQLite
 * has no channel between processes; another process on the same file does not hear of the change.
 *
 * @example
 * ```ts
 * const feed = new SqliteChangeFeed((error) => console.error(error));
 * feed.subscribe((change) => console.log(change.kind));
 * feed.committed([{ workspaceId: 'acme', kind: 'tool' }]); // logs 'tool'
 * ```
 */
export class SqliteChangeFeed implements ChangeFeed {
  readonly #listeners: ChangeListeners;
  readonly #signals: ChangeListeners<string>;

  constructor(onError: (error: unknown) => void) {
    this.#listeners = new ChangeListeners(onError);
    this.#signals = new ChangeListeners<string>(onError);
  }

  async publish(): Promise<void> {
    // Nothing to send inside the transaction: delivery waits for the commit.
  }

  committed(changes: readonly StoreChange[]): void {
    for (const change of changes) this.#listeners.emit(change);
  }

  subscribe(listener: StoreChangeListener): () => void {
    return this.#listeners.add(listener);
  }

  async signal(payload: string): Promise<void> {
    // Later, as a NOTIFY would arrive: never inside the sender's own call.
    queueMicrotask(() => this.#signals.emit(payload));
  }

  onSignal(listener: (payload: string) => void): () => void {
    return this.#signals.add(listener);
  }

  async close(): Promise<void> {
    this.#signals.clear();
  }
}
