/** The most results one `email_search` (or {@link EmailStore.search}) returns. */
export const MAX_EMAIL_SEARCH_LIMIT = 50;

/** How many inboxes `email_inboxes` (or {@link EmailStore.inboxes}) returns unless told otherwise. */
export const DEFAULT_EMAIL_INBOXES_LIMIT = 20;

/** The most inboxes one `email_inboxes` (or {@link EmailStore.inboxes}) returns. */
export const MAX_EMAIL_INBOXES_LIMIT = 200;
