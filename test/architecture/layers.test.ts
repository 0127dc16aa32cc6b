import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ImportEdge,
  importCycles,
  importsOf,
  isProductionFile,
  LAYERS,
  layerViolations,
  readImportGraph,
} from './layers.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** A synthetic edge: `to` is resolved the way readImportGraph resolves a relative specifier. */
function edge(from: string, to: string, typeOnly = false): ImportEdge {
  const depth = from.split('/').length - 1;
  const up = depth === 0 ? './' : '../'.repeat(depth);
  return { from, specifier: `${up}${to.replace(/\.ts$/, '.js')}`, to, typeOnly };
}

describe('the layers of src/', () => {
  const graph = readImportGraph(SRC);
  it('has every top folder in the layer map', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !LAYERS.flat().includes(folder))).toEqual([]);
  });

  it('has no import against the layers in production code', () => {
    expect(layerViolations(graph.filter((item) => isProductionFile(item.from)))).toEqual([]);
  });

  it('has no import cycle among the files, tests included', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('layerViolations', () => {
  // The layout before src/adapters/ split into exporters/ and integrations/, with the email corpus
  // reaching into the store's SQLite folder.
  const before: ImportEdge[] = [
    edge('registry/tool-registry.ts', 'adapters/openai/index.ts'),
    edge('adapters/langchain/to-langchain-tools.ts', 'registry/tool-registry.ts', true),
    edge('emails/email-store.ts', 'store/sqlite/sqlite-store-dialect.ts'),
    edge('store/toolshed-store.ts', 'builtins/filesystem/file-backend.ts', true),
    edge('config/load-config.ts', 'mcp/import-mcp-server.ts', true),
    edge('cli/commands/serve.ts', 'server/index.ts'),
  ];

  it('names the file, the import and the rule of each import against the layers', () => {
    expect(layerViolations(before)).toEqual([
      "src/registry/tool-registry.ts imports '../adapters/openai/index.js': adapters/ is not in the layer map (test/architecture/layers.ts); add it to a layer.",
      "src/adapters/langchain/to-langchain-tools.ts imports '../../registry/tool-registry.js': adapters/ is not in the layer map (test/architecture/layers.ts); add it to a layer.",
      "src/emails/email-store.ts imports '../store/sqlite/sqlite-store-dialect.js': store/sqlite/ is internal to store/; use what store/index.ts exports.",
    ]);
  });

  it('flags an import upward and one sideways, and lets one downward pass', () => {
    expect(
      layerViolations([
        edge('builtins/filesystem/file-backend.ts', 'store/toolshed-store.ts', true),
        edge('store/create-store.ts', 'mcp/index.ts'),
        edge('exporters/openai/to-openai-tools.ts', 'registry/tool-registry.ts'),
        edge('server/create-server.ts', 'store/index.ts'),
      ]),
    ).toEqual([
      "src/builtins/filesystem/file-backend.ts imports '../../store/toolshed-store.js': store/ (layer 4 of 9: store/ mcp/ integrations/) is above builtins/ (layer 5 of 9: builtins/ sandbox/); imports go downward only.",
      "src/store/create-store.ts imports '../mcp/index.js': store/ and mcp/ sit side by side (layer 4 of 9: store/ mcp/ integrations/) and never import each other.",
      "src/exporters/openai/to-openai-tools.ts imports '../../registry/tool-registry.js': registry/ (layer 6 of 9: registry/) is above exporters/ (layer 7 of 9: exporters/ definitions/ search/); imports go downward only.",
    ]);
  });

  it('keeps the root entry to the registry and below, and core/ free of Node built-ins', () => {
    expect(
      layerViolations([
        edge('index.ts', 'registry/tool-registry.ts'),
        edge('index.ts', 'store/index.ts'),
        edge('server/index.ts', 'index.ts'),
        { from: 'core/tool-result.ts', specifier: 'node:crypto', to: undefined, typeOnly: false },
        { from: 'registry/approvals.ts', specifier: 'node:crypto', to: undefined, typeOnly: false },
      ]),
    ).toEqual([
      "src/index.ts imports './store/index.js': the root entry re-exports only registry/ and the layers below it.",
      "src/server/index.ts imports '../index.js': nothing inside src/ imports the root entry; import the module itself.",
      "src/core/tool-result.ts imports 'node:crypto': core/ loads no Node built-in module.",
    ]);
  });
});

describe('importCycles', () => {
  it('finds a cycle through run-time imports and ignores one closed only by a type import', () => {
    const graph = [
      edge('core/a.ts', 'core/b.ts'),
      edge('core/b.ts', 'core/c.ts'),
      edge('core/c.ts', 'core/a.ts'),
      edge('schema/x.ts', 'schema/y.ts'),
      edge('schema/y.ts', 'schema/x.ts', true),
    ];
    expect(importCycles(graph)).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts']]);
  });
});

describe('importsOf', () => {
  it('reads static, re-exported, dynamic and type imports, and nothing a comment mentions', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js'; // kept as import {} under verbatimModuleSyntax",
      "import './d.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "const g = await import('./g.js');",
      "type H = import('./h.js').H;",
      "// import { i } from './i.js';",
      "/** await import('./j.js') */",
      "const k = 'from ./k.js';",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: './b.js', typeOnly: true },
      { specifier: './c.js', typeOnly: false },
      { specifier: './d.js', typeOnly: false },
      { specifier: './e.js', typeOnly: false },
      { specifier: './f.js', typeOnly: true },
      { specifier: './g.js', typeOnly: false },
      { specifier: './h.js', typeOnly: true },
    ]);
  });
});
