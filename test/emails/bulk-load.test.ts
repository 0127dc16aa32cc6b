import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailStore } from '../../src/emails/email-store.js';
import { generateEmails, writeGeneratedJsonl } from '../../src/emails/generate-emails.js';
import { importEmails } from '../../src/emails/import-emails.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { emailHarnesses } from './email-harness.js';

const CORPUS = { count: 1500, inboxes: 105, seed: 11 };
const MORE = { count: 300, inboxes: 105, seed: 12 };

for (const harness of emailHarnesses()) {
  const postgres = harness.dialect === 'postgres';
  describe(`bulk load on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let emails: EmailStore;
    let scratch: string;
    beforeAll(async () => {
      ({ store, emails } = await harness.setup());
      scratch = mkdtempSync(join(tmpdir(), 'toolshed-bulk-'));
      await writeGeneratedJsonl(join(scratch, 'corpus.jsonl'), CORPUS);
      await writeGeneratedJsonl(join(scratch, 'more.jsonl'), MORE);
    });
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await harness.teardown();
    });

    /** Import `file`, noting after each batch whether the full-text index was in place. */
    async function importNoting(file: string, bulkLoad: boolean) {
      const checks: Promise<boolean>[] = [];
      const report = await importEmails(join(scratch, file), {
        format: 'jsonl',
        emails,
        batchSize: 500,
        bulkLoad,
        onProgress: () => checks.push(emails.hasSearchIndex()),
      });
      return { report, indexed: await Promise.all(checks) };
    }

    it(
      postgres
        ? 'builds the GIN index after a bulk load into an empty table, and search works'
        : 'keeps the FTS5 index in step during a bulk load, and search works',
      async () => {
        const { report, indexed } = await importNoting('corpus.jsonl', true);
        expect(report).toMatchObject({ processed: CORPUS.count, added: CORPUS.count, skippedCount: 0 });
        expect(indexed).toEqual([true, true, true, true].map((value) => value === !postgres));
        expect(await emails.hasSearchIndex()).toBe(true);
        if (postgres) {
          const index = await sql<{ definition: string }>`
            select indexdef as definition from pg_indexes where indexname = 'idx_emails_search'`.execute(store.db);
          // PostgreSQL prints the index's expression over several lines.
          expect(index.rows.map((item) => item.definition.replace(/\s+/g, ' '))).toEqual([
            "CREATE INDEX idx_emails_search ON public.emails USING gin ((ARRAY[(inbox || ' *'::text), ((inbox || ' '::text) || CASE WHEN (date ~ '^[0-9]{4}-(0[1-9]|1[0-2])'::text) THEN \"left\"(date, 7) ELSE 'other'::text END)]), search)",
          ]);
          // A table this small would be scanned; forbid that to see that a search's plan uses the index.
          const [sample] = [...generateEmails({ ...CORPUS, count: 1 })];
          const plan = await store.db.transaction().execute(async (trx) => {
            await sql`set local enable_seqscan = off`.execute(trx);
            return sql<{ 'QUERY PLAN': string }>`explain select message_id from emails
              where (array[inbox || ' *', inbox || ' ' || case when date ~ '^[0-9]{4}-(0[1-9]|1[0-2])' then left(date, 7) else 'other' end])
                && array[${`${sample?.inbox} *`}] and search @@ plainto_tsquery('english', 'meeting')`.execute(trx);
          });
          expect(plan.rows.map((item) => item['QUERY PLAN']).join('\n')).toContain(
            'Bitmap Index Scan on idx_emails_search',
          );
        }
        const [first] = [...generateEmails({ ...CORPUS, count: 1 })];
        const word = first?.body.split(/\W+/).find((item) => item.length > 6) ?? 'meeting';
        const hits = await emails.search(word, first?.inbox ?? '', 50);
        expect(hits.emails.map((hit) => hit.message_id)).toContain(first?.message_id);
      },
    );

    it('leaves the index alone when the table already holds emails', async () => {
      const { report, indexed } = await importNoting('more.jsonl', true);
      expect(report.added).toBe(MORE.count);
      expect(indexed.every((value) => value)).toBe(true);
      expect(await emails.hasSearchIndex()).toBe(true);
    });

    if (!postgres) {
      /** FTS5's settings as stored, and the number of index segments (one after a full merge). */
      async function ftsState() {
        const config = await sql<{ k: string; v: number }>`select k, v from emails_fts_config order by k`.execute(
          store.db,
        );
        // Throws when the index and the emails table disagree.
        await sql`insert into emails_fts (emails_fts) values ('integrity-check')`.execute(store.db);
        return Object.fromEntries(config.rows.map((row) => [row.k, row.v]));
      }
      const DEFAULTS = { automerge: 4, crisismerge: 16, hashsize: 1048576, version: 4 };

      it("merges the index once at the end of a bulk load and restores FTS5's settings", async () => {
        expect(await ftsState()).toEqual(DEFAULTS);
        // One segment, not one per batch.
        const optimized = await sql<{ n: number }>`select count(distinct segid) as n from emails_fts_idx`.execute(
          store.db,
        );
        expect(optimized.rows[0]?.n).toBe(1);
      });

      it('finishes the merge that a killed bulk load left undone, at the next import of any size', async () => {
        // What a bulk load leaves behind when it is killed before its end.
        for (const [name, value] of [
          ['automerge', 0],
          ['crisismerge', 64],
          ['hashsize', 33554432],
        ] as const) {
          await sql`insert into emails_fts (emails_fts, rank) values (${name}, ${sql.lit(value)})`.execute(store.db);
        }
        // Three batches: three new segments, left unmerged while merging is off.
        await writeGeneratedJsonl(join(scratch, 'extra.jsonl'), { ...MORE, seed: 13 });
        const report = await importEmails(join(scratch, 'extra.jsonl'), {
          format: 'jsonl',
          emails,
          bulkLoad: false,
          batchSize: 100,
        });
        expect(report).toMatchObject({ added: MORE.count });
        expect(await ftsState()).toEqual(DEFAULTS);
        const optimized = await sql<{ n: number }>`select count(distinct segid) as n from emails_fts_idx`.execute(
          store.db,
        );
        expect(optimized.rows[0]?.n).toBe(1);
      });
    }

    if (postgres)
      it('rebuilds an index that an interrupted bulk load left dropped', async () => {
        await sql`drop index idx_emails_search`.execute(store.db);
        expect(await emails.hasSearchIndex()).toBe(false);
        // Search still answers without the index.
        const [first] = [...generateEmails({ ...MORE, count: 1 })];
        expect((await emails.search(first?.subject ?? '', first?.inbox ?? '', 50)).total).toBeGreaterThan(0);
        const report = await importEmails(join(scratch, 'more.jsonl'), { format: 'jsonl', emails, bulkLoad: false });
        expect(report).toMatchObject({ added: 0, duplicates: MORE.count });
        expect(await emails.hasSearchIndex()).toBe(true);
      });
  });
}
