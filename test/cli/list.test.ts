import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const NO_TOOLS =
  'No tools registered. Pass --config FILE (a toolshed.yaml) or --tools PATH (a YAML definition file or a folder of *.yaml files), or create ./toolshed.yaml or a ./tools folder.';

/** The built-in tools of a run without a configuration, as `toolshed list` orders them. */
const BUILTIN_NAMES = [
  'calculator',
  'duckduckgo_search',
  'email_get',
  'email_inboxes',
  'email_search',
  'execute_javascript',
  'execute_python',
  'fetch_url',
  'list_files',
  'read_file',
  'search_code',
  'serper_search',
  'write_file',
];

let empty: string;
beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), 'toolshed-cli-'));
});
afterAll(async () => {
  await rm(empty, { recursive: true, force: true });
});

describe('toolshed list', () => {
  it('lists ./tools by default: name, category and first sentence, aligned', async () => {
    const run = await runCli(['list']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(lines(run.stdout)).toEqual([
      'add_numbers  math     Add two numbers and return their sum.',
      'banner       text     Shows a \\u001b[31mred\\u001b[0m banner.',
      'echo         text     Repeat the text back.',
      'explode      general  Always fails.',
      'sleep        time     Wait for a number of milliseconds, then answer.',
      'web_search   web      Search the web for a query and return the top results.',
    ]);
  });

  it('never writes ANSI codes to a pipe, even from a hostile description', async () => {
    const run = await runCli(['list']);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stderr).not.toContain('\u001b');
  });

  it('prints {"tools": [...]} with --json', async () => {
    const run = await runCli(['list', '--json']);
    expect(run.exitCode).toBe(0);
    const parsed = JSON.parse(run.stdout) as { tools: Array<Record<string, unknown>> };
    expect(parsed.tools.map((tool) => tool.name)).toEqual([
      'add_numbers',
      'banner',
      'echo',
      'explode',
      'sleep',
      'web_search',
    ]);
    expect(parsed.tools[0]).toEqual({
      name: 'add_numbers',
      title: 'Add Numbers',
      category: 'math',
      description: 'Add two numbers and return their sum. Works with integers and decimals.',
      tags: ['arithmetic', 'numbers'],
    });
    expect(parsed.tools[2]).toMatchObject({ name: 'echo', title: null, tags: [] });
    expect(parsed.tools[1]?.description).toBe('Shows a \u001b[31mred\u001b[0m banner. Then resets the colours.');
    expect(run.stdout).not.toContain('\u001b');
  });

  it('loads a single definition file and several --tools paths', async () => {
    const single = await runCli(['list', '--tools', 'tools/echo.yaml']);
    expect(single.exitCode).toBe(0);
    expect(lines(single.stdout)).toEqual(['echo  text  Repeat the text back.']);

    const several = await runCli(['list', '--tools', 'tools/echo.yaml', '--tools', 'tools/add_numbers.yaml', '--json']);
    expect(several.exitCode).toBe(0);
    expect((JSON.parse(several.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'add_numbers',
      'echo',
    ]);
  });

  it('loads the same path given twice once', async () => {
    const run = await runCli(['list', '--tools', 'tools', '--tools', './tools/']);
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toHaveLength(6);
  });

  it('lists the built-in tools with no configuration, no --tools and no ./tools folder, saying so', async () => {
    const run = await runCli(['list'], { cwd: empty });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe(
      `note: no configuration or --tools: using the built-in tools; the file tools work in ${empty}.\n`,
    );
    // The same built-ins a workspace of `toolshed serve` has (test/cli/serve.test.ts compares them).
    expect(lines(run.stdout).map((line) => line.split(/\s+/)[0])).toEqual(BUILTIN_NAMES);
  });

  it('prints the built-ins with --json too, the note on stderr only', async () => {
    const run = await runCli(['list', '--json'], { cwd: empty });
    expect(run.exitCode).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(
      BUILTIN_NAMES,
    );
  });

  it('calls the email tools without a configuration, over the corpus of the service database, creating no file', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'toolshed-cli-emails-'));
    try {
      const env = { TOOLSHED_DATABASE_URL: join(folder, 'mail.db') };
      const before = await runCli(['call', 'email_inboxes'], { cwd: empty, env });
      expect(before).toMatchObject({ exitCode: 0, stdout: '{"inboxes":[],"total":0}\n' });
      expect(await readdir(folder)).toEqual([]);
      const generated = await runCli(
        ['emails', 'generate', '--count', '20', '--inboxes', '2', '--db', env.TOOLSHED_DATABASE_URL],
        { cwd: empty },
      );
      expect(generated.exitCode).toBe(0);
      const after = await runCli(['call', 'email_inboxes'], { cwd: empty, env });
      expect(after.exitCode).toBe(0);
      expect(JSON.parse(after.stdout)).toMatchObject({ total: 2 });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('describes and calls a built-in without a configuration, its file tools rooted at the working folder', async () => {
    const described = await runCli(['describe', 'read_file'], { cwd: empty });
    expect(described.exitCode).toBe(0);
    expect(lines(described.stdout)[0]).toMatch(/^read_file\b/);
    await writeFile(join(empty, 'hello.txt'), 'hi there\n');
    const read = await runCli(['call', 'read_file', '--args', '{"path":"hello.txt"}', '--json'], { cwd: empty });
    expect(read.exitCode).toBe(0);
    expect(JSON.stringify(JSON.parse(read.stdout))).toContain('hi there');
  });

  it('prints the friendly line for a --tools folder without definitions', async () => {
    const run = await runCli(['list', '--tools', empty]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(`${NO_TOOLS}\n`);
  });
});
