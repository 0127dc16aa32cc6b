import { type ToolSource, toolList } from '../shared/tool-source.js';

/**
 * Names of the tools that have no CLI decision (`cli` is neither a keyword nor `null`), sorted: the
 * drift test that fails when a tool is added without deciding how runtimes without tool calling reach
 * it.
 *
 * @example
 * ```ts
 * it('gives every tool a CLI decision', () => {
 *   expect(cliDecisionGaps(registry.tools())).toEqual([]);
 * });
 * ```
 */
export function cliDecisionGaps(specs: ToolSource): string[] {
  const list = toolList(specs);
  const names = new Set<string>();
  for (const candidate of list) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { name, cli } = candidate as { name?: unknown; cli?: unknown };
    if (typeof name === 'string' && typeof cli !== 'string' && cli !== null) names.add(name);
  }
  return [...names].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
}
