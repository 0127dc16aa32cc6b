import { type RawBuilder, sql } from 'kysely';
import type { StoreDialectName } from '../store-records.js';

/**
 * How a migration declares a timestamp column in a dialect: `timestamptz` defaulting to `now()` on
 * PostgreSQL, ISO-8601 text defaulting to the current UTC time with milliseconds on SQLite. The store
 * reads both back as ISO-8601 strings.
 *
 * @example
 * ```ts
 * const { type, now } = timestampColumn('sqlite');
 * table.addColumn('created_at', type, (column) => column.notNull().defaultTo(now));
 * ```
 */
export function timestampColumn(dialect: StoreDialectName): { type: 'timestamptz' | 'text'; now: RawBuilder<unknown> } {
  return dialect === 'postgres'
    ? { type: 'timestamptz', now: sql`now()` }
    : { type: 'text', now: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))` };
}
