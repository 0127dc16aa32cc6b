import type { ToolSpec } from '../../core/tool-spec.js';

/**
 * What an exporter takes: an array of tool specs, or anything with a `tools()` method returning one
 * (a `ToolRegistry`, whose tools are then exported).
 *
 * @example
 * ```ts
 * const fromRegistry: ToolSource = registry;
 * const fromList: ToolSource = registry.tools();
 * ```
 */
export type ToolSource = readonly ToolSpec[] | { tools(): readonly ToolSpec[] };

/**
 * The specs of a {@link ToolSource}, as a list whose entries an exporter still checks one by one.
 * Throws a `TypeError` for anything else (an exporter given a single spec, or nothing), instead of
 * exporting no tools without a word.
 *
 * @example
 * ```ts
 * toolList(registry).length === registry.size; // true
 * toolList(registry.tools()); // the same list
 * ```
 */
export function toolList(source: ToolSource): readonly unknown[] {
  if (Array.isArray(source)) return source;
  const tools = typeof source === 'object' && source !== null ? (source as { tools?: unknown }).tools : undefined;
  if (typeof tools === 'function') {
    const list: unknown = tools.call(source);
    if (Array.isArray(list)) return list;
  }
  const name = typeof source === 'object' && source !== null ? (source as { name?: unknown }).name : undefined;
  const got =
    source === null ? 'null' : typeof name === 'string' ? `one tool ('${name}'); wrap it in an array` : typeof source;
  throw new TypeError(`Exports take an array of tool specs or a registry, got ${got}.`);
}
