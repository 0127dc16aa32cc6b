/** One web search hit, as the search built-ins return it. */
export interface WebSearchResult {
  title: string;
  link: string;
  snippet: string;
}

/** Options shared by the search built-ins. */
export interface WebSearchToolOptions {
  /** Base URL of the search service (tests point it at a local fake). */
  baseUrl?: string;
  /** `fetch` to use (default: the global one). */
  fetchImpl?: typeof fetch;
  /** Time one search may take, in milliseconds (default 15 000). */
  timeoutMs?: number;
  /** Largest response read, in bytes (default 2 MB). */
  maxResponseBytes?: number;
}

/**
 * `base` without trailing slashes, checked to be an http(s) URL (`TypeError` otherwise).
 *
 * @example
 * ```ts
 * normalizeBaseUrl('http://127.0.0.1:4000/', 'serper_search'); // 'http://127.0.0.1:4000'
 * ```
 */
export function normalizeBaseUrl(base: string, tool: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError(`${tool}: baseUrl '${base}' is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${tool}: baseUrl '${base}' must be an http or https URL.`);
  }
  return url.href.replace(/\/+$/, '');
}
