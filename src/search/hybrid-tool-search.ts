import type { ToolSpec } from '../core/tool-spec.js';
import type { EmbeddingProvider } from './embeddings.js';
import type { ToolSearchHit, ToolSearchOptions } from './tool-search-index.js';

/**
 * What hybrid search needs from a registry: its lexical search and its tools (a `ToolRegistry` is one).
 *
 * @example
 * ```ts
 * const source: HybridSearchSource = registry;
 * ```
 */
export interface HybridSearchSource {
  search(query: string, options?: ToolSearchOptions): ToolSearchHit[];
  tools(): ToolSpec[];
}

/**
 * Options of {@link HybridToolSearch}.
 *
 * @example
 * ```ts
 * new HybridToolSearch(registry, embeddings, { candidates: 100, onWarning: (message) => logger.warn(message) });
 * ```
 */
export interface HybridToolSearchOptions {
  /** How many of each ranking's best are fused (default 50). */
  candidates?: number;
  /** The `k` of reciprocal rank fusion, `1 / (k + rank)` (default 60). */
  fusionK?: number;
  /** Told of every fallback to lexical search, with the reason. */
  onWarning?: (message: string) => void;
}

/**
 * Options of one hybrid search.
 *
 * @example
 * ```ts
 * await hybrid.search('send an email', { limit: 5, category: 'email', signal: AbortSignal.timeout(2_000) });
 * ```
 */
export interface HybridSearchOptions extends ToolSearchOptions {
  /** Abandons the embedding requests; the lexical results are returned. */
  signal?: AbortSignal;
}

/**
 * The hits of a hybrid search, and why it fell back to lexical search when it did.
 *
 * @example
 * ```ts
 * const { hits, warnings } = await hybrid.search('send an email');
 * if (warnings.length > 0) console.warn(warnings[0]);
 * ```
 */
export interface HybridSearchResult {
  hits: ToolSearchHit[];
  /** Empty when both rankings were fused. */
  warnings: string[];
}

interface CachedVector {
  text: string;
  vector: Float64Array;
}

/**
 * Tool search that fuses the lexical BM25 ranking of `registry.search` with a semantic one from an
 * {@link EmbeddingProvider}, by reciprocal rank fusion: a tool's score is the sum of `1 / (k + rank)`
 * over the rankings that hold it among their best `candidates`. Tool vectors are computed once per
 * tool text and cached (a changed description is embedded again); each search embeds only the query.
 * When the provider fails (timeout, error status, malformed answer), the search returns the lexical
 * hits with a warning instead of failing.
 *
 * @example
 * ```ts
 * const hybrid = new HybridToolSearch(registry, new OpenAIEmbeddings({ baseURL, model: 'text-embedding-3-small' }));
 * const { hits, warnings } = await hybrid.search('what is the weather like in Paris?', { limit: 5 });
 * ```
 */
export class HybridToolSearch {
  readonly #source: HybridSearchSource;
  readonly #provider: EmbeddingProvider;
  readonly #candidates: number;
  readonly #fusionK: number;
  readonly #onWarning: ((message: string) => void) | undefined;
  readonly #vectors = new Map<string, CachedVector>();

  constructor(source: HybridSearchSource, provider: EmbeddingProvider, options: HybridToolSearchOptions = {}) {
    this.#source = source;
    this.#provider = provider;
    this.#candidates = Math.max(1, Math.floor(options.candidates ?? 50));
    this.#fusionK = options.fusionK ?? 60;
    this.#onWarning = options.onWarning;
  }

