/** The most words of a query that are searched; the rest are ignored. */
export const MAX_QUERY_WORDS = 32;

/** The longest word kept, in characters. */
const MAX_WORD_LENGTH = 64;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The searchable words of a user's query: runs of letters and digits, lowercased, deduplicated, at
 * most {@link MAX_QUERY_WORDS}. Everything else — quotes, `*`, `-`, `:`, parentheses, `^` — is a
 * separator, and `AND`/`OR`/`NOT`/`NEAR` become plain words, so no input can form query syntax.
 *
 * @example
 * ```ts
 * queryWords('"budget" -NEAR( report*'); // ['budget', 'near', 'report']
 * ```
 */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    words.add(match[0].toLowerCase().slice(0, MAX_WORD_LENGTH));
    if (words.size >= MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/** The FTS5 token that stands for an inbox (`ib` + lowercase hex of its UTF-8 bytes), as the triggers write it. */
export function inboxToken(inbox: string): string {
  return `ib${Buffer.from(inbox, 'utf8').toString('hex')}`;
}

/**
 * An FTS5 MATCH expression for `words` in subject or body, within one inbox when `inbox` is given.
 * Every word is a quoted string of letters and digits only, so it can never be read as an operator.
 *
 * @example
 * ```ts
 * sqliteMatch(['budget', 'report'], 'a@b.com'); // 'inbox_tok : "ib6140622e636f6d" AND {subject body} : ("budget" "report")'
 * sqliteMatch(['budget'], undefined); // '{subject body} : ("budget")'
 * ```
 */
export function sqliteMatch(words: readonly string[], inbox: string | undefined): string {
  const terms = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' ');
  const text = `{subject body} : (${terms})`;
  return inbox === undefined ? text : `inbox_tok : "${inboxToken(inbox)}" AND ${text}`;
}

const START = '\u{E000}';
const STOP = '\u{E001}';

/** Markers the databases put around matches; {@link markSnippet} turns them into `<mark>`. */
export const SNIPPET_MARKERS = Object.freeze({ start: START, stop: STOP });

/**
 * HTML-escape a snippet's text (`&`, `<`, `>`) and turn the database's match markers into
 * `<mark>…</mark>`, collapsing whitespace.
 */
export function markSnippet(raw: string): string {
  return raw
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll(START, '<mark>')
    .replaceAll(STOP, '</mark>')
    .replace(/\s+/g, ' ')
    .trim();
}
