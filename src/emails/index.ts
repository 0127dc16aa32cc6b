/**
 * toolshed/emails — an email corpus with full-text search (SQLite FTS5 or PostgreSQL tsvector), the
 * `email_search` and `email_get` tools, importers (maildir, mbox, CSV, JSONL, Parquet) and a synthetic
 * corpus generator. Node-only.
 */

export type { EmailHit, EmailRecord, EmailSearchResult } from './email-record.js';
export type { EmailDatabase, EmailStoreSource, EmailsTable } from './email-store.js';
export { EmailQueryError, EmailStore, MAX_EMAIL_SEARCH_LIMIT } from './email-store.js';
export type { EmailGetArgs, EmailSearchArgs, EmailToolsOptions } from './email-tools.js';
export { createEmailTools, MAX_EMAIL_QUERY_LENGTH } from './email-tools.js';
export type { GenerateEmailsOptions } from './generate-emails.js';
export { generateEmails, generateIntoStore, seededRandom, writeGeneratedJsonl } from './generate-emails.js';
export type {
  EmailImportFormat,
  EmailImportProgress,
  EmailImportReport,
  ImportEmailsOptions,
  SkippedEmail,
} from './import-emails.js';
export { EMAIL_IMPORT_FORMATS, importEmails } from './import-emails.js';
export type { EmailLimits } from './normalize-email.js';
export { DEFAULT_EMAIL_LIMITS } from './normalize-email.js';
