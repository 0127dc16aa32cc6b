import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const NO_CONFIGURATION =
  'No configuration was loaded: pass --config FILE (a toolshed.yaml) or --tools PATH, or create ./toolshed.yaml.';
// Without a configuration, a name that is not found also says how to load one.
const AVAILABLE = `Available tools: add_numbers, banner, echo, explode, sleep, web_search. ${NO_CONFIGURATION}`;

describe('toolshed describe', () => {
  it('shows title, description, when-to-use, facts, parameters, requirements and annotations', async () => {
    const run = await runCli(['describe', 'add_numbers']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(lines(run.stdout)).toEqual([
      'add_numbers — Add Numbers',
      '',
      '  Add two numbers and return their sum. Works with integers and decimals.',
      '',
      'When to use:',
      '  When the user asks for the sum of exactly two numbers.',
      '',
      'Category:  math',
      'Tags:      arithmetic, numbers',
      'Timeout:   5 s',
      '',
      'Parameters:',
      '  NAME  TYPE    REQUIRED  DEFAULT  DESCRIPTION',
      '  a     number  yes       -        The first addend',
      '  b     number  yes       -        The second addend',
      '',
      'Requirements:',
      '  (none)',
      '',
      'Annotations:',
      '  read-only    yes',
      '  destructive  no (default)',
      '  idempotent   yes',
      '  open-world   no',
    ]);
  });

  it('shows enum, array and default types, and whether each required variable is set', async () => {
    const unset = await runCli(['describe', 'web_search']);
    expect(unset.exitCode).toBe(0);
    const output = lines(unset.stdout);
    expect(output).toContain('Timeout:   30 s (registry default)');
    expect(output).toContain('  order  "relevance" | "date"  no        "relevance"');
    expect(output).toContain('  sites  string[]              no        -            Only these sites');
    expect(output).toContain(
      '  TOOLSHED_FIXTURE_API_KEY  not set  API key of the search service — https://example.com/keys',
    );

    const set = await runCli(['describe', 'web_search'], { env: { TOOLSHED_FIXTURE_API_KEY: 'secret-value-123' } });
    expect(lines(set.stdout)).toContain(
      '  TOOLSHED_FIXTURE_API_KEY  set     API key of the search service — https://example.com/keys',
    );
    expect(set.stdout).not.toContain('secret-value-123');
  });

  it('prints the full definition without the handler with --json', async () => {
    const run = await runCli(['describe', 'add_numbers', '--json']);
    expect(run.exitCode).toBe(0);
    const definition = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(definition).not.toHaveProperty('handler');
    expect(definition).toMatchObject({
      name: 'add_numbers',
      title: 'Add Numbers',
      whenToUse: 'When the user asks for the sum of exactly two numbers.',
      category: 'math',
      tags: ['arithmetic', 'numbers'],
      timeoutMs: 5000,
      annotations: { readOnly: true, idempotent: true, openWorld: false },
      inputSchema: { type: 'object', required: ['a', 'b'] },
    });
  });

  it('keeps hostile text out of the terminal but exact in --json', async () => {
    const human = await runCli(['describe', 'banner']);
    expect(human.stdout).not.toContain('\u001b');
    expect(lines(human.stdout)[2]).toBe('  Shows a \\u001b[31mred\\u001b[0m banner. Then resets the colours.');
    const json = await runCli(['describe', 'banner', '--json']);
    expect((JSON.parse(json.stdout) as { description: string }).description).toBe(
      'Shows a \u001b[31mred\u001b[0m banner. Then resets the colours.',
    );
  });

  it('fails with TOOL_NOT_FOUND and the closest names for an unknown tool', async () => {
    const run = await runCli(['describe', 'ad_numbers']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([`Tool 'ad_numbers' not found. Did you mean 'add_numbers'? ${AVAILABLE}`]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'treats the hostile name %s as just an unknown tool',
    async (name) => {
      const run = await runCli(['describe', name]);
      expect(run.exitCode).toBe(1);
      expect(lines(run.stderr)).toEqual([`Tool '${name}' not found. ${AVAILABLE}`]);
    },
  );

  it('shortens a 10 000-character name in the message', async () => {
    const run = await runCli(['describe', 'x'.repeat(10_000)]);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([`Tool '${'x'.repeat(77)}...' not found. ${AVAILABLE}`]);
  });

  it('sees only the tools of the --tools paths given', async () => {
    const run = await runCli(['describe', 'echo', '--tools', 'tools/add_numbers.yaml']);
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([`Tool 'echo' not found. Available tools: add_numbers. ${NO_CONFIGURATION}`]);
  });
});
