import type { WebSearchResult } from './web-search-result.js';

const RESULT_LINK = /<a\b[^>]*\bclass="[^"]*\bresult__a\b[^"]*"[^>]*>/gi;
const SNIPPET = /<(a|div|td|span)\b[^>]*\bclass="[^"]*\bresult__snippet\b[^"]*"[^>]*>([\s\S]*?)<\/\1>/i;
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/**
 * The organic results of a DuckDuckGo HTML results page (`https://html.duckduckgo.com/html/?q=...`):
 * title, target link and snippet of each, in page order, without ads, at most `max`.
 *
 * Result links on that page go through DuckDuckGo's redirector (`//duckduckgo.com/l/?uddg=<url>`); the
 * target URL is unwrapped. Tags are stripped and HTML entities decoded.
 *
 * @example
 * ```ts
 * const html = '<div class="result"><a class="result__a" href="https://example.com/">Example</a>' +
 *   '<a class="result__snippet">An <b>example</b> page</a></div>';
 * parseDuckDuckGoHtml(html, 10); // [{ title: 'Example', link: 'https://example.com/', snippet: 'An example page' }]
 * ```
 */
export function parseDuckDuckGoHtml(html: string, max: number): WebSearchResult[] {
  const anchors = [...html.matchAll(RESULT_LINK)];
  const results: WebSearchResult[] = [];
  for (let index = 0; index < anchors.length && results.length < max; index++) {
    const anchor = anchors[index]!;
    const start = anchor.index;
    const previousEnd = index === 0 ? 0 : anchors[index - 1]!.index + anchors[index - 1]![0].length;
    // The result's wrapper opens between the previous result and this link; ads are marked there.
    if (/\bresult--ad\b/.test(html.slice(previousEnd, start))) continue;
    const end = index + 1 < anchors.length ? anchors[index + 1]!.index : html.length;
    const block = html.slice(start, end);
    const closing = block.indexOf('</a>');
    const title = textOf(block.slice(anchor[0].length, closing === -1 ? undefined : closing));
    const href = /\bhref="([^"]*)"/i.exec(anchor[0])?.[1];
    const link = href === undefined ? undefined : unwrapLink(decodeEntities(href));
    if (link === undefined || title === '') continue;
    const snippet = SNIPPET.exec(block);
    results.push({ title, link, snippet: snippet === null ? '' : textOf(snippet[2] ?? '') });
  }
  return results;
}

/**
 * True when the page is DuckDuckGo's bot check instead of results.
 *
 * @example
 * ```ts
 * isDuckDuckGoChallenge('<div class="anomaly-modal__modal">'); // true
 * ```
 */
export function isDuckDuckGoChallenge(html: string): boolean {
  return /anomaly-modal|challenge-form|anomaly_modal/i.test(html);
}

function unwrapLink(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com');
  } catch {
    return undefined;
  }
  if (/(^|\.)duckduckgo\.com$/.test(url.hostname) && url.pathname === '/l/') {
    const target = url.searchParams.get('uddg');
    return target === null || target === '' ? undefined : target;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.href;
}

function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (entity, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return Object.hasOwn(NAMED_ENTITIES, name.toLowerCase()) ? NAMED_ENTITIES[name.toLowerCase()]! : entity;
  });
}
