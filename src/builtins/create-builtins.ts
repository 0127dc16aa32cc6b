import type { ToolSpec } from '../core/tool-spec.js';
import { createFileTools, type FileToolsOptions } from './filesystem/create-file-tools.js';
import { type CalculatorOptions, createCalculatorTool } from './math/calculator-tool.js';
import { createWebTools, type WebToolsOptions } from './web/create-web-tools.js';

/** The names of the built-in tools this module provides, in category order. */
export const BUILTIN_NAMES = Object.freeze([
  'read_file',
  'write_file',
  'list_files',
  'search_code',
  'fetch_url',
  'serper_search',
  'duckduckgo_search',
  'calculator',
] as const);

/** The name of a built-in tool. */
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** Options of {@link createBuiltins}: one group per family of tools. */
export interface BuiltinsOptions {
  /** Filesystem tools: `root` folder or `backend`, and limits. Default: the current working folder. */
  files?: FileToolsOptions;
  /** Web tools: SSRF guard settings, search base URLs, `fetchImpl`. */
  web?: WebToolsOptions;
  calculator?: CalculatorOptions;
  /** Only these built-ins (default: all of them). Unknown names throw. */
  only?: readonly string[];
}

/**
 * Every built-in tool, ready to register: the filesystem tools (`read_file`, `write_file`,
 * `list_files`, `search_code`), the web tools (`fetch_url`, `serper_search`, `duckduckgo_search`) and
 * `calculator`.
 *
 * Without `files.root` or `files.backend`, the filesystem tools are confined to the current working
 * folder. `only` picks a subset by name (what a `builtins:` list in `toolshed.yaml` names).
 *
 * @example
 * ```ts
 * import { ToolRegistry } from 'toolshed';
 * import { createBuiltins } from 'toolshed/builtins';
 *
 * const registry = new ToolRegistry();
 * registry.registerAll(createBuiltins({ files: { root: './workspace' }, only: ['read_file', 'calculator'] }));
 * await registry.call('calculator', { expression: '2 ^ 10' }); // data: { expression: '2 ^ 10', result: 1024 }
 * ```
 */
export function createBuiltins(options: BuiltinsOptions = {}): ToolSpec[] {
  if (options.only !== undefined) {
    const unknown = options.only.filter((name) => !(BUILTIN_NAMES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      throw new TypeError(
        `Unknown built-in tool${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `'${name}'`).join(', ')}; available: ${BUILTIN_NAMES.join(', ')}.`,
      );
    }
  }
  const files = options.files ?? {};
  const specs = [
    ...createFileTools(
      files.root === undefined && files.backend === undefined ? { ...files, root: process.cwd() } : files,
    ),
    ...createWebTools(options.web),
    createCalculatorTool(options.calculator),
  ];
  const wanted = options.only === undefined ? undefined : new Set(options.only);
  return wanted === undefined ? specs : specs.filter((spec) => wanted.has(spec.name));
}
