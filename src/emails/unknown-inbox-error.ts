import { ToolshedError } from '../core/errors/toolshed-error.js';
import type { InboxCount } from './email-record.js';

/**
 * Why a search named no inbox of the corpus:
 *
 * - `UNKNOWN_INBOX` — no email is stored in that inbox; the message names the closest inbox names and
 *   the largest inboxes.
 * - `EMPTY_CORPUS` — no email is stored at all; the message says how to fill the corpus.
 */
export type UnknownInboxCode = 'UNKNOWN_INBOX' | 'EMPTY_CORPUS';

/** How many of the largest inboxes the message names. */
const LARGEST_SHOWN = 3;

/** Raised by {@link EmailStore.search} for an inbox that holds no email. */
export class UnknownInboxError extends ToolshedError<UnknownInboxCode> {
  override readonly name = 'UnknownInboxError';

  /**
   * @param inbox the inbox asked for, as given
   * @param suggestions inbox names close to it, best first
   * @param largest the largest inboxes, largest first (empty for an empty corpus)
   *
   * @example
   * ```ts
   * new UnknownInboxError('x', [], [{ inbox: 'a', count: 120 }]).message;
   * // "No inbox 'x'; the largest is: a (120)."
   * ```
   */
  constructor(
    readonly inbox: string,
    readonly suggestions: readonly string[],
    readonly largest: readonly InboxCount[],
  ) {
    super(largest.length === 0 ? 'EMPTY_CORPUS' : 'UNKNOWN_INBOX', unknownInboxMessage(inbox, suggestions, largest));
  }
}

/**
 * `No inbox 'x'; did you mean 'y'? The largest are: a (120), b (80), c (40).`, or for an empty corpus
 * how to fill it. Names are cut at 80 characters and their control characters escaped, so a hostile
 * name cannot forge lines of the message.
 */
function unknownInboxMessage(inbox: string, suggestions: readonly string[], largest: readonly InboxCount[]): string {
  const asked = `No inbox '${printable(inbox)}'`;
  if (largest.length === 0) {
    return `${asked}: the email corpus is empty. Fill it with 'toolshed emails generate --count 1000 --db <database>' or 'toolshed emails import PATH'.`;
  }
  const shown = largest
    .slice(0, LARGEST_SHOWN)
    .map((entry) => `${printable(entry.inbox)} (${entry.count})`)
    .join(', ');
  const listed = largest.length === 1 ? `the largest is: ${shown}.` : `the largest are: ${shown}.`;
  if (suggestions.length === 0) return `${asked}; ${listed}`;
  const guesses = suggestions.map((name) => `'${printable(name)}'`).join(' or ');
  return `${asked}; did you mean ${guesses}? ${listed.charAt(0).toUpperCase()}${listed.slice(1)}`;
}

function printable(name: string): string {
  const cut = name.length > 80 ? `${name.slice(0, 77)}...` : name;
  return cut.replace(/\p{Cc}/gu, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
