import type { StoreChange } from './store-records.js';

/**
 * A set of listeners of one kind of event: {@link StoreChange}s by default, or the string payloads of
 * the feeds' signals. A listener that throws is reported to `onError` and does not keep the others
 * from being called.
 *
 * @example
 * ```ts
 * const listeners = new ChangeListeners((error) => console.error(error));
 * const remove = listeners.add((change) => console.log(change.kind));
 * listeners.emit({ workspaceId: 'default', kind: 'tool' }); // logs 'tool'
 * remove();
 * ```
 */
export class ChangeListeners<Event = StoreChange> {
  readonly #listeners = new Set<(event: Event) => void>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  get size(): number {
    return this.#listeners.size;
  }

  add(listener: (event: Event) => void): () => void {
    // A wrapper per subscription, so the same function subscribed twice is removed one at a time.
    const entry = (event: Event) => listener(event);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  emit(event: Event): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  /** Remove every listener. */
  clear(): void {
    this.#listeners.clear();
  }
}
