import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, lines, ROOT, runCli, SERPER_WARNING } from './run-cli.js';

beforeAll(assertBuilt);

const EXAMPLE_TOOLS = [
  'calculator        math        Evaluate a math expression exactly and return the result.',
  'fetch_url         web         Fetch a web page or API response over HTTP(S) and return its status, headers and body text (binary bodies as base64).',
  'list_files        filesystem  List the files and folders directly inside a workspace folder, with file sizes in bytes.',
  'read_file         filesystem  Read a file from the workspace and return its text, with line counts.',
  'read_tool_output  meta        Read part of a tool output that was truncated.',
  'search_code       filesystem  Search the text files of a workspace folder for lines matching a regular expression (JavaScript syntax).',
  'serper_search     web         Search the web with Google (through the Serper API) and return the top results: title, link and snippet of each, plus a direct answer when Google shows one.',
  'word_count        text        Count the words, lines and characters of a text, and list its most frequent words.',
  'write_file        filesystem  Create a file in the workspace, or replace its whole content, with the given UTF-8 text.',
];

describe('--config', () => {
  it('loads the tools a configuration names; listing calls none, so no credential warning', async () => {
    const run = await runCli(['list', '--config', 'examples/toolshed.yaml'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toEqual(EXAMPLE_TOOLS);
    expect(run.stderr).toBe('');
  });

  it('warns of a missing credential only for a tool the command calls, once', async () => {
    const other = await runCli(
      ['call', 'calculator', '--args', '{"expression":"6*7"}', '--config', 'examples/toolshed.yaml'],
      {
        cwd: ROOT,
      },
    );
    expect(other.exitCode).toBe(0);
    expect(other.stderr).toBe('');
    const serper = await runCli(
      ['call', 'serper_search', '--args', '{"query":"x"}', '--config', 'examples/toolshed.yaml'],
      {
        cwd: ROOT,
      },
    );
    expect(serper.exitCode).toBe(1);
    expect(lines(serper.stderr).filter((line) => line === SERPER_WARNING)).toHaveLength(1);
    expect(lines(serper.stderr)[1]).toMatch(/^Error \[MISSING_CREDENTIALS\]: Tool 'serper_search' needs/);
  });

  it('reads ./toolshed.yaml when no --config is given, without loading ./tools a second time', async () => {
    const run = await runCli(['list', '--json'], { cwd: join(ROOT, 'examples') });
    expect(run.exitCode).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toEqual(EXAMPLE_TOOLS.map((line) => line.split(' ')[0]));
  });

  it('combines with --tools', async () => {
    const run = await runCli(
      ['list', '--config', 'examples/toolshed.yaml', '--tools', 'test/cli/fixtures/tools/echo.yaml', '--json'],
      { cwd: ROOT },
    );
    expect(run.exitCode).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names).toContain('word_count');
  });

  it('prints every diagnostic of a configuration with errors, and exits 1', async () => {
    const run = await runCli(['list', '--config', 'src/config/__fixtures__/unknown-tool/toolshed.yaml'], {
      cwd: ROOT,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    const file = 'src/config/__fixtures__/unknown-tool/toolshed.yaml';
    expect(lines(run.stderr)).toEqual([
      `${file}:4:13: error: unknown tool 'word_cont' in agent 'research'. Did you mean 'word_count'? Available tools: calculator, duckduckgo_search, email_get, email_inboxes, email_search, execute_javascript, execute_python, fetch_url, list_files, read_file, search_code, serper_search, word_count, write_file.`,
      `${file}:4:24: warning: tool 'serper_search' needs SERPER_API_KEY (API key for Serper, the Google Search API), which is not set; its calls will fail with MISSING_CREDENTIALS. Get one at https://serper.dev, then: export SERPER_API_KEY=...`,
      `${file}:4:39: error: unknown tool 'calculater' in agent 'research'. Did you mean 'calculator'? Available tools: calculator, duckduckgo_search, email_get, email_inboxes, email_search, execute_javascript, execute_python, fetch_url, list_files, read_file, search_code, serper_search, word_count, write_file.`,
    ]);
  });

  it('fails on a configuration file that does not exist (exit 1)', async () => {
    const run = await runCli(['describe', 'echo', '--config', 'nope.yaml']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual(['nope.yaml:1:1: error: configuration file not found']);
  });

  it('goes on without an MCP server that does not start, saying so (exit 0)', async () => {
    const missing = join(FIXTURES, 'no-such-node');
    const run = await runCli(['list', '--config', 'toolshed.yaml'], {
      cwd: join(FIXTURES, 'mcp-config'),
      env: { TOOLSHED_TEST_NODE: missing },
    });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout).map((line) => line.split(' ')[0])).toEqual(['always_fails', 'progress_steps']);
    expect(lines(run.stderr)).toEqual([
      `toolshed.yaml:6:5: warning: MCP server 'dyn' cannot start: command '${missing}' is not an executable file`,
      `warning: going on without MCP server 'dyn': Could not connect to MCP server 'dyn': spawn ${missing} ENOENT`,
    ]);
  });
});

describe('--agent', () => {
  it("lists only the agent's tools", async () => {
    const run = await runCli(['list', '--config', 'examples/toolshed.yaml', '--agent', 'assistant'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout).map((line) => line.split(' ')[0])).toEqual([
      'calculator',
      'list_files',
      'read_file',
      'read_tool_output',
      'search_code',
      'word_count',
    ]);
  });

  it("hands the agent's per-tool config to the handler", async () => {
    const args = ['call', 'word_count', '--config', 'examples/toolshed.yaml', '--args', '{"text": "a b c d e f a"}'];
    const plain = await runCli(args, { cwd: ROOT });
    const agent = await runCli([...args, '--agent', 'assistant'], { cwd: ROOT });
    expect(plain.exitCode).toBe(0);
    expect(agent.exitCode).toBe(0);
    expect((JSON.parse(plain.stdout) as { frequent: unknown[] }).frequent).toHaveLength(5);
    expect(JSON.parse(agent.stdout)).toEqual({
      words: 7,
      lines: 1,
      characters: 13,
      frequent: [
        { word: 'a', count: 2 },
        { word: 'b', count: 1 },
        { word: 'c', count: 1 },
      ],
    });
  });

  it("does not reach tools outside the agent's list", async () => {
    const run = await runCli(['describe', 'fetch_url', '--config', 'examples/toolshed.yaml', '--agent', 'assistant'], {
      cwd: ROOT,
    });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "Tool 'fetch_url' not found. Available tools: calculator, list_files, read_file, read_tool_output, search_code, word_count.",
    ]);
  });

  it('names the closest agents for an unknown id (exit 1)', async () => {
    const run = await runCli(['list', '--config', 'examples/toolshed.yaml', '--agent', 'asistant'], { cwd: ROOT });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      "error: agent 'asistant' not found in examples/toolshed.yaml. Did you mean 'assistant'? Agents: assistant.",
    ]);
  });

  it('treats inherited property names as unknown ids', async () => {
    const run = await runCli(['list', '--config', 'examples/toolshed.yaml', '--agent', 'constructor'], { cwd: ROOT });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toContain(
      "error: agent 'constructor' not found in examples/toolshed.yaml. Agents: assistant.",
    );
  });

  it('needs a configuration (exit 1)', async () => {
    const run = await runCli(['list', '--agent', 'assistant']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "error: --agent 'assistant' needs a configuration that defines agents; pass --config FILE or create ./toolshed.yaml.",
    ]);
  });

  it('enables the code-execution built-ins by name and exits once the call is done', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-code-'));
    try {
      writeFileSync(join(folder, 'toolshed.yaml'), 'builtins: [execute_python, calculator]\n');
      const run = await runCli(
        ['call', 'execute_python', '--config', 'toolshed.yaml', '--args', '{"code": "sum(range(101))"}', '--json'],
        { cwd: folder },
      );
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'success', data: { stdout: '', result: 5050 } });
      const typo = await runCli(['list', '--config', 'toolshed.yaml'], { cwd: folder });
      writeFileSync(join(folder, 'toolshed.yaml'), 'builtins: [execute_pyton]\n');
      const wrong = await runCli(['list', '--config', 'toolshed.yaml'], { cwd: folder });
      expect(typo.exitCode).toBe(0);
      expect(lines(typo.stdout).map((line) => line.split(' ')[0])).toEqual(['calculator', 'execute_python']);
      expect(wrong.exitCode).toBe(1);
      expect(lines(wrong.stderr)[0]).toMatch(
        /^toolshed\.yaml:1:12: error: unknown built-in 'execute_pyton'\. Did you mean 'execute_python'\? Available built-ins: calculator, duckduckgo_search, email_get, email_inboxes, email_search, execute_javascript, execute_python, fetch_url, /,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves the email tools it names over the corpus of the database, opened only by a call', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-emails-'));
    const database = join(folder, 'mail.db');
    const env = { TOOLSHED_DATABASE_URL: database };
    try {
      writeFileSync(
        join(folder, 'toolshed.yaml'),
        'builtins: [email_search]\nagents:\n  - id: mail\n    tools: [email_inboxes, email_search]\n',
      );
      const checked = await runCli(['validate'], { cwd: folder, env });
      expect(checked.exitCode).toBe(0);
      expect(checked.stderr).toBe('toolshed.yaml is valid.\n');
      const listed = await runCli(['list'], { cwd: folder, env });
      expect(lines(listed.stdout).map((line) => line.split(' ')[0])).toEqual(['email_inboxes', 'email_search']);

      // No database yet: an empty corpus, which says how to fill it, and no file is made.
      const none = await runCli(['call', 'email_inboxes', '--args', '{}', '--json'], { cwd: folder, env });
      expect(JSON.parse(none.stdout)).toMatchObject({ status: 'success', data: { inboxes: [], total: 0 } });
      const empty = await runCli(
        ['call', 'email_search', '--agent', 'mail', '--args', '{"query": "meeting", "inbox_id": "a@b.example"}'],
        { cwd: folder, env },
      );
      expect(empty.exitCode).toBe(1);
      expect(lines(empty.stderr)).toEqual([
        "Error [INVALID_ARGUMENTS]: No inbox 'a@b.example': the email corpus is empty. Fill it with 'toolshed emails generate --count 1000 --db <database>' or 'toolshed emails import PATH'.",
        'Hint: No email can be searched until the corpus is loaded; tell the user.',
      ]);
      expect(readdirSync(folder)).toEqual(['toolshed.yaml']);

      // A database that cannot be opened fails the call, naming it, and is left as it was.
      const notADatabase = join(folder, 'notes.db');
      writeFileSync(notADatabase, 'not a database\n');
      const unusable = await runCli(['call', 'email_inboxes', '--args', '{}'], {
        cwd: folder,
        env: { TOOLSHED_DATABASE_URL: notADatabase },
      });
      expect(unusable.exitCode).toBe(1);
      expect(unusable.stderr).toBe(
        `Error [EXECUTION_FAILED]: Tool 'email_inboxes' failed: StoreError: Cannot use '${notADatabase}' as a SQLite database: file is not a database\n`,
      );
      expect(readFileSync(notADatabase, 'utf8')).toBe('not a database\n');
      expect(readdirSync(folder).sort()).toEqual(['notes.db', 'toolshed.yaml']);
      rmSync(notADatabase);

      const generated = await runCli(['emails', 'generate', '--count', '60', '--inboxes', '3', '--db', database], {
        cwd: folder,
        env,
      });
      expect(generated.exitCode).toBe(0);
      const inboxes = await runCli(['call', 'email_inboxes', '--agent', 'mail', '--args', '{"limit": 1}', '--json'], {
        cwd: folder,
        env,
      });
      expect(JSON.parse(inboxes.stdout)).toMatchObject({
        status: 'success',
        data: { inboxes: [{ inbox: 'john.arnold@enron.example' }], total: 3 },
      });
      writeFileSync(join(folder, 'toolshed.yaml'), 'builtins: [email_inbox]\n');
      const wrong = await runCli(['validate'], { cwd: folder, env });
      expect(wrong.exitCode).toBe(1);
      expect(lines(wrong.stdout)[0]).toMatch(
        /^toolshed\.yaml:1:12: error: unknown built-in 'email_inbox'\. Did you mean 'email_inboxes'/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
