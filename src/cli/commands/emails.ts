import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CliContext, pathValue } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { environmentVariable } from '../environment-variable.js';
import { erroredPath, fileCliError } from '../file-cli-error.js';
import { oneLine, toJson } from '../output.js';
import { storeCliError } from '../with-service-store.js';

const FORMATS = ['maildir', 'mbox', 'csv', 'jsonl', 'parquet'] as const;

/** Options of `toolshed emails import`. */
export interface EmailsImportOptions {
  format?: (typeof FORMATS)[number];
  db?: string;
  batchSize?: number;
  bulk?: boolean;
  json?: boolean;
}

/** Options of `toolshed emails generate`. */
export interface EmailsGenerateOptions {
  count: number;
  inboxes?: number;
  seed?: number;
  out?: string;
  db?: string;
  json?: boolean;
}

/**
 * Add `toolshed emails import PATH` and `toolshed emails generate --count N`: load an email corpus
 * (maildir, mbox, CSV, JSONL, Parquet) into the store's `emails` table, or make a synthetic one. Long
 * runs show a progress bar on a TTY and plain progress lines otherwise (on stderr).
 *
 * @example
 * ```ts
 * defineEmailsCommand(program, context);
 * await program.parseAsync(['emails', 'import', 'maildir/', '--db', 'emails.db'], { from: 'user' });
 * ```
 */
export function defineEmailsCommand(program: Command, context: CliContext): Command {
  const emails = program
    .command('emails')
    .description('Load or generate the email corpus of email_search / email_get.');
  emails
    .command('import')
    .description(
      'Import emails: a maildir (Enron layout), an mbox, or CSV / JSONL / Parquet of the enron-emails shape.',
    )
    .argument('<path>', 'the maildir folder or the file')
    .addOption(new Option('--format <format>', 'the source format (default: from the path)').choices(FORMATS))
    .option('--db <url>', 'the database (default: TOOLSHED_DATABASE_URL or ./toolshed.db)')
    .option(
      '--batch-size <n>',
      'messages per transaction (default: 1000 on PostgreSQL; 5000 on SQLite, 20000 in a bulk load)',
      positiveInt,
    )
    .option('--bulk', 'load in bulk, as for a source of 32 MiB or more (index built or merged at the end)')
    .option('--json', 'print the report as JSON on stdout')
    .showHelpAfterError("Run 'toolshed emails import --help' for usage.")
    .action(async (path: string, options: EmailsImportOptions) => {
      context.setExitCode(await runEmailsImport(path, options, context));
    });
  emails
    .command('generate')
    .description(
      'Generate a synthetic corpus (Zipf vocabulary, threads, forwards, 100+ inboxes), deterministic from --seed.',
    )
    .requiredOption('--count <n>', `how many emails, 1 to ${MAX_GENERATED_EMAILS}`, emailCount)
    .option('--inboxes <k>', 'how many inboxes (default: 150)', positiveInt)
    .option('--seed <n>', 'the random seed (default: 1)', positiveInt)
    .option('--out <path>', 'write JSONL to this file', pathValue('file'))
    .option('--db <url>', 'insert into this database instead')
    .option('--json', 'print the result as JSON on stdout')
    .showHelpAfterError("Run 'toolshed emails generate --help' for usage.")
    .action(async (options: EmailsGenerateOptions) => {
      context.setExitCode(await runEmailsGenerate(options, context));
    });
  return emails;
}

/** The `emails import` action; returns the exit code (1 when no email was stored or already present). */
export async function runEmailsImport(path: string, options: EmailsImportOptions, { io }: CliContext): Promise<0 | 1> {
  const format = options.format ?? guessFormat(path);
  const [{ checkEmailSource, importEmails }, { EmailSourceError }] = await Promise.all([
    import('../../emails/import-emails.js'),
    import('../../emails/email-source-error.js'),
  ]);
  const source = resolve(io.cwd, path);
  // Checked before the database is opened: a source that cannot be read as its format creates nothing.
  await checkEmailSource(source, format, oneLine(path)).catch((error: unknown) => {
    if (error instanceof EmailSourceError) {
      // A path without a known extension is read as a maildir: a file then needs its format named.
      const hint =
        options.format === undefined && error.code === 'NOT_A_FOLDER'
          ? '; pass --format mbox, csv, jsonl or parquet to import a file'
          : '';
      throw new CliError(`error: ${error.message.replace(/\.$/, '')}${hint}.`);
    }
    throw fileCliError(error, oneLine(path), 'read');
  });
  const progress = createProgress(io, 'messages');
  const report = await withEmailStore(options.db, io.env, async (emails) => {
    try {
      return await importEmails(source, {
        format,
        emails,
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
        ...(options.bulk === true ? { bulkLoad: true } : {}),
        onProgress: (item) =>
          progress.update(
            item.processed,
            item.totalBytes === undefined ? undefined : { done: item.bytesRead ?? 0, total: item.totalBytes },
            `${item.added} added, ${item.skipped} skipped`,
          ),
      });
    } catch (error) {
      throw fileCliError(error, oneLine(erroredPath(error, io.cwd) ?? path), 'read');
    } finally {
      progress.stop();
    }
  });
  if (options.json === true) {
    io.stdout.write(toJson(report));
  } else {
    for (const item of report.skipped.slice(0, 20))
      io.stderr.write(`skipped ${oneLine(item.source)}: ${oneLine(item.reason)}\n`);
    if (report.skippedCount > 20) io.stderr.write(`... and ${report.skippedCount - 20} more skipped\n`);
    io.stdout.write(
      `Imported ${report.added} emails (${report.duplicates} already present, ${report.skippedCount} skipped) from ${report.processed} messages.\n`,
    );
  }
  return report.added + report.duplicates === 0 ? 1 : 0;
}

