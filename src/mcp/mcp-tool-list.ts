import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/approvals.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { McpToolEntry } from '../exporters/mcp/mcp-tool.js';
import { toMcpTools } from '../exporters/mcp/to-mcp-tools.js';
import type { ToolRegistry } from '../registry/tool-registry.js';

/**
 * The MCP view of a registry: the `tools/list` entries and what the server needs at call time.
 *
 * @example
 * ```ts
 * const listing: McpToolListing = listMcpTools(registry);
 * const result = { tools: listing.tools, _meta: { tools_hash: listing.toolsHash } };
 * ```
 */
export interface McpToolListing {
  /** The entries as the MCP exporter gives them (`toMcpTools`), so `/mcp` and the export routes agree. */
  tools: McpToolEntry[];
  /** Hex SHA-256 of the canonical JSON of `tools`: equal listings have equal hashes. */
  toolsHash: string;
  /** Names of the tools whose success results carry `structuredContent`. */
  structured: ReadonlySet<string>;
  /**
   * Tools left out, with the reason: a lazily registered tool whose factory throws, or one the MCP
   * exporter cannot express (its warning's message as the error).
   */
  skipped: Array<{ name: string; error: unknown }>;
}

const listings = new WeakMap<ToolRegistry, { version: number; listing: McpToolListing }>();

/**
 * The MCP tool listing of a registry, with its content hash (`tools_hash`).
 *
 * The entries are the MCP exporter's (`toMcpTools`): the same names, schemas and fully resolved
 * annotations as `registry.toMcpTools()` and the `format=mcp` export routes. Cached per registry and
 * rebuilt only when the registry's tool set changes, so serving `tools/list` costs a map lookup; each
 * spec's entry is built once and kept with the spec. A lazily registered tool whose factory throws,
 * and a tool the exporter leaves out, are reported in `skipped` rather than failing the whole list.
 *
 * @example
 * ```ts
 * const { tools, toolsHash } = listMcpTools(registry);
 * console.log(tools.map((tool) => tool.name), toolsHash);
 * ```
 */
export function listMcpTools(registry: ToolRegistry): McpToolListing {
  const cached = listings.get(registry);
  if (cached !== undefined && cached.version === registry.version) return cached.listing;
  const tools: McpToolEntry[] = [];
  const structured = new Set<string>();
  const skipped: McpToolListing['skipped'] = [];
  for (const name of registry.list()) {
    let entry: McpToolEntry | Error;
    try {
      const spec = registry.get(name);
      // A tool imported from an MCP server that is down until it reconnects, or whose definition
      // changed since it was approved (quarantined until the change is approved).
      if (spec.metadata.mcpUnavailable === true || spec.metadata.mcpQuarantine !== undefined) continue;
      entry = entryOf(spec);
    } catch (error) {
      skipped.push({ name, error });
      continue;
    }
    if (entry instanceof Error) {
      skipped.push({ name, error: entry });
      continue;
    }
    if (entry.outputSchema !== undefined) structured.add(name);
    tools.push(entry);
  }
  const listing: McpToolListing = { tools, toolsHash: toolsHash(tools), structured, skipped };
  listings.set(registry, { version: registry.version, listing });
  return listing;
}

/** Entries by spec: a spec is frozen, so its entry is built once however many listings hold it. */
const entries = new WeakMap<ToolSpec, McpToolEntry | Error>();

/**
 * A spec's MCP entry, or why the exporter leaves it out. Exported one by one, a registered tool gets
 * the entry it gets in a whole list: its name is canonical, so it is its own wire name and unique.
 */
function entryOf(spec: ToolSpec): McpToolEntry | Error {
  let entry = entries.get(spec);
  if (entry === undefined) {
    const { tools, warnings } = toMcpTools([spec]);
    const reason = warnings.find((warning) => warning.kind === 'dropped' || warning.kind === 'unsupported');
    entry = tools[0] ?? new Error(reason?.message ?? `The MCP exporter left '${spec.name}' out.`);
    entries.set(spec, entry);
  }
  return entry;
}

/**
 * The content hash of a tool listing: hex SHA-256 of its canonical JSON (keys sorted at every level),
 * so the same tools give the same hash in any process, and any change to a name, description or
 * schema gives a new one.
 *
 * @example
 * ```ts
 * toolsHash(listMcpTools(registry).tools) === listMcpTools(registry).toolsHash; // true
 * ```
 */
export function toolsHash(tools: readonly McpToolEntry[]): string {
  return createHash('sha256').update(canonicalJson(tools)).digest('hex');
}
