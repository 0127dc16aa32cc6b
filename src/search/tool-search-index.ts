import MiniSearch from 'minisearch';
import type { ToolSpec } from '../core/tool-spec.js';

/** One ranked match of a tool search. */
export interface ToolSearchHit {
  name: string;
  score: number;
  title?: string;
  description: string;
  category: string;
}

/** Options of a tool search. */
export interface ToolSearchOptions {
  /** At most this many hits (default 10). */
  limit?: number;
  /** Only tools of this category. */
  category?: string;
}

interface ToolDocument {
  id: string;
  name: string;
  title: string;
  description: string;
  whenToUse: string;
  tags: string;
  parameters: string;
  category: string;
}

const FIELDS = ['name', 'title', 'description', 'whenToUse', 'tags', 'parameters'] as const;

/**
 * A BM25 index over tools (MiniSearch): name (split on `_`), title, description, when-to-use, tags,
 * and parameter names and descriptions. Updated one tool at a time as the registry changes.
 *
 * @example
 * ```ts
 * const index = new ToolSearchIndex();
 * index.add(readFileTool);
 * index.search('open a file'); // [{ name: 'read_file', score: 4.2, ... }]
 * ```
 */
export class ToolSearchIndex {
  #index = createIndex();
  readonly #categories = new Map<string, string>();

  /** Number of indexed tools. */
  get size(): number {
    return this.#categories.size;
  }

  /** Index a tool, replacing an earlier one of the same name. */
  add(spec: ToolSpec): void {
    if (this.#categories.has(spec.name)) this.#index.discard(spec.name);
    this.#index.add(toDocument(spec));
    this.#categories.set(spec.name, spec.category);
  }

  /** Index a tool known only by name (a factory that has not run yet). */
  addName(name: string): void {
    if (this.#categories.has(name)) this.#index.discard(name);
    this.#index.add({
      id: name,
      name: splitName(name),
      title: '',
      description: '',
      whenToUse: '',
      tags: '',
      parameters: '',
      category: 'general',
    });
    this.#categories.set(name, 'general');
  }

  /** Remove a tool; false when it was not indexed. */
  remove(name: string): boolean {
    if (!this.#categories.has(name)) return false;
    this.#index.discard(name);
    this.#categories.delete(name);
    return true;
  }

  /** Remove every tool. */
  clear(): void {
    this.#index = createIndex();
    this.#categories.clear();
  }

  /** Tools ranked by relevance to `query`, best first. An empty query matches nothing. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = Math.max(0, Math.min(options.limit ?? 10, 1000));
    const text = query.slice(0, 1000);
    if (text.trim() === '' || limit === 0) return [];
    const category = options.category;
    const hits = this.#index.search(
      text,
      category === undefined ? {} : { filter: (result) => result.category === category },
    );
    return hits.slice(0, limit).map((hit) => {
      const result: ToolSearchHit = {
        name: hit.id as string,
        score: hit.score,
        description: hit.description as string,
        category: hit.category as string,
      };
      if (hit.title) result.title = hit.title as string;
      return result;
    });
  }
}

function createIndex(): MiniSearch<ToolDocument> {
  return new MiniSearch<ToolDocument>({
    fields: [...FIELDS],
    storeFields: ['title', 'description', 'category'],
    // Tokens split on non-letters, so `read_file` and `readFile` both index as "read file".
    tokenize: (text) => text.split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u).filter((token) => token.length > 0),
    searchOptions: {
      boost: { name: 3, title: 2, tags: 2, description: 1, whenToUse: 0.7, parameters: 0.5 },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: 'OR',
    },
    autoVacuum: { minDirtCount: 100, minDirtFactor: 0.2 },
  });
}

function splitName(name: string): string {
  return name.replaceAll('_', ' ');
}

function toDocument(spec: ToolSpec): ToolDocument {
  const parameters = Object.entries(spec.inputSchema.properties ?? {})
    .map(([key, schema]) => `${splitName(key)} ${typeof schema?.description === 'string' ? schema.description : ''}`)
    .join(' ');
  return {
    id: spec.name,
    name: splitName(spec.name),
    title: spec.title ?? '',
    description: spec.description,
    whenToUse: spec.whenToUse ?? '',
    tags: spec.tags.join(' '),
    parameters,
    category: spec.category,
  };
}
