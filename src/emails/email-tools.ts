import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { DEFAULT_EMAIL_INBOXES_LIMIT, MAX_EMAIL_INBOXES_LIMIT, MAX_EMAIL_SEARCH_LIMIT } from './email-limits.js';
import { EmailQueryError } from './email-query-error.js';
import type { EmailSearchResult } from './email-record.js';
import type { EmailStore } from './email-store.js';
import { queryWords } from './search-query.js';
import { UnknownInboxError } from './unknown-inbox-error.js';

/** Options of {@link createEmailTools}. */
export interface EmailToolsOptions {
  /**
   * The corpus to search, or a function that gives it at each call (it may open a database on the
   * first call and keep it; the `toolshed` CLI opens the corpus of its database only when a model
   * calls an email tool).
   */
  emails: EmailStore | (() => Promise<EmailStore>);
}

/** The arguments of `email_search`. */
export type EmailSearchArgs = { query: string; inbox_id: string; limit?: number | undefined };

/** The arguments of `email_get`. */
export type EmailGetArgs = { message_id: string };

/** The arguments of `email_inboxes`. */
export type EmailInboxesArgs = { limit?: number | undefined };

/**
 * The inbox `email_search`'s schema gives as its example: the first of the inboxes of every corpus
 * `toolshed emails generate` makes, and one of its busiest (see `generateEmails`), so the example can
 * be run as it is.
 *
 * @example
 * ```ts
 * await registry.call('email_search', { query: 'meeting schedule', inbox_id: EXAMPLE_INBOX });
 * ```
 */
export const EXAMPLE_INBOX = 'john.arnold@enron.example';

/** The longest query accepted, in characters (only the first 32 words are searched). */
export const MAX_EMAIL_QUERY_LENGTH = 10_000;

/**
 * The email tools over an {@link EmailStore}: `email_search {query, inbox_id, limit = 10 (max 50)}`
 * returns `{emails: [{message_id, subject, sender, date, snippet}], total, total_is_lower_bound}`, best first, with the
 * query's words in `<mark>`; `email_get {message_id}` returns the whole email; `email_inboxes
 * {limit = 20 (max 200)}` returns `{inboxes: [{inbox, count}], total}`, the largest first. A query
 * without searchable words is `INVALID_ARGUMENTS`; so is an inbox that holds no email (the message
 * names the closest inboxes and the largest, or how to fill an empty corpus), and an unknown message
 * id (with a hint).
 *
 * @example
 * ```ts
 * registry.registerAll(createEmailTools({ emails: new EmailStore(store) }));
 * await registry.call('email_inboxes', { limit: 5 });
 * await registry.call('email_search', { query: 'meeting schedule', inbox_id: 'john.arnold@enron.example' });
 * ```
 */
