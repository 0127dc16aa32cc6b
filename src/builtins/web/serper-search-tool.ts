import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { readLimitedText } from './read-limited-text.js';
import { normalizeBaseUrl, type WebSearchResult, type WebSearchToolOptions } from './web-search-result.js';

/** The environment variable holding the Serper API key. */
export const SERPER_API_KEY = 'SERPER_API_KEY';

/** The arguments of `serper_search`, after defaults. */
export type SerperSearchArgs = {
  query: string;
  num: number;
};

/**
 * The `serper_search` tool: Google results through the Serper API (`POST {baseUrl}/search` with the
 * key in `X-API-KEY`), trimmed to `{query, results: [{title, link, snippet}], answer?}`.
 *
 * The key comes from `SERPER_API_KEY` in the registry's environment at call time (`requires.env`, so a
 * registry without it answers `MISSING_CREDENTIALS` before the handler runs); it is never logged nor
 * returned, and is scrubbed from error messages. `baseUrl` (default `https://google.serper.dev`) lets
 * tests use a local fake.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry({ env: { SERPER_API_KEY: process.env.SERPER_API_KEY } });
 * registry.register(createSerperSearchTool());
 * await registry.call('serper_search', { query: 'toolshed llm tools', num: 5 });
 * ```
 */
export function createSerperSearchTool(options: WebSearchToolOptions = {}): ToolSpec<SerperSearchArgs> {
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? 'https://google.serper.dev', 'serper_search');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxResponseBytes = options.maxResponseBytes ?? 2_000_000;
  return defineTool({
    name: 'serper_search',
    title: 'Google Search (Serper)',
    description:
      'Search the web with Google (through the Serper API) and return the top results: title, link and snippet of each, plus a direct answer when Google shows one.',
    whenToUse:
      'For current events, facts you are unsure of, or to find pages to read next with fetch_url. Use short keyword queries; refine and search again rather than asking for many results.',
    category: 'web',
    tags: ['search', 'web', 'google', 'internet', 'serper'],
    annotations: { readOnly: true, idempotent: true, openWorld: true },
    requires: {
      env: [
        {
          name: SERPER_API_KEY,
          description: 'API key for Serper, the Google Search API',
          url: 'https://serper.dev',
        },
      ],
    },
    cli: 'google',
    timeoutMs: timeoutMs + 5_000,
    input: z.strictObject({
      query: z.string().trim().min(1).max(2048).describe('What to search for, as you would type it into Google.'),
      num: z.int().min(1).max(100).default(10).describe('How many results to return (default 10).'),
    }),
    handler: async ({ query, num }, context) => {
      const key = context.env[SERPER_API_KEY] ?? '';
      const fetchImpl = options.fetchImpl ?? globalThis.fetch;
      const deadline = AbortSignal.timeout(timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await fetchImpl(`${baseUrl}/search`, {
          method: 'POST',
          headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ q: query, num }),
          signal: AbortSignal.any([context.signal, deadline]),
        });
        ({ text } = await readLimitedText(response, maxResponseBytes));
      } catch (error) {
        if (deadline.aborted && !context.signal.aborted) {
          return ToolResult.error('TIMEOUT', `Serper did not answer within ${timeoutMs / 1000} s.`);
        }
        return ToolResult.error(
          'EXECUTION_FAILED',
          `Could not reach Serper: ${scrub((error as Error)?.message ?? String(error), key)}.`,
          { retryable: true },
        );
      }
      if (!response.ok) return serperFailure(response.status, text, key);
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        return ToolResult.error('EXECUTION_FAILED', 'Serper answered with something other than JSON.', {
          retryable: true,
        });
      }
      return toSearchResults(query, payload, num);
    },
  });
}

function toSearchResults(query: string, payload: unknown, num: number): Record<string, unknown> {
  const body = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const organic = Array.isArray(body.organic) ? body.organic : [];
  const results: WebSearchResult[] = [];
  for (const item of organic) {
    if (typeof item !== 'object' || item === null) continue;
    const { title, link, snippet } = item as Record<string, unknown>;
    if (typeof link !== 'string') continue;
    results.push({
      title: typeof title === 'string' ? title : link,
      link,
      snippet: typeof snippet === 'string' ? snippet : '',
    });
    if (results.length >= num) break;
  }
  const result: Record<string, unknown> = { query, results };
  const box = body.answerBox as Record<string, unknown> | undefined;
  const answer = box?.answer ?? box?.snippet;
  if (typeof answer === 'string' && answer !== '') result.answer = answer;
  return result;
}

function serperFailure(status: number, text: string, key: string): ToolResult {
  let detail = '';
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string') detail = ` (${scrub(message, key).slice(0, 200)})`;
  } catch {
    // A non-JSON error page has nothing worth quoting.
  }
  if (status === 401 || status === 403) {
    return ToolResult.error('EXECUTION_FAILED', `Serper rejected the API key with HTTP ${status}${detail}.`, {
      hint: 'Check that SERPER_API_KEY holds a valid key (get one at https://serper.dev).',
    });
  }
  if (status === 429) {
    return ToolResult.error('RATE_LIMITED', `Serper is rate-limiting requests (HTTP 429)${detail}.`, {
      hint: 'Wait a little before searching again.',
    });
  }
  return ToolResult.error('EXECUTION_FAILED', `Serper answered HTTP ${status}${detail}.`, { retryable: status >= 500 });
}

/** Remove the key from text that may echo it (error messages, error bodies). */
function scrub(text: string, key: string): string {
  return key.length >= 4 ? text.replaceAll(key, '[redacted]') : text;
}
