import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
      const check = await validateConfig(join(folder, 'toolshed.yaml'), { env, builtins: BUILTINS });
      const prefix = `${relative(process.cwd(), folder)}/`;
      const lines = check.diagnostics.map((diagnostic) => formatDiagnostic(diagnostic).replaceAll(prefix, ''));
      const expected = readFileSync(join(folder, 'expected.txt'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toEqual(expected);
    });
  }
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
