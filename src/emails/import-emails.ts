import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { checkJsonText, describeJsonLimitBreach } from '../core/input-limits.js';
import type { EmailRecord } from './email-record.js';
import { EmailSourceError } from './email-source-error.js';
import type { EmailStore } from './email-store.js';
import {
  DEFAULT_EMAIL_LIMITS,
  type EmailLimits,
  normalizeEmail,
  type RawEmailFields,
  splitAddresses,
} from './normalize-email.js';

/** The formats {@link importEmails} reads. */
export const EMAIL_IMPORT_FORMATS = ['maildir', 'mbox', 'csv', 'jsonl', 'parquet'] as const;

/** One of {@link EMAIL_IMPORT_FORMATS}. */
export type EmailImportFormat = (typeof EMAIL_IMPORT_FORMATS)[number];

/** Progress of an import, reported after every batch. */
export interface EmailImportProgress {
  /** Messages read so far (added, already present or skipped). */
  processed: number;
  added: number;
  skipped: number;
  /** Bytes of the source read so far, and its total size, when known (single-file formats). */
  bytesRead?: number;
  totalBytes?: number;
}

/** A message that was not imported, and why. */
export interface SkippedEmail {
  /** File (and line or record number) it came from. */
  source: string;
  reason: string;
}

/** Options of {@link importEmails}. */
export interface ImportEmailsOptions extends Partial<EmailLimits> {
  format: EmailImportFormat;
  emails: EmailStore;
  /**
   * Messages per transaction (default 1000 on PostgreSQL; on SQLite 5000, or 20 000 in a bulk load,
   * since fewer, larger FTS5 segments index faster).
   */
  batchSize?: number;
  onProgress?: (progress: EmailImportProgress) => void;
  /** Called for each skipped message (the report keeps the first 1000). */
  onSkip?: (skipped: SkippedEmail) => void;
  /**
   * Load in bulk: on PostgreSQL, an empty table's GIN index is built after the load instead of
   * maintained row by row; on SQLite, FTS5 merges its index once at the end instead of as it goes
   * (see `EmailStore.beginBulkLoad`). Default: for a source file of 32 MiB or more.
   */
  bulkLoad?: boolean;
}

/** What {@link importEmails} did. */
export interface EmailImportReport {
  processed: number;
  /** Rows added; messages already stored (a re-import) count in `processed` only. */
  added: number;
  duplicates: number;
  skippedCount: number;
  /** The first 1000 skipped messages. */
  skipped: SkippedEmail[];
}

interface SourceItem {
  source: string;
  fields?: RawEmailFields;
  /** Set instead of `fields` when the item could not even be read. */
  reason?: string;
  bytesRead?: number;
}

const MAX_SKIPPED_KEPT = 1000;

/** A source file at least this big is a bulk load (see `EmailStore.beginBulkLoad`). */
export const LARGE_IMPORT_BYTES = 32 * 1024 * 1024;

/**
 * Import an email corpus into the store: `maildir` (the Enron layout `maildir/<user>/<folder>/<n>.`,
 * inbox = the user folder), `mbox`, or `csv` / `jsonl` / `parquet` in the public enron-emails shape
 * (`message_id, subject, from, to, cc, bcc, date, body, file_name`; JSONL also takes the `email_get`
 * shape). RFC 822 messages are parsed with mailparser; dates become ISO 8601; the inbox is the
 * maildir user, else the first recipient. Batches are inserted in one transaction each; messages with
 * bad headers, no date, an undecodable body or a body over the limit are reported and skipped; a
 * message whose id is already stored adds nothing, so re-running an import is harmless, and re-running
 * one that was killed finishes it. A source that is not of `format` is refused before anything is
 * stored (see {@link checkEmailSource}). A bulk load into an empty PostgreSQL table builds the GIN index at
 * the end instead of row by row (see `EmailStore.beginBulkLoad`).
 *
 * @example
 * ```ts
 * const report = await importEmails('data/maildir', { format: 'maildir', emails, onProgress: console.log });
 * console.log(`${report.added} added, ${report.skippedCount} skipped`);
 * ```
 */
