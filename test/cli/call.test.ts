import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const NO_CONFIGURATION =
  'No configuration was loaded: pass --config FILE (a toolshed.yaml) or --tools PATH, or create ./toolshed.yaml.';
// Without a configuration, a name that is not found also says how to load one.
const AVAILABLE = `Available tools: add_numbers, banner, echo, explode, sleep, web_search. ${NO_CONFIGURATION}`;
const JSON_HINT = 'Hint: Send the arguments as one JSON object, such as {"name": "value"}.';
const ONE_MEGABYTE = 1024 * 1024;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'toolshed-cli-call-'));
  await writeFile(join(scratch, 'args.json'), '\uFEFF{"a": 2, "b": 40}\n');
  await writeFile(join(scratch, 'big.json'), `{"text": "${'x'.repeat(ONE_MEGABYTE - 12)}"}`);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface ResultJson {
  status: string;
  data?: unknown;
  error?: { code: string; message: string; retryable: boolean; details?: unknown };
  metadata: { tool: string; durationMs: number };
}

describe('toolshed call: success', () => {
  it('prints what a model would read on stdout and exits 0', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": 1, "b": 2}']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('{"sum":3}\n');
    expect(run.stderr).toBe('');
  });

  it('keeps stdout to the output and says on stderr which arguments the tool ignored', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": 1, "b": 2, "c": 3}']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('{"sum":3}\n');
    expect(run.stderr).toBe("Note: the argument 'c' was ignored: 'add_numbers' does not take it.\n");
  });

  it('prints a string result as is', async () => {
    const run = await runCli(['call', 'echo', '--args', '{"text": "hi", "repeat": 3}']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('hi hi hi\n');
  });

  it('prints the whole ToolResult with --json', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": 1, "b": 2}', '--json']);
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout) as ResultJson;
    expect(result).toMatchObject({ status: 'success', data: { sum: 3 }, metadata: { tool: 'add_numbers' } });
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reads --args @file (a byte-order mark is ignored)', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', `@${join(scratch, 'args.json')}`]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('{"sum":42}\n');
  });

  it('reads --args - from stdin', async () => {
    const run = await runCli(['call', 'echo', '--args', '-'], { input: '{"text": "from stdin"}' });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('from stdin\n');
  });

  it('calls with no arguments when --args is left out', async () => {
    const run = await runCli(['call', 'banner']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('plain banner\n');
  });
});

