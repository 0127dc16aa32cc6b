import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailSourceError } from '../../src/emails/email-source-error.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { type EmailImportFormat, type EmailImportProgress, importEmails } from '../../src/emails/import-emails.js';
import { emailHarnesses } from './email-harness.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

describe('importEmails of a source with nothing in it', () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-import-empty-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  // Any use of the store fails the test: an empty source is refused before anything is stored.
  const untouched = new Proxy({} as EmailStore, {
    get: (_target, key) => {
      throw new Error(`the store was used (${String(key)})`);
    },
  });

  // PATH stands for the source's path in the message.
  it.each<[string, EmailImportFormat, (path: string) => void, string]>([
    ['empty.jsonl', 'jsonl', (path) => writeFileSync(path, ''), "'PATH' is empty: it holds no emails to import."],
    [
      'blank.mbox',
      'mbox',
      (path) => writeFileSync(path, '\n  \r\n\t\n'),
      "'PATH' is empty: it holds no emails to import.",
    ],
    ['empty.parquet', 'parquet', (path) => writeFileSync(path, ''), "'PATH' is empty: it holds no emails to import."],
    [
      'header.csv',
      'csv',
      (path) => writeFileSync(path, '\uFEFFmessage_id,subject,from,to,date,body\r\n\r\n'),
      "'PATH' has a header row and no email after it.",
    ],
    [
      'maildir',
      'maildir',
      (path) => {
        // Inbox folders without a message, and a file beside them that is not in an inbox folder.
        mkdirSync(join(path, 'arnold-j', 'inbox'), { recursive: true });
        mkdirSync(join(path, 'lay-k'));
        writeFileSync(join(path, 'README'), 'not a message\n');
      },
      "'PATH' holds no emails: a maildir has a folder for each inbox with the messages under it (PATH/<inbox>/<folder>/<message>).",
    ],
  ])('%s as %s', async (name, format, make, message) => {
    const path = join(folder, name);
    make(path);
    const refused = await importEmails(path, { format, emails: untouched }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EmailSourceError);
    // The message names the path importEmails was given.
    expect(refused).toMatchObject({ code: 'EMPTY', message: message.replaceAll('PATH', path) });
  });
});

