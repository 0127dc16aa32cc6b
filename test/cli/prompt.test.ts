import { beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/create-builtins.js';
import { cliDecisionGaps } from '../../src/exporters/prompt-docs/cli-decision-gaps.js';
import { READ_TOOL_OUTPUT } from '../../src/registry/read-tool-output.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { createSearchToolsTool } from '../../src/search/search-tools-tool.js';
import { assertBuilt, FIXTURES, lines, ROOT, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const CONFIG = ['--config', 'examples/toolshed.yaml'];

describe('toolshed prompt', () => {
  it('prints the system-prompt block of the example configuration', async () => {
    const run = await runCli(['prompt', ...CONFIG], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    await expect(run.stdout).toMatchFileSnapshot('./__snapshots__/prompt.md.snap');
  });

  it('appends the command-line keywords with --cli', async () => {
    const run = await runCli(['prompt', ...CONFIG, '--cli'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    await expect(run.stdout).toMatchFileSnapshot('./__snapshots__/prompt-cli.md.snap');
  });

  it("starts with the agent's prompt and covers only its tools with --agent", async () => {
    const run = await runCli(['prompt', ...CONFIG, '--agent', 'assistant', '--cli'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    await expect(run.stdout).toMatchFileSnapshot('./__snapshots__/prompt-agent-cli.md.snap');
    expect(lines(run.stdout)[0]).toBe(
      'You help with the notes and code in the workspace. Read a file before you answer about it, and use the calculator for arithmetic.',
    );
    expect(run.stdout).not.toContain('fetch_url');
  });

  it('has no --json: its output is text for a model', async () => {
    const run = await runCli(['prompt', '--json']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: unknown option '--json'");
  });
});

describe('CLI decisions (drift test)', () => {
  const registry = new ToolRegistry({ maxOutputChars: 1000 });
  registry.registerAll(createBuiltins());
  registry.register(createSearchToolsTool(registry));
  const specs = registry.tools();

  it('covers every built-in, search_tools and read_tool_output', () => {
    expect(registry.list()).toEqual(
      expect.arrayContaining([...createBuiltins().map((spec) => spec.name), 'search_tools', READ_TOOL_OUTPUT]),
    );
    expect(specs).toHaveLength(createBuiltins().length + 2);
  });

  it('gives every one of them a CLI decision (a keyword or null)', () => {
    expect(cliDecisionGaps(specs)).toEqual([]);
  });

  it('shows every keyword in `toolshed prompt --cli`', async () => {
    const run = await runCli(['prompt', '--cli', '--config', 'toolshed.yaml'], { cwd: `${FIXTURES}/all-builtins` });
    expect(run.exitCode).toBe(0);
    const block = run.stdout.slice(run.stdout.indexOf('### Command line'));
    for (const spec of specs) {
      if (typeof spec.cli === 'string') expect(block).toContain(`- \`${spec.cli}\` — ${spec.name}\n`);
      else expect(block).toContain(`- ${spec.name} — not exposed via CLI\n`);
    }
    expect(block).not.toContain('no CLI decision yet');
  });
});
