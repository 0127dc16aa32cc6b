import { markSnippet, SNIPPET_MARKERS } from './search-query.js';

/** Tokens in a body snippet, as FTS5's `snippet(…, 24)` had. */
const WINDOW_TOKENS = 24;

/** How much of a body is looked at for the snippet window: a match further in is not shown. */
const MAX_SCANNED_CHARS = 100_000;

const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKERS = new RegExp(`[${SNIPPET_MARKERS.start}${SNIPPET_MARKERS.stop}]`, 'gu');

/**
 * A light stem for highlighting: lowercase, diacritics removed, a plural or `-ing`/`-ed` ending and a
 * final `e` dropped, so that `meetings`, `meeting` and `meet` all mark the query word `meeting`. The
 * index itself matches with the Porter stemmer; this only decides what gets `<mark>`.
 */
function lightStem(word: string): string {
  let stem = word.toLowerCase();
  if (/[^ -~]/.test(stem)) stem = stem.normalize('NFD').replace(/\p{M}/gu, '');
  for (let round = 0; round < 2; round += 1) {
    const next = stem.replace(/(?:ies|es|s|ing|ed|ly)$/, '');
    if (next === stem || next.length < 3) break;
    stem = next;
  }
  return stem.length > 3 ? stem.replace(/e$/, '') : stem;
}

interface Token {
  start: number;
  end: number;
  /** Index of the query word it matches, or -1. */
  word: number;
}

function tokenize(text: string, stems: Map<string, number>): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const start = match.index;
    tokens.push({ start, end: start + match[0].length, word: stems.get(lightStem(match[0])) ?? -1 });
  }
  return tokens;
}

/** `text` with every matching token between the start and stop markers. */
function markTokens(text: string, tokens: readonly Token[], from: number, to: number): string {
  const { start, stop } = SNIPPET_MARKERS;
  let out = '';
  let at = from === 0 ? 0 : (tokens[from]?.start ?? 0);
  for (let index = from; index < to; index += 1) {
    const token = tokens[index] as Token;
    if (token.word < 0) continue;
    out += `${text.slice(at, token.start)}${start}${text.slice(token.start, token.end)}${stop}`;
    at = token.end;
  }
  return out + text.slice(at, to >= tokens.length ? text.length : (tokens[to - 1]?.end ?? at));
}

/** The window of `WINDOW_TOKENS` tokens with the most distinct query words (then the most matches). */
function bestWindow(tokens: readonly Token[], wordCount: number): number {
  const counts = new Int32Array(wordCount);
  let distinct = 0;
  let matches = 0;
  let best = { start: 0, distinct: -1, matches: -1 };
  for (let index = 0; index < tokens.length; index += 1) {
    const entering = tokens[index]?.word ?? -1;
    if (entering >= 0) {
      if (counts[entering] === 0) distinct += 1;
      counts[entering] = (counts[entering] ?? 0) + 1;
      matches += 1;
    }
    const leaving = index >= WINDOW_TOKENS ? (tokens[index - WINDOW_TOKENS]?.word ?? -1) : -1;
    if (leaving >= 0) {
      counts[leaving] = (counts[leaving] ?? 0) - 1;
      if (counts[leaving] === 0) distinct -= 1;
      matches -= 1;
    }
    const start = Math.max(0, index - WINDOW_TOKENS + 1);
    if (distinct > best.distinct || (distinct === best.distinct && matches > best.matches)) {
      best = { start, distinct, matches };
    }
  }
  // Start the window on its first match, as long as it still fills WINDOW_TOKENS tokens.
  let start = best.start;
  while (start < tokens.length - WINDOW_TOKENS && (tokens[start]?.word ?? -1) < 0) start += 1;
  return start;
}

/**
 * The snippet of one search hit: `Subject: … | Body: …` with the query's words (and their plural,
 * `-ing` and `-ed` forms) in `<mark>…</mark>`, every other `<`, `>` and `&` escaped, and whitespace
 * collapsed. The subject is shown whole; the body as its best window of 24 words (the most distinct
 * query words), with `…` where it was cut. A part without a match is left out when the other has one.
 *
 * @example
 * ```ts
 * emailSnippet('Budget', 'The budget report is attached.', ['report']);
 * // 'Body: The budget <mark>report</mark> is attached.'
 * ```
 */
export function emailSnippet(subject: string, body: string, words: readonly string[]): string {
  const stems = new Map<string, number>();
  for (const [index, word] of words.entries()) if (!stems.has(lightStem(word))) stems.set(lightStem(word), index);
  const cleanSubject = subject.replace(MARKERS, '');
  const subjectTokens = tokenize(cleanSubject, stems);
  const subjectHit = subjectTokens.some((token) => token.word >= 0);
  const subjectText = markTokens(cleanSubject, subjectTokens, 0, subjectTokens.length);

  const scanned = body.length > MAX_SCANNED_CHARS ? body.slice(0, MAX_SCANNED_CHARS) : body;
  const cleanBody = scanned.replace(MARKERS, '');
  const bodyTokens = tokenize(cleanBody, stems);
  const bodyHit = bodyTokens.some((token) => token.word >= 0);
  let bodyText = '';
  if (bodyHit || !subjectHit) {
    const start = bodyHit ? bestWindow(bodyTokens, words.length) : 0;
    const end = Math.min(bodyTokens.length, start + WINDOW_TOKENS);
    bodyText = markTokens(cleanBody, bodyTokens, start, end);
    if (start > 0) bodyText = `…${bodyText}`;
    if (end < bodyTokens.length || scanned.length < body.length) bodyText += '…';
  }
  const parts: string[] = [];
  if (subjectHit || !bodyHit) parts.push(`Subject: ${markSnippet(subjectText)}`);
  if (bodyHit || !subjectHit) parts.push(`Body: ${markSnippet(bodyText)}`);
  return parts.join(' | ');
}
