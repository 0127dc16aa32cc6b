import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const BAD_KEY =
  "broken/bad.yaml:8:1: unknown key 'timout' (did you mean 'timeout'?); allowed keys: name, title, description, when_to_use, category, tags, parameters, input_examples, output_schema, handler, timeout, async, annotations, execution, requires, max_output_chars, extra_args, reset_on_progress, max_total, max_concurrency, requires_approval, cli, metadata";

describe('toolshed: tools that fail to load (exit 1)', () => {
  it.each([['list'], ['describe', 'good_tool'], ['call', 'good_tool']])(
    '%s reports every failing file of a folder with file:line:col',
    async (...args) => {
      const run = await runCli([...args, '--tools', 'broken']);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(lines(run.stderr)).toEqual([
        "1 of 2 tool definition files in 'broken' failed to load; nothing was registered:",
        `  ${BAD_KEY}`,
      ]);
    },
  );

  it('reports a broken definition file given directly', async () => {
    const run = await runCli(['list', '--tools', 'broken/bad.yaml']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([BAD_KEY]);
  });

  it('reports a YAML syntax error with the file', async () => {
    // Written at test time: a committed broken YAML file would fail the formatter's parse.
    const cwd = await mkdtemp(join(tmpdir(), 'toolshed-cli-syntax-'));
    try {
      await mkdir(join(cwd, 'broken-syntax'));
      await writeFile(
        join(cwd, 'broken-syntax', 'bad.yaml'),
        'name: bad_tool\ndescription: Broken.\nparameters:\n  type: object\n  properties: {a: [1, 2}\nhandler: ./x.js#x\n',
      );
      const run = await runCli(['list', '--tools', 'broken-syntax'], { cwd });
      expect(run.exitCode).toBe(1);
      const [summary, detail] = lines(run.stderr);
      expect(summary).toBe("1 of 1 tool definition file in 'broken-syntax' failed to load; nothing was registered:");
      // The position is optional here: definitions/load-yaml.ts drops it for syntax errors today.
      expect(detail).toMatch(
        /^ {2}broken-syntax\/bad\.yaml(:\d+:\d+)?: YAML syntax error: Flow sequence in block collection/,
      );
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('reports a handler module that does not exist', async () => {
    const run = await runCli(['list', '--tools', 'broken-handler']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)[1]).toBe(
      `  broken-handler/missing.yaml:4:1: handler module '../handlers/nope.js' not found (looked for ${join(FIXTURES, 'handlers', 'nope.js')}).`,
    );
  });

  it('reports a tool defined twice across --tools paths', async () => {
    const run = await runCli(['list', '--tools', 'tools', '--tools', 'broken/good.yaml', '--tools', 'tools/echo.yaml']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "tools/echo.yaml: tool 'echo' is defined twice: an earlier --tools path defines it too; load each definition once, or rename one of the tools.",
    ]);
  });

  it('reports a --tools definition of a name the configuration has, in words a CLI user can act on', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'toolshed-cli-twice-'));
    try {
      await writeFile(join(cwd, 'toolshed.yaml'), 'builtins: [calculator]\n');
      await writeFile(
        join(cwd, 'calculator.yaml'),
        `name: calculator\ndescription: Repeat the text back.\nparameters:\n  type: object\n  properties: {text: {type: string}}\nhandler: ${join(FIXTURES, 'handlers', 'handlers.js')}#echo\n`,
      );
      const run = await runCli(['list', '--tools', 'calculator.yaml'], { cwd });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(lines(run.stderr)).toEqual([
        "calculator.yaml: tool 'calculator' is defined twice: toolshed.yaml defines it too; load each definition once, or rename one of the tools.",
      ]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('reports a broken default ./tools folder the same way', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'toolshed-cli-default-'));
    try {
      await mkdir(join(cwd, 'tools'));
      await copyFile(join(FIXTURES, 'broken', 'bad.yaml'), join(cwd, 'tools', 'bad.yaml'));
      const run = await runCli(['list'], { cwd });
      expect(run.exitCode).toBe(1);
      expect(lines(run.stderr)).toEqual([
        "1 of 1 tool definition file in 'tools' failed to load; nothing was registered:",
        `  ${BAD_KEY.replace('broken/', 'tools/')}`,
      ]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it.each([['list'], ['describe', 'echo'], ['call', 'echo']])(
    '%s fails with one line for a --tools path that does not exist',
    async (...args) => {
      const run = await runCli([...args, '--tools', 'no/such/folder']);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(lines(run.stderr)).toEqual([
        "error: --tools path 'no/such/folder' does not exist; pass a YAML definition file or a folder of *.yaml files.",
      ]);
    },
  );

  it('never prints a stack trace for these errors', async () => {
    for (const args of [
      ['list', '--tools', 'broken'],
      ['list', '--tools', 'nope'],
      ['describe', 'nope'],
    ]) {
      const run = await runCli(args);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
