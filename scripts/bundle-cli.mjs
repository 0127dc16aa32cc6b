#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js and everything it imports, loaded at start or later)
// into dist/cli-bundle/, which bin/toolshed.js runs. Node 20 loads an ES module graph file by file:
// the CLI's own ~200 modules, Kysely's 262, zod's ~100 and the MCP SDK's cost a service verb more
// than half of its start, and mathjs's 1 036 (the calculator) cost `serve` 0.7 s. Bundled, they are
// a few files: each verb's dynamic imports stay chunks of their own, so `--help` still loads none
// of the store, the registry or the MCP SDK (test/cli/start-up.test.ts reads modules.json, written
// here, to check it module by module).
//
// Inlined: the project's modules and the packages below. Everything else (Fastify, pino and the other
// CommonJS servers and loggers, native addons, packages that find files beside their own) stays an
// import of node_modules, resolved from dist/cli-bundle/ exactly as from dist/cli/.
//
// A module that locates a file from its own place (`new URL('../../package.json', import.meta.url)`,
// the sandbox's child scripts) keeps working: its `import.meta.url` is rewritten to the URL of the
// module it was compiled to, so the bundle resolves every such path as the unbundled module did.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const input = join(root, 'dist', 'cli', 'main.js');
const outDir = join(root, 'dist', 'cli-bundle');

/** Packages bundled into the CLI: no native addon, no worker script, no file of their own read at run time. */
const INLINED = new Set([
  'commander',
  'kysely',
  'mathjs',
  'yaml',
  'zod',
  'zod-to-json-schema',
  '@modelcontextprotocol/core',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/server',
]);

/** The package a bare specifier names: `zod/v4/core` → `zod`, `@scope/name/x` → `@scope/name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const keepOwnUrl = {
  name: 'toolshed-keep-own-url',
  transform(code, id) {
    if (!id.startsWith(join(root, 'dist') + sep) || !code.includes('import.meta.url')) return null;
    const own = relative(outDir, id).split(sep).join('/');
    return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`) };
  },
};

/** Writes modules.json: each output file and the modules (paths from the repository root) it holds. */
const listModules = {
  name: 'toolshed-list-modules',
  generateBundle(_options, bundle) {
    const modules = {};
    for (const [fileName, output] of Object.entries(bundle)) {
      if (output.type !== 'chunk') continue;
      modules[fileName] = output.moduleIds
        .filter((id) => id.startsWith(root + sep))
        .map((id) => relative(root, id).split(sep).join('/'));
    }
    this.emitFile({ type: 'asset', fileName: 'modules.json', source: `${JSON.stringify(modules, null, 2)}\n` });
  },
};

if (!existsSync(input)) {
  console.error(`error: ${relative(root, input)} is missing: compile first (tsc -p tsconfig.build.json).`);
  process.exit(1);
}
rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input,
  platform: 'node',
  plugins: [keepOwnUrl, listModules],
  external: (id) => {
    if (id.startsWith('node:')) return true;
    if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
    return !INLINED.has(packageName(id));
  },
  onLog(level, log, handler) {
    // A circular import inside an inlined package is that package's own design, and a module that one
    // verb imports lazily and another at once is simply in the first chunk: neither is a fault here.
    if (log.code === 'CIRCULAR_DEPENDENCY' || log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    handler(level, log);
  },
});
await bundle.write({ dir: outDir, format: 'esm', chunkFileNames: '[name]-[hash].js' });
await bundle.close();
