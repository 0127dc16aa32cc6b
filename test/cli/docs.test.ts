import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, EXAMPLES_CONFIG, lines, runCli } from './run-cli.js';

beforeAll(assertBuilt);

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'toolshed-cli-docs-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const CONFIG = ['--config', EXAMPLES_CONFIG];

describe('toolshed docs', () => {
  it('writes the catalog and .env.example of the example configuration', async () => {
    const run = await runCli(['docs', ...CONFIG], { cwd });
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)).toEqual(['Wrote docs/tools/README.md.', 'Wrote .env.example.']);
    await expect(await readFile(join(cwd, 'docs', 'tools', 'README.md'), 'utf8')).toMatchFileSnapshot(
      './__snapshots__/docs-README.md.snap',
    );
    await expect(await readFile(join(cwd, '.env.example'), 'utf8')).toMatchFileSnapshot(
      './__snapshots__/docs-env-example.snap',
    );
  });

  it('leaves files that are up to date alone, and --check passes', async () => {
    await runCli(['docs', ...CONFIG, '--out', 'catalog', '--env-example', 'env/.env.example'], { cwd });
    const again = await runCli(['docs', ...CONFIG, '--out', 'catalog', '--env-example', 'env/.env.example'], { cwd });
    expect(again.exitCode).toBe(0);
    expect(lines(again.stdout)).toEqual(['catalog/README.md is up to date.', 'env/.env.example is up to date.']);
    const check = await runCli(
      ['docs', ...CONFIG, '--out', 'catalog', '--env-example', 'env/.env.example', '--check', '--json'],
      { cwd },
    );
    expect(check.exitCode).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({
      files: [
        { path: 'catalog/README.md', status: 'unchanged' },
        { path: 'env/.env.example', status: 'unchanged' },
      ],
    });
  });

  it('fails --check when a file is missing or differs, naming the command that fixes it (exit 1)', async () => {
    await runCli(['docs', ...CONFIG], { cwd });
    await writeFile(join(cwd, '.env.example'), 'SERPER_API_KEY=\n');
    await rm(join(cwd, 'docs', 'tools', 'README.md'));
    const run = await runCli(['docs', ...CONFIG, '--check'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr).filter((line) => line.startsWith('error: '))).toEqual([
      `error: docs/tools/README.md does not exist; run 'toolshed docs --config ${EXAMPLES_CONFIG}' to update it.`,
      `error: .env.example is out of date with the tool definitions; run 'toolshed docs --config ${EXAMPLES_CONFIG}' to update it.`,
    ]);
    expect(await readFile(join(cwd, '.env.example'), 'utf8')).toBe('SERPER_API_KEY=\n');
  });

  it('writes a catalog without requirements when no tool needs a variable', async () => {
    const run = await runCli(['docs', '--tools', join(EXAMPLES_CONFIG, '..', 'tools')], { cwd });
    expect(run.exitCode).toBe(0);
    expect(await readFile(join(cwd, '.env.example'), 'utf8')).toContain('# No tool needs an environment variable.\n');
    const catalog = await readFile(join(cwd, 'docs', 'tools', 'README.md'), 'utf8');
    expect(catalog).toContain('## word_count');
    expect(catalog).toContain(`toolshed call word_count --args '{"text":"<text>"}'`);
  });

  it('writes nothing when one of its files is a folder (exit 1)', async () => {
    await mkdir(join(cwd, 'env-folder'));
    const run = await runCli(['docs', ...CONFIG, '--out', 'catalog', '--env-example', 'env-folder'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr).at(-1)).toBe("error: 'env-folder' is a folder, not a file.");
    expect(existsSync(join(cwd, 'catalog'))).toBe(false);
  });

  it('reports a folder it cannot write as one line (exit 1)', async () => {
    await writeFile(join(cwd, 'blocked'), 'a file, not a folder');
    const run = await runCli(['docs', ...CONFIG, '--out', 'blocked/docs'], { cwd });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr).at(-1)).toBe(
      "error: 'blocked/docs/README.md' cannot be written: a part of its path is a file, not a folder.",
    );
  });
});
