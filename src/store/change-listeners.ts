import type { StoreChange, StoreChangeListener } from './store-records.js';

/**
 * A set of {@link StoreChangeListener}s. A listener that throws is reported to `onError` and does not
 * keep the others from being called.
 *
 * @example
 * ```ts
 * const listeners = new ChangeListeners((error) => console.error(error));
 * const remove = listeners.add((change) => console.log(change.kind));
 * listeners.emit({ workspaceId: 'default', kind: 'tool' }); // logs 'tool'
 * remove();
 * ```
 */
export class ChangeListeners {
  readonly #listeners = new Set<StoreChangeListener>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  get size(): number {
    return this.#listeners.size;
  }

  add(listener: StoreChangeListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is removed one at a time.
    const entry: StoreChangeListener = (change) => listener(change);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  emit(change: StoreChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
