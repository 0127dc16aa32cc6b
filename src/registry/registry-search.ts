import { type ToolSearchHit, ToolSearchIndex, type ToolSearchOptions } from '../search/tool-search-index.js';
import type { Entry } from './registration.js';

/**
 * A registry's search index: none until the first search, which indexes every entry; from then on
 * kept up to date entry by entry as tools are registered and removed. A factory that has not run yet
 * is indexed by its name alone.
 *
 * @example
 * ```ts
 * const search = new RegistrySearch();
 * search.search(entries, 'open a file'); // builds the index over `entries`, then ranks them
 * search.added('read_file', entry); // from now on, each change updates the index
 * ```
 */
export class RegistrySearch {
  #index: ToolSearchIndex | undefined;

  /** Tools ranked by relevance to `query`; the first search indexes `entries`. */
  search(entries: ReadonlyMap<string, Entry>, query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    if (this.#index === undefined) {
      const index = new ToolSearchIndex();
      for (const [name, entry] of entries) addEntry(index, name, entry);
      this.#index = index;
    }
    return this.#index.search(typeof query === 'string' ? query : '', options);
  }

  /** An entry was set under `name` (replacing any earlier one). */
  added(name: string, entry: Entry): void {
    if (this.#index !== undefined) addEntry(this.#index, name, entry);
  }

  /** The entry under `name` was removed. */
  removed(name: string): void {
    this.#index?.remove(name);
  }

  /** Every entry was removed. */
  cleared(): void {
    this.#index?.clear();
  }
}

function addEntry(index: ToolSearchIndex, name: string, entry: Entry): void {
  if (entry.kind === 'tool') index.add(entry.prepared.spec);
  else if (entry.prepared !== undefined) index.add(entry.prepared.spec);
  else index.addName(name);
}
