/**
 * toolshed/emails — an email corpus with full-text search (SQLite FTS5 or PostgreSQL tsvector), the
 * `email_search`, `email_get` and `email_inboxes` tools, importers (maildir, mbox, CSV, JSONL, Parquet) and a synthetic
 * corpus generator. Node-only.
 */

export { DEFAULT_EMAIL_INBOXES_LIMIT, MAX_EMAIL_INBOXES_LIMIT, MAX_EMAIL_SEARCH_LIMIT } from './email-limits.js';
export { EmailQueryError } from './email-query-error.js';
export type { EmailHit, EmailInboxList, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';
export type { EmailSourceErrorCode } from './email-source-error.js';
export { EmailSourceError } from './email-source-error.js';
export type { EmailDatabase, EmailStoreSource, EmailsTable } from './email-store.js';
export { EmailStore } from './email-store.js';
export type { EmailGetArgs, EmailInboxesArgs, EmailSearchArgs, EmailToolsOptions } from './email-tools.js';
export { createEmailTools, EXAMPLE_INBOX, MAX_EMAIL_QUERY_LENGTH } from './email-tools.js';
export type { GenerateEmailsOptions } from './generate-emails.js';
export { generateEmails, generateIntoStore, seededRandom, writeGeneratedJsonl } from './generate-emails.js';
export type {
  EmailImportFormat,
  EmailImportProgress,
  EmailImportReport,
  ImportEmailsOptions,
  SkippedEmail,
} from './import-emails.js';
export { checkEmailSource, EMAIL_IMPORT_FORMATS, importEmails } from './import-emails.js';
export type { EmailLimits } from './normalize-email.js';
export { DEFAULT_EMAIL_LIMITS } from './normalize-email.js';
export type { UnknownInboxCode } from './unknown-inbox-error.js';
export { UnknownInboxError } from './unknown-inbox-error.js';
