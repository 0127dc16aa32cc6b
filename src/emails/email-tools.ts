import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { EmailQueryError, type EmailStore, MAX_EMAIL_SEARCH_LIMIT } from './email-store.js';

/** Options of {@link createEmailTools}. */
export interface EmailToolsOptions {
  /** The corpus to search. */
  emails: EmailStore;
}

/** The arguments of `email_search`. */
export type EmailSearchArgs = { query: string; inbox_id: string; limit?: number | undefined };

/** The arguments of `email_get`. */
export type EmailGetArgs = { message_id: string };

/** The longest query accepted, in characters (only the first 32 words are searched). */
export const MAX_EMAIL_QUERY_LENGTH = 10_000;

/**
 * The email tools over an {@link EmailStore}: `email_search {query, inbox_id, limit = 10 (max 50)}`
 * returns `{emails: [{message_id, subject, sender, date, snippet}], total}`, best first, with the
 * query's words in `<mark>`; `email_get {message_id}` returns the whole email. A query without
 * searchable words is `INVALID_ARGUMENTS`; an unknown message id is `INVALID_ARGUMENTS` with a hint.
 *
 * @example
 * ```ts
 * registry.registerAll(createEmailTools({ emails: new EmailStore(store) }));
 * await registry.call('email_search', { query: 'meeting schedule', inbox_id: 'john.arnold@enron.com' });
 * ```
 */
export function createEmailTools(options: EmailToolsOptions): [ToolSpec<EmailSearchArgs>, ToolSpec<EmailGetArgs>] {
  const { emails } = options;
  const search = defineTool({
    name: 'email_search',
    title: 'Search Emails',
    description:
      'Search the emails of one inbox by words in their subject or body. Returns the best matches first, each with message_id, subject, sender, date (ISO 8601) and a snippet where matching words are in <mark>…</mark>, plus the total number of matches.',
    whenToUse:
      'To find emails about a topic in a given inbox. Use a few distinctive words (every word must appear); then read a whole email with email_get and its message_id.',
    category: 'email',
    tags: ['email', 'search', 'inbox', 'full-text', 'mail'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    input: z.strictObject({
      query: z.string().min(1).max(MAX_EMAIL_QUERY_LENGTH).describe('Words to look for, e.g. "meeting schedule".'),
      inbox_id: z.string().min(1).max(320).describe('The inbox to search, e.g. "john.arnold@enron.com".'),
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
        return await emails.search(query, inbox_id, limit ?? 10);
      } catch (error) {
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
      const email = await emails.get(message_id);
      if (email !== undefined) return email;
      return ToolResult.error('INVALID_ARGUMENTS', `No email has the message_id '${message_id.slice(0, 200)}'.`, {
        hint: 'Use a message_id exactly as email_search returned it, including the angle brackets.',
        details: { reason: 'not_found', message_id: message_id.slice(0, 200) },
      });
    },
  });
  return [search, get];
}
