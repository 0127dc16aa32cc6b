import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, EXAMPLES_CONFIG, lines, ROOT, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const CORPUS = join(ROOT, 'src', 'config', '__fixtures__');
const cases = readdirSync(CORPUS).filter((name) => existsSync(join(CORPUS, name, 'toolshed.yaml')));

function caseEnv(name: string): Record<string, string> {
  const file = join(CORPUS, name, 'env.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
}

describe('toolshed validate over the configuration corpus', () => {
  it('has the corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(18);
  });

  // The corpus pins its lines against stand-in built-ins; the CLI uses the real ones, so the lines of
  // cases that name built-ins differ in wording. Whether a case has errors does not.
  it.each(cases)('exits 1 for %s exactly when the corpus expects an error', async (name) => {
    const expected = readFileSync(join(CORPUS, name, 'expected.txt'), 'utf8');
    const run = await runCli(['validate'], { cwd: join(CORPUS, name), env: caseEnv(name) });
    expect(run.exitCode).toBe(expected.includes(': error: ') ? 1 : 0);
    expect(lines(run.stdout).filter((line) => line.includes(': error: '))).toHaveLength(
      lines(expected).filter((line) => line.includes(': error: ')).length,
    );
  });

  it('prints every diagnostic of unknown-key as file:line:col on stdout, and a summary on stderr', async () => {
    const run = await runCli(['validate', 'toolshed.yaml'], { cwd: join(CORPUS, 'unknown-key') });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stdout)).toEqual([
      "toolshed.yaml:2:1: error: unknown key 'agnets' (did you mean 'agents'?); allowed keys: tools, builtins, workspace, custom_tools, mcp_servers, prompts, resources, agents, nodes, defaults, server",
      "toolshed.yaml:10:5: error: unknown key 'timout' in 'custom_tools[0]' (did you mean 'timeout'?); allowed keys: id, type, title, description, when_to_use, category, tags, input_examples, endpoint, method, auth, parameters, request, response, timeout, max_response_bytes, allow_private_network, annotations, execution, requires_approval, cli",
    ]);
    expect(lines(run.stderr)).toEqual(['toolshed.yaml: 2 errors, 0 warnings.']);
  });

  it('reports literal secrets with their position', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the ${VAR} syntax literally.
    const hint = 'reference a variable instead, such as ${MY_API_KEY} or a *_env key';
    const run = await runCli(['validate'], { cwd: join(CORPUS, 'literal-secret-key') });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stdout)).toEqual([
      `toolshed.yaml:9:9: error: literal secret in 'custom_tools[0].request.headers.Authorization' (a literal value for the secret-named key 'Authorization'): credentials come from the environment only; ${hint}`,
      `toolshed.yaml:10:9: error: literal secret in 'custom_tools[0].request.headers.api_key' (a literal value for the secret-named key 'api_key'): credentials come from the environment only; ${hint}`,
    ]);
    expect(lines(run.stderr)).toEqual(['toolshed.yaml: 2 errors, 0 warnings.']);
  });

  it('prints one line per schema lint finding, with the tool and the JSON pointer', async () => {
    const run = await runCli(['validate'], { cwd: join(CORPUS, 'schema-lint') });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toEqual([
      'toolshed.yaml:1:9: warning: find_hotels: default "false" fails its own schema (must be a boolean); it is never applied (at /properties/pets/default)',
      "toolshed.yaml:1:9: warning: find_hotels: required property 'checkin' is not declared in properties (at /required/1)",
      'toolshed.yaml:1:9: warning: find_hotels: enum value "5" is not an integer; no argument can match it (at /properties/stars/enum/2)',
      'toolshed.yaml:1:9: warning: find_hotels: minimum 5 is above maximum 3; no value can match (at /properties/stars)',
      "toolshed.yaml:1:9: warning: find_hotels: unknown format 'phone' is never checked (at /properties/phone/format)",
      "toolshed.yaml:1:9: warning: find_hotels: input example 1 fails the input schema ('city' must be a string, got number 5); exports leave it out (at /inputExamples/1)",
    ]);
    expect(lines(run.stderr)).toEqual(['toolshed.yaml is valid, with 6 warnings.']);
  });

  it('passes a configuration with warnings only (exit 0)', async () => {
    const run = await runCli(['validate'], { cwd: join(CORPUS, 'unused-agent-config') });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toEqual([
      "toolshed.yaml:6:7: warning: config for tool 'read_file' in agent 'a' is unused: the agent does not list that tool",
      "toolshed.yaml:7:5: warning: key 'temperature' of agent 'a' is not used by toolshed",
    ]);
    expect(lines(run.stderr)).toEqual(['toolshed.yaml is valid, with 2 warnings.']);
  });

  it('prints nothing on stdout for a clean configuration', async () => {
    const run = await runCli(['validate', '--config', 'toolshed.yaml'], { cwd: join(CORPUS, 'valid-basic') });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual(['toolshed.yaml is valid.']);
  });
});

