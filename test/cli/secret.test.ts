import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { assertBuilt, type CliRun, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-secret-verbs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');
const NAME_RULE =
  'Use 1-128 letters, digits and underscores, not starting with a digit (like an environment variable name).';

function expectRun(run: CliRun, exitCode: number, stdout: string[], stderr: string[]): void {
  expect({ exitCode: run.exitCode, stdout: lines(run.stdout), stderr: lines(run.stderr) }).toEqual({
    exitCode,
    stdout,
    stderr,
  });
}

/** A database for one dialect's tests, and the key its secrets use there (none on SQLite: the key file). */
interface VerbDatabase {
  dialect: 'sqlite' | 'postgres';
  secretKey: string;
  open(): Promise<string>;
  close(): Promise<void>;
}

const databases: VerbDatabase[] = [
  {
    dialect: 'sqlite',
    secretKey: '',
    async open() {
      return join(mkdtempSync(join(scratch, 'sqlite-')), 'service.db');
    },
    async close() {},
  },
  (() => {
    let database: PostgresTestDatabase | undefined;
    return {
      dialect: 'postgres' as const,
      secretKey: SECRET_KEY,
      async open() {
        database = await createPostgresTestDatabase('toolshed_test', 'The secret verb tests');
        return database.url;
      },
      async close() {
        await database?.drop();
      },
    };
  })(),
];

for (const database of databases) {
  describe(`toolshed secret on ${database.dialect}`, () => {
    let url = '';
    const cli = (args: string[], input?: string, env: Record<string, string> = {}) =>
      runCli(args, {
        env: { TOOLSHED_DATABASE_URL: url, TOOLSHED_SECRET_KEY: database.secretKey, ...env },
        ...(input === undefined ? {} : { input }),
      });

    async function reveal(workspace: string, name: string): Promise<string | undefined> {
      const store = await createStore(url, { secretKey: database.secretKey });
      try {
        return await store.secrets.reveal(workspace, name);
      } finally {
        await store.close();
      }
    }

    beforeAll(async () => {
      url = await database.open();
      expectRun(await cli(['workspace', 'create', 'Acme', '--id', 'acme']), 0, ['acme'], []);
    }, 30_000);
    afterAll(() => database.close());

    it('stores a value read from stdin, dropping one trailing newline, and never prints it', async () => {
      const run = await cli(
        ['secret', 'set', 'COMPANY_TOKEN', '--workspace', 'acme', '--value-stdin'],
        'tok_from_stdin\n',
      );
      expectRun(run, 0, ['created secret COMPANY_TOKEN in workspace acme'], []);
      expect(await reveal('acme', 'COMPANY_TOKEN')).toBe('tok_from_stdin');
      if (database.dialect === 'sqlite') expect(statSync(`${url}-secret.key`).mode & 0o777).toBe(0o600);
    });

    it('replaces a value given with --value, printing the record without it with --json', async () => {
      const run = await cli(['secret', 'set', 'COMPANY_TOKEN', '--workspace', 'acme', '--value', 'tok_flag', '--json']);
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        name: 'COMPANY_TOKEN',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        created: false,
      });
      expect(run.stdout).not.toContain('tok_flag');
      expect(await reveal('acme', 'COMPANY_TOKEN')).toBe('tok_flag');
    });

    it('lists names and dates, never values', async () => {
      await cli(['secret', 'set', 'A_SECOND', '--workspace', 'acme', '--value-stdin'], 'second value');
      const run = await cli(['secret', 'list', '--workspace', 'acme']);
      expect(run.exitCode).toBe(0);
      expect(lines(run.stdout)).toEqual([
        expect.stringMatching(/^A_SECOND {2}updated \d{4}-\d\d-\d\dT[\d:.]+Z$/),
        expect.stringMatching(/^COMPANY_TOKEN {2}updated \d{4}-\d\d-\d\dT[\d:.]+Z$/),
      ]);
      const json = await cli(['secret', 'list', '--workspace', 'acme', '--json']);
      expect((JSON.parse(json.stdout) as Array<{ name: string }>).map((secret) => secret.name)).toEqual([
        'A_SECOND',
        'COMPANY_TOKEN',
      ]);
      for (const output of [run.stdout, json.stdout]) {
        expect(output).not.toContain('tok_flag');
        expect(output).not.toContain('second value');
      }
    });

    it('deletes a secret, and says so when there is none (exit 1)', async () => {
      expectRun(
        await cli(['secret', 'delete', 'A_SECOND', '--workspace', 'acme']),
        0,
        ['deleted secret A_SECOND from workspace acme'],
        [],
      );
      expectRun(
        await cli(['secret', 'delete', 'A_SECOND', '--workspace', 'acme']),
        1,
        [],
        ["error: workspace 'acme' has no secret 'A_SECOND'; list them with 'toolshed secret list --workspace acme'."],
      );
      expect(await reveal('acme', 'A_SECOND')).toBeUndefined();
    });

    it('refuses a workspace that does not exist (exit 1)', async () => {
      for (const args of [
        ['secret', 'set', 'TOKEN', '--workspace', 'initech', '--value', 'v'],
        ['secret', 'list', '--workspace', 'initech'],
        ['secret', 'delete', 'TOKEN', '--workspace', 'initech'],
      ]) {
        expectRun(
          await cli(args),
          1,
          [],
          ["error: workspace 'initech' does not exist; create it with 'toolshed workspace create NAME --id initech'."],
        );
      }
    });

    it('refuses an empty or oversized value from stdin (exit 2), writing nothing', async () => {
      expectRun(
        await cli(['secret', 'set', 'EMPTY', '--workspace', 'acme', '--value-stdin'], '\n'),
        2,
        [],
        ["error: A secret's value must not be empty."],
      );
      expectRun(
        await cli(['secret', 'set', 'HUGE', '--workspace', 'acme', '--value-stdin'], 'x'.repeat(20_000)),
        2,
        [],
        ['error: the value on stdin is more than 8192 bytes, the limit of a secret.'],
      );
      expectRun(
        await cli(['secret', 'set', 'HUGE', '--workspace', 'acme', '--value', 'x'.repeat(8193)]),
        2,
        [],
        ["error: A secret's value is 8193 bytes; the limit is 8192 bytes."],
      );
      expect(await reveal('acme', 'EMPTY')).toBeUndefined();
      expect(await reveal('acme', 'HUGE')).toBeUndefined();
    });

    if (database.dialect === 'postgres') {
      it('refuses to store a secret without TOOLSHED_SECRET_KEY, naming it (exit 1)', async () => {
        expectRun(
          await cli(['secret', 'set', 'TOKEN', '--workspace', 'acme', '--value-stdin'], 'v', {
            TOOLSHED_SECRET_KEY: '',
          }),
          1,
          [],
          [
            "error: Workspace secrets on PostgreSQL need the TOOLSHED_SECRET_KEY environment variable (32 bytes as base64 or hex), the same on every server process; make one with 'openssl rand -base64 32' and restart.",
          ],
        );
      });
    } else {
      it('refuses a malformed TOOLSHED_SECRET_KEY before touching anything (exit 1)', async () => {
        expectRun(
          await cli(['secret', 'list', '--workspace', 'acme'], undefined, { TOOLSHED_SECRET_KEY: 'hunter2' }),
          1,
          [],
          [
            "error: TOOLSHED_SECRET_KEY must be 32 bytes as base64 (44 characters) or hex (64 characters), got 7 characters; make one with 'openssl rand -base64 32'.",
          ],
        );
      });
    }
  });
}

