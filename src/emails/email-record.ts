/** One email as stored and as `email_get` returns it. */
export interface EmailRecord {
  /** The RFC 822 Message-ID (or a stable id derived from the content when a message has none). */
  message_id: string;
  /** The mailbox it belongs to: the maildir user or the first recipient. */
  inbox: string;
  subject: string;
  sender: string;
  recipients: string[];
  /** ISO 8601 (UTC). */
  date: string;
  body: string;
}

/** One search hit: the summary `email_search` returns. */
export interface EmailHit {
  message_id: string;
  subject: string;
  sender: string;
  date: string;
  /** Matching text with the query's words in `<mark>…</mark>`; other `<`, `>` and `&` are escaped. */
  snippet: string;
}

/** What {@link EmailStore.search} returns. */
export interface EmailSearchResult {
  emails: EmailHit[];
  /**
   * How many emails of the inbox match in all (not only the returned page), counted up to 2 000: when
   * more match, `total` is 2 000 and `total_is_lower_bound` is true.
   */
  total: number;
  /** True when more than `total` emails match (the count stopped at 2 000). */
  total_is_lower_bound: boolean;
  /**
   * Only when nothing matched: the query's words that no email of the inbox holds (of its first 10
   * words, {@link ignored_words} left out), empty when each is in some email but none holds them all.
   */
  unmatched_words?: string[];
  /**
   * Only when nothing matched and the search left some of the query's words out as too common
   * (PostgreSQL's `english` stop words: alone they match nothing, beside others they ask for nothing).
   */
  ignored_words?: string[];
}

/** How many of a query's words a search that matched nothing looks for one by one (`unmatched_words`). */
export const MAX_WORDS_CHECKED = 10;

/** One inbox of the corpus and how many emails it holds. */
export interface InboxCount {
  inbox: string;
  count: number;
}

/** What {@link EmailStore.inboxes} returns: the largest inboxes first. */
export interface EmailInboxList {
  inboxes: InboxCount[];
  /** How many inboxes hold at least one email (not only the returned page). */
  total: number;
}
