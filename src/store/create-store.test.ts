import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from './create-store.js';
import { databaseTarget } from './database-target.js';
import { StoreError } from './store-error.js';

describe('createStore: which database a URL names', () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-create-store-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it.each([
    ['mysql://root:hunter2@db/toolshed', "'mysql://root:***@db/toolshed'", 'mysql:'],
    ['https://example.com/toolshed.db', "'https://example.com/toolshed.db'", 'https:'],
    ['MariaDB://db/toolshed', "'mariadb://db/toolshed'", 'MariaDB:'],
  ])('refuses %s as UNAVAILABLE, naming the forms it takes', async (url, shown, scheme) => {
    const opened = createStore(url);
    await expect(opened).rejects.toSatisfy(
      (error: unknown) => StoreError.isInstance(error) && error.code === 'UNAVAILABLE',
    );
    await expect(opened).rejects.toThrow(
      `Cannot open ${shown} as a database: toolshed takes a SQLite file path (or sqlite:PATH) or a PostgreSQL URL (postgres://USER@HOST/DATABASE), and '${scheme}' is neither`,
    );
  });

  it('opens a SQLite file named with sqlite: in any case', async () => {
    for (const prefix of ['sqlite:', 'SQLite:']) {
      const file = join(
        folder,
        `${prefix.toLowerCase().replace(':', '')}-${prefix === 'sqlite:' ? 'lower' : 'mixed'}.db`,
      );
      const store = await createStore(`${prefix}${file}`);
      try {
        await store.migrate();
      } finally {
        await store.close();
      }
    }
    expect(
      readdirSync(folder)
        .filter((name) => name.endsWith('.db'))
        .sort(),
    ).toEqual(['sqlite-lower.db', 'sqlite-mixed.db']);
  });
});

describe('databaseTarget: the one reading of a database URL', () => {
  it.each([
    ['postgres://db.internal/toolshed', { kind: 'postgres', url: 'postgres://db.internal/toolshed' }],
    ['PostgreSQL://db.internal/toolshed', { kind: 'postgres', url: 'PostgreSQL://db.internal/toolshed' }],
    ['sqlite:./toolshed.db', { kind: 'sqlite', path: './toolshed.db' }],
    ['SQLite:/var/lib/toolshed.db', { kind: 'sqlite', path: '/var/lib/toolshed.db' }],
    ['./toolshed.db', { kind: 'sqlite', path: './toolshed.db' }],
    [':memory:', { kind: 'sqlite', path: ':memory:' }],
    ['mysql://db.internal/toolshed', { kind: 'unsupported', scheme: 'mysql' }],
    ['HTTPS://example.com/x.db', { kind: 'unsupported', scheme: 'HTTPS' }],
  ])('reads %s', (url, target) => {
    expect(databaseTarget(url)).toEqual(target);
  });
});