describe('toolshed secret: usage errors (exit 2, before the database is opened)', () => {
  const cli = (...args: string[]) =>
    runCli(args, { env: { TOOLSHED_DATABASE_URL: join(scratch, 'no', 'such', 'folder', 'service.db') } });

  it.each([
    [['secret', 'set', 'my-token', '--workspace', 'acme', '--value', 'v'], 'my-token', 'set'],
    [['secret', 'set', '1PASSWORD', '--workspace', 'acme', '--value', 'v'], '1PASSWORD', 'set'],
    [['secret', 'delete', 'bad.name', '--workspace', 'acme'], 'bad.name', 'delete'],
  ])('refuses the malformed name in %j', async (args, name, verb) => {
    expectRun(
      await cli(...args),
      2,
      [],
      [
        `error: command-argument value '${name}' is invalid for argument 'name'. ${NAME_RULE}`,
        `Run 'toolshed secret ${verb} --help' for usage.`,
      ],
    );
  });

  it('needs exactly one source for the value', async () => {
    expectRun(
      await cli('secret', 'set', 'TOKEN', '--workspace', 'acme'),
      2,
      [],
      ['error: give the value with --value-stdin (read from stdin, recommended) or --value VALUE.'],
    );
    expectRun(
      await cli('secret', 'set', 'TOKEN', '--workspace', 'acme', '--value-stdin', '--value', 'v'),
      2,
      [],
      ['error: give the value one way: --value-stdin or --value, not both.'],
    );
  });

  it('refuses a missing --workspace', async () => {
    expectRun(
      await cli('secret', 'list'),
      2,
      [],
      ["error: required option '--workspace <id>' not specified", "Run 'toolshed secret list --help' for usage."],
    );
  });

  it('says in the help of set that a value on the command line lands in the shell history', async () => {
    const run = await cli('secret', 'set', '--help');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(
      '--value <value>   the value itself; it lands in your shell history, so prefer --value-stdin',
    );
    expect(run.stdout).toContain('A value given with --value is kept in your shell history');
  });
});
