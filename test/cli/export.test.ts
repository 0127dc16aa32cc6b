import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, ROOT, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const CONFIG = ['--config', 'examples/toolshed.yaml'];

describe('toolshed export', () => {
  it.each([
    ['openai', []],
    ['openai', ['--strict']],
    ['openai-responses', []],
    ['openai-responses', ['--strict']],
    ['anthropic', []],
    ['anthropic', ['--strict']],
    ['gemini', []],
    ['mcp', []],
  ])('prints the %s tool list %j of the example configuration', async (format, flags) => {
    const run = await runCli(['export', '--format', format, ...flags, ...CONFIG], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const name = `export-${format}${flags.length > 0 ? '-strict' : ''}.json.snap`;
    await expect(run.stdout).toMatchFileSnapshot(`./__snapshots__/${name}`);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    const warnings = lines(run.stderr);
    for (const warning of warnings) expect(warning).toMatch(/^warning: [a-z][a-z0-9_]*: \S/);
  });

  it('writes each export warning to stderr as warning: <tool>: <message>', async () => {
    const run = await runCli(['export', '--format', 'openai', '--strict', ...CONFIG, '--json'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const parsed = JSON.parse(run.stdout) as { tools: unknown[]; warnings: Array<{ tool: string; message: string }> };
    expect(parsed.tools.length).toBe(9);
    expect(lines(run.stderr)).toEqual([
      ...parsed.warnings.map((warning) => `warning: ${warning.tool}: ${warning.message}`),
    ]);
  });

  it("exports only the agent's tools with --agent", async () => {
    const run = await runCli(['export', '--format', 'anthropic', ...CONFIG, '--agent', 'assistant'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'list_files',
      'read_file',
      'read_tool_output',
      'search_code',
      'word_count',
    ]);
  });

  it('prints {"tools", "warnings"} with --json', async () => {
    const run = await runCli(['export', '--format', 'gemini', '--tools', 'tools', '--json']);
    expect(run.exitCode).toBe(0);
    const parsed = JSON.parse(run.stdout) as { tools: Array<{ functionDeclarations: unknown[] }>; warnings: unknown[] };
    expect(Object.keys(parsed)).toEqual(['tools', 'warnings']);
    expect(parsed.tools[0]?.functionDeclarations).toHaveLength(6);
  });

  it('rejects an unknown format, listing the formats (exit 2)', async () => {
    const run = await runCli(['export', '--format', 'claude']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      "error: option '--format <format>' argument 'claude' is invalid. Allowed choices are openai, openai-responses, anthropic, gemini, mcp.",
      "Run 'toolshed export --help' for usage.",
    ]);
  });

  it('needs --format (exit 2)', async () => {
    const run = await runCli(['export']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "error: required option '--format <format>' not specified",
      "Run 'toolshed export --help' for usage.",
    ]);
  });

  it('refuses --strict for a format without a strict mode (exit 2)', async () => {
    const run = await runCli(['export', '--format', 'gemini', '--strict']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "error: --strict applies to --format openai, openai-responses and anthropic only, not 'gemini'.",
    ]);
  });
});
