import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The layers of `src/`, top to bottom: a folder imports only from the layers below its own. Folders on
 * one line are side by side and never import each other. CONTRIBUTING.md draws this map; this list is
 * the one the tests hold the code to.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['server'],
  ['config', 'emails', 'extract'],
  ['store', 'mcp', 'integrations'],
  ['builtins', 'sandbox'],
  ['registry'],
  ['exporters', 'definitions', 'search'],
  ['schema'],
  ['core'],
];

/** The root entry (`src/index.ts`) re-exports the registry and what lies below it, nothing above. */
export const ROOT_ENTRY_FLOOR = 'registry';

/** Folders whose files only their own top folder imports (`store/sqlite/` is the store's business). */
export const INTERNAL_FOLDERS: readonly string[] = ['store/sqlite', 'store/postgres', 'store/migrations'];

/** Folders that load no Node built-in module (they run in browsers and edge runtimes). */
export const NODE_FREE_FOLDERS: readonly string[] = ['core'];

/** One import of one file, paths relative to `src/` with `/` separators. */
export interface ImportEdge {
  /** The importing file, e.g. `store/toolshed-store.ts`. */
  from: string;
  /** The specifier as written, e.g. `../builtins/filesystem/file-backend.js`. */
  specifier: string;
  /** The imported file for a relative specifier (`builtins/filesystem/file-backend.ts`), else undefined. */
  to: string | undefined;
  /** Whether the import is erased at compile time (`import type`, `export type`, `import('x').T`). */
  typeOnly: boolean;
}

/**
 * Every import in one file's text: static imports and re-exports, `import()` calls with a literal
 * argument, and `import('x')` types. Comments and strings that merely mention a path are not imports.
 *
 * @example
 * ```ts
 * importsOf('a.ts', "import type { B } from './b.js';"); // [{ specifier: './b.js', typeOnly: true }]
 * ```
 */
export function importsOf(fileName: string, text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, scriptKind(fileName));
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: importIsTypeOnly(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Whether TypeScript erases the import. Under `verbatimModuleSyntax` only `import type` is erased;
 * `import { type A }` stays as `import {}` and still loads the module.
 */
function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  return node.importClause?.isTypeOnly === true;
}

function scriptKind(fileName: string): ts.ScriptKind {
  return /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

const SOURCE_FILE = /\.(ts|mts|js|mjs)$/;

/**
 * The import graph of a source folder: every import of every source file below it, tests included.
 *
 * @example
 * ```ts
 * const production = readImportGraph('src').filter((edge) => isProductionFile(edge.from));
 * ```
 */
export function readImportGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root)) {
    const path = toPosix(relative(root, file));
    for (const { specifier, typeOnly } of importsOf(file, readFileSync(file, 'utf8'))) {
      edges.push({ from: path, specifier, to: resolveRelative(root, file, specifier), typeOnly });
    }
  }
  return edges;
}

/**
 * Whether a file (relative to `src/`) ships: not a unit test, not a fixture. The layering holds for
 * these; a unit test may reach above its folder to drive the code it checks (a definitions test
 * through a ToolRegistry), and shared case suites (`*.cases.ts`) are held to it like production code.
 */
export function isProductionFile(path: string): boolean {
  return !path.endsWith('.test.ts') && !path.split('/').includes('__fixtures__');
}

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

/** The source file a relative specifier names (`./x.js` is `./x.ts` on disk), relative to the root. */
function resolveRelative(root: string, file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = join(dirname(file), specifier);
  const candidates = [
    target,
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.mjs$/, '.mts'),
    join(target, 'index.ts'),
  ];
  const found = candidates.find((candidate) => existsSync(candidate) && SOURCE_FILE.test(candidate)) ?? target;
  return toPosix(relative(root, found));
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/** The top folder of a path relative to `src/`; the root entry `index.ts` is `''`. */
function topFolder(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

function describeLayer(index: number): string {
  return `layer ${index + 1} of ${LAYERS.length}: ${LAYERS[index]!.map((folder) => `${folder}/`).join(' ')}`;
}

/**
 * The imports that break the layering, one sentence each naming the file, the import and the rule.
 * Imports of packages are checked only in {@link NODE_FREE_FOLDERS}; imports inside one top folder
 * are always allowed.
 *
 * @example
 * ```ts
 * layerViolations([{ from: 'core/a.ts', specifier: '../registry/b.js', to: 'registry/b.ts', typeOnly: false }]);
 * // ["src/core/a.ts imports '../registry/b.js': registry/ (layer 6 of 9: registry/) is above core/ ..."]
 * ```
 */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const source = topFolder(edge.from);
    const where = `src/${edge.from} imports '${edge.specifier}'`;
    if (edge.to === undefined) {
      if (NODE_FREE_FOLDERS.includes(source) && isNodeBuiltin(edge.specifier)) {
        violations.push(`${where}: ${source}/ loads no Node built-in module.`);
      }
      continue;
    }
    if (edge.to.startsWith('../')) {
      violations.push(`${where}: a file in src/ imports only from src/.`);
      continue;
    }
    const target = topFolder(edge.to);
    const internal = INTERNAL_FOLDERS.find((folder) => edge.to!.startsWith(`${folder}/`));
    if (internal !== undefined && source !== topFolder(internal)) {
      violations.push(
        `${where}: ${internal}/ is internal to ${topFolder(internal)}/; use what ${topFolder(internal)}/index.ts exports.`,
      );
      continue;
    }
    if (source === target) continue;
    if (source === '') {
      if (layerOf(target) === -1 || layerOf(target) < layerOf(ROOT_ENTRY_FLOOR)) {
        violations.push(`${where}: the root entry re-exports only ${ROOT_ENTRY_FLOOR}/ and the layers below it.`);
      }
      continue;
    }
    if (target === '') {
      violations.push(`${where}: nothing inside src/ imports the root entry; import the module itself.`);
      continue;
    }
    const from = layerOf(source);
    const to = layerOf(target);
    if (from === -1 || to === -1) {
      const unknown = from === -1 ? source : target;
      violations.push(
        `${where}: ${unknown}/ is not in the layer map (test/architecture/layers.ts); add it to a layer.`,
      );
    } else if (from === to) {
      violations.push(
        `${where}: ${source}/ and ${target}/ sit side by side (${describeLayer(from)}) and never import each other.`,
      );
    } else if (to < from) {
      violations.push(
        `${where}: ${target}/ (${describeLayer(to)}) is above ${source}/ (${describeLayer(from)}); imports go downward only.`,
      );
    }
  }
  return violations;
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);
}

/**
 * The import cycles among files, over the imports that remain at run time (type-only imports are
 * erased and cannot make a module load before another). Each cycle is listed once, as its files in
 * import order, starting from the alphabetically first.
 *
 * @example
 * ```ts
 * importCycles(readImportGraph('src')); // [] when there is none
 * ```
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.typeOnly || edge.to === undefined) continue;
    const list = next.get(edge.from) ?? [];
    if (!list.includes(edge.to)) list.push(edge.to);
    next.set(edge.from, list);
  }
  // Tarjan's strongly connected components: every component with more than one file, or a file
  // importing itself, holds a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (next.get(file) ?? []).includes(file)) components.push(component);
    }
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) connect(file);
  return components.map((component) => cycleThrough(component.sort(), next));
}

/** One cycle inside a strongly connected component, from its first file back to it. */
function cycleThrough(component: string[], next: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of next.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      if (!previous.has(target) && target !== start) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return component;
}
