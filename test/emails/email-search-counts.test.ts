import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { emailHarnesses } from './email-harness.js';

const DAVE = 'dave@enron.com';

function email(id: number, subject: string, body: string, date: string, inbox = DAVE): EmailRecord {
  return {
    message_id: `<${id}.test@enron.com>`,
    inbox,
    subject,
    sender: 'jane.doe@enron.com',
    recipients: [inbox],
    date,
    body,
  };
}

/**
 * 2 005 emails of `inbox`, one every `hours` from January 1999 but for the months `skipped` leaves out,
 * stored oldest first, numbered from `firstId`. `word` is in every body; the subjects of the six oldest
 * and of email 1 000 say it too (they would rank first): of the six, only email 5 is among the 2 000
 * most recent.
 */
function datedSeries(options: {
  firstId: number;
  hours: number;
  word: string;
  inbox?: string;
  skipped?: (month: number) => boolean;
}): EmailRecord[] {
  const { firstId, hours, word, inbox = DAVE, skipped = () => false } = options;
  const times: number[] = [];
  for (let time = Date.UTC(1999, 0, 1); times.length < 2005; time += hours * 3_600_000) {
    const date = new Date(time);
    if (!skipped(date.getUTCFullYear() * 12 + date.getUTCMonth())) times.push(time);
  }
  const title = word[0]?.toUpperCase() + word.slice(1);
  return times.map((time, index) =>
    email(
      firstId + index,
      index <= 5 || index === 1000 ? `${title} ${index}` : `Memo ${index}`,
      `The ${word} log ${index}.`,
      new Date(time).toISOString(),
      inbox,
    ),
  );
}

/**
 * What a search of {@link datedSeries}' word answers: more than 2 000 matches; first the two emails whose
 * subjects say the word and are among the 2 000 most recent (1 000 and 5, newer first), then the newest
 * (2 004); and the oldest (0), which is not among them, still found by its own words.
 */
async function expectMostRecentRanked(emails: EmailStore, inbox: string, word: string, firstId: number): Promise<void> {
  const id = (index: number) => `<${firstId + index}.test@enron.com>`;
  const found = await emails.search(word, inbox, 3);
  expect(found).toMatchObject({ total: 2000, total_is_lower_bound: true });
  expect(found.emails.map((hit) => hit.message_id)).toEqual([id(1000), id(5), id(2004)]);
  expect((await emails.search('log 0', inbox, 5)).emails.map((hit) => hit.message_id)).toEqual([id(0)]);
}

