import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cliEnv, ROOT } from './run-cli.js';

// docs/cli.md, "Start-up time": `--help` and usage errors load commander and the CLI's own small
// modules, never the configuration loader, the registry, the YAML parser, Ajv, the store or the MCP SDK.

beforeAll(assertBuilt);

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-start-up-'));
  // A module loader hook that names every module the process loads, on stderr.
  writeFileSync(
    join(folder, 'hook.mjs'),
    "export async function load(url, context, next) {\n  process.stderr.write('LOADED ' + url + '\\n');\n  return next(url, context);\n}\n",
  );
  writeFileSync(
    join(folder, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(folder, 'hook.mjs')).href)});\n`,
  );
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The modules a CLI run loaded besides Node's own, as paths from the repository root. */
function modulesLoaded(args: string[]): { status: number | null; modules: string[] } {
  const run = spawnSync(process.execPath, ['--import', join(folder, 'register.mjs'), BIN, ...args], {
    cwd: folder,
    env: cliEnv(),
    encoding: 'utf8',
  });
  const modules = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED file:'))
    .map((line) => relative(ROOT, new URL(line.slice('LOADED '.length)).pathname));
  return { status: run.status, modules };
}

describe('toolshed start-up', () => {
  it.each([
    [['--help'], 0],
    [['list', '--bogus'], 2],
    [['serve', '--port', 'none'], 2],
  ])('%j loads commander and small modules only', (args, status) => {
    const run = modulesLoaded(args);
    expect(run.status).toBe(status);
    expect(run.modules).toContain('bin/toolshed.js');
    expect(
      run.modules.filter((path) => path.startsWith('node_modules/') && !path.startsWith('node_modules/commander/')),
    ).toEqual([]);
    const heavy =
      /^dist\/(config\/(validate-config|load-config)|registry\/tool-registry|definitions|mcp|store\/index|sandbox|server\/create-server)/;
    expect(run.modules.filter((path) => heavy.test(path))).toEqual([]);
  });
});
