import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailStore } from '../../src/emails/email-store.js';
import { importEmails } from '../../src/emails/import-emails.js';
import { emailHarnesses } from './email-harness.js';

/** One row of the public enron-emails Parquet files; `null` is a missing value. */
interface EnronRow {
  message_id: string | null;
  subject: string | null;
  from: string | null;
  to: string | null;
  cc: string | null;
  bcc: string | null;
  date: string | null;
  body: string | null;
  file_name: string | null;
}

const MAX_BODY = 5000;

function row(overrides: Partial<EnronRow>): EnronRow {
  return {
    message_id: '<600.parquet@enron.com>',
    subject: 'Gas forecast',
    from: 'Jeff Dasovich <jeff.dasovich@enron.com>',
    to: 'steven.kean@enron.com, Richard Shapiro <richard.shapiro@enron.com>',
    cc: 'james.steffes@enron.com',
    bcc: null,
    date: 'Mon, 14 May 2001 16:39:00 -0700 (PDT)',
    body: 'The gas forecast for May is attached.',
    file_name: 'dasovich-j/sent/12.',
    ...overrides,
  };
}

const ROWS: EnronRow[] = [
  row({}),
  row({ message_id: '<601.parquet@enron.com>', date: null }),
  row({ message_id: '<602.parquet@enron.com>', date: 'sometime in May' }),
  row({ message_id: '', subject: 'No id', body: 'A message without a Message-ID.', file_name: 'kean-s/inbox/3.' }),
  row({ message_id: '<604.parquet@enron.com>', body: 'y'.repeat(MAX_BODY + 1) }),
  row({
    message_id: '<605.parquet@enron.com>',
    subject: 'Résumé – naïve café 😀',
    body: 'Ünïcödé body: 会議 at 10, مرحبا, Ã© left as is,\u0000 NUL removed.',
    date: '989883540000',
  }),
  row({ message_id: '<606.parquet@enron.com>', to: null, cc: null, file_name: null }),
  row({
    message_id: '<607.parquet@enron.com>',
    subject: null,
    body: null,
    from: null,
    to: 'x@enron.com',
    file_name: '',
  }),
];

function writeParquet(path: string, rows: readonly EnronRow[]): void {
  const columns = ['message_id', 'subject', 'from', 'to', 'cc', 'bcc', 'date', 'body', 'file_name'] as const;
  const buffer = parquetWriteBuffer({
    columnData: columns.map((name) => ({ name, data: rows.map((item) => item[name]), type: 'STRING' as const })),
    // Several row groups, so the reader's group-by-group loop is exercised.
    rowGroupSize: 3,
  });
  writeFileSync(path, Buffer.from(buffer));
}

for (const harness of emailHarnesses()) {
  describe(`Parquet import on ${harness.dialect}`, () => {
    let emails: EmailStore;
    let scratch: string;
    let path: string;
    beforeAll(async () => {
      ({ emails } = await harness.setup());
      scratch = mkdtempSync(join(tmpdir(), 'toolshed-parquet-'));
      path = join(scratch, 'emails.parquet');
      writeParquet(path, ROWS);
    });
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await harness.teardown();
    });

    it('imports enron-emails rows and reports each malformed one', async () => {
      const report = await importEmails(path, { format: 'parquet', emails, maxBodyChars: MAX_BODY, batchSize: 2 });
      expect(report.skipped).toEqual([
        { source: 'emails.parquet#2', reason: 'missing or unparseable date' },
        { source: 'emails.parquet#3', reason: 'missing or unparseable date' },
        { source: 'emails.parquet#5', reason: `body of ${MAX_BODY + 1} characters exceeds ${MAX_BODY}` },
        { source: 'emails.parquet#7', reason: 'no inbox: no maildir user and no recipient' },
      ]);
      expect(report).toMatchObject({ processed: 8, added: 4, duplicates: 0, skippedCount: 4 });

      expect(await emails.get('<600.parquet@enron.com>')).toEqual({
        message_id: '<600.parquet@enron.com>',
        inbox: 'dasovich-j',
        subject: 'Gas forecast',
        sender: 'jeff.dasovich@enron.com',
        recipients: ['steven.kean@enron.com', 'richard.shapiro@enron.com', 'james.steffes@enron.com'],
        date: '2001-05-14T23:39:00.000Z',
        body: 'The gas forecast for May is attached.',
      });
      expect(await emails.get('<605.parquet@enron.com>')).toMatchObject({
        subject: 'Résumé – naïve café 😀',
        body: 'Ünïcödé body: 会議 at 10, مرحبا, Ã© left as is, NUL removed.',
        date: '2001-05-14T23:39:00.000Z',
      });
      expect(await emails.get('<607.parquet@enron.com>')).toMatchObject({
        inbox: 'x@enron.com',
        subject: '',
        sender: '',
        body: '',
      });
      const derived = await emails.search('without', 'kean-s', 10);
      expect(derived.emails.map((hit) => hit.message_id)).toEqual([
        expect.stringMatching(/^<[0-9a-f]{40}@derived\.toolshed>$/),
      ]);

      const forecast = await emails.search('forecast', 'dasovich-j', 10);
      expect(forecast.total).toBe(1);
      expect(forecast.emails[0]?.snippet).toContain('<mark>');
      expect((await emails.search('café', 'dasovich-j', 10)).emails.map((hit) => hit.message_id)).toEqual([
        '<605.parquet@enron.com>',
      ]);
    });

    it('adds nothing when the same file is imported again', async () => {
      const again = await importEmails(path, { format: 'parquet', emails, maxBodyChars: MAX_BODY });
      expect(again).toMatchObject({ processed: 8, added: 0, duplicates: 4, skippedCount: 4 });
      expect(await emails.count()).toBe(4);
    });
  });
}