export async function importEmails(path: string, options: ImportEmailsOptions): Promise<EmailImportReport> {
  const limits: EmailLimits = {
    maxBodyChars: options.maxBodyChars ?? DEFAULT_EMAIL_LIMITS.maxBodyChars,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_EMAIL_LIMITS.maxMessageBytes,
  };
  await checkEmailSource(path, options.format);
  const report: EmailImportReport = { processed: 0, added: 0, duplicates: 0, skippedCount: 0, skipped: [] };
  const totalBytes = options.format === 'maildir' ? undefined : (await stat(path)).size;
  const bulk = options.bulkLoad ?? (totalBytes ?? 0) >= LARGE_IMPORT_BYTES;
  const batchSize = options.batchSize ?? options.emails.importBatchSize(bulk);
  let bytesRead = 0;
  let batch: EmailRecord[] = [];
  const skip = (source: string, reason: string) => {
    report.skippedCount += 1;
    const item = { source, reason };
    if (report.skipped.length < MAX_SKIPPED_KEPT) report.skipped.push(item);
    options.onSkip?.(item);
  };
  // Where the database does most of a batch's work in its own process (PostgreSQL's to_tsvector), the
  // next batch is read while the last one is stored. Each batch is still its own transaction, so an
  // interrupted import leaves whole batches only.
  const inFlight = new Set<Promise<void>>();
  const parallel = options.emails.importParallelism;
  let failure: { error: unknown } | undefined;
  const store = async (emails: EmailRecord[]) => {
    try {
      const added = await options.emails.insertBatch(emails);
      report.added += added;
      report.duplicates += emails.length - added;
    } catch (error) {
      failure ??= { error };
    }
  };
  const flush = async (last = false) => {
    if (batch.length > 0) {
      const pending = store(batch).finally(() => inFlight.delete(pending));
      inFlight.add(pending);
      batch = [];
    }
    while (inFlight.size >= parallel || (last && inFlight.size > 0)) await Promise.race(inFlight);
    if (failure !== undefined) throw failure.error;
    options.onProgress?.({
      processed: report.processed,
      added: report.added,
      skipped: report.skippedCount,
      ...(totalBytes === undefined ? {} : { bytesRead, totalBytes }),
    });
  };
  const finishBulkLoad = await options.emails.beginBulkLoad(bulk);
  try {
    for await (const item of readSource(path, options.format, limits)) {
      report.processed += 1;
      if (item.bytesRead !== undefined) bytesRead = item.bytesRead;
      if (item.fields === undefined) {
        skip(item.source, item.reason ?? 'unreadable message');
        continue;
      }
      const result = normalizeEmail(item.fields, limits);
      if (!result.ok) {
        skip(item.source, result.reason);
        continue;
      }
      batch.push(result.email);
      if (batch.length >= batchSize) await flush();
    }
    await flush(true);
  } finally {
    await Promise.all(inFlight);
    await finishBulkLoad();
  }
  return report;
}

/** The columns a CSV row needs besides `date` for an email to be stored: where its inbox comes from. */
const CSV_INBOX_COLUMNS = ['to', 'cc', 'bcc', 'recipients', 'inbox', 'file_name'];

/** How much of a file {@link checkEmailSource} reads to see how it starts. */
const SNIFF_BYTES = 64 * 1024;

/**
 * Check that `path` can be read as `format` before anything is imported: a maildir is a folder; an
 * mbox, CSV, JSONL or Parquet source is a file that starts as that format does (an mbox with
 * `From `, a CSV with a header naming `date` and one of `to`, `cc`, `bcc`, `recipients`, `inbox` or
 * `file_name`, a JSONL with a JSON object, a Parquet file with `PAR1`), and that it is not empty (a blank
 * file, a CSV of its header alone, a maildir with no message in an inbox folder). Throws {@link EmailSourceError}
 * naming `shown` (default `path`) and what was expected; a path that cannot be read throws the file
 * system's error.
 *
 * @example
 * ```ts
 * await checkEmailSource('export.jsonl', 'csv');
 * // EmailSourceError: 'export.jsonl' is not a CSV export of emails: its first row must name the columns, ...
 * ```
 */
