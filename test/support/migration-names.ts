/**
 * Every migration of the store, in the order they apply, written out: what `store.migrate()` must
 * report on a new database. A new migration is added here, and the tests that expect it follow.
 *
 * @example
 * ```ts
 * expect(await store.migrate()).toEqual({ applied: MIGRATION_NAMES });
 * expect(await store.migrate()).toEqual({ applied: migrationsFrom('0003_emails_by_inbox') });
 * ```
 */
export const MIGRATION_NAMES: readonly string[] = [
  '0001_initial_schema',
  '0002_emails',
  '0003_emails_by_inbox',
  '0004_emails_search_file',
  '0005_secrets',
  '0006_tool_sources',
  '0007_tool_tags',
  '0008_call_audit',
  '0009_upstream_pins',
  '0010_prompts_resources',
  '0011_tool_input_examples',
  '0012_mcp_sessions',
  '0013_mcp_stream_events',
  '0014_mcp_tasks',
  '0015_emails_search_by_inbox',
  '0016_emails_search_inline',
];

/**
 * The migrations from `first` on, as a database that has every earlier one gets them. Throws for a
 * name that is not a migration, so a renamed one cannot make the list empty unnoticed.
 */
export function migrationsFrom(first: string): string[] {
  const index = MIGRATION_NAMES.indexOf(first);
  if (index === -1) throw new Error(`'${first}' is not a migration; known: ${MIGRATION_NAMES.join(', ')}.`);
  return MIGRATION_NAMES.slice(index);
}
