import type { ToolRegistry } from '../registry/tool-registry.js';
import { type ToolSearchHit, ToolSearchIndex } from '../search/tool-search-index.js';
import type { ToolRecord } from '../store/index.js';

/**
 * Rank a workspace's tool rows for `query`: with the workspace registry's index when every row has a
 * handler there, else with an index of the rows themselves, so that a tool this server cannot run
 * (listed as unavailable) is still found. Hits may name registry tools that are not among `rows`;
 * callers keep the ones they list.
 *
 * @example
 * ```ts
 * const hits = searchRows(registry, await store.tools.list('acme'), 'read a file');
 * ```
 */
export function searchRows(registry: ToolRegistry, rows: readonly ToolRecord[], query: string): ToolSearchHit[] {
  const limit = Math.max(1, registry.size + rows.length);
  if (rows.every((row) => registry.has(row.id))) return registry.search(query, { limit });
  const index = new ToolSearchIndex();
  for (const row of rows) {
    index.add({
      name: row.id,
      ...(row.name === row.id ? {} : { title: row.name }),
      description: row.description,
      ...(row.whenToUse === null ? {} : { whenToUse: row.whenToUse }),
      category: row.category,
      tags: [],
      inputSchema: row.parametersSchema,
    });
  }
  return index.search(query, { limit });
}
