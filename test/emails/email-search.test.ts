import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { createEmailTools } from '../../src/emails/email-tools.js';
import { ToolRegistry } from '../../src/index.js';
import { emailHarnesses } from './email-harness.js';

const ALICE = 'alice@enron.com';
const BOB = 'bob@enron.com';

function email(
  id: number,
  inbox: string,
  subject: string,
  body: string,
  date = '2001-05-15T10:30:00.000Z',
): EmailRecord {
  return {
    message_id: `<${id}.test@enron.com>`,
    inbox,
    subject,
    sender: 'jane.doe@enron.com',
    recipients: [inbox, 'team@enron.com'],
    date,
    body,
  };
}

const CORPUS: EmailRecord[] = [
  email(1, ALICE, 'Weekly meeting schedule', 'Please review the meeting times for next week. <b>bold</b> & more'),
  email(2, ALICE, 'Budget report', 'The quarterly budget report is attached. No meeting needed.'),
  email(3, ALICE, 'Lunch', 'Lunch on Friday?'),
  email(4, BOB, 'Meeting schedule', 'Bob also has a meeting schedule to share.'),
  ...Array.from({ length: 60 }, (_, index) =>
    email(100 + index, ALICE, `Pipeline update ${index}`, `Gas pipeline capacity note number ${index}.`),
  ),
];

const HOSTILE = [
  '"',
  '"unbalanced',
  'meeting*',
  '* meeting',
  'NEAR(meeting schedule)',
  'meeting NEAR/2 schedule',
  '-meeting',
  'meeting AND OR NOT',
  'AND',
  '((meeting',
  'meeting))',
  'subject:meeting',
  '{subject body}: meeting',
  "'; DROP TABLE emails; --",
  'meeting\u0000schedule',
  '^meeting',
  'meeting & | ! <-> schedule',
  'x'.repeat(10_000),
  'meeting '.repeat(1250),
];

