import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { ToolshedMigrationProvider } from '../../src/store/migrations/toolshed-migration-provider.js';
import { sqliteSchemaDialect } from '../../src/store/sqlite/sqlite-schema-dialect.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { assertBuilt, type CliRun, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const TOKEN = /^tsk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/;
const ID_RULE = 'Use 1-64 letters, digits, underscores, dots and dashes, starting with a letter or digit.';
/** What `db migrate` prints on a new database: every migration of the store, in order. */
const ALL_APPLIED = `database is up to date (applied ${Object.keys(
  await new ToolshedMigrationProvider(sqliteSchemaDialect).getMigrations(),
)
  .sort()
  .join(', ')})`;
const URL_HINT = 'Set TOOLSHED_DATABASE_URL to a SQLite file path or a postgres:// URL of a server that is running.';

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-service-verbs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A database for one dialect's block of tests, made fresh before them and removed after. */
interface VerbDatabase {
  dialect: 'sqlite' | 'postgres';
  open(): Promise<string>;
  close(): Promise<void>;
}

function sqliteDatabase(): VerbDatabase {
  return {
    dialect: 'sqlite',
    async open() {
      return join(mkdtempSync(join(scratch, 'sqlite-')), 'service.db');
    },
    async close() {},
  };
}

function postgresDatabase(): VerbDatabase {
  let database: PostgresTestDatabase | undefined;
  return {
    dialect: 'postgres',
    async open() {
      database = await createPostgresTestDatabase('toolshed_test', 'The service verb tests');
      return database.url;
    },
    async close() {
      await database?.drop();
    },
  };
}

function expectRun(run: CliRun, exitCode: number, stdout: string[], stderr: string[]): void {
  expect({ exitCode: run.exitCode, stdout: lines(run.stdout), stderr: lines(run.stderr) }).toEqual({
    exitCode,
    stdout,
    stderr,
  });
}

