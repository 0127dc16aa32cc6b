import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { isDuckDuckGoChallenge, parseDuckDuckGoHtml } from './parse-duckduckgo-html.js';
import { readLimitedText } from './read-limited-text.js';
import { normalizeBaseUrl, type WebSearchToolOptions } from './web-search-result.js';

/** Options of {@link createDuckDuckGoSearchTool}. */
export interface DuckDuckGoSearchOptions extends WebSearchToolOptions {
  /** `User-Agent` sent to DuckDuckGo. */
  userAgent?: string;
}

/** The arguments of `duckduckgo_search`, after defaults. */
export type DuckDuckGoSearchArgs = {
  query: string;
  max_results: number;
};

/**
 * The `duckduckgo_search` tool: web results from DuckDuckGo's HTML endpoint
 * (`GET {baseUrl}/html/?q=...`), parsed into `{query, results: [{title, link, snippet}]}`. Needs no key.
 *
 * A bot-check page instead of results is `RATE_LIMITED`. `baseUrl` (default
 * `https://html.duckduckgo.com`) lets tests use a local fake.
 *
 * @example
 * ```ts
 * registry.register(createDuckDuckGoSearchTool());
 * await registry.call('duckduckgo_search', { query: 'mathjs security', max_results: 5 });
 * ```
 */
export function createDuckDuckGoSearchTool(options: DuckDuckGoSearchOptions = {}): ToolSpec<DuckDuckGoSearchArgs> {
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? 'https://html.duckduckgo.com', 'duckduckgo_search');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxResponseBytes = options.maxResponseBytes ?? 2_000_000;
  const userAgent = options.userAgent ?? 'Mozilla/5.0 (compatible; toolshed/0.1)';
  return defineTool({
    name: 'duckduckgo_search',
    title: 'DuckDuckGo Search',
    description:
      'Search the web with DuckDuckGo and return the top results: title, link and snippet of each. Needs no API key.',
    whenToUse:
      'For facts, current events or pages to read next with fetch_url, when no other search tool is available. Use short keyword queries.',
    category: 'web',
    tags: ['search', 'web', 'duckduckgo', 'internet'],
    annotations: { readOnly: true, idempotent: true, openWorld: true },
    cli: 'ddg',
    timeoutMs: timeoutMs + 5_000,
    input: z.strictObject({
      query: z.string().trim().min(1).max(500).describe('What to search for.'),
      max_results: z.int().min(1).max(30).default(10).describe('How many results to return (default 10, at most 30).'),
    }),
    handler: async ({ query, max_results: maxResults }, context) => {
      const fetchImpl = options.fetchImpl ?? globalThis.fetch;
      const deadline = AbortSignal.timeout(timeoutMs);
      let response: Response;
      let html: string;
      try {
        response = await fetchImpl(`${baseUrl}/html/?q=${encodeURIComponent(query)}`, {
          method: 'GET',
          headers: { 'User-Agent': userAgent, Accept: 'text/html', 'Accept-Language': 'en-US,en;q=0.8' },
          signal: AbortSignal.any([context.signal, deadline]),
        });
        ({ text: html } = await readLimitedText(response, maxResponseBytes));
      } catch (error) {
        if (deadline.aborted && !context.signal.aborted) {
          return ToolResult.error('TIMEOUT', `DuckDuckGo did not answer within ${timeoutMs / 1000} s.`);
        }
        return ToolResult.error(
          'EXECUTION_FAILED',
          `Could not reach DuckDuckGo: ${(error as Error)?.message ?? String(error)}.`,
          {
            retryable: true,
          },
        );
      }
      if (response.status === 429 || isDuckDuckGoChallenge(html)) {
        return ToolResult.error('RATE_LIMITED', 'DuckDuckGo answered with a bot check instead of results.', {
          hint: 'Wait a minute before searching again, or use another search tool.',
        });
      }
      if (!response.ok) {
        return ToolResult.error('EXECUTION_FAILED', `DuckDuckGo answered HTTP ${response.status}.`, {
          retryable: response.status >= 500,
        });
      }
      return { query, results: parseDuckDuckGoHtml(html, maxResults) };
    },
  });
}
