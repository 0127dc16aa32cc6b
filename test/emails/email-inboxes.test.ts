import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxCount } from '../../src/emails/email-record.js';
import type { EmailStore } from '../../src/emails/email-store.js';
import { createEmailTools, EXAMPLE_INBOX } from '../../src/emails/email-tools.js';
import { generateEmails, generateIntoStore } from '../../src/emails/generate-emails.js';
import { ToolRegistry } from '../../src/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { emailHarnesses } from './email-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** What `toolshed emails generate --count 3000 --db URL` stores (its default inboxes and seed). */
const GENERATED = { count: 3000, inboxes: 150, seed: 1 };

/** The inboxes of a generated corpus counted in memory, largest first, then by name. */
function expectedCounts(options: { count: number; inboxes: number; seed: number }): InboxCount[] {
  const counts = new Map<string, number>();
  for (const email of generateEmails(options)) counts.set(email.inbox, (counts.get(email.inbox) ?? 0) + 1);
  return [...counts]
    .map(([inbox, count]) => ({ inbox, count }))
    .sort((left, right) => right.count - left.count || (left.inbox < right.inbox ? -1 : 1));
}

/** The examples `email_search`'s schema gives: `e.g. "…"` in each property's description. */
function schemaExamples(registry: ToolRegistry): Record<string, string[]> {
  const spec = registry.get('email_search');
  const properties = spec.inputSchema.properties as Record<string, { description?: string }>;
  const examples: Record<string, string[]> = {};
  for (const [name, property] of Object.entries(properties)) {
    examples[name] = [...(property.description ?? '').matchAll(/e\.g\. "([^"]+)"/g)].map((match) => match[1] ?? '');
  }
  return examples;
}

for (const harness of emailHarnesses()) {
  describe(`email inboxes on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let emails: EmailStore;
    let registry: ToolRegistry;
    const expected = expectedCounts(GENERATED);

    beforeAll(async () => {
      ({ store, emails } = await harness.setup());
      registry = new ToolRegistry();
      registry.registerAll(createEmailTools({ emails }));
    });
    afterAll(() => harness.teardown());

    it('says how to fill an empty corpus, and lists no inbox', async () => {
      const result = await registry.call('email_search', { query: 'meeting schedule', inbox_id: EXAMPLE_INBOX });
      expect(result).toMatchObject({
        status: 'error',
        error: {
          code: 'INVALID_ARGUMENTS',
          message:
            "No inbox 'john.arnold@enron.example': the email corpus is empty. Fill it with 'toolshed emails generate --count 1000 --db <database>' or 'toolshed emails import PATH'.",
          details: { reason: 'empty_corpus' },
        },
      });
      const listed = await registry.call('email_inboxes', {});
      expect(listed.status === 'success' && listed.data).toEqual({ inboxes: [], total: 0 });
    });

    it('lists every inbox of a generated corpus with its exact count, largest first', async () => {
      await generateIntoStore(emails, { ...GENERATED, batchSize: 1000 });
      expect(expected.length).toBeGreaterThan(100);
      const listed = await registry.call('email_inboxes', { limit: 200 });
      expect(listed.status === 'success' && listed.data).toEqual({ inboxes: expected, total: expected.length });
      const page = await registry.call('email_inboxes', {});
      expect(page.status === 'success' && page.data).toEqual({
        inboxes: expected.slice(0, 20),
        total: expected.length,
      });
      // The store clamps what the tool's schema refuses.
      expect((await emails.inboxes(0)).inboxes).toEqual(expected.slice(0, 1));
      expect((await emails.inboxes(10_000)).inboxes).toEqual(expected.slice(0, 200));
    });

    it("runs email_search's schema examples as they are: the inbox exists and the query finds emails", async () => {
      const examples = schemaExamples(registry);
      expect(examples.inbox_id).toEqual([EXAMPLE_INBOX]);
      expect(examples.query).toEqual(['meeting schedule']);
      const inboxes = new Set(expected.map((entry) => entry.inbox));
      for (const inbox of examples.inbox_id ?? []) expect(inboxes).toContain(inbox);
      const result = await registry.call('email_search', {
        query: examples.query?.[0],
        inbox_id: examples.inbox_id?.[0],
      });
      expect(result.status).toBe('success');
      expect(result.status === 'success' && (result.data as { total: number }).total).toBeGreaterThan(0);
    });

    it('names the largest inboxes and the closest one for an inbox of another domain', async () => {
      const result = await registry.call('email_search', { query: 'meeting', inbox_id: 'john.arnold@enron.com' });
      const [first, second, third] = expected;
      expect(result.status === 'error' && result.error.message).toBe(
        `No inbox 'john.arnold@enron.com'; did you mean 'john.arnold@enron.example'? The largest are: ${first?.inbox} (${first?.count}), ${second?.inbox} (${second?.count}), ${third?.inbox} (${third?.count}).`,
      );
    });

    it('keeps the counts exact after emails were deleted by hand', async () => {
      // The second email of the busiest inbox: on SQLite its id leaves a gap in the inbox's range.
      const [busiest] = expected;
      const victim = [...generateEmails(GENERATED)].filter((email) => email.inbox === busiest?.inbox)[1];
      await sql`delete from emails where message_id = ${victim?.message_id}`.execute(store.db);
      const after = expected.map((entry) =>
        entry.inbox === busiest?.inbox ? { ...entry, count: entry.count - 1 } : entry,
      );
      after.sort((left, right) => right.count - left.count || (left.inbox < right.inbox ? -1 : 1));
      expect(await emails.inboxes(200)).toEqual({ inboxes: after, total: after.length });
    });
  });
}

/** Production sources and documents that may show an `inbox_id`. */
function documents(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return entry.name === 'generated' ? [] : walk(path);
      return /\.(ts|md)$/.test(entry.name) && !/\.(test|cases)\.ts$/.test(entry.name) ? [path] : [];
    });
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs')), ...walk(join(ROOT, 'src'))];
}

describe('inbox examples in the code and the documentation', () => {
  it('name an inbox of a generated corpus, one the same file stores, or one shown as unknown', () => {
    const generated = new Set(expectedCounts({ count: 1000, inboxes: 150, seed: 1 }).map((entry) => entry.inbox));
    const strays: string[] = [];
    let seen = 0;
    for (const file of documents()) {
      const text = readFileSync(file, 'utf8');
      const stored = new Set([...text.matchAll(/\binbox["']?\s*:\s*["']([^"']+)["']/g)].map((match) => match[1]));
      const asked = [
        ...text.matchAll(/\binbox_id["']?\s*[:=]\s*["']([^"']+)["']/g),
        ...text.matchAll(/\binbox_id\b[^\n]*?e\.g\. "([^"]+)"/g),
      ].map((match) => match[1] ?? '');
      for (const inbox of asked) {
        seen += 1;
        // An example of an unknown inbox shows the answer it gets.
        const shownUnknown = text.includes(`No inbox '${inbox}'`);
        if (!generated.has(inbox) && !stored.has(inbox) && !shownUnknown)
          strays.push(`${relative(ROOT, file)}: ${inbox}`);
      }
    }
    expect(seen).toBeGreaterThanOrEqual(5);
    expect(strays).toEqual([]);
  });
});