for (const harness of emailHarnesses()) {
  describe(`importEmails on ${harness.dialect}`, () => {
    let emails: EmailStore;
    let scratch: string;
    beforeAll(async () => {
      ({ emails } = await harness.setup());
      scratch = mkdtempSync(join(tmpdir(), 'toolshed-import-'));
    });
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await harness.teardown();
    });

    it('imports a maildir in the Enron layout, skipping malformed messages, idempotently', async () => {
      const progress: EmailImportProgress[] = [];
      const report = await importEmails(join(FIXTURES, 'maildir'), {
        format: 'maildir',
        emails,
        batchSize: 2,
        onProgress: (item) => progress.push(item),
      });
      expect(report).toMatchObject({ processed: 7, added: 4, duplicates: 0, skippedCount: 3 });
      expect(report.skipped.map((item) => item.reason).join('\n')).toMatch(/bad headers/);
      expect(report.skipped.filter((item) => /date/.test(item.reason))).toHaveLength(2);
      expect(progress.length).toBeGreaterThan(1);
      expect(progress.at(-1)).toMatchObject({ processed: 7, added: 4, skipped: 3 });

      const first = await emails.get('<100.arnold@enron.com>');
      expect(first).toEqual({
        message_id: '<100.arnold@enron.com>',
        inbox: 'arnold-j',
        subject: 'Weekly meeting schedule',
        sender: 'jane.doe@enron.com',
        recipients: ['john.arnold@enron.com', 'team@enron.com'],
        date: '2001-05-14T23:39:00.000Z',
        body: 'Please review the meeting schedule for next week.\n',
      });
      // quoted-printable latin1 decoded; an unknown charset still imports.
      expect((await emails.get('<102.arnold@enron.com>'))?.body).toContain('résumé');
      expect((await emails.get('<200.lay@enron.com>'))?.inbox).toBe('lay-k');
      const hits = await emails.search('meeting', 'arnold-j', 10);
      expect(hits.total).toBe(3);

      const again = await importEmails(join(FIXTURES, 'maildir'), { format: 'maildir', emails });
      expect(again).toMatchObject({ processed: 7, added: 0, duplicates: 4, skippedCount: 3 });
    });

    it('imports an mbox with encoded headers, >From escapes and derived ids', async () => {
      const report = await importEmails(join(FIXTURES, 'mailbox.mbox'), { format: 'mbox', emails });
      expect(report).toMatchObject({ processed: 4, added: 3, skippedCount: 1 });
      const pipeline = await emails.get('<300.mbox@enron.com>');
      expect(pipeline).toMatchObject({ inbox: 'john.arnold@enron.com', sender: 'jane.doe@enron.com' });
      expect(pipeline?.body).toContain('\nFrom the desk');
      const budget = await emails.get('<301.mbox@enron.com>');
      expect(budget).toMatchObject({
        subject: 'Budget report – Q2',
        recipients: ['sally.beck@enron.com', 'john.arnold@enron.com'],
        inbox: 'sally.beck@enron.com',
        body: 'The quarterly budget report is attached.',
      });
      const derived = await emails.search('derived', 'sally.beck@enron.com', 10);
      expect(derived.emails[0]?.message_id).toMatch(/@derived\.toolshed>$/);
      expect(await importEmails(join(FIXTURES, 'mailbox.mbox'), { format: 'mbox', emails })).toMatchObject({
        added: 0,
        duplicates: 3,
      });
    });

    it('imports CSV of the enron-emails shape', async () => {
      const report = await importEmails(join(FIXTURES, 'emails.csv'), { format: 'csv', emails });
      expect(report).toMatchObject({ processed: 4, added: 3, skippedCount: 1 });
      expect(await emails.get('<400.csv@enron.com>')).toMatchObject({
        inbox: 'kitchen-l',
        recipients: ['louise.kitchen@enron.com', 'greg.whalley@enron.com'],
        body: 'Trading limits for the "west" desk,\nover two lines.',
        date: '2001-05-14T23:39:00.000Z',
      });
      expect(await emails.get('<401.csv@enron.com>')).toMatchObject({
        recipients: ['greg.whalley@enron.com', 'kate.symes@enron.com'],
      });
      expect((await emails.get('<403.csv@enron.com>'))?.inbox).toBe('kate.symes@enron.com');
      expect((await importEmails(join(FIXTURES, 'emails.csv'), { format: 'csv', emails })).added).toBe(0);
    });

    it('imports JSONL in both shapes, reporting bad lines', async () => {
      const report = await importEmails(join(FIXTURES, 'emails.jsonl'), { format: 'jsonl', emails });
      expect(report).toMatchObject({ processed: 5, added: 2, skippedCount: 3 });
      expect(report.skipped.map((item) => item.reason)).toEqual([
        'not valid JSON',
        'missing or unparseable date',
        'not a JSON object',
      ]);
      expect(await emails.get('<500.jsonl@enron.com>')).toMatchObject({
        inbox: 'dasovich-j',
        sender: 'jeff.dasovich@enron.com',
        recipients: ['steven.kean@enron.com'],
        date: '2001-05-18T18:00:00.000Z',
      });
      expect((await emails.get('<501.jsonl@enron.com>'))?.body).toBe('Thanks éè — noted.  nul removed.');
      const hits = await emails.search('power', 'dasovich-j', 5);
      expect(hits.emails[0]?.snippet).toContain('<mark>');
      expect((await importEmails(join(FIXTURES, 'emails.jsonl'), { format: 'jsonl', emails })).added).toBe(0);
    });

    it('skips JSONL lines over the input limits with the limit named, and imports the lines around them', async () => {
      const path = join(scratch, 'hostile.jsonl');
      const row = (id: number) =>
        JSON.stringify({
          message_id: `<${id}.hostile@x>`,
          date: '2001-05-14T16:39:00Z',
          from: 'a@b.com',
          to: 'c@d.com',
          subject: 's',
          body: 'b',
        });
      writeFileSync(
        path,
        [
          row(1),
          `{"message_id": "<2.hostile@x>", "body": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
          '{"message_id": "<3.hostile@x>", "__proto__": {"polluted": true}}',
          '{"message_id": "<4.hostile@x>", "message_id": "<5.hostile@x>"}',
          row(6),
        ].join('\n'),
      );
      const report = await importEmails(path, { format: 'jsonl', emails });
      expect(report).toMatchObject({ processed: 5, added: 2, skippedCount: 3 });
      expect(report.skipped.map((item) => [item.source, item.reason])).toEqual([
        [
          'hostile.jsonl:2',
          "the line is nested more than 256 levels deep at 'body[0][0][0][0][0][0][0]…' (limit: depth 256)",
        ],
        [
          'hostile.jsonl:3',
          "the line has the key '__proto__', which is refused: it could change the prototype of an object it is copied into",
        ],
        ['hostile.jsonl:4', "the line has the key 'message_id' twice; send each key once"],
      ]);
    });

    it('skips a huge body without losing the messages around it', async () => {
      const path = join(scratch, 'huge.mbox');
      const message = (id: number, body: string) =>
        `From a@b Mon May 14 16:39:00 2001\nMessage-ID: <${id}.huge@x>\nDate: Mon, 14 May 2001 16:39:00 +0000\nFrom: a@b.com\nTo: huge@x.com\nSubject: s${id}\n\n${body}\n`;
      writeFileSync(path, [message(1, 'before'), message(2, 'y'.repeat(30_000)), message(3, 'after')].join('\n'));
      const report = await importEmails(path, { format: 'mbox', emails, maxBodyChars: 20_000 });
      expect(report).toMatchObject({ processed: 3, added: 2, skippedCount: 1 });
      expect(report.skipped[0]?.reason).toMatch(/exceeds/);
      const tiny = await importEmails(path, { format: 'mbox', emails, maxMessageBytes: 1000 });
      expect(tiny.skipped[0]?.reason).toMatch(/bytes exceeds/);
    });

    it('stores text that array and row syntax give meaning to exactly as it was given', async () => {
      const tricky = [
        'NULL',
        '{a,b}',
        '"quoted", \\back\\slash',
        'tab\there\nnew line\r',
        "it's (x) ; --",
        'é ✓ 🚀',
        '',
      ];
      const records = tricky.map((text, index) => ({
        message_id: `<${index}.tricky@x>`,
        inbox: 'tricky@x.com',
        subject: text,
        sender: text,
        recipients: [text, 'b@x.com'],
        date: '2001-05-14T16:39:00.000Z',
        body: text,
      }));
      expect(await emails.insertBatch(records)).toBe(tricky.length);
      for (const record of records) expect(await emails.get(record.message_id)).toEqual(record);
    });

    it('stores nothing of a batch the database refuses a row of', async () => {
      const good = (id: number) => ({
        message_id: `<${id}.refused@x>`,
        inbox: 'refused@x.com',
        subject: `s${id}`,
        sender: 'a@x.com',
        recipients: [],
        date: '2001-05-14T16:39:00.000Z',
        body: 'fine',
      });
      // Neither database stores a second email under a message id, and neither stores a null subject.
      const bad = { ...good(2), subject: null as unknown as string };
      await expect(emails.insertBatch([good(1), bad, good(3)])).rejects.toThrow();
      expect(await emails.count('refused@x.com')).toBe(0);
      expect(await emails.insertBatch([good(1), good(3)])).toBe(2);
    });
  });
}

describe('EmailStore on SQLite', () => {
  it('refuses a store that has no SQLite driver to give, before writing anything', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { Kysely, SqliteDialect } = await import('kysely');
    const { EmailStore: Store } = await import('../../src/emails/email-store.js');
    const database = new Database(':memory:');
    const db = new Kysely({ dialect: new SqliteDialect({ database }) });
    try {
      const emails = new Store({ db: db as never, dialect: 'sqlite', sqliteDriver: () => undefined });
      await expect(
        emails.insertBatch([
          {
            message_id: '<1@x>',
            inbox: 'a@x',
            subject: 's',
            sender: 'b@x',
            recipients: ['a@x'],
            date: '2001-01-01T00:00:00.000Z',
            body: 'b',
          },
        ]),
      ).rejects.toThrow('EmailStore on SQLite needs a toolshed store with its SQLite driver.');
    } finally {
      await db.destroy();
    }
  });
});
