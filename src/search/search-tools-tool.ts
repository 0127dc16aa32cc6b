import { defineTool } from '../core/define-tool.js';
import type { JsonObjectSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { HybridToolSearch } from './hybrid-tool-search.js';
import type { ToolSearchHit, ToolSearchOptions } from './tool-search-index.js';

/** The name of the tool-search built-in. */
export const SEARCH_TOOLS = 'search_tools';

/** What `search_tools` needs from a registry. */
export interface SearchableRegistry {
  search(query: string, options?: ToolSearchOptions): ToolSearchHit[];
  get(name: string): ToolSpec;
}

/**
 * Options of {@link createSearchToolsTool}.
 *
 * @example
 * ```ts
 * registry.register(createSearchToolsTool(registry, { hybrid: new HybridToolSearch(registry, embeddings) }));
 * ```
 */
export interface SearchToolsOptions {
  /**
   * Rank with this hybrid (lexical + embeddings) search instead of `registry.search`. When its
   * embeddings fail, the tool still answers, lexically, and says so in `warnings`.
   */
  hybrid?: HybridToolSearch;
}

/**
 * The `search_tools` tool: lets an agent find tools it was not given up front (deferred loading). It
 * returns the names, descriptions and input schemas of the best matches, ready to call.
 *
 * @example
 * ```ts
 * registry.register(createSearchToolsTool(registry));
 * await registry.call('search_tools', { query: 'send an email' });
 *
 * // Or ranked by BM25 and embeddings together:
 * const hybrid = new HybridToolSearch(registry, new OpenAIEmbeddings({ baseURL, model: 'text-embedding-3-small' }));
 * registry.register(createSearchToolsTool(registry, { hybrid }));
 * ```
 */
export function createSearchToolsTool(registry: SearchableRegistry, options: SearchToolsOptions = {}): ToolSpec {
  return defineTool<{ query: string; limit: number; category?: string }>({
    name: SEARCH_TOOLS,
    title: 'Search Tools',
    description:
      'Find tools by what they do. Returns the best-matching tools with their names, descriptions and input schemas, so you can call them next.',
    whenToUse: 'When no tool you have fits the task: search for one by describing the task in a few words.',
    category: 'meta',
    tags: ['search', 'discovery'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: 'search',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 1000,
          description: 'What the tool should do, in a few words.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 25,
          default: 5,
          description: 'How many tools to return.',
        },
        category: { type: 'string', description: 'Only tools of this category.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    handler: ({ query, limit, category }, context) => {
      const searchOptions = { limit: limit + 1, ...(category === undefined ? {} : { category }) };
      const answer = (hits: ToolSearchHit[], warnings: string[]) => {
        const tools = hits
          .filter((hit) => hit.name !== SEARCH_TOOLS)
          .slice(0, limit)
          .map((hit) => {
            const spec = registry.get(hit.name);
            const entry: { name: string; description: string; inputSchema: JsonObjectSchema; title?: string } = {
              name: spec.name,
              description: spec.description,
              inputSchema: spec.inputSchema,
            };
            if (spec.title !== undefined) entry.title = spec.title;
            return entry;
          });
        return warnings.length === 0 ? { tools, total: tools.length } : { tools, total: tools.length, warnings };
      };
      if (options.hybrid === undefined) return answer(registry.search(query, searchOptions), []);
      return options.hybrid
        .search(query, { ...searchOptions, signal: context.signal })
        .then((result) => answer(result.hits, result.warnings));
    },
  });
}
