import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { createEmailTools } from '../../src/emails/email-tools.js';
import { UnknownInboxError } from '../../src/emails/unknown-inbox-error.js';
import { ToolRegistry } from '../../src/index.js';
import { emailHarnesses } from './email-harness.js';

const ALICE = 'alice@enron.com';
const BOB = 'bob@enron.com';
const CAROL = 'carol@enron.com';

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
  // Stored before Bob's, so listing ties by name is not the order they came in.
  email(5, CAROL, 'Parking', 'New parking rules from Monday.'),
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
      // A stored message under another inbox adds nothing, and no inbox: email_inboxes lists none empty.
      expect(await emails.insertBatch([{ ...(CORPUS[1] as EmailRecord), inbox: 'copy@enron.com' }])).toBe(0);
      expect(await emails.hasInbox('copy@enron.com')).toBe(false);
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
      // An inbox that exists but has no match is an empty result, not an error.
      expect(await emails.search('pipeline', BOB, 10)).toEqual({
        emails: [],
        total: 0,
        total_is_lower_bound: false,
        unmatched_words: ['pipeline'],
      });
      await expect(emails.search('meeting', 'zed@other.org', 10)).rejects.toThrow(UnknownInboxError);
    });

    it('says, when nothing matched, which words no email of the inbox holds, or to use fewer', async () => {
      // 'pipeline' and 'lunch' are each in Alice's emails, never together; 'friday' too; 'zeppelin' nowhere.
      expect(await emails.search('pipeline lunch zeppelin', ALICE, 10)).toEqual({
        emails: [],
        total: 0,
        total_is_lower_bound: false,
        unmatched_words: ['zeppelin'],
      });
      const apart = await registry.call('email_search', { query: 'pipeline lunch friday', inbox_id: ALICE });
      expect(apart).toMatchObject({
        status: 'success',
        data: {
          emails: [],
          total: 0,
          unmatched_words: [],
          hint: 'Each word is in some email of this inbox, but no email has them all: search with fewer words.',
        },
      });
      // Gmail-style operators are words like any other: the model is told which matched nothing. On
      // PostgreSQL 'from' is a stop word, left out of every query, so it is never the reason.
      const operators = await registry.call('email_search', { query: 'from:jane subject:budget', inbox_id: ALICE });
      const unmatched = harness.dialect === 'postgres' ? ['jane', 'subject'] : ['from', 'jane', 'subject'];
      expect(operators).toMatchObject({
        status: 'success',
        data: {
          emails: [],
          total: 0,
          unmatched_words: unmatched,
          hint: `No email of this inbox has the words ${unmatched.map((word) => `'${word}'`).join(', ')}: search again without them, or with other words. Every word must be in the subject or the body; there are no operators such as from: or subject:.`,
        },
      });
      if (harness.dialect === 'postgres') {
        // Stop words alone match nothing there, which is no lack of emails: the hint says so.
        const common = await registry.call('email_search', { query: 'the of and', inbox_id: BOB });
        expect(common).toMatchObject({
          status: 'success',
          data: {
            emails: [],
            unmatched_words: [],
            ignored_words: ['the', 'of', 'and'],
            hint: "'the', 'of', 'and' are too common to be searched: use distinctive words, for example \"budget report\".",
          },
        });
        const some = await emails.search('the zeppelin', BOB, 10);
        expect(some).toMatchObject({ unmatched_words: ['zeppelin'], ignored_words: ['the'] });
      } else {
        expect(await emails.search('the zeppelin', BOB, 10)).not.toHaveProperty('ignored_words');
      }
      const one = await registry.call('email_search', { query: 'zeppelin', inbox_id: BOB });
      expect(one).toMatchObject({
        data: {
          unmatched_words: ['zeppelin'],
          hint: "No email of this inbox has the word 'zeppelin': search again without it, or with other words.",
        },
      });
      // A search that finds emails says nothing more.
      expect(await emails.search('budget report', ALICE, 10)).not.toHaveProperty('unmatched_words');
    });

    it('answers an unknown inbox with the largest inboxes, and a close name as a suggestion', async () => {
      const far = await registry.call('email_search', { query: 'meeting', inbox_id: 'zed@other.org' });
      expect(far).toMatchObject({
        status: 'error',
        error: {
          code: 'INVALID_ARGUMENTS',
          message:
            "No inbox 'zed@other.org'; the largest are: alice@enron.com (63), bob@enron.com (1), carol@enron.com (1).",
          hint: 'Use an inbox name exactly as email_inboxes lists it.',
          details: {
            reason: 'unknown_inbox',
            inbox: 'zed@other.org',
            suggestions: [],
            largest: [
              { inbox: ALICE, count: 63 },
              { inbox: BOB, count: 1 },
              { inbox: CAROL, count: 1 },
            ],
          },
        },
      });
      const typo = await registry.call('email_search', { query: 'meeting', inbox_id: 'alcie@enron.com' });
      expect(typo.status === 'error' && typo.error.message).toBe(
        "No inbox 'alcie@enron.com'; did you mean 'alice@enron.com'? The largest are: alice@enron.com (63), bob@enron.com (1), carol@enron.com (1).",
      );
      // Names are compared exactly; the suggestion says how the inbox is spelled.
      const shouted = await registry.call('email_search', { query: 'meeting', inbox_id: 'ALICE@enron.com' });
      expect(shouted.status === 'error' && shouted.error.details).toMatchObject({ suggestions: [ALICE] });
      // A few letters of a name are enough to be pointed to it.
      const part = await registry.call('email_search', { query: 'meeting', inbox_id: 'carol' });
      expect(part.status === 'error' && part.error.details).toMatchObject({ suggestions: [CAROL] });
    });

    it('answers hostile inbox names with the unknown-inbox error, quoting them on one line', async () => {
      const names = [
        '" OR 1=1 --',
        "'; DROP TABLE emails; --",
        '%',
        '_',
        '__proto__',
        'constructor',
        'alice@enron.com\nNo inbox forged',
        'line\nbreak\u0000nul\u001b[31m',
        'é'.repeat(320),
      ];
      for (const inbox_id of names) {
        const result = await registry.call('email_search', { query: 'meeting', inbox_id });
        expect(result.status, inbox_id).toBe('error');
        if (result.status !== 'error') continue;
        expect(result.error.code).toBe('INVALID_ARGUMENTS');
        expect(result.error.message).toMatch(
          /^No inbox '[^\n]*'(; did you mean [^\n]*\? The|; the) largest are: alice@enron\.com \(63\)/,
        );
        expect(result.error.message).not.toMatch(/\p{Cc}/u);
      }
      const forged = await registry.call('email_search', { query: 'meeting', inbox_id: 'a\nb\u0000' });
      expect(forged.status === 'error' && forged.error.message).toBe(
        "No inbox 'a\\u000ab\\u0000'; the largest are: alice@enron.com (63), bob@enron.com (1), carol@enron.com (1).",
      );
      const long = await registry.call('email_search', { query: 'meeting', inbox_id: 'x'.repeat(320) });
      expect(long.status === 'error' && long.error.message).toBe(
        `No inbox '${'x'.repeat(77)}...'; the largest are: alice@enron.com (63), bob@enron.com (1), carol@enron.com (1).`,
      );
      const over = await registry.call('email_search', { query: 'meeting', inbox_id: 'x'.repeat(321) });
      expect(over.status === 'error' && over.error.code).toBe('INVALID_ARGUMENTS');
      expect(await emails.count()).toBe(CORPUS.length);
    });

    it('lists the inboxes, largest first and then by name, with email_inboxes', async () => {
      const all = await registry.call('email_inboxes', {});
      expect(all.status === 'success' && all.data).toEqual({
        inboxes: [
          { inbox: ALICE, count: 63 },
          { inbox: BOB, count: 1 },
          { inbox: CAROL, count: 1 },
        ],
        total: 3,
      });
      const one = await registry.call('email_inboxes', { limit: 1 });
      expect(one.status === 'success' && one.data).toEqual({ inboxes: [{ inbox: ALICE, count: 63 }], total: 3 });
      expect(await emails.inboxes(2)).toEqual({
        inboxes: [
          { inbox: ALICE, count: 63 },
          { inbox: BOB, count: 1 },
        ],
        total: 3,
      });
    });

    it('refuses email_inboxes arguments of the wrong type or out of range', async () => {
      const cases: Array<[unknown, string]> = [
        [{ limit: 0 }, 'limit'],
        [{ limit: 201 }, 'limit'],
        [{ limit: 1e12 }, 'limit'],
        [{ limit: -1 }, 'limit'],
        [{ limit: 1.5 }, 'limit'],
        [{ limit: '5' }, 'limit'],
        [{ limit: [5] }, 'limit'],
        ['not json', 'JSON'],
      ];
      for (const [args, named] of cases) {
        const result = await registry.call('email_inboxes', args);
        expect(result.status, JSON.stringify(args)).toBe('error');
        if (result.status === 'error') {
          expect(result.error.code).toBe('INVALID_ARGUMENTS');
          expect(result.error.message).toContain(named);
        }
      }
      const over = await registry.call('email_inboxes', { limit: 201 });
      expect(over.status === 'error' && over.error.message).toBe(
        "Invalid arguments for 'email_inboxes': 'limit' must be <= 200, got number 201.",
      );
      const most = await registry.call('email_inboxes', { limit: 200 });
      expect(most.status === 'success' && (most.data as { inboxes: unknown[] }).inboxes).toHaveLength(3);
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
      expect(hostileInbox.status === 'error' && hostileInbox.error.code).toBe('INVALID_ARGUMENTS');
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
      const nul = await registry.call('email_get', { message_id: '<1.test@enron.com>\u0000' });
      expect(nul.status === 'error' && nul.error.message).toBe(
        "No email has the message_id '<1.test@enron.com>\u0000'.",
      );
      const missing = await registry.call('email_get', { message_id: '<nope@x>' });
      expect(missing.status).toBe('error');
      if (missing.status === 'error') {
        expect(missing.error.message).toContain('No email');
        expect(missing.error.hint).toBeDefined();
      }
    });
  });
}