describe('toolshed call: tool-level failures (exit 1)', () => {
  it('answers bad JSON with INVALID_ARGUMENTS quoting the position', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": 1, "b": }']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      "Error [INVALID_ARGUMENTS]: Arguments for 'add_numbers' are not valid JSON: unexpected '}' at position 14 (line 1, column 15).",
      JSON_HINT,
    ]);
  });

  it('puts the INVALID_ARGUMENTS result on stdout with --json', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": 1,', '--json']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as ResultJson;
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { position: 8, line: 1, column: 9 } });
  });

  it('refuses a JSON array', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '[1, 2]']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "Error [INVALID_ARGUMENTS]: Arguments for 'add_numbers' must be a JSON object, got a list of 2 items.",
      JSON_HINT,
    ]);
  });

  it('refuses arguments that break the schema', async () => {
    const run = await runCli(['call', 'add_numbers', '--args', '{"a": "one", "b": 2}']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)[0]).toMatch(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for 'add_numbers': .*'a'/);
  });

  it('refuses 1 MB of --args from a file before parsing it', async () => {
    const run = await runCli(['call', 'echo', '--args', `@${join(scratch, 'big.json')}`]);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `Error [INVALID_ARGUMENTS]: Arguments for 'echo' (--args @${join(scratch, 'big.json')}) are ${ONE_MEGABYTE} bytes, more than the 1000000 bytes the CLI accepts.`,
      'Hint: Pass a smaller JSON object; put large content in a file the tool reads by path.',
    ]);
  });

  it('refuses 1 MB of --args from stdin', async () => {
    const run = await runCli(['call', 'echo', '--args', '-'], { input: `{"text": "${'x'.repeat(ONE_MEGABYTE)}"}` });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "Error [INVALID_ARGUMENTS]: Arguments for 'echo' (--args -) are more than the 1000000 bytes the CLI accepts.",
      'Hint: Pass a smaller JSON object; put large content in a file the tool reads by path.',
    ]);
  });

  it('reports a handler that throws as EXECUTION_FAILED, without a stack', async () => {
    const run = await runCli(['call', 'explode']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "Error [EXECUTION_FAILED]: Tool 'explode' failed: TypeError: the fixture handler failed on purpose",
    ]);
  });

  it('times out after --timeout milliseconds', async () => {
    const run = await runCli(['call', 'sleep', '--args', '{"ms": 5000}', '--timeout', '100']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "Error [TIMEOUT]: Tool 'sleep' timed out after 100 ms.",
      'Hint: Try again, or ask for less work in one call.',
    ]);
  });

  it('cancels the call on Ctrl-C', async () => {
    const run = await runCli(['call', 'sleep', '--args', '{"ms": 20000, "announce": true}'], {
      onStderr: (chunk, child) => {
        if (chunk.includes('sleep: started')) child.kill('SIGINT');
      },
    });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual(['sleep: started', "Error [CANCELLED]: The call to 'sleep' was cancelled."]);
  });

  it('names the missing environment variable and where to get it', async () => {
    const run = await runCli(['call', 'web_search', '--args', '{"query": "toolshed"}']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)[0]).toBe(
      "Error [MISSING_CREDENTIALS]: Tool 'web_search' needs the environment variable TOOLSHED_FIXTURE_API_KEY (API key of the search service), which is not set.",
    );
    const withKey = await runCli(['call', 'web_search', '--args', '{"query": "toolshed"}'], {
      env: { TOOLSHED_FIXTURE_API_KEY: 'k' },
    });
    expect(withKey.exitCode).toBe(0);
    expect(withKey.stdout).toBe('{"query":"toolshed","key_present":true}\n');
  });

  it('answers an unknown tool with TOOL_NOT_FOUND and the closest names', async () => {
    const run = await runCli(['call', 'ech', '--args', '{}']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `Error [TOOL_NOT_FOUND]: Tool 'ech' not found. Did you mean 'echo'? ${AVAILABLE}`,
      'Hint: Call one of the available tools by its exact name.',
    ]);
  });

  it.each(['__proto__', 'constructor', 'toString'])(
    'treats the hostile name %s as just an unknown tool',
    async (name) => {
      const run = await runCli(['call', name, '--json']);
      expect(run.exitCode).toBe(1);
      const result = JSON.parse(run.stdout) as ResultJson;
      expect(result.error?.code).toBe('TOOL_NOT_FOUND');
      expect(result.error?.message).toBe(`Tool '${name}' not found. ${AVAILABLE}`);
    },
  );

  it('shortens a 10 000-character tool name in the message', async () => {
    const run = await runCli(['call', 'x'.repeat(10_000)]);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)[0]).toBe(`Error [TOOL_NOT_FOUND]: Tool '${'x'.repeat(77)}...' not found. ${AVAILABLE}`);
  });

  it('fails with one line when an --args file does not exist', async () => {
    const run = await runCli(['call', 'echo', '--args', '@missing.json']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual(["error: --args file 'missing.json' does not exist."]);
  });
});

describe('toolshed call: --args over the input limits', () => {
  it('refuses --args nested deeper than the limit before parsing, naming the limit and the field', async () => {
    const deep = `{"text": ${'['.repeat(6_000)}"x"${']'.repeat(6_000)}}`;
    const run = await runCli(['call', 'echo', '--args', '-', '--json'], { input: deep });
    expect(run.exitCode).toBe(1);
    const result = JSON.parse(run.stdout) as ResultJson;
    expect(result.error?.code).toBe('INVALID_ARGUMENTS');
    expect(result.error?.message).toBe(
      "--args for 'echo' is nested more than 256 levels deep at 'text[0][0][0][0][0][0][0]…' (limit: depth 256).",
    );
    expect(result.error?.details).toEqual({ limit: 'depth', max: 256, path: 'text[0][0][0][0][0][0][0]…' });
  });

  it('refuses a duplicate key and a __proto__ key with messages that say so', async () => {
    const twice = await runCli(['call', 'echo', '--args', '{"text": "a", "text": "b"}', '--json']);
    expect((JSON.parse(twice.stdout) as { error: { message: string } }).error.message).toBe(
      "--args for 'echo' has the key 'text' twice; send each key once.",
    );
    const proto = await runCli(['call', 'echo', '--args', '{"text": "a", "__proto__": {"x": 1}}', '--json']);
    expect((JSON.parse(proto.stdout) as { error: { message: string } }).error.message).toBe(
      "--args for 'echo' has the key '__proto__', which is refused: it could change the prototype of an object it is copied into.",
    );
  });
});