export async function checkEmailSource(path: string, format: EmailImportFormat, shown = path): Promise<void> {
  const info = await stat(path);
  const named = `'${shown}'`;
  if (format === 'maildir') {
    if (!info.isDirectory()) throw new EmailSourceError('NOT_A_FOLDER', `${named} is a file, not a maildir folder.`);
    if (!(await holdsMaildirMessage(path))) {
      throw new EmailSourceError(
        'EMPTY',
        `${named} holds no emails: a maildir has a folder for each inbox with the messages under it (${shown.replace(/\/+$/, '')}/<inbox>/<folder>/<message>).`,
      );
    }
    return;
  }
  const article = format === 'mbox' ? 'an' : 'a';
  const label =
    format === 'csv' || format === 'jsonl' ? format.toUpperCase() : format === 'parquet' ? 'Parquet' : format;
  if (info.isDirectory())
    throw new EmailSourceError('NOT_A_FILE', `${named} is a folder, not ${article} ${label} file.`);
  const start = await readStart(path);
  const wholeFile = start.length === info.size;
  if (wholeFile && start.toString('latin1').trim() === '') {
    throw new EmailSourceError('EMPTY', `${named} is empty: it holds no emails to import.`);
  }
  const lines = start
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const firstLine = (lines[0] ?? '').trim();
  switch (format) {
    case 'mbox':
      if (!firstLine.startsWith('From ')) {
        throw new EmailSourceError('WRONG_FORMAT', `${named} is not an mbox: its first line must start with 'From '.`);
      }
      return;
    case 'csv': {
      const columns = firstLine.split(',').map((name) => name.trim().replace(/^"|"$/g, '').trim().toLowerCase());
      if (!columns.includes('date') || !CSV_INBOX_COLUMNS.some((name) => columns.includes(name))) {
        throw new EmailSourceError(
          'WRONG_FORMAT',
          `${named} is not a CSV export of emails: its first row must name the columns, with date and one of ${CSV_INBOX_COLUMNS.slice(0, -1).join(', ')} or ${CSV_INBOX_COLUMNS.at(-1)} (as in message_id,subject,from,to,cc,bcc,date,body,file_name).`,
        );
      }
      if (wholeFile && lines.length === 1) {
        throw new EmailSourceError('EMPTY', `${named} has a header row and no email after it.`);
      }
      return;
    }
    case 'jsonl':
      // Only the start is checked: a later line that is not JSON is skipped and reported as usual.
      if (!firstLine.startsWith('{')) {
        throw new EmailSourceError(
          'WRONG_FORMAT',
          `${named} is not a JSONL export of emails: its first line must be a JSON object, one email a line.`,
        );
      }
      return;
    case 'parquet':
      if (start.subarray(0, 4).toString('latin1') !== 'PAR1') {
        throw new EmailSourceError('WRONG_FORMAT', `${named} is not a Parquet file: it does not start with PAR1.`);
      }
      return;
    default: {
      const unreachable: never = format;
      throw new TypeError(`Unknown email format '${String(unreachable)}'.`);
    }
  }
}

/** Whether a maildir has a file in one of its inbox folders, which is where {@link readMaildir} reads messages. */
async function holdsMaildirMessage(root: string): Promise<boolean> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for await (const _file of walk(join(root, entry.name))) return true;
  }
  return false;
}

