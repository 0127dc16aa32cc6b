import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

describe('toolshed usage errors (exit 2)', () => {
  it('prints the help on stderr and exits 2 when no verb is given', async () => {
    const run = await runCli([]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)[0]).toBe('Usage: toolshed [options] [command]');
  });

  it('rejects an unknown verb with the closest verb', async () => {
    const run = await runCli(['lst']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      "error: unknown command 'lst'",
      '(Did you mean list?)',
      "Run 'toolshed --help' for usage.",
    ]);
  });

  it.each(['describe', 'call'])('rejects %s without a tool name', async (verb) => {
    const run = await runCli([verb]);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "error: missing required argument 'tool'",
      `Run 'toolshed ${verb} --help' for usage.`,
    ]);
  });

  it('rejects an unknown flag', async () => {
    const run = await runCli(['list', '--bogus']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual(["error: unknown option '--bogus'", "Run 'toolshed list --help' for usage."]);
  });

  it('suggests the flag that was probably meant', async () => {
    const run = await runCli(['list', '--jsn']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "error: unknown option '--jsn'",
      '(Did you mean --json?)',
      "Run 'toolshed list --help' for usage.",
    ]);
  });

  it.each([
    [['list', '--json=true'], '--json', 'true', 'list'],
    [['export', '--format', 'openai', '--strict=false'], '--strict', 'false', 'export'],
    [['workspace', 'create', 'Acme', '--json=1'], '--json', '1', 'workspace create'],
  ])('says that a switch takes no value: %j', async (args, flag, value, verb) => {
    const run = await runCli(args);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      `error: option '${flag}' takes no value: give '${flag}' alone, without '=${value}'.`,
      `Run 'toolshed ${verb} --help' for usage.`,
    ]);
  });

  it('shows control characters of the value given to a switch as escapes', async () => {
    const run = await runCli(['list', '--json=\u001b[31mred\u0007']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe(
      "error: option '--json' takes no value: give '--json' alone, without '=\\u001b[31mred\\u0007'.",
    );
  });

  it('keeps calling a flag unknown when its name is not a switch of the verb', async () => {
    // --json is a switch of list, not of mcp.
    const run = await runCli(['mcp', '--json=true']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: unknown option '--json=true'");
  });

  it('rejects --tools without a path', async () => {
    const run = await runCli(['list', '--tools']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: option '--tools <path>' argument missing");
  });

  it.each([
    [['docs', '--out', ''], '--out <dir>', 'folder', 'docs'],
    [['docs', '--env-example', ' '], '--env-example <file>', 'file', 'docs'],
    [['list', '--config', ''], '--config <file>', 'file', 'list'],
    [['list', '--tools', ''], '--tools <path>', 'path', 'list'],
    [['extract', 'tools.ts', '--out', ''], '--out <dir>', 'folder', 'extract'],
    [['emails', 'generate', '--out', ''], '--out <path>', 'file', 'emails generate'],
    [['validate', '--config', ''], '--config <file>', 'file', 'validate'],
  ])('refuses an empty path for %j, writing nothing', async (args, flag, what, verb) => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-empty-path-'));
    try {
      writeFileSync(join(folder, 'README.md'), 'my project\n');
      const run = await runCli(args, { cwd: folder });
      expect(run.exitCode).toBe(2);
      expect(lines(run.stderr)).toEqual([
        `error: option '${flag}' argument '${args.at(-1)}' is invalid. Give a ${what}; an empty value names none.`,
        `Run 'toolshed ${verb} --help' for usage.`,
      ]);
      expect(readdirSync(folder)).toEqual(['README.md']);
      expect(readFileSync(join(folder, 'README.md'), 'utf8')).toBe('my project\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.each(['0', '10000001', '99999999999999', 'many'])('refuses emails generate --count %s', async (count) => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-count-'));
    try {
      const run = await runCli(['emails', 'generate', '--count', count, '--out', 'o.jsonl'], { cwd: folder });
      expect(run.exitCode).toBe(2);
      expect(lines(run.stderr)[0]).toBe(
        `error: option '--count <n>' argument '${count}' is invalid. ${
          /^\d+$/.test(count) && Number(count) >= 1
            ? 'Use a whole number from 1 to 10000000 (about 7 GB of JSONL).'
            : 'Use a whole number of at least 1.'
        }`,
      );
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('rejects a second tool name', async () => {
    const run = await runCli(['describe', 'echo', 'add_numbers']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: too many arguments for 'describe'. Expected 1 argument but got 2.");
  });

  it.each(['abc', '0', '-5', '1.5', '99999999999'])('rejects --timeout %s', async (value) => {
    const run = await runCli(['call', 'echo', '--timeout', value]);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: option '--timeout <ms>' argument '${value}' is invalid. Use a whole number of milliseconds from 1 to 2147483647.`,
      "Run 'toolshed call --help' for usage.",
    ]);
  });
});

describe('toolshed --help', () => {
  it('describes every verb and the exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^ {2}list \[options\]/m);
    expect(run.stdout).toMatch(/^ {2}describe \[options\] <tool>/m);
    expect(run.stdout).toMatch(/^ {2}call \[options\] <tool>/m);
    expect(run.stdout).toContain('Exit codes: 0 ok; 1 failure');
  });

  it.each([
    ['list', 'Usage: toolshed list [options]'],
    ['describe', 'Usage: toolshed describe [options] <tool>'],
    ['call', 'Usage: toolshed call [options] <tool>'],
  ])('gives %s its own help with --tools and --json', async (verb, usage) => {
    for (const args of [
      [verb, '--help'],
      ['help', verb],
    ]) {
      const run = await runCli(args);
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe('');
      expect(lines(run.stdout)[0]).toBe(usage);
      expect(run.stdout).toContain('--tools <path>');
      expect(run.stdout).toContain('--json');
      expect(run.stdout).toContain('Examples:');
    }
  });

  it.each([
    ['search', 'Usage: toolshed search [options] <query>', ['--config <file>', '--agent <id>', '--json']],
    ['validate', 'Usage: toolshed validate [options] [file]', ['--config <file>', '--json']],
    ['export', 'Usage: toolshed export [options]', ['--format <format>', '--strict', '--agent <id>', '--json']],
    ['prompt', 'Usage: toolshed prompt [options]', ['--cli', '--agent <id>']],
    ['docs', 'Usage: toolshed docs [options]', ['--out <dir>', '--env-example <file>', '--check', '--json']],
    ['mcp', 'Usage: toolshed mcp [options]', ['--config <file>', '--tools <path>', '--agent <id>']],
    ['serve', 'Usage: toolshed serve [options]', ['--host <host>', '--port <port>', '--agent <id>']],
    ['extract', 'Usage: toolshed extract [options] <file>', ['--out <dir>', '--check', '--module <file>', '--json']],
  ])('gives %s its own help', async (verb, usage, flags) => {
    const run = await runCli([verb, '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(lines(run.stdout)[0]).toBe(usage);
    for (const flag of flags) expect(run.stdout).toContain(flag);
    expect(run.stdout).toContain('Examples:');
  });

  it('lists every verb in the top-level help', async () => {
    const run = await runCli(['--help']);
    for (const verb of [
      'list',
      'describe',
      'call',
      'search',
      'validate',
      'export',
      'prompt',
      'docs',
      'mcp',
      'serve',
      'extract',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^ {2}${verb} \\[options\\]`, 'm'));
    }
  });

  it('shows --help without loading tools, even when ./tools is broken', async () => {
    const run = await runCli(['list', '--help'], { cwd: join(FIXTURES, 'broken') });
    expect(run.exitCode).toBe(0);
  });

  it('prints the package version', async () => {
    const manifest = JSON.parse(readFileSync(join(FIXTURES, '..', '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const run = await runCli(['--version']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(`${manifest.version}\n`);
  });
});