export function createEmailTools(
  options: EmailToolsOptions,
): [ToolSpec<EmailSearchArgs>, ToolSpec<EmailGetArgs>, ToolSpec<EmailInboxesArgs>] {
  const source = options.emails;
  const corpus = typeof source === 'function' ? source : () => Promise.resolve(source);
  const search = defineTool({
    name: 'email_search',
    title: 'Search Emails',
    description:
      'Search the emails of one inbox by words in their subject or body. Returns the best matches first, each with message_id, subject, sender, date (ISO 8601) and a snippet where matching words are in <mark>…</mark>, plus total, the number of matches up to 2000 (total_is_lower_bound is true when more match).',
    whenToUse:
      'To find emails about a topic in a given inbox (email_inboxes lists them). Use a few distinctive words (every word must appear); then read a whole email with email_get and its message_id.',
    category: 'email',
    tags: ['email', 'search', 'inbox', 'full-text', 'mail'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    input: z.strictObject({
      query: z.string().min(1).max(MAX_EMAIL_QUERY_LENGTH).describe('Words to look for, e.g. "meeting schedule".'),
      inbox_id: z
        .string()
        .min(1)
        .max(320)
        .describe(`The inbox to search, e.g. "${EXAMPLE_INBOX}" (email_inboxes lists the inboxes).`),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_EMAIL_SEARCH_LIMIT)
        .optional()
        .describe(`At most this many results, 1 to ${MAX_EMAIL_SEARCH_LIMIT} (default 10).`),
    }),
    handler: async ({ query, inbox_id, limit }) => {
      try {
        const result = await (await corpus()).search(query, inbox_id, limit ?? 10);
        return result.unmatched_words === undefined ? result : { ...result, hint: noMatchHint(query, result) };
      } catch (error) {
        if (error instanceof UnknownInboxError) return unknownInboxResult(error);
        if (!(error instanceof EmailQueryError)) throw error;
        return ToolResult.error('INVALID_ARGUMENTS', error.message, {
          hint: 'Pass a few plain words; operators and punctuation are ignored.',
        });
      }
    },
  });
  const get = defineTool({
    name: 'email_get',
    title: 'Get Email',
    description:
      'Read one whole email by its message_id (from email_search): inbox, subject, sender, recipients (a list), date (ISO 8601) and body.',
    whenToUse: 'After email_search, to read the full text of a result.',
    category: 'email',
    tags: ['email', 'read', 'message'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    input: z.strictObject({
      message_id: z.string().min(1).max(1000).describe('The message_id of an email_search result.'),
    }),
    handler: async ({ message_id }) => {
      const email = await (await corpus()).get(message_id);
      if (email !== undefined) return email;
      return ToolResult.error('INVALID_ARGUMENTS', `No email has the message_id '${message_id.slice(0, 200)}'.`, {
        hint: 'Use a message_id exactly as email_search returned it, including the angle brackets.',
        details: { reason: 'not_found', message_id: message_id.slice(0, 200) },
      });
    },
  });
  const inboxes = defineTool({
    name: 'email_inboxes',
    title: 'List Email Inboxes',
    description:
      'List the inboxes of the email corpus, the largest first, each with its number of emails ({inbox, count}), plus the total number of inboxes. An inbox name is what email_search takes as inbox_id.',
    whenToUse: 'Before email_search, to learn which inboxes exist and how their names are spelled.',
    category: 'email',
    tags: ['email', 'inbox', 'list', 'mail'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    input: z.strictObject({
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_EMAIL_INBOXES_LIMIT)
        .optional()
        .describe(
          `At most this many inboxes, 1 to ${MAX_EMAIL_INBOXES_LIMIT} (default ${DEFAULT_EMAIL_INBOXES_LIMIT}).`,
        ),
    }),
    handler: async ({ limit }) => (await corpus()).inboxes(limit ?? DEFAULT_EMAIL_INBOXES_LIMIT),
  });
  return [search, get, inboxes];
}

/** `INVALID_ARGUMENTS` for a search of an inbox that holds no email, with what the model can do next. */
function unknownInboxResult(error: UnknownInboxError) {
  if (error.code === 'EMPTY_CORPUS') {
    return ToolResult.error('INVALID_ARGUMENTS', error.message, {
      hint: 'No email can be searched until the corpus is loaded; tell the user.',
      details: { reason: 'empty_corpus' },
    });
  }
  return ToolResult.error('INVALID_ARGUMENTS', error.message, {
    hint: 'Use an inbox name exactly as email_inboxes lists it.',
    details: {
      reason: 'unknown_inbox',
      inbox: error.inbox.slice(0, 200),
      suggestions: error.suggestions,
      largest: error.largest,
    },
  });
}

/**
 * What a search that matched nothing tells the model to do: drop the words no email of the inbox
 * holds, or use fewer words when each is somewhere; and that `from:`-style operators are only words.
 */
function noMatchHint(query: string, result: EmailSearchResult): string {
  const unmatched = result.unmatched_words ?? [];
  const ignored = result.ignored_words ?? [];
  const quote = (words: readonly string[]) => words.map((word) => `'${word}'`).join(', ');
  const advice =
    unmatched.length > 0
      ? `No email of this inbox has the word${unmatched.length === 1 ? '' : 's'} ${quote(unmatched)}: search again without ${unmatched.length === 1 ? 'it' : 'them'}, or with other words.`
      : ignored.length > 0 && queryWords(query).every((word) => ignored.includes(word))
        ? `${quote(ignored)} ${ignored.length === 1 ? 'is' : 'are'} too common to be searched: use distinctive words, for example "budget report".`
        : 'Each word is in some email of this inbox, but no email has them all: search with fewer words.';
  const operators = /[\p{L}_]+:\S/u.test(query)
    ? ' Every word must be in the subject or the body; there are no operators such as from: or subject:.'
    : '';
  return `${advice}${operators}`;
}
