/** Which tools a deferred export keeps loaded up front. */
export interface DeferLoadingOptions {
  /**
   * Mark tools `defer_loading: true`: the provider keeps them out of the model's context until the model
   * finds them with a search tool. `true` defers every tool but the search tool; an object also keeps
   * `alwaysLoaded` up front.
   */
  deferLoading?: boolean | { alwaysLoaded: readonly string[] };
}

/**
 * Copies of `tools` with `defer_loading: true` on every tool except those named in `keep` (the search
 * tool and any always-loaded ones), in the shape Anthropic's and OpenAI's tool-search features read.
 *
 * @example
 * ```ts
 * markDeferred([{ name: 'a' }, { name: 'search_tools' }], new Set(['search_tools']));
 * // [{ name: 'a', defer_loading: true }, { name: 'search_tools' }]
 * ```
 */
export function markDeferred<T extends { name: string }>(
  tools: readonly T[],
  keep: ReadonlySet<string>,
): Array<T & { defer_loading?: true }> {
  return tools.map((tool) => (keep.has(tool.name) ? tool : { ...tool, defer_loading: true as const }));
}