for (const database of [sqliteDatabase(), postgresDatabase()]) {
  describe(`service verbs on ${database.dialect}`, () => {
    let url = '';
    const cli = (...args: string[]) => runCli(args, { env: { TOOLSHED_DATABASE_URL: url } });

    beforeAll(async () => {
      url = await database.open();
    });
    afterAll(() => database.close());

    it('migrates a new database, naming the migrations it applied', async () => {
      expectRun(await cli('db', 'migrate'), 0, [ALL_APPLIED], []);
      const store = await createStore(url);
      try {
        expect(await store.migrate()).toEqual({ applied: [] });
        expect(await store.tools.get('default', 'read_file')).toMatchObject({ id: 'read_file', workspaceId: null });
        // Every service verb keeps the shared built-ins that toolshed serve upserts.
        for (const id of ['execute_python', 'execute_javascript', 'email_search', 'email_get', 'email_inboxes']) {
          expect(await store.tools.get('default', id)).toMatchObject({ id, workspaceId: null });
        }
      } finally {
        await store.close();
      }
    });

    it('answers a second migrate as a no-op', async () => {
      expectRun(await cli('db', 'migrate'), 0, ['database is up to date'], []);
      expectRun(await cli('db', 'migrate', '--json'), 0, ['{"applied":[]}'], []);
    });

    it('creates a workspace with the id given and prints the id', async () => {
      expectRun(await cli('workspace', 'create', 'Acme Corp', '--id', 'acme'), 0, ['acme'], []);
    });

    it('creates a workspace with a random id and prints the record with --json', async () => {
      const run = await cli('workspace', 'create', 'Globex', '--json');
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
      const record = JSON.parse(run.stdout) as { id: string; name: string; createdAt: string };
      expect(record).toEqual({
        id: expect.stringMatching(/^ws_[0-9a-f]{24}$/),
        name: 'Globex',
        createdAt: expect.any(String),
      });
      expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    });

    it('refuses a workspace id that is taken (exit 1)', async () => {
      expectRun(
        await cli('workspace', 'create', 'Acme again', '--id', 'acme'),
        1,
        [],
        ["error: Workspace 'acme' already exists; choose another id."],
      );
    });

    it('creates a token for the workspace, printed once, that the store verifies', async () => {
      const run = await cli('token', 'create', '--workspace', 'acme');
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
      const token = run.stdout.trim();
      expect(token).toMatch(TOKEN);
      const json = await cli('token', 'create', '--workspace', 'acme', '--name', 'ci', '--json');
      expect(json.exitCode).toBe(0);
      const record = JSON.parse(json.stdout) as { id: string; token: string };
      expect(record).toEqual({
        id: expect.stringMatching(/^tok_[0-9a-f]{32}$/),
        workspaceId: 'acme',
        name: 'ci',
        createdAt: expect.any(String),
        revokedAt: null,
        token: expect.stringMatching(TOKEN),
      });
      const store = await createStore(url);
      try {
        expect(await store.tokens.verify(token)).toEqual({
          tokenId: expect.stringMatching(/^tok_/),
          workspaceId: 'acme',
        });
        expect(await store.tokens.verify(record.token)).toEqual({ tokenId: record.id, workspaceId: 'acme' });
        expect((await store.tokens.list('acme')).map((entry) => entry.name).sort()).toEqual(['ci', 'cli']);
      } finally {
        await store.close();
      }
    });

    it('refuses a token for a workspace that does not exist (exit 1)', async () => {
      expectRun(
        await cli('token', 'create', '--workspace', 'initech'),
        1,
        [],
        ["error: workspace 'initech' does not exist; create it with 'toolshed workspace create NAME --id initech'."],
      );
    });

    it.each([
      [['mcp-servers', 'changes']],
      [['mcp-servers', 'changes', 'memory']],
      [['mcp-servers', 'approve', 'memory']],
      [['mcp-servers', 'approve', 'memory', 'read_graph']],
      [['token', 'create']],
      [['secret', 'list']],
    ])('%j refuses a workspace that does not exist, naming the closest (exit 1)', async (args) => {
      expectRun(
        await cli(...args, '--workspace', 'acm'),
        1,
        [],
        [
          "error: workspace 'acm' does not exist (did you mean 'acme'?); create it with 'toolshed workspace create NAME --id acm'.",
        ],
      );
      const store = await createStore(url);
      try {
        expect(await store.workspaces.get('acm')).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
}

for (const fresh of [sqliteDatabase, postgresDatabase]) {
  describe(`db migrate on a new ${fresh().dialect} database`, () => {
    /** Run `work` on a new database of this dialect, dropped after. */
    const onNewDatabase = async (work: (url: string) => Promise<void>) => {
      const database = fresh();
      try {
        await work(await database.open());
      } finally {
        await database.close();
      }
    };

    it('run by four processes at once, applies every migration once: one applies them, the others find the database up to date', async () => {
      await onNewDatabase(async (url) => {
        const runs = await Promise.all(
          Array.from({ length: 4 }, () => runCli(['db', 'migrate'], { env: { TOOLSHED_DATABASE_URL: url } })),
        );
        const outcomes = runs.map((run) => ({
          exitCode: run.exitCode,
          stdout: lines(run.stdout),
          stderr: lines(run.stderr),
        }));
        const upToDate = { exitCode: 0, stdout: ['database is up to date'], stderr: [] };
        expect(outcomes.filter((outcome) => outcome.stdout[0] !== ALL_APPLIED)).toEqual([upToDate, upToDate, upToDate]);
        expect(outcomes.filter((outcome) => outcome.stdout[0] === ALL_APPLIED)).toEqual([
          { exitCode: 0, stdout: [ALL_APPLIED], stderr: [] },
        ]);
      });
    });

    it('that fails half-way applies none of the migrations before the one that failed', async () => {
      await onNewDatabase(async (url) => {
        // A table of that name, made by hand, is in the way of 0008_call_audit.
        const store = await createStore(url);
        try {
          await sql`create table call_limits (note text)`.execute(store.db);
        } finally {
          await store.close();
        }
        const run = await runCli(['db', 'migrate'], { env: { TOOLSHED_DATABASE_URL: url } });
        expectRun(
          run,
          1,
          [],
          [
            `error: Migration 0008_call_audit failed: ${fresh().dialect === 'sqlite' ? 'table "call_limits"' : 'relation "call_limits"'} already exists. No migration of this run was applied; fix the cause and run 'toolshed db migrate' again.`,
          ],
        );
        const after = await createStore(url);
        try {
          const tables = (await after.db.introspection.getTables({ withInternalKyselyTables: true })).map(
            (table) => table.name,
          );
          expect(tables.filter((name) => name !== 'toolshed_migrations_lock').sort()).toEqual([
            'call_limits',
            'toolshed_migrations',
          ]);
          const applied = await sql<{ name: string }>`select name from toolshed_migrations`.execute(after.db);
          expect(applied.rows).toEqual([]);
        } finally {
          await after.close();
        }
      });
    });
  });
}

describe('service verbs: usage errors (exit 2, before the database is opened)', () => {
  // A database URL that cannot be opened: a usage error must be reported before anything touches it.
  const cli = (...args: string[]) =>
    runCli(args, { env: { TOOLSHED_DATABASE_URL: join(scratch, 'no', 'such', 'folder', 'service.db') } });

  it.each([
    [
      ['workspace', 'create', 'Acme', '--id', 'bad id!'],
      "option '--id <id>' argument 'bad id!' is invalid",
      'workspace create',
    ],
    [
      ['workspace', 'create', 'Acme', '--id', '-acme'],
      "option '--id <id>' argument '-acme' is invalid",
      'workspace create',
    ],
    [
      ['workspace', 'create', 'Acme', '--id', 'a'.repeat(65)],
      `option '--id <id>' argument '${'a'.repeat(65)}' is invalid`,
      'workspace create',
    ],
    [
      ['token', 'create', '--workspace', 'bad id!'],
      "option '--workspace <id>' argument 'bad id!' is invalid",
      'token create',
    ],
    [
      ['token', 'create', '--workspace', '../acme'],
      "option '--workspace <id>' argument '../acme' is invalid",
      'token create',
    ],
  ])('refuses the malformed id in %j', async (args, problem, verb) => {
    expectRun(await cli(...args), 2, [], [`error: ${problem}. ${ID_RULE}`, `Run 'toolshed ${verb} --help' for usage.`]);
  });

  it.each([
    [
      ['workspace', 'create', ''],
      "command-argument value '' is invalid for argument 'name'. Give a name that is not blank.",
      'workspace create',
    ],
    [
      ['workspace', 'create', '   '],
      "command-argument value '   ' is invalid for argument 'name'. Give a name that is not blank.",
      'workspace create',
    ],
    [
      ['workspace', 'create', 'n'.repeat(201)],
      `command-argument value '${'n'.repeat(201)}' is invalid for argument 'name'. Give a name of at most 200 characters (this one has 201).`,
      'workspace create',
    ],
    [
      ['token', 'create', '--workspace', 'acme', '--name', ''],
      "option '--name <name>' argument '' is invalid. Give a name that is not blank.",
      'token create',
    ],
  ])('refuses the blank or long name in %j', async (args, problem, verb) => {
    expectRun(await cli(...args), 2, [], [`error: ${problem}`, `Run 'toolshed ${verb} --help' for usage.`]);
  });

  it.each([
    [['workspace', 'create'], "missing required argument 'name'", 'workspace create'],
    [['workspace', 'create', 'Acme', '--id'], "option '--id <id>' argument missing", 'workspace create'],
    [['token', 'create'], "required option '--workspace <id>' not specified", 'token create'],
    [['token', 'create', '--workspace'], "option '--workspace <id>' argument missing", 'token create'],
    [['token', 'create', '--workspace', 'acme', '--name'], "option '--name <name>' argument missing", 'token create'],
    [['db', 'migrate', 'now'], "too many arguments for 'migrate'. Expected 0 arguments but got 1.", 'db migrate'],
    [
      ['workspace', 'create', 'Acme', 'Corp'],
      "too many arguments for 'create'. Expected 1 argument but got 2.",
      'workspace create',
    ],
    [['db', 'migrate', '--force'], "unknown option '--force'", 'db migrate'],
  ])('refuses the missing or extra input in %j', async (args, problem, verb) => {
    expectRun(await cli(...args), 2, [], [`error: ${problem}`, `Run 'toolshed ${verb} --help' for usage.`]);
  });

  it.each([
    ['db', 'Usage: toolshed db [options] [command]'],
    ['workspace', 'Usage: toolshed workspace [options] [command]'],
    ['token', 'Usage: toolshed token [options] [command]'],
  ])('prints the help of %s without a sub-command on stderr', async (verb, usage) => {
    const run = await cli(verb);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)[0]).toBe(usage);
  });

  it('rejects an unknown sub-command', async () => {
    expectRun(
      await cli('db', 'migrat'),
      2,
      [],
      ["error: unknown command 'migrat'", '(Did you mean migrate?)', "Run 'toolshed --help' for usage."],
    );
  });
});

describe('service verbs: a database that cannot be opened (exit 1)', () => {
  const directory = join(scratch, 'a-directory');
  const notDatabase = join(scratch, 'notes.txt');
  beforeAll(() => {
    mkdirSync(directory, { recursive: true });
    writeFileSync(notDatabase, `${'These are notes, not a SQLite database. '.repeat(40)}\n`);
  });

  const VERBS = [
    ['db', 'migrate'],
    ['workspace', 'create', 'Acme', '--id', 'acme'],
    ['token', 'create', '--workspace', 'acme'],
  ];

  it.each(VERBS)('%s %s: names an unreachable PostgreSQL server and the way out', async (...args) => {
    const run = await runCli(args, { env: { TOOLSHED_DATABASE_URL: 'postgres://127.0.0.1:1/x' } });
    expectRun(
      run,
      1,
      [],
      [
        `error: Cannot connect to PostgreSQL at postgres://127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1. ${URL_HINT}`,
      ],
    );
  });

  it('toolshed serve reports a database it cannot reach in one line (exit 1)', async () => {
    const run = await runCli(['serve', '--port', '0'], { env: { TOOLSHED_DATABASE_URL: 'postgres://127.0.0.1:1/x' } });
    expectRun(
      run,
      1,
      [],
      [
        `error: Cannot connect to PostgreSQL at postgres://127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1. ${URL_HINT}`,
      ],
    );
  });

  it('never prints the password of the URL', async () => {
    const run = await runCli(['db', 'migrate'], {
      env: { TOOLSHED_DATABASE_URL: 'postgres://toolshed:hunter2@127.0.0.1:1/x' },
    });
    expectRun(
      run,
      1,
      [],
      [
        `error: Cannot connect to PostgreSQL at postgres://toolshed:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1. ${URL_HINT}`,
      ],
    );
  });

  it.each(VERBS)('%s %s: names a directory given as the SQLite file', async (...args) => {
    const run = await runCli(args, { env: { TOOLSHED_DATABASE_URL: directory } });
    expectRun(
      run,
      1,
      [],
      [`error: Cannot open the SQLite database '${directory}': unable to open database file. ${URL_HINT}`],
    );
  });

  it.each(VERBS)('%s %s: names a file that is not a database', async (...args) => {
    const run = await runCli(args, { env: { TOOLSHED_DATABASE_URL: notDatabase } });
    expectRun(
      run,
      1,
      [],
      [`error: Cannot use '${notDatabase}' as a SQLite database: file is not a database. ${URL_HINT}`],
    );
  });

  it('names a SQLite file in a folder that does not exist', async () => {
    const missing = join(scratch, 'missing', 'service.db');
    const run = await runCli(['db', 'migrate'], { env: { TOOLSHED_DATABASE_URL: missing } });
    expectRun(
      run,
      1,
      [],
      [
        `error: Cannot open the SQLite database '${missing}': Cannot open database because the directory does not exist. ${URL_HINT}`,
      ],
    );
  });

  it.each([
    [['secret', 'list', '--workspace', 'default']],
    [['secret', 'delete', 'API_KEY', '--workspace', 'default']],
    [['token', 'create', '--workspace', 'default']],
    [['mcp-servers', 'changes', '--workspace', 'default']],
  ])('%j in a folder with no database says so and creates none', async (args) => {
    const folder = mkdtempSync(join(scratch, 'empty-'));
    const run = await runCli(args, { cwd: folder, env: { TOOLSHED_DATABASE_URL: '' } });
    expectRun(
      run,
      1,
      [],
      [
        `error: there is no database at ${join(folder, 'toolshed.db')} (TOOLSHED_DATABASE_URL, default ./toolshed.db); create one with 'toolshed workspace create NAME' or 'toolshed db migrate', or point TOOLSHED_DATABASE_URL at yours.`,
      ],
    );
    expect(readdirSync(folder)).toEqual([]);
  });

  it.each([...VERBS, ['serve', '--port', '0']])(
    '%s %s: refuses a URL of a scheme no store takes, without its password, creating no file of that name',
    async (...args) => {
      const folder = mkdtempSync(join(scratch, 'scheme-'));
      const run = await runCli(args, { cwd: folder, env: { TOOLSHED_DATABASE_URL: 'MySQL://root:hunter2@db/x' } });
      expectRun(
        run,
        1,
        [],
        [
          `error: Cannot open 'mysql://root:***@db/x' as a database: toolshed takes a SQLite file path (or sqlite:PATH) or a PostgreSQL URL (postgres://USER@HOST/DATABASE), and 'MySQL:' is neither. ${URL_HINT}`,
        ],
      );
      expect(readdirSync(folder)).toEqual([]);
    },
  );

  it('resolves a relative SQLite path against the working folder', async () => {
    const folder = mkdtempSync(join(scratch, 'relative-'));
    const run = await runCli(['db', 'migrate'], { cwd: folder, env: { TOOLSHED_DATABASE_URL: 'sqlite:service.db' } });
    expectRun(run, 0, [ALL_APPLIED], []);
    const store = await createStore(join(folder, 'service.db'));
    try {
      expect(await store.migrate()).toEqual({ applied: [] });
    } finally {
      await store.close();
    }
  });
});
