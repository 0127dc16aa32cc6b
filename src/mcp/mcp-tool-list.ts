import { createHash } from 'node:crypto';
import type { ToolSpec } from '../core/tool-spec.js';
import type { McpToolEntry } from '../exporters/mcp/mcp-tool.js';
import { toMcpTools } from '../exporters/mcp/to-mcp-tools.js';
import { canonicalJson } from '../registry/approvals.js';
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
 * rebuilt only when the registry's tool set changes, so serving `tools/list` costs a map lookup. A
 * lazily registered tool whose factory throws, and a tool the exporter leaves out, are reported in
 * `skipped` rather than failing the whole list.
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
  const specs: ToolSpec[] = [];
  const skipped: McpToolListing['skipped'] = [];
  for (const name of registry.list()) {
    try {
      specs.push(registry.get(name));
    } catch (error) {
      skipped.push({ name, error });
    }
  }
  const { tools, warnings } = toMcpTools(specs);
  for (const warning of warnings) {
    if (warning.kind === 'dropped' || warning.kind === 'unsupported') {
      skipped.push({ name: warning.tool, error: new Error(warning.message) });
    }
  }
  // Registered names are valid wire names, so each entry keeps its tool's name.
  const structured = new Set(tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name));
  const listing: McpToolListing = { tools, toolsHash: toolsHash(tools), structured, skipped };
  listings.set(registry, { version: registry.version, listing });
  return listing;
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
