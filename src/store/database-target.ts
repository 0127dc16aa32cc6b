/**
 * What a database URL names, as {@link createStore} reads it: PostgreSQL, a SQLite database (a file
 * path, or `:memory:`), or a URL of a scheme no store takes. The one rule for it, which the CLI also
 * reads (whether the service's database is a file it may look for) without loading the store.
 */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  /** `path` without the optional `sqlite:` prefix; `:memory:` for a private in-memory database. */
  | { kind: 'sqlite'; path: string }
  | { kind: 'unsupported'; scheme: string };

/**
 * Read `url` (already trimmed): `postgres://...` or `postgresql://...` is PostgreSQL, `scheme://...`
 * of any other scheme but `sqlite` is unsupported, anything else a SQLite path (`sqlite:` dropped).
 * Schemes are matched in any case.
 *
 * @example
 * ```ts
 * databaseTarget('postgres://db.internal/toolshed'); // { kind: 'postgres', url: 'postgres://db.internal/toolshed' }
 * databaseTarget('sqlite:./toolshed.db'); // { kind: 'sqlite', path: './toolshed.db' }
 * databaseTarget('mysql://db.internal/toolshed'); // { kind: 'unsupported', scheme: 'mysql' }
 * ```
 */
export function databaseTarget(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== 'sqlite') return { kind: 'unsupported', scheme };
  return { kind: 'sqlite', path: url.replace(/^sqlite:/i, '') };
}
