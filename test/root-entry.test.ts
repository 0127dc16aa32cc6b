import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

// Packages the root entry may load: pure JavaScript that runs in browsers and edge runtimes.
const EDGE_SAFE_PACKAGES = new Set([
  '@opentelemetry/api',
  'ajv',
  'ajv-formats',
  'fastest-levenshtein',
  'json-schema-traverse',
  're2js',
  'stemmer',
  'stopword',
]);

/** Static (load-time) imports of a module: `import ... from`, `export ... from`, bare `import '...'`. */
function staticImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(pattern)) {
    if (match[2] !== undefined) continue; // `import type` is erased
    if (match[1] === 'export' && match[3] === undefined) continue;
    specifiers.push(match[4]!);
  }
  return specifiers;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function loadGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) {
        const target = join(dirname(file), specifier);
        visit(existsSync(target.replace(/\.js$/, '.ts')) ? target.replace(/\.js$/, '.ts') : target);
      } else packages.add(specifier.startsWith('node:') ? specifier : packageName(specifier));
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the root entry point', () => {
  const graph = loadGraph(join(SRC, 'index.ts'));

  it('loads no Node built-in module', () => {
    const builtins = [...graph.packages].filter((name) => name.startsWith('node:') || builtinModules.includes(name));
    expect(builtins).toEqual([]);
  });

  it('loads only packages that run in edge runtimes', () => {
    expect([...graph.packages].filter((name) => !EDGE_SAFE_PACKAGES.has(name))).toEqual([]);
  });

  it('reaches the YAML loaders only through dynamic import', () => {
    const loaders = [...graph.files].filter((file) => file.includes(`${join(SRC, 'definitions')}`));
    expect(loaders).toEqual([]);
  });

  it('names every export explicitly', () => {
    expect(readFileSync(join(SRC, 'index.ts'), 'utf8')).not.toMatch(/export \*/);
  });
});