// A search ranks the 2 000 most recent matches of an inbox and counts matches up to 2 000, on both
// databases alike.
for (const harness of emailHarnesses()) {
  describe(`email search counts on ${harness.dialect}`, () => {
    let emails: EmailStore;
    beforeAll(async () => {
      ({ emails } = await harness.setup());
    });
    afterAll(() => harness.teardown());

    it('counts matches up to 2 000 and ranks only the 2 000 most recent', async () => {
      // 2 005 emails stored oldest first; 'turbine' in every one, 'gearbox' in exactly 2 000 of them.
      // The oldest one's subject says 'turbine' (it would rank first), and so does email 1 000's.
      const dated = (index: number) => new Date(Date.UTC(2001, 0, 1) + index * 60_000).toISOString();
      const many = Array.from({ length: 2005 }, (_, index) =>
        email(
          10_000 + index,
          index === 0 || index === 1000 ? `Turbine ${index}` : `Note ${index}`,
          `The turbine report ${index}${index >= 5 ? ' and the gearbox' : ''}.`,
          dated(index),
        ),
      );
      expect(await emails.insertBatch(many)).toBe(2005);

      const common = await emails.search('turbine', DAVE, 3);
      expect(common).toMatchObject({ total: 2000, total_is_lower_bound: true });
      // Email 0 is older than the 2 000 most recent matches, so it is not ranked; email 1 000 is.
      expect(common.emails.map((hit) => hit.message_id)).toEqual([
        '<11000.test@enron.com>',
        '<12004.test@enron.com>',
        '<12003.test@enron.com>',
      ]);

      const exact = await emails.search('gearbox', DAVE, 1);
      expect(exact).toMatchObject({ total: 2000, total_is_lower_bound: false });
      const both = await emails.search('gearbox turbine', DAVE, 50);
      expect(both).toMatchObject({ total: 2000, total_is_lower_bound: false });
      expect(both.emails).toHaveLength(50);
      const few = await emails.search('report 7', DAVE, 10);
      expect(few).toMatchObject({ total: 1, total_is_lower_bound: false });
    });

    it('ranks the 2 000 most recent matches when they span many months, with months left empty', async () => {
      // One every 12 hours (about 33 months), none in March to May 1999 and none in June 2000.
      const spread = datedSeries({
        firstId: 30_000,
        hours: 12,
        word: 'boiler',
        skipped: (month) => (month >= 1999 * 12 + 2 && month <= 1999 * 12 + 4) || month === 2000 * 12 + 5,
      });
      expect(await emails.insertBatch(spread)).toBe(2005);

      await expectMostRecentRanked(emails, DAVE, 'boiler', 30_000);
      expect((await emails.search('log 2004', DAVE, 5)).total).toBe(1);
    });

    it('ranks the 2 000 most recent matches of an inbox spanning more than four years', async () => {
      // One every 20 hours: about 55 months, so the 2 000 most recent reach past the 48 most recent
      // months, which PostgreSQL reads one at a time, into its longer windows.
      const hal = 'hal@enron.com';
      expect(await emails.insertBatch(datedSeries({ firstId: 60_000, hours: 20, word: 'kettle', inbox: hal }))).toBe(
        2005,
      );
      await expectMostRecentRanked(emails, hal, 'kettle', 60_000);
    });

    it('finds emails whatever their date text looks like', async () => {
      const odd = (id: number, date: string, inbox: string): EmailRecord => ({
        ...email(id, `Valve ${id}`, 'The valve.', date),
        inbox,
      });
      // One inbox mixing ISO dates and others, one with no ISO date at all.
      const mixed = [
        odd(40_001, '2001-05-03T00:00:00.000Z', 'erin@enron.com'),
        odd(40_002, 'sometime in May', 'erin@enron.com'),
        odd(40_003, '', 'erin@enron.com'),
        odd(40_004, '2001-13', 'erin@enron.com'),
        odd(40_005, '1999-01-02', 'erin@enron.com'),
        odd(40_006, 'Thu, 3 May 2001', 'fay@enron.com'),
        odd(40_007, '2001', 'fay@enron.com'),
        // Oldest and newest dates with a month, and between them dates without one.
        odd(40_008, '1999-01-02T00:00:00.000Z', 'gus@enron.com'),
        odd(40_009, '2000-13-01', 'gus@enron.com'),
        odd(40_010, '2000-1', 'gus@enron.com'),
        odd(40_011, '2001-05-03T00:00:00.000Z', 'gus@enron.com'),
      ];
      expect(await emails.insertBatch(mixed)).toBe(11);
      const erin = await emails.search('valve', 'erin@enron.com', 50);
      expect(erin).toMatchObject({ total: 5, total_is_lower_bound: false });
      expect(erin.emails.map((hit) => hit.message_id).sort()).toEqual([
        '<40001.test@enron.com>',
        '<40002.test@enron.com>',
        '<40003.test@enron.com>',
        '<40004.test@enron.com>',
        '<40005.test@enron.com>',
      ]);
      const fay = await emails.search('valve', 'fay@enron.com', 50);
      expect(fay.emails.map((hit) => hit.message_id).sort()).toEqual([
        '<40006.test@enron.com>',
        '<40007.test@enron.com>',
      ]);
      const gus = await emails.search('valve', 'gus@enron.com', 50);
      expect(gus).toMatchObject({ total: 4, total_is_lower_bound: false });
      expect(gus.emails.map((hit) => hit.message_id).sort()).toEqual([
        '<40008.test@enron.com>',
        '<40009.test@enron.com>',
        '<40010.test@enron.com>',
        '<40011.test@enron.com>',
      ]);
    });
  });
}
