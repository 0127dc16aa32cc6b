import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * One upstream tool as it is pinned: its name on the server, the SHA-256 (lowercase hex) of its
 * definition and the definition as canonical JSON text (see {@link pinnedDefinition}).
 *
 * @example
 * ```ts
 * const pinned: PinnedToolDefinition = pinnedDefinition({ name: 'greet', inputSchema: { type: 'object' } });
 * ```
 */
export interface PinnedToolDefinition {
  tool: string;
  hash: string;
  definition: string;
}

/**
 * Where the pins of an MCP server's tools are kept (`toolshed serve`: its database, per workspace).
 * `review` pins a tool seen for the first time and says, for each tool, whether its definition is
 * the pinned one (`new`, `pinned`) or differs from it (`changed`, with the pinned one): a changed
 * tool is quarantined until the change is approved.
 *
 * @example
 * ```ts
 * const pins: UpstreamPins = {
 *   review: (server, tools) => store.upstreamPins.review('default', server, tools),
 * };
 * await importMcpServer(registry, { name: 'memory', command: 'npx', args: ['@modelcontextprotocol/server-memory'] }, { pins });
 * ```
 */
export interface UpstreamPins {
  review(
    server: string,
    tools: readonly PinnedToolDefinition[],
  ): Promise<
    ReadonlyArray<{
      tool: string;
      status: 'new' | 'pinned' | 'changed';
      pinned: { hash: string; definition: string };
    }>
  >;
}

/** The parts of a tool's definition that are pinned, in the order they are compared and shown. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** One of {@link PINNED_FIELDS}. */
export type PinnedField = (typeof PINNED_FIELDS)[number];

/**
 * What of `tool` is pinned — its name, title, description, input and output schemas and annotations —
 * as canonical JSON (object keys sorted, so the same definition always gives the same text), with the
 * text's SHA-256. `_meta`, icons and `execution` are not pinned: they do not change what a model is told.
 *
 * @example
 * ```ts
 * const { hash, definition } = pinnedDefinition({ name: 'greet', description: 'Say hello.', inputSchema: { type: 'object' } });
 * definition; // '{"description":"Say hello.","inputSchema":{"type":"object"},"name":"greet"}'
 * ```
 */
export function pinnedDefinition(tool: Tool): PinnedToolDefinition {
  const pinned: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) if (tool[field] !== undefined) pinned[field] = tool[field];
  const definition = canonicalJson(pinned);
  return { tool: tool.name, hash: createHash('sha256').update(definition).digest('hex'), definition };
}

/**
 * The fields of two pinned definitions (JSON text as {@link pinnedDefinition} makes it) that differ,
 * in {@link PINNED_FIELDS} order.
 *
 * @example
 * ```ts
 * changedFields('{"description":"Say hello.","name":"greet"}', '{"description":"Say hi.","name":"greet"}'); // ['description']
 * ```
 */
export function changedFields(approved: string, current: string): PinnedField[] {
  const before = parseDefinition(approved);
  const after = parseDefinition(current);
  return PINNED_FIELDS.filter((field) => canonicalJson(before[field]) !== canonicalJson(after[field]));
}

/**
 * The change between two pinned definitions as text a person reviews: for each changed field, its
 * lines as approved (`-`) and as the server lists it now (`+`), schemas as indented JSON, the lines
 * both share shown once with two spaces.
 *
 * @example
 * ```ts
 * describeDefinitionChange('{"description":"Say hello.","name":"greet"}', '{"description":"Say hi.","name":"greet"}');
 * // "description:\n- Say hello.\n+ Say hi."
 * ```
 */
export function describeDefinitionChange(approved: string, current: string): string {
  const before = parseDefinition(approved);
  const after = parseDefinition(current);
  return changedFields(approved, current)
    .map((field) => `${field}:\n${lineDiff(linesOf(before[field]), linesOf(after[field])).join('\n')}`)
    .join('\n');
}

/**
 * The sentence a refused call of a quarantined tool and its listing give: what changed, and how to approve it.
 *
 * @example
 * ```ts
 * quarantineMessage('fixture__greet', 'fixture', 'greet', ['description']);
 * ```
 */
export function quarantineMessage(name: string, server: string, tool: string, changed: readonly string[]): string {
  const what = changed.length === 0 ? 'its definition' : `its ${joinWords(changed)}`;
  return `Tool '${name}' is quarantined: MCP server '${server}' changed ${what} since it was approved. Review the change and approve it with 'toolshed mcp-servers approve ${server} ${tool}' (or POST /api/mcp-servers/${server}/approve).`;
}

function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function parseDefinition(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function linesOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split('\n');
  return JSON.stringify(sortKeys(value), null, 2).split('\n');
}

/** A line diff (longest common subsequence): `- ` removed, `+ ` added, `  ` kept. */
function lineDiff(before: string[], after: string[]): string[] {
  const rows = before.length;
  const columns = after.length;
  // Past a few thousand lines a diff is no longer read: show both sides whole.
  if (rows * columns > 4_000_000) return [...before.map((line) => `- ${line}`), ...after.map((line) => `+ ${line}`)];
  const common: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(columns + 1).fill(0));
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i]![j] =
        before[i] === after[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && before[i] === after[j]) {
      out.push(`  ${before[i]}`);
      i++;
      j++;
    } else if (i < rows && (j === columns || common[i + 1]![j]! >= common[i]![j + 1]!)) {
      out.push(`- ${before[i]}`);
      i++;
    } else {
      out.push(`+ ${after[j]}`);
      j++;
    }
  }
  return out;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  // No prototype: a `__proto__` key of an upstream schema stays a key.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}
