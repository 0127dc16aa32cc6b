import type { ToolSpec } from '../../core/tool-spec.js';
import { createDuckDuckGoSearchTool } from './duckduckgo-search-tool.js';
import { createFetchUrlTool, type FetchUrlOptions } from './fetch-url-tool.js';
import { createSerperSearchTool } from './serper-search-tool.js';

/** Options of {@link createWebTools}. */
export interface WebToolsOptions extends FetchUrlOptions {
  /** `fetch` used by the search tools (default: the global one). `fetch_url` always uses node:http. */
  fetchImpl?: typeof fetch;
  /** Base URLs of the search services, to point them at local fakes in tests or at a proxy. */
  baseUrls?: { serper?: string; duckduckgo?: string };
  /** Time one search may take, in milliseconds (default 15 000). */
  searchTimeoutMs?: number;
}

/**
 * The web built-ins — `fetch_url`, `serper_search` and `duckduckgo_search` — with shared options.
 *
 * `fetch_url` goes through the {@link SsrfGuard} (`allowPrivateNetwork`, `allowHosts` and
 * `resolveHost` configure it); the search tools call their configured services with `fetchImpl`.
 *
 * @example
 * ```ts
 * import { ToolRegistry } from 'toolshed';
 * import { createWebTools } from 'toolshed/builtins';
 *
 * const registry = new ToolRegistry();
 * registry.registerAll(createWebTools());
 * await registry.call('duckduckgo_search', { query: 'model context protocol' });
 * ```
 */
export function createWebTools(options: WebToolsOptions = {}): ToolSpec[] {
  const search = {
    ...(options.fetchImpl === undefined ? {} : { fetchImpl: options.fetchImpl }),
    ...(options.searchTimeoutMs === undefined ? {} : { timeoutMs: options.searchTimeoutMs }),
  };
  return [
    createFetchUrlTool(options),
    createSerperSearchTool({
      ...search,
      ...(options.baseUrls?.serper === undefined ? {} : { baseUrl: options.baseUrls.serper }),
    }),
    createDuckDuckGoSearchTool({
      ...search,
      ...(options.baseUrls?.duckduckgo === undefined ? {} : { baseUrl: options.baseUrls.duckduckgo }),
    }),
  ];
}