for (const harness of emailHarnesses()) {
  describe(`email search on ${harness.dialect}`, () => {
    let emails: EmailStore;
    let registry: ToolRegistry;
    beforeAll(async () => {
      ({ emails } = await harness.setup());
      await emails.insertBatch(CORPUS);
      registry = new ToolRegistry();
      for (const tool of createEmailTools({ emails })) registry.register(tool);
    });
    afterAll(() => harness.teardown());

    it('is idempotent on re-insert', async () => {
      expect(await emails.insertBatch(CORPUS)).toBe(0);
      expect(await emails.insertBatch([CORPUS[0] as EmailRecord, CORPUS[0] as EmailRecord])).toBe(0);
      expect(await emails.count()).toBe(CORPUS.length);
    });

    it('finds, ranks and highlights within one inbox', async () => {
      const result = await emails.search('meeting schedule', ALICE, 10);
      expect(result.total).toBe(1);
      expect(result.emails.map((hit) => hit.message_id)).toEqual(['<1.test@enron.com>']);
      const [hit] = result.emails;
      expect(hit?.snippet).toContain('<mark>');
      expect(hit?.snippet).toMatch(/<mark>meeting<\/mark>/i);
      expect(hit?.snippet).not.toContain('<b>');
      expect(hit).toMatchObject({ subject: 'Weekly meeting schedule', sender: 'jane.doe@enron.com' });

      const single = await emails.search('meeting', ALICE, 10);
      expect(single.total).toBe(2);
      // The subject hit outranks the body-only hit.
      expect(single.emails[0]?.message_id).toBe('<1.test@enron.com>');
    });

    it('filters by inbox', async () => {
      const bob = await emails.search('meeting schedule', BOB, 10);
      expect(bob.emails.map((hit) => hit.message_id)).toEqual(['<4.test@enron.com>']);
      expect((await emails.search('meeting', 'nobody@enron.com', 10)).total).toBe(0);
      expect((await emails.search('pipeline', BOB, 10)).total).toBe(0);
    });

    it('requires inbox_id', async () => {
      const result = await registry.call('email_search', { query: 'meeting' });
      expect(result.status).toBe('error');
      if (result.status === 'error') expect(result.error.code).toBe('INVALID_ARGUMENTS');
      const empty = await registry.call('email_search', { query: 'meeting', inbox_id: '' });
      expect(empty.status === 'error' && empty.error.code).toBe('INVALID_ARGUMENTS');
    });

    it('ranks subject matches first and marks every query word in the snippet', async () => {
      const result = await emails.search('pipeline capacity', ALICE, 50);
      expect(result.total).toBe(60);
      const [first] = result.emails;
      expect(first?.snippet).toMatch(
        /^Subject: <mark>Pipeline<\/mark> update \d+ \| Body: Gas <mark>pipeline<\/mark> <mark>capacity<\/mark> note/,
      );
      const budget = await emails.search('budget', ALICE, 10);
      expect(budget.emails[0]?.snippet).toBe(
        'Subject: <mark>Budget</mark> report | Body: The quarterly <mark>budget</mark> report is attached. No meeting needed.',
      );
      const escaped = await emails.search('bold', ALICE, 10);
      expect(escaped.emails[0]?.snippet).toBe(
        'Body: Please review the meeting times for next week. &lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; more',
      );
    });

    it('applies limits (default 10, at most 50)', async () => {
      expect((await emails.search('pipeline', ALICE)).emails).toHaveLength(10);
      expect((await emails.search('pipeline', ALICE, 3)).emails).toHaveLength(3);
      const most = await emails.search('pipeline', ALICE, 500);
      expect(most.emails).toHaveLength(50);
      expect(most.total).toBe(60);
    });

    it('gets a whole email with recipients as an array', async () => {
      expect(await emails.get('<2.test@enron.com>')).toEqual(CORPUS[1]);
      expect(await emails.get('<missing@x>')).toBeUndefined();
    });

    it('answers hostile queries with results or a clear error, never a database error', async () => {
      for (const query of HOSTILE) {
        const result = await registry.call('email_search', { query, inbox_id: ALICE });
        if (result.status === 'success') {
          expect(result.data).toHaveProperty('emails');
        } else {
          expect(result.status, `${query.slice(0, 40)}: ${JSON.stringify(result)}`).toBe('error');
          if (result.status === 'error') expect(result.error.code).toBe('INVALID_ARGUMENTS');
        }
      }
      const sqlish = await registry.call('email_search', { query: "'; DROP TABLE emails; --", inbox_id: ALICE });
      expect(sqlish.status).toBe('success');
      expect(await emails.count()).toBe(CORPUS.length);
      const starred = await registry.call('email_search', { query: 'meeting*', inbox_id: ALICE });
      expect(starred.status === 'success' && (starred.data as { total: number }).total).toBe(2);
      const hostileInbox = await registry.call('email_search', { query: 'meeting', inbox_id: '" OR 1=1 --' });
      expect(hostileInbox.status === 'success' && (hostileInbox.data as { total: number }).total).toBe(0);
    });

    it('refuses a query with no searchable words', async () => {
      for (const query of ['"', '*** --- ()', '   ']) {
        const result = await registry.call('email_search', { query, inbox_id: ALICE });
        expect(result.status).toBe('error');
        if (result.status === 'error') {
          expect(result.error.code).toBe('INVALID_ARGUMENTS');
          expect(result.error.message).toMatch(/no words/);
        }
      }
    });

    it('validates limit through the tool schema', async () => {
      const over = await registry.call('email_search', { query: 'pipeline', inbox_id: ALICE, limit: 51 });
      expect(over.status === 'error' && over.error.code).toBe('INVALID_ARGUMENTS');
      const ok = await registry.call('email_search', { query: 'pipeline', inbox_id: ALICE, limit: 50 });
      expect(ok.status === 'success' && (ok.data as { emails: unknown[] }).emails).toHaveLength(50);
    });

    it('email_get returns the email or a not-found error with a hint', async () => {
      const found = await registry.call('email_get', { message_id: '<1.test@enron.com>' });
      expect(found.status === 'success' && found.data).toEqual(CORPUS[0]);
      const missing = await registry.call('email_get', { message_id: '<nope@x>' });
      expect(missing.status).toBe('error');
      if (missing.status === 'error') {
        expect(missing.error.message).toContain('No email');
        expect(missing.error.hint).toBeDefined();
      }
    });
  });
}