async function readStart(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

function readSource(path: string, format: EmailImportFormat, limits: EmailLimits): AsyncIterable<SourceItem> {
  switch (format) {
    case 'maildir':
      return readMaildir(path, limits);
    case 'mbox':
      return readMbox(path, limits);
    case 'csv':
      return readCsv(path);
    case 'jsonl':
      return readJsonl(path);
    case 'parquet':
      return readParquet(path);
    default:
      throw new TypeError(`Unknown email format '${String(format)}'; use one of ${EMAIL_IMPORT_FORMATS.join(', ')}.`);
  }
}

/** Parse one RFC 822 message with mailparser; the date is read from the raw header (mailparser would default it to now). */
export async function parseRfc822(
  raw: Buffer,
  inbox: string | undefined,
  limits: EmailLimits,
): Promise<RawEmailFields | string> {
  if (raw.length > limits.maxMessageBytes) return `message of ${raw.length} bytes exceeds ${limits.maxMessageBytes}`;
  const headerEnd = raw.indexOf('\n\n') === -1 ? raw.indexOf('\r\n\r\n') : raw.indexOf('\n\n');
  const head = raw.subarray(0, headerEnd === -1 ? raw.length : headerEnd).toString('latin1');
  if (!/^[!-9;-~]+:/m.test(head)) return 'bad headers: no header lines';
  const { simpleParser } = await import('mailparser');
  let parsed: Awaited<ReturnType<typeof simpleParser>>;
  try {
    parsed = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  } catch (error) {
    return `unparseable message: ${error instanceof Error ? error.message : String(error)}`;
  }
  const dateLine = parsed.headerLines.find((line) => line.key === 'date');
  const addresses = (value: unknown): string[] => {
    const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
    return list
      .flatMap((object: { value?: Array<{ address?: string; group?: Array<{ address?: string }> }> }) =>
        (object.value ?? []).flatMap((entry) => [
          entry.address,
          ...(entry.group ?? []).map((member) => member.address),
        ]),
      )
      .filter((address): address is string => typeof address === 'string' && address !== '');
  };
  const recipients = [...addresses(parsed.to), ...addresses(parsed.cc), ...addresses(parsed.bcc)];
  const sender = addresses(parsed.from)[0];
  return {
    messageId: parsed.messageId,
    inbox,
    subject: parsed.subject,
    sender,
    recipients: recipients.map((address) => address.toLowerCase()),
    date: dateLine === undefined ? undefined : dateLine.line.replace(/^date:\s*/i, ''),
    body: parsed.text ?? (typeof parsed.html === 'string' ? parsed.html : ''),
  };
}

async function* readMaildir(root: string, limits: EmailLimits): AsyncGenerator<SourceItem> {
  const users = (await readdir(root, { withFileTypes: true })).filter((entry) => entry.isDirectory());
  users.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const user of users) {
    for await (const file of walk(join(root, user.name))) {
      const source = relative(root, file);
      let raw: Buffer;
      try {
        raw = await readFile(file);
      } catch (error) {
        yield { source, reason: `unreadable file: ${error instanceof Error ? error.message : String(error)}` };
        continue;
      }
      const fields = await parseRfc822(raw, user.name, limits);
      yield typeof fields === 'string' ? { source, reason: fields } : { source, fields };
    }
  }
}

async function* walk(folder: string): AsyncGenerator<string> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

async function* readMbox(path: string, limits: EmailLimits): AsyncGenerator<SourceItem> {
  // Read as latin1 so bytes survive untouched until mailparser decodes the charsets.
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'latin1' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let current: string[] | undefined;
  let startLine = 0;
  let lineNumber = 0;
  let bytes = 0;
  let size = 0;
  const finish = async (): Promise<SourceItem | undefined> => {
    if (current === undefined) return undefined;
    const source = `${basename(path)}:${startLine}`;
    if (size > limits.maxMessageBytes)
      return { source, reason: `message of ${size}+ bytes exceeds ${limits.maxMessageBytes}`, bytesRead: bytes };
    const fields = await parseRfc822(Buffer.from(current.join('\n'), 'latin1'), undefined, limits);
    return typeof fields === 'string'
      ? { source, reason: fields, bytesRead: bytes }
      : { source, fields, bytesRead: bytes };
  };
  for await (const line of lines) {
    lineNumber += 1;
    bytes += line.length + 1;
    if (line.startsWith('From ')) {
      const item = await finish();
      if (item !== undefined) yield item;
      current = [];
      size = 0;
      startLine = lineNumber;
      continue;
    }
    if (current === undefined) continue;
    size += line.length + 1;
    // Over the limit: stop keeping lines, the message is reported when it ends.
    if (size <= limits.maxMessageBytes) current.push(/^>+From /.test(line) ? line.slice(1) : line);
  }
  const last = await finish();
  if (last !== undefined) yield last;
}

