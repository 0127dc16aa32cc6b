import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type CliRun, lines, ROOT, runCli } from './run-cli.js';

beforeAll(assertBuilt);

/**
 * A folder of this file's own: `file` is a regular file, so `file/inner` fails for root too (there is
 * no folder to write into); `folder` is a folder where a file is expected.
 */
const cwd = mkdtempSync(join(tmpdir(), 'toolshed-cli-file-errors-'));
writeFileSync(join(cwd, 'file'), 'not a folder\n');
mkdirSync(join(cwd, 'folder'));
writeFileSync(
  join(cwd, 'tools.ts'),
  '/**\n * Add two numbers.\n * @tool\n * @param a The first\n * @param b The second\n */\nexport function addNumbers(a: number, b: number): number {\n  return a + b;\n}\n',
);
const EMAILS = join(ROOT, 'test', 'emails', '__fixtures__');
cpSync(join(EMAILS, 'emails.jsonl'), join(cwd, 'emails.jsonl'));
cpSync(join(EMAILS, 'emails.csv'), join(cwd, 'emails.csv'));
// The same rows under names that say nothing of their format.
cpSync(join(EMAILS, 'emails.jsonl'), join(cwd, 'export.txt'));
// Sources with nothing to import.
writeFileSync(join(cwd, 'empty.jsonl'), '');
writeFileSync(join(cwd, 'blank.mbox'), '\n\n');
writeFileSync(join(cwd, 'header.csv'), 'message_id,subject,from,to,date,body\n');
mkdirSync(join(cwd, 'maildir', 'arnold-j', 'inbox'), { recursive: true });
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const DATABASE = join(cwd, 'emails.db');

function expectRun(run: CliRun, exitCode: number, stdout: string[], stderr: string[]): void {
  expect({ exitCode: run.exitCode, stdout: lines(run.stdout), stderr: lines(run.stderr) }).toEqual({
    exitCode,
    stdout,
    stderr,
  });
}

const cli = (...args: string[]) => runCli(args, { cwd, env: { TOOLSHED_DATABASE_URL: DATABASE } });

describe('a path that cannot be read or written is one line naming it, exit 1', () => {
  it('list --config naming a folder', async () => {
    expectRun(
      await cli('list', '--config', 'folder'),
      1,
      [],
      ['folder:1:1: error: the configuration is a folder, not a file; name the toolshed.yaml file itself'],
    );
  });

  it('extract --out under a file, writing nothing', async () => {
    expectRun(
      await cli('extract', 'tools.ts', '--out', 'file/inner'),
      1,
      [],
      ["error: 'file/inner' cannot be written: a part of its path is a file, not a folder."],
    );
  });

  it('extract --out where a definition file is a folder', async () => {
    mkdirSync(join(cwd, 'out', 'add_numbers.yaml'), { recursive: true });
    expectRun(
      await cli('extract', 'tools.ts', '--out', 'out'),
      1,
      [],
      ["error: 'out/add_numbers.yaml' is a folder, not a file."],
    );
  });

  it('emails generate --out under a file or naming a folder', async () => {
    expectRun(
      await cli('emails', 'generate', '--count', '5', '--out', 'file/inner'),
      1,
      [],
      ["error: --out 'file/inner' cannot be written: a part of its path is a file, not a folder."],
    );
    expectRun(
      await cli('emails', 'generate', '--count', '5', '--out', 'folder'),
      1,
      [],
      ["error: --out 'folder' is a folder, not a file."],
    );
  });
});

describe('emails import refuses a source it cannot read as its format or with nothing in it, creating no database', () => {
  it.each([
    [
      ['file'],
      "error: 'file' is a file, not a maildir folder; pass --format mbox, csv, jsonl or parquet to import a file.",
    ],
    [['folder', '--format', 'mbox'], "error: 'folder' is a folder, not an mbox file."],
    [['folder/x.csv'], "error: 'folder/x.csv' does not exist."],
    [
      ['file/inner', '--format', 'csv'],
      "error: 'file/inner' cannot be read: a part of its path is a file, not a folder.",
    ],
    [
      ['emails.jsonl', '--format', 'csv'],
      "error: 'emails.jsonl' is not a CSV export of emails: its first row must name the columns, with date and one of to, cc, bcc, recipients, inbox or file_name (as in message_id,subject,from,to,cc,bcc,date,body,file_name).",
    ],
    [
      ['export.txt', '--format', 'csv'],
      "error: 'export.txt' is not a CSV export of emails: its first row must name the columns, with date and one of to, cc, bcc, recipients, inbox or file_name (as in message_id,subject,from,to,cc,bcc,date,body,file_name).",
    ],
    [
      ['emails.csv', '--format', 'jsonl'],
      "error: 'emails.csv' is not a JSONL export of emails: its first line must be a JSON object, one email a line.",
    ],
    [['emails.csv', '--format', 'mbox'], "error: 'emails.csv' is not an mbox: its first line must start with 'From '."],
    [['emails.csv', '--format', 'parquet'], "error: 'emails.csv' is not a Parquet file: it does not start with PAR1."],
    [['empty.jsonl'], "error: 'empty.jsonl' is empty: it holds no emails to import."],
    [['blank.mbox'], "error: 'blank.mbox' is empty: it holds no emails to import."],
    [['header.csv'], "error: 'header.csv' has a header row and no email after it."],
    [
      ['maildir/'],
      "error: 'maildir/' holds no emails: a maildir has a folder for each inbox with the messages under it (maildir/<inbox>/<folder>/<message>).",
    ],
    [
      ['folder'],
      "error: 'folder' holds no emails: a maildir has a folder for each inbox with the messages under it (folder/<inbox>/<folder>/<message>).",
    ],
  ])('%j', async (args, message) => {
    expectRun(await cli('emails', 'import', ...args), 1, [], [message]);
    expect(readdirSync(cwd).filter((name) => name.startsWith('emails.db'))).toEqual([]);
  });

  it('still imports the same rows with the format they are in', async () => {
    const run = await cli('emails', 'import', 'export.txt', '--format', 'jsonl');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^Imported [1-9]\d* emails/);
  });
});
