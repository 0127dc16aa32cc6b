import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const SOURCE = `/**
 * Add two numbers and return their sum.
 * @tool
 * @param a The first addend
 * @param b The second addend
 */
export function addNumbers(a: number, b: number): number {
  return a + b;
}
`;

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'toolshed-cli-extract-'));
  await writeFile(join(cwd, 'tools.ts'), SOURCE);
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('toolshed extract', () => {
  it('writes the definitions of the @tool functions, then --check finds them up to date', async () => {
    const run = await runCli(['extract', 'tools.ts'], { cwd });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('Extracted 1 tool from tools.ts into tools: 2 written, 0 unchanged.\n');
    expect((await readdir(join(cwd, 'tools'))).sort()).toEqual(['add_numbers.yaml', 'tools.handlers.mjs']);
    expect(await readFile(join(cwd, 'tools', 'add_numbers.yaml'), 'utf8')).toContain(
      'description: Add two numbers and return their sum.',
    );

    const check = await runCli(['extract', 'tools.ts', '--check'], { cwd });
    expect(check.exitCode).toBe(0);
    expect(check.stdout).toBe('tools is up to date with tools.ts (1 tool).\n');
  });

  it('writes to --out and lists the tools with --json', async () => {
    const run = await runCli(['extract', 'tools.ts', '--out', 'generated', '--module', 'tools.js', '--json'], { cwd });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      tools: ['add_numbers'],
      written: expect.arrayContaining([expect.stringMatching(/add_numbers\.yaml$/)]),
      removed: [],
      drift: { missing: expect.any(Array), extra: [], changed: [], clean: false },
    });
  });

  it('reports drift on stderr and exits 1 with --check', async () => {
    await runCli(['extract', 'tools.ts'], { cwd });
    await writeFile(join(cwd, 'tools.ts'), SOURCE.replace('return their sum', 'return the sum'));
    const run = await runCli(['extract', 'tools.ts', '--check'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    const report = lines(run.stderr);
    expect(report[0]).toBe('tools has drifted from tools.ts:');
    expect(report).toContain('-description: Add two numbers and return their sum.');
    expect(report).toContain('+description: Add two numbers and return the sum.');
    expect(report.at(-1)).toBe('Run `toolshed extract tools.ts --out tools` to update it.');
  });

  it('fails on a missing file (exit 1)', async () => {
    const run = await runCli(['extract', 'nope.ts'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual(["Cannot extract tools from 'nope.ts': file not found."]);
  });

  it('fails on a file without @tool functions (exit 1)', async () => {
    await writeFile(join(cwd, 'plain.ts'), 'export const answer = 42;\n');
    const run = await runCli(['extract', 'plain.ts'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "plain.ts: no exported function is tagged @tool; tag each tool's JSDoc with @tool (functions the module does not export are ignored).",
    ]);
  });

  it('needs a file (exit 2)', async () => {
    const run = await runCli(['extract'], { cwd });
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: missing required argument 'file'");
  });
});