/** Fields of the public enron-emails rows (CSV, JSONL, Parquet), or of the `email_get` shape. */
function fromRow(row: Record<string, unknown>): RawEmailFields {
  const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));
  const recipients =
    row.recipients !== undefined
      ? splitAddresses(row.recipients)
      : [...splitAddresses(row.to), ...splitAddresses(row.cc), ...splitAddresses(row.bcc)];
  const fileName = text(row.file_name);
  // enron-emails file_name looks like "allen-p/_sent_mail/1." — its first part is the maildir user.
  const user = fileName?.includes('/') ? fileName.split('/')[0] : undefined;
  const date =
    row.date instanceof Date
      ? row.date
      : typeof row.date === 'number' || typeof row.date === 'bigint'
        ? new Date(Number(row.date))
        : text(row.date);
  return {
    messageId: text(row.message_id),
    inbox: text(row.inbox) ?? user,
    subject: text(row.subject),
    sender: text(row.sender) ?? splitAddresses(row.from)[0],
    recipients,
    date,
    body: text(row.body),
  };
}

async function* readJsonl(path: string): AsyncGenerator<SourceItem> {
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  let bytes = 0;
  for await (const line of lines) {
    lineNumber += 1;
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    const source = `${basename(path)}:${lineNumber}`;
    // The limits of every JSON input (INPUT_LIMITS): a line over one is skipped with the reason.
    const breach = checkJsonText(line);
    if (breach !== undefined) {
      yield { source, reason: describeJsonLimitBreach('the line', breach).replace(/\.$/, ''), bytesRead: bytes };
      continue;
    }
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      yield { source, reason: 'not valid JSON', bytesRead: bytes };
      continue;
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      yield { source, reason: 'not a JSON object', bytesRead: bytes };
      continue;
    }
    yield { source, fields: fromRow(row as Record<string, unknown>), bytesRead: bytes };
  }
}

async function* readCsv(path: string): AsyncGenerator<SourceItem> {
  const { parse } = await import('csv-parse');
  const skipped: SourceItem[] = [];
  const input = createReadStream(path);
  const parser = input.pipe(
    parse({
      columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()),
      bom: true,
      relax_column_count: true,
      skip_records_with_error: true,
    }),
  );
  parser.on('skip', (error: Error & { lines?: number }) => {
    skipped.push({ source: `${basename(path)}:${error.lines ?? '?'}`, reason: `bad CSV record: ${error.message}` });
  });
  let record = 0;
  for await (const row of parser as AsyncIterable<Record<string, unknown>>) {
    while (skipped.length > 0) yield skipped.shift() as SourceItem;
    record += 1;
    yield { source: `${basename(path)}#${record}`, fields: fromRow(row), bytesRead: input.bytesRead };
  }
  while (skipped.length > 0) yield skipped.shift() as SourceItem;
}

async function* readParquet(path: string): AsyncGenerator<SourceItem> {
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  let rowStart = 0;
  let record = 0;
  // One row group at a time, so a large file is never held in memory whole.
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd });
    for (const row of rows) {
      record += 1;
      yield { source: `${basename(path)}#${record}`, fields: fromRow(row as Record<string, unknown>) };
    }
    rowStart = rowEnd;
  }
}
