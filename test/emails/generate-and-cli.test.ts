import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { generateEmails, generateIntoStore } from '../../src/emails/generate-emails.js';
import { emailHarnesses } from './email-harness.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

function memoryIo(cwd: string): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const stream = (append: (text: string) => void) => ({
    write: append,
    flush: async () => undefined,
    isTTY: false,
    columns: undefined,
  });
  return {
    stdout: stream((text) => {
      out += text;
    }),
    stderr: stream((text) => {
      err += text;
    }),
    stdin: (async function* () {})(),
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}

describe('generateEmails', () => {
  it('is deterministic from the seed and realistic in shape', () => {
    const first = [...generateEmails({ count: 2000, inboxes: 120, seed: 42 })];
    const again = [...generateEmails({ count: 2000, inboxes: 120, seed: 42 })];
    const other = [...generateEmails({ count: 50, inboxes: 120, seed: 43 })];
    expect(again).toEqual(first);
    expect(other[0]).not.toEqual(first[0]);
    expect(new Set(first.map((email) => email.message_id)).size).toBe(2000);
    expect(new Set(first.map((email) => email.inbox)).size).toBeGreaterThanOrEqual(100);
    const replies = first.filter((email) => email.subject.startsWith('Re: '));
    expect(replies.length).toBeGreaterThan(200);
    expect(replies.some((email) => email.body.includes('-----Original Message-----\n'))).toBe(true);
    expect(replies.some((email) => /\n> /.test(email.body))).toBe(true);
    expect(first.some((email) => email.subject.startsWith('Fwd: ') && email.body.includes('Forwarded by'))).toBe(true);
    const years = new Set(first.map((email) => email.date.slice(0, 4)));
    expect(years.size).toBeGreaterThanOrEqual(3);
    // Zipf: the most frequent word is far more frequent than the 100th.
    const counts = new Map<string, number>();
    for (const email of first)
      for (const word of email.body.split(/\W+/)) counts.set(word, (counts.get(word) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect((sorted[0] ?? 0) / (sorted[100] ?? 1)).toBeGreaterThan(20);
  });
});

for (const harness of emailHarnesses()) {
  describe(`generate and CLI on ${harness.dialect}`, () => {
    let emails: EmailStore;
    let scratch: string;
    beforeAll(async () => {
      ({ emails } = await harness.setup());
      scratch = mkdtempSync(join(tmpdir(), 'toolshed-emails-cli-'));
    });
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await harness.teardown();
    });

    it('generates into the store, searchable, idempotently', async () => {
      expect(await generateIntoStore(emails, { count: 600, inboxes: 110, seed: 5, batchSize: 250 })).toBe(600);
      expect(await generateIntoStore(emails, { count: 600, inboxes: 110, seed: 5 })).toBe(0);
      const [sample] = [...generateEmails({ count: 1, inboxes: 110, seed: 5 })];
      const word = sample?.body.split(/\W+/).find((item) => item.length > 6) ?? 'meeting';
      const hits = await emails.search(word, sample?.inbox ?? '', 50);
      expect(hits.emails.map((hit) => hit.message_id)).toContain(sample?.message_id);
      expect(hits.emails.every((hit) => hit.snippet.includes('<mark>'))).toBe(true);
    });

    it('toolshed emails import and generate', async () => {
      const io = memoryIo(scratch);
      const url = harness.url();
      expect(await runCli(['emails', 'import', join(FIXTURES, 'emails.jsonl'), '--db', url, '--json'], io)).toBe(0);
      expect(JSON.parse(io.out())).toMatchObject({ added: 2, skippedCount: 3 });
      const again = memoryIo(scratch);
      expect(await runCli(['emails', 'import', join(FIXTURES, 'maildir'), '--db', url], again)).toBe(0);
      expect(again.out()).toMatch(/^Imported 4 emails \(0 already present, 3 skipped\)/);
      expect(again.err()).toContain('skipped lay-k');
      expect(await emails.get('<100.arnold@enron.com>')).toBeDefined();

      const generated = memoryIo(scratch);
      expect(
        await runCli(['emails', 'generate', '--count', '120', '--inboxes', '101', '--out', 'gen.jsonl'], generated),
      ).toBe(0);
      const lines = readFileSync(join(scratch, 'gen.jsonl'), 'utf8').trim().split('\n');
      expect(lines).toHaveLength(120);
      const imported = memoryIo(scratch);
      expect(await runCli(['emails', 'import', 'gen.jsonl', '--db', url, '--json'], imported)).toBe(0);
      expect(JSON.parse(imported.out())).toMatchObject({ processed: 120, skippedCount: 0 });

      const usage = memoryIo(scratch);
      expect(await runCli(['emails', 'generate', '--count', '5'], usage)).toBe(2);
      expect(usage.err()).toContain('exactly one of --out');
      const missing = memoryIo(scratch);
      expect(await runCli(['emails', 'import', 'nope.csv', '--db', url], missing)).toBe(1);
      expect(missing.err()).toBe("error: 'nope.csv' does not exist.\n");
      // An --out that cannot be written is one line naming it, not an "unexpected failure".
      for (const [out, reason] of [
        [join('no-such-folder', 'x.jsonl'), 'cannot be written: its folder does not exist'],
        ['.', 'is a folder, not a file'],
      ]) {
        const unwritable = memoryIo(scratch);
        expect(await runCli(['emails', 'generate', '--count', '5', '--out', out as string], unwritable)).toBe(1);
        expect(unwritable.err()).toBe(`error: --out '${out}' ${reason}.\n`);
      }
    });
  });
}

describe('emails verbs with a database they cannot open (exit 1, nothing written)', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'toolshed-emails-db-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const DB_HINT =
    'Pass --db a SQLite file path (in a folder that exists) or a postgres:// URL of a server that is running.';

  it('names a --db SQLite file in a folder that does not exist', async () => {
    const missing = join(scratch, 'missing', 'mail.db');
    const io = memoryIo(scratch);
    expect(await runCli(['emails', 'import', join(FIXTURES, 'emails.jsonl'), '--db', missing], io)).toBe(1);
    expect(io.err()).toBe(
      `error: Cannot open the SQLite database '${missing}': Cannot open database because the directory does not exist. ${DB_HINT}\n`,
    );
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses a --db URL of a scheme no store takes, without its password, creating no file of that name', async () => {
    const io = memoryIo(scratch);
    expect(await runCli(['emails', 'generate', '--count', '5', '--db', 'mysql://root:hunter2@db/mail'], io)).toBe(1);
    expect(io.err()).toBe(
      `error: Cannot open 'mysql://root:***@db/mail' as a database: toolshed takes a SQLite file path (or sqlite:PATH) or a PostgreSQL URL (postgres://USER@HOST/DATABASE), and 'mysql:' is neither. ${DB_HINT}\n`,
    );
    expect(io.out()).toBe('');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('says to set TOOLSHED_DATABASE_URL when that named the database', async () => {
    const io = { ...memoryIo(scratch), env: { TOOLSHED_DATABASE_URL: 'https://example.invalid/mail' } };
    expect(await runCli(['emails', 'import', join(FIXTURES, 'emails.jsonl')], io)).toBe(1);
    expect(io.err()).toBe(
      "error: Cannot open 'https://example.invalid/mail' as a database: toolshed takes a SQLite file path (or sqlite:PATH) or a PostgreSQL URL (postgres://USER@HOST/DATABASE), and 'https:' is neither. Set TOOLSHED_DATABASE_URL to a SQLite file path or a postgres:// URL of a server that is running.\n",
    );
    expect(readdirSync(scratch)).toEqual([]);
  });
});