  /** Tools ranked by the fused lexical and semantic rankings, best first. Never rejects. */
  async search(query: string, options: HybridSearchOptions = {}): Promise<HybridSearchResult> {
    const limit = Math.max(0, Math.min(Math.floor(options.limit ?? 10), 1_000));
    const lexicalOptions: ToolSearchOptions = { limit: Math.max(limit, this.#candidates) };
    if (options.category !== undefined) lexicalOptions.category = options.category;
    const lexical = this.#source.search(query, lexicalOptions);
    if (limit === 0 || query.trim() === '') return { hits: lexical.slice(0, limit), warnings: [] };
    let semantic: ToolSpec[];
    try {
      semantic = await this.#semanticRanking(query, options);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const warning = `Semantic tool search is unavailable, so these results are lexical only: ${reason}`;
      this.#onWarning?.(warning);
      return { hits: lexical.slice(0, limit), warnings: [warning] };
    }
    return { hits: this.#fuse(lexical, semantic, limit), warnings: [] };
  }

  // The tools by cosine similarity to the query, best `candidates` first.
  async #semanticRanking(query: string, options: HybridSearchOptions): Promise<ToolSpec[]> {
    const tools = this.#source
      .tools()
      .filter((tool) => options.category === undefined || tool.category === options.category);
    const signal = options.signal === undefined ? {} : { signal: options.signal };
    const stale = tools.flatMap((tool) => {
      const text = embeddingText(tool);
      return this.#vectors.get(tool.name)?.text === text ? [] : [{ name: tool.name, text }];
    });
    const [queryVector, ...toolVectors] = await this.#provider.embed(
      [query, ...stale.map((entry) => entry.text)],
      signal,
    );
    stale.forEach((entry, index) => {
      this.#vectors.set(entry.name, { text: entry.text, vector: normalized(toolVectors[index]!) });
    });
    if (this.#vectors.size > tools.length && options.category === undefined) {
      const live = new Set(tools.map((tool) => tool.name));
      for (const name of this.#vectors.keys()) if (!live.has(name)) this.#vectors.delete(name);
    }
    const target = normalized(queryVector!);
    const scored = tools.map((tool) => {
      const vector = this.#vectors.get(tool.name)!.vector;
      if (vector.length !== target.length) {
        throw new Error(
          `the query vector has ${target.length} dimensions and the vector of '${tool.name}' ${vector.length}.`,
        );
      }
      let dot = 0;
      for (let index = 0; index < target.length; index++) dot += target[index]! * vector[index]!;
      return { tool, dot };
    });
    return scored
      .sort((left, right) => right.dot - left.dot)
      .slice(0, this.#candidates)
      .map((entry) => entry.tool);
  }

  #fuse(lexical: ToolSearchHit[], semantic: ToolSpec[], limit: number): ToolSearchHit[] {
    const fused = new Map<string, ToolSearchHit>();
    const add = (hit: ToolSearchHit, rank: number) => {
      const score = 1 / (this.#fusionK + rank + 1);
      const known = fused.get(hit.name);
      if (known === undefined) fused.set(hit.name, { ...hit, score });
      else known.score += score;
    };
    lexical.slice(0, this.#candidates).forEach(add);
    semantic.forEach((tool, rank) => {
      const hit: ToolSearchHit = {
        name: tool.name,
        score: 0,
        description: tool.description,
        category: tool.category,
      };
      if (tool.title !== undefined) hit.title = tool.title;
      add(hit, rank);
    });
    return [...fused.values()].sort((left, right) => right.score - left.score).slice(0, limit);
  }
}

/** The text a tool is embedded from: its name as words, title, description, when-to-use and parameters. */
function embeddingText(tool: ToolSpec): string {
  const parameters = Object.entries(tool.inputSchema.properties ?? {}).map(([key, schema]) =>
    typeof schema?.description === 'string' ? `${key}: ${schema.description}` : key,
  );
  return [
    tool.name.replace(/[_.-]+/g, ' '),
    tool.title,
    tool.description,
    tool.whenToUse,
    parameters.length > 0 ? `Parameters: ${parameters.join('; ')}` : undefined,
  ]
    .filter((part) => part !== undefined && part !== '')
    .join('\n');
}

function normalized(vector: number[]): Float64Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float64Array.from(vector, (value) => value * scale);
}
