import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { formatDiagnostic } from './config-diagnostic.js';
import { validateConfig } from './validate-config.js';

const FIXTURES = join(import.meta.dirname, '__fixtures__');

// Stand-ins for the built-in catalogue: what matters here is names and credentials.
const BUILTINS = [
  defineTool({ name: 'calculator', description: 'Evaluate arithmetic.', category: 'math', handler: () => 0 }),
  defineTool({ name: 'read_file', description: 'Read a file.', category: 'filesystem', handler: () => '' }),
  defineTool({
    name: 'serper_search',
    description: 'Search the web with Google through Serper.',
    category: 'web',
    requires: {
      env: [
        { name: 'SERPER_API_KEY', description: 'API key for Serper, the Google search API', url: 'https://serper.dev' },
      ],
    },
    handler: () => [],
  }),
];

// Stand-ins for the email tools the `toolshed` command supplies (`moreBuiltins`), as it does.
const EMAIL_TOOLS = ['email_search', 'email_get', 'email_inboxes'];
const MORE_BUILTINS = {
  names: EMAIL_TOOLS,
  create: async () =>
    EMAIL_TOOLS.map((name) =>
      defineTool({ name, description: 'Stand-in email tool.', category: 'email', handler: () => ({}) }),
    ),
};

const cases = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, 'toolshed.yaml')));

describe('toolshed validate diagnostics', () => {
  it('has a corpus of cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(18);
  });

  for (const name of cases) {
    it(`reports exactly the expected diagnostics for ${name}`, async () => {
      const folder = join(FIXTURES, name);
      const envFile = join(folder, 'env.json');
      const env = existsSync(envFile) ? (JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>) : {};
      const check = await validateConfig(join(folder, 'toolshed.yaml'), {
        env,
        builtins: BUILTINS,
        moreBuiltins: MORE_BUILTINS,
      });
      const prefix = `${relative(process.cwd(), folder)}/`;
      const lines = check.diagnostics.map((diagnostic) => formatDiagnostic(diagnostic).replaceAll(prefix, ''));
      const expected = readFileSync(join(folder, 'expected.txt'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toEqual(expected);
    });
  }
});

describe("the caller's built-ins (moreBuiltins)", () => {
  it('says what an email tool is when the caller does not supply the email tools', async () => {
    const check = await validateConfig(join(FIXTURES, 'email-tools', 'toolshed.yaml'), { env: {}, builtins: BUILTINS });
    expect(check.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      "unknown built-in 'email_search': it is one of the email tools, which search an email corpus in a database, and this program does not supply them (the toolshed command does; in code, pass createEmailTools' tools as the moreBuiltins option).",
      "unknown tool 'email_inboxes' in agent 'mail': it is one of the email tools, which search an email corpus in a database, and this program does not supply them (the toolshed command does; in code, pass createEmailTools' tools as the moreBuiltins option).",
    ]);
  });

  it('makes them only for a file that names one, and suggests them for a misspelt name', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-more-builtins-'));
    try {
      const file = join(folder, 'toolshed.yaml');
      writeFileSync(file, 'builtins: [calculator, email_inbox]\n');
      let made = 0;
      const counted = {
        names: EMAIL_TOOLS,
        create: async () => {
          made += 1;
          return MORE_BUILTINS.create();
        },
      };
      const check = await validateConfig(file, { env: {}, builtins: BUILTINS, moreBuiltins: counted });
      expect(made).toBe(0);
      expect(check.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
        "unknown built-in 'email_inbox'. Did you mean 'email_inboxes'? Available built-ins: calculator, email_get, email_inboxes, email_search, read_file, serper_search.",
      ]);
      writeFileSync(file, 'builtins: [calculator, email_inboxes]\n');
      const named = await validateConfig(file, { env: {}, builtins: BUILTINS, moreBuiltins: counted });
      expect(made).toBe(1);
      expect(named.diagnostics).toEqual([]);
      expect([...named.catalog.keys()]).toEqual(['calculator', 'email_inboxes']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the server section', () => {
  it('reads the call log retention and the call limits of server:', async () => {
    const check = await validateConfig(join(FIXTURES, 'server-settings-valid', 'toolshed.yaml'), {
      env: {},
      builtins: BUILTINS,
    });
    expect(check.config?.server).toEqual({
      callLogRetentionMs: 30 * 86_400_000,
      limits: [
        { scope: 'tool', target: 'calculator', callsPerMinute: 120, burst: 10, maxConcurrent: null },
        { scope: 'workspace', target: null, callsPerMinute: null, burst: null, maxConcurrent: 16 },
      ],
    });
  });

  it('reads the OAuth authorization server of server.oauth, a single audience as a list', async () => {
    const check = await validateConfig(join(FIXTURES, 'server-oauth-valid', 'toolshed.yaml'), {
      env: {},
      builtins: BUILTINS,
    });
    expect(check.config?.server.oauth).toEqual({
      issuer: 'https://auth.example.com/tenants/acme',
      jwksUri: 'https://auth.example.com/tenants/acme/keys',
      audience: ['https://tools.example.com/mcp'],
      workspaceClaim: 'org',
      agentClaim: 'toolshed_agent',
      workspaces: { 'org-42': 'acme', '1001': 'globex' },
    });
  });

  it('has no server settings when the file names none', async () => {
    const check = await validateConfig(join(FIXTURES, 'valid-basic', 'toolshed.yaml'), { env: {}, builtins: BUILTINS });
    expect(check.config?.server).toEqual({ limits: [] });
  });
});
