import { READ_TOOL_OUTPUT } from './read-tool-output.js';
import type { ToolTable } from './tool-table.js';

/** Options of `registry.subset`. */
export interface SubsetOptions {
  /** Throw `ToolNotFoundError` for an unknown name (the default), or skip it. */
  strict?: boolean;
  /** Configuration per tool name, handed to the handler as `ctx.config` unless a call brings its own. */
  config?: Readonly<Record<string, Record<string, unknown>>>;
}

/**
 * Fill `view`, the new, empty table of a registry made by `subset`, with the entries of `source`
 * named in `names` (the same entry objects: a factory runs once for both). An unknown name throws
 * `ToolNotFoundError` with suggestions when `strict`, and is skipped otherwise. The view gets
 * its own `read_tool_output` over its runtime's outputs (which the caller has set to the source's,
 * so any reader finds any handle) when it had one already or the source has one. Ends with one
 * `register` change naming every tool of the view.
 *
 * @example
 * ```ts
 * const view = new ToolRegistry({ ...options, hooks });
 * fillSubsetView(viewTable, sourceTable, ['search', 'read_file'], true);
 * ```
 */
export function fillSubsetView(view: ToolTable, source: ToolTable, names: readonly string[], strict: boolean): void {
  // A reader made before the outputs were shared would read the view's own, empty store.
  if (view.entries.delete(READ_TOOL_OUTPUT)) view.ensureOutputReader();
  for (const name of names) {
    const entry = source.entries.get(name);
    if (entry === undefined) {
      if (strict) source.get(name);
      continue;
    }
    view.adopt(name, entry);
  }
  if (source.entries.has(READ_TOOL_OUTPUT) && !view.entries.has(READ_TOOL_OUTPUT)) view.ensureOutputReader();
  view.changed({ type: 'register', names: view.list() });
}
