import { ToolshedError } from '../core/errors/toolshed-error.js';

/**
 * Why {@link importEmails} refused a source before importing anything:
 *
 * - `NOT_A_FOLDER` — a maildir was asked for and the path is a file.
 * - `NOT_A_FILE` — a file format (mbox, CSV, JSONL, Parquet) was asked for and the path is a folder.
 * - `WRONG_FORMAT` — the file does not start as that format does (a CSV without a header of email
 *   columns, a JSONL whose first line is not a JSON object, ...).
 * - `EMPTY` — there is nothing to import: a file that is empty or blank, a maildir with no message in
 *   any inbox folder.
 */
export type EmailSourceErrorCode = 'NOT_A_FOLDER' | 'NOT_A_FILE' | 'WRONG_FORMAT' | 'EMPTY';

/**
 * Raised by `checkEmailSource` (and so by `importEmails`, before it stores anything) for a source
 * that is not of the format asked for. The message names the source and what was expected.
 *
 * @example
 * ```ts
 * new EmailSourceError('WRONG_FORMAT', "'emails.jsonl' is not a CSV export of emails: ...").code; // 'WRONG_FORMAT'
 * ```
 */
export class EmailSourceError extends ToolshedError<EmailSourceErrorCode> {
  override readonly name = 'EmailSourceError';
}
