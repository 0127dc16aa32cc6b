import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { emailHarnesses } from './email-harness.js';

const DAVE = 'dave@enron.com';

function email(id: number, subject: string, body: string, date: string): EmailRecord {
  return {
    message_id: `<${id}.test@enron.com>`,
    inbox: DAVE,
    subject,
    sender: 'jane.doe@enron.com',
    recipients: [DAVE],
    date,
    body,
  };
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
  });
}