/** The `emails generate` action; returns the exit code. */
export async function runEmailsGenerate(options: EmailsGenerateOptions, { io }: CliContext): Promise<0> {
  if ((options.out === undefined) === (options.db === undefined)) {
    throw new CliError('error: give exactly one of --out PATH or --db URL.', 2);
  }
  const generator = await import('../../emails/generate-emails.js');
  const settings = { count: options.count, inboxes: options.inboxes ?? 150, seed: options.seed ?? 1 };
  const progress = createProgress(io, 'emails');
  const onProgress = (done: number) => progress.update(done, { done, total: options.count });
  let written: number;
  try {
    written =
      options.out !== undefined
        ? await generator.writeGeneratedJsonl(resolve(io.cwd, options.out), settings, onProgress).catch((error) => {
            // A path that cannot be written (no such folder, a folder): one line, not "unexpected failure".
            throw fileCliError(error, oneLine(options.out ?? ''), 'write', '--out');
          })
        : await withEmailStore(options.db, io.env, (emails) =>
            generator.generateIntoStore(emails, settings, onProgress),
          );
  } finally {
    progress.stop();
  }
  const where = options.out !== undefined ? options.out : 'the database';
  if (options.json === true)
    io.stdout.write(toJson({ count: written, inboxes: settings.inboxes, seed: settings.seed }));
  else io.stdout.write(`Generated ${written} emails in ${settings.inboxes} inboxes into ${oneLine(where)}.\n`);
  return 0;
}

async function withEmailStore<T>(
  url: string | undefined,
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
  work: (emails: import('../../emails/email-store.js').EmailStore) => Promise<T>,
): Promise<T> {
  const { createStore } = await import('../../store/index.js');
  const { EmailStore } = await import('../../emails/email-store.js');
  try {
    const store = await createStore(url ?? environmentVariable(env, 'TOOLSHED_DATABASE_URL'), { notifications: false });
    try {
      await store.migrate();
      return await work(new EmailStore(store));
    } finally {
      await store.close();
    }
  } catch (error) {
    throw await storeCliError(
      error,
      url === undefined
        ? undefined
        : 'Pass --db a SQLite file path (in a folder that exists) or a postgres:// URL of a server that is running.',
    );
  }
}

interface Progress {
  update(count: number, fraction?: { done: number; total: number }, detail?: string): void;
  stop(): void;
}

/** A cli-progress bar on a TTY; otherwise a plain line at most every two seconds. */
function createProgress(io: CliContext['io'], unit: string): Progress {
  if (io.stderr.isTTY && process.stderr.isTTY) {
    let bar: import('cli-progress').SingleBar | undefined;
    const loading = import('cli-progress').then((module) => {
      bar = new module.SingleBar(
        {
          stream: process.stderr,
          format: `{bar} {percentage}% | {count} ${unit} | {detail}`,
          hideCursor: true,
          clearOnComplete: false,
        },
        module.Presets.shades_classic,
      );
      bar.start(100, 0, { count: 0, detail: '' });
    });
    return {
      update(count, fraction, detail = '') {
        void loading.then(() =>
          bar?.update(fraction === undefined ? 0 : Math.floor((fraction.done / Math.max(1, fraction.total)) * 100), {
            count,
            detail,
          }),
        );
      },
      stop() {
        void loading.then(() => bar?.stop());
      },
    };
  }
  let last = 0;
  return {
    update(count, fraction, detail = '') {
      const now = Date.now();
      if (now - last < 2000) return;
      last = now;
      const percent =
        fraction === undefined ? '' : ` (${Math.floor((fraction.done / Math.max(1, fraction.total)) * 100)}%)`;
      io.stderr.write(`${count} ${unit}${percent}${detail === '' ? '' : `, ${detail}`}\n`);
    },
    stop() {},
  };
}

function guessFormat(path: string): (typeof FORMATS)[number] {
  const lower = path.toLowerCase();
  for (const format of ['csv', 'jsonl', 'parquet', 'mbox'] as const) if (lower.endsWith(`.${format}`)) return format;
  if (lower.endsWith('.json') || lower.endsWith('.ndjson')) return 'jsonl';
  return 'maildir';
}

/** The most emails `emails generate` writes: about 7 GB of JSONL. */
const MAX_GENERATED_EMAILS = 10_000_000;

function emailCount(value: string): number {
  const count = positiveInt(value);
  if (count > MAX_GENERATED_EMAILS) {
    throw new InvalidArgumentError(`Use a whole number from 1 to ${MAX_GENERATED_EMAILS} (about 7 GB of JSONL).`);
  }
  return count;
}

function positiveInt(value: string): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= 1 && Number.isSafeInteger(number)))
    throw new InvalidArgumentError('Use a whole number of at least 1.');
  return number;
}
