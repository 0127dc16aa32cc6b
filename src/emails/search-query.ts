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

/**
 * An FTS5 string for one query word: double-quoted, so it is always a plain term, never an operator,
 * a column name or a prefix query. `queryWords` leaves only letters and digits, but the quotes are
 * doubled anyway.
 *
 * @example
 * ```ts
 * ftsTerm('near'); // '"near"'
 * ```
 */
export function ftsTerm(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * An FTS5 MATCH expression for rows that hold every one of `words`, in the subject or the body.
 *
 * @example
 * ```ts
 * ftsMatch(['budget', 'report']); // '"budget" "report"'
 * ```
 */
export function ftsMatch(words: readonly string[]): string {
  return words.map(ftsTerm).join(' ');
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