describe('toolshed validate', () => {
  it('warns about the credential the example configuration needs', async () => {
    const run = await runCli(['validate', 'examples/toolshed.yaml'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toEqual([
      "examples/toolshed.yaml:10:83: warning: tool 'serper_search' needs SERPER_API_KEY (API key for Serper, the Google Search API), which is not set; its calls will fail with MISSING_CREDENTIALS. Get one at https://serper.dev, then: export SERPER_API_KEY=...",
    ]);
    expect(lines(run.stderr)).toEqual(['examples/toolshed.yaml is valid, with 1 warning.']);
  });

  it('takes the credential from the environment', async () => {
    const run = await runCli(['validate', EXAMPLES_CONFIG], { cwd: ROOT, env: { SERPER_API_KEY: 'from-the-env' } });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('');
  });

  it('prints {"diagnostics": [...]} with --json', async () => {
    const run = await runCli(['validate', '--json'], { cwd: join(CORPUS, 'bad-auth') });
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      diagnostics: [
        {
          file: 'toolshed.yaml',
          line: 5,
          column: 5,
          severity: 'error',
          message: `'custom_tools[0].endpoint' must be an http:// or https:// URL, got "ftp://example.com"`,
        },
        {
          file: 'toolshed.yaml',
          line: 6,
          column: 12,
          severity: 'error',
          message: `'custom_tools[0].auth.type' must be one of "bearer", "header", "query", got string "basic"`,
        },
      ],
    });
  });

  it('fails on a missing file with the diagnostic (exit 1)', async () => {
    const run = await runCli(['validate', 'no/such/toolshed.yaml'], { cwd: ROOT });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stdout)).toEqual(['no/such/toolshed.yaml:1:1: error: configuration file not found']);
    expect(lines(run.stderr)).toEqual(['no/such/toolshed.yaml: 1 error, 0 warnings.']);
  });

  it('looks for ./toolshed.yaml when no file is given', async () => {
    const run = await runCli(['validate'], { cwd: join(ROOT, 'test', 'cli', 'fixtures', 'tools') });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stdout)).toEqual(['toolshed.yaml:1:1: error: configuration file not found']);
  });

  it('quotes a value from the environment as written when it fails its schema, never the value', async () => {
    const env = caseEnv('env-values-in-type-errors');
    const run = await runCli(['validate'], { cwd: join(CORPUS, 'env-values-in-type-errors'), env });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stdout)).toEqual([
      `toolshed.yaml:3:3: error: 'defaults.timeout' must be a number, got a string from "\${TOOLSHED_FIXTURE_TIMEOUT}" (values from the environment are not shown)`,
      `toolshed.yaml:4:3: error: 'defaults.max_output_chars' must be an integer, got string "many"`,
      `toolshed.yaml:9:5: error: 'custom_tools[0].endpoint' must be an http:// or https:// URL, got a string from "\${TOOLSHED_FIXTURE_ENDPOINT}/records" (values from the environment are not shown)`,
      `toolshed.yaml:10:5: error: 'custom_tools[0].method' must be one of "GET", "POST", "PUT", "PATCH", "DELETE", got a string from "\${TOOLSHED_FIXTURE_METHOD}" (values from the environment are not shown)`,
      `toolshed.yaml:15:19: error: 'mcp_servers[0].headers_env.Authorization' takes the name of an environment variable; write TOOLSHED_FIXTURE_TOKEN, not \${TOOLSHED_FIXTURE_TOKEN}`,
    ]);
    expect(lines(run.stderr)).toEqual(['toolshed.yaml: 5 errors, 0 warnings.']);
    for (const secret of Object.values(env)) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
    expect(run.stdout).not.toContain('hidden');
  });

  it('quotes names from the environment as written in every diagnostic, with --json too', async () => {
    const env = caseEnv('env-values-in-names');
    const run = await runCli(['validate'], { cwd: join(CORPUS, 'env-values-in-names'), env });
    expect(run.exitCode).toBe(1);
    const builtins =
      'calculator, duckduckgo_search, email_get, email_inboxes, email_search, execute_javascript, execute_python, fetch_url, list_files, read_file, search_code, serper_search, write_file';
    expect(lines(run.stdout)).toEqual([
      `toolshed.yaml:2:9: error: tools path '\${TOOLSHED_FIXTURE_DIR}/tools' does not exist`,
      `toolshed.yaml:3:12: error: unknown built-in '\${TOOLSHED_FIXTURE_BUILTIN}'. Available built-ins: ${builtins}.`,
      `toolshed.yaml:5:5: warning: tool '\${TOOLSHED_FIXTURE_TOOL_ID}' needs TOOLSHED_FIXTURE_UNSET_TOKEN (bearer token for \${TOOLSHED_FIXTURE_TOOL_ID}), which is not set; its calls will fail with MISSING_CREDENTIALS. Set it in the environment: export TOOLSHED_FIXTURE_UNSET_TOKEN=...`,
      `toolshed.yaml:11:5: error: tool '\${TOOLSHED_FIXTURE_TOOL_ID}' is defined twice (as a custom tool and as a custom tool)`,
      `toolshed.yaml:19:5: error: MCP server name '\${TOOLSHED_FIXTURE_SERVER}' is used twice`,
      `toolshed.yaml:23:13: error: unknown tool '\${TOOLSHED_FIXTURE_TOOL}' in agent '\${TOOLSHED_FIXTURE_AGENT}'. Did you mean '\${TOOLSHED_FIXTURE_TOOL_ID}'? Available tools: \${TOOLSHED_FIXTURE_TOOL_ID}, ${builtins}.`,
      `toolshed.yaml:24:5: warning: key 'temperature' of agent '\${TOOLSHED_FIXTURE_AGENT}' is not used by toolshed`,
      `toolshed.yaml:25:14: warning: config for tool 'calculator' in agent '\${TOOLSHED_FIXTURE_AGENT}' is unused: the agent does not list that tool`,
      `toolshed.yaml:26:5: error: agent id '\${TOOLSHED_FIXTURE_AGENT}' is used twice`,
    ]);
    const json = await runCli(['validate', '--json'], { cwd: join(CORPUS, 'env-values-in-names'), env });
    for (const output of [run.stdout, run.stderr, json.stdout, json.stderr]) {
      for (const secret of Object.values(env)) expect(output).not.toContain(secret);
      expect(output).not.toContain('hidden');
    }
  });

  it('refuses two different files (exit 2)', async () => {
    const run = await runCli(['validate', 'a.yaml', '--config', 'b.yaml'], { cwd: ROOT });
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual(["error: validate got two files, 'a.yaml' and --config 'b.yaml'; pass one."]);
  });
});

describe('toolshed validate and the input limits', () => {
  it('reports a configuration nested too deeply or with a __proto__ key as over an input limit', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-validate-limits-'));
    try {
      writeFileSync(join(folder, 'deep.yaml'), `builtins: ${'['.repeat(300)}${']'.repeat(300)}\n`);
      writeFileSync(
        join(folder, 'proto.yaml'),
        'builtins: [calculator]\ndefaults:\n  __proto__:\n    polluted: true\n',
      );
      const deep = await runCli(['validate', 'deep.yaml'], { cwd: folder });
      expect(deep.exitCode).toBe(1);
      expect(lines(deep.stdout)).toEqual([
        "deep.yaml:1:1: error: over an input limit: the document is nested more than 256 levels deep at 'builtins[0][0][0][0][0][0][0]…' (limit: depth 256)",
      ]);
      const proto = await runCli(['validate', 'proto.yaml'], { cwd: folder });
      expect(lines(proto.stdout)).toEqual([
        "proto.yaml:1:1: error: over an input limit: the document has the key '__proto__' at 'defaults', which is refused: it could change the prototype of an object it is copied into",
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
