import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The modules each file of the bundle holds (written by scripts/bundle-cli.mjs), read once the build is checked. */
let bundled: Record<string, string[]>;
beforeAll(() => {
  bundled = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli-bundle', 'modules.json'), 'utf8')) as Record<
    string,
    string[]
  >;
});

/**
 * What a CLI run loaded besides Node's own modules, as paths from the repository root: `files` as
 * read from disk, `modules` with each file of the bundle followed by the modules it holds.
 */
function modulesLoaded(args: string[]): { status: number | null; files: string[]; modules: string[] } {
  const { status, files } = filesLoaded([BIN, ...args]);
  const modules = files.flatMap((path) => {
    if (!path.startsWith('dist/cli-bundle/')) return [path];
    const held = bundled[path.slice('dist/cli-bundle/'.length)];
    if (held === undefined) throw new Error(`${path} is not in dist/cli-bundle/modules.json`);
    return [path, ...held];
  });
  return { status, files, modules };
}

/** The files `node ...args` loaded besides Node's own modules, as paths from the repository root, and its stderr. */
function filesLoaded(args: string[]): { status: number | null; files: string[]; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', join(folder, 'register.mjs'), ...args], {
    cwd: folder,
    env: cliEnv(),
    encoding: 'utf8',
  });
  const files = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED file:'))
    .map((line) => relative(ROOT, new URL(line.slice('LOADED '.length)).pathname));
  return { status: run.status, files, stderr: run.stderr };
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
    expect(run.modules).toContain('dist/cli/main.js');
    expect(
      run.modules.filter((path) => path.startsWith('node_modules/') && !path.startsWith('node_modules/commander/')),
    ).toEqual([]);
    const heavy =
      /^dist\/(config\/(validate-config|load-config)|registry\/tool-registry|definitions|mcp|store\/index|sandbox|server\/create-server)/;
    expect(run.modules.filter((path) => heavy.test(path))).toEqual([]);
  });

  it('loads a few files of the bundle, not a module a file, for a verb that opens the database', () => {
    const run = modulesLoaded(['db', 'migrate']);
    expect(run.status).toBe(0);
    // The store and the built-ins it upserts: Kysely (262 modules), zod (about 100) and the project's own.
    expect(run.modules).toContain('node_modules/kysely/dist/esm/kysely.js');
    expect(run.modules).toContain('dist/store/create-store.js');
    expect(run.files.filter((path) => /^(dist\/(?!cli-bundle\/)|node_modules\/(kysely|zod)\/)/.test(path))).toEqual([]);
    expect(run.files.filter((path) => path.startsWith('dist/cli-bundle/')).length).toBeLessThan(40);
  });
});

describe('the server module', () => {
  it('loads jose (JWT checks) only when a token is checked, so a server without OAuth never loads it', () => {
    const script = [
      `const { createServer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'server', 'index.js')).href)});`,
      `const { createStore } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'store', 'index.js')).href)});`,
      "const store = await createStore(':memory:');",
      'await store.migrate();',
      'const server = createServer({ store, builtins: false, mcp: false, webCatalog: false });',
      'await server.ready();',
      'await server.close();',
      'await store.close();',
    ].join('\n');
    const run = filesLoaded(['--input-type=module', '-e', script]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.files).toContain('dist/server/oauth-tokens.js');
    expect(run.files.some((path) => path.startsWith('node_modules/fastify/'))).toBe(true);
    expect(run.files.filter((path) => path.startsWith('node_modules/jose/'))).toEqual([]);
  });
});
