import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/approvals.js';
import type { JsonObjectSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolRegistry } from '../registry/tool-registry.js';

/**
 * MCP tool annotations: hints for clients about what a tool does, from the tool's `annotations`.
 *
 * @example
 * ```ts
 * const hints: McpToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 * ```
 */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * One entry of an MCP `tools/list` result.
 *
 * @example
 * ```ts
 * const entry: McpTool = {
 *   name: 'add',
 *   description: 'Add two numbers.',
 *   inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
 * };
 * ```
 */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  /** The tool's input schema as registered: raw JSON Schema 2020-12, `$defs` and all. */
  inputSchema: JsonObjectSchema;
  /** Present only when the tool's output schema describes an object (MCP requires `type: "object"`). */
  outputSchema?: JsonObjectSchema;
  annotations?: McpToolAnnotations;
}

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
  tools: McpTool[];
  /** Hex SHA-256 of the canonical JSON of `tools`: equal listings have equal hashes. */
  toolsHash: string;
  /** Names of the tools whose success results carry `structuredContent`. */
  structured: ReadonlySet<string>;
  /** Tools left out because they could not be built (a failing factory), with the reason. */
  skipped: Array<{ name: string; error: unknown }>;
}

/**
 * The MCP `tools/list` entry of a tool: name, title, description, the raw input schema, the output
 * schema when it describes an object, and the annotations as MCP hints.
 *
 * Annotations that the tool leaves unset are left out, so clients apply MCP's defaults. An output
 * schema that is not an object schema (`{type: "number"}`) cannot be expressed in MCP and is left out;
 * such a tool's results then carry no `structuredContent`.
 *
 * @example
 * ```ts
 * const entry = toMcpTool(
 *   defineTool({
 *     name: 'add',
 *     description: 'Add two numbers.',
 *     inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
 *     annotations: { readOnly: true },
 *     handler: ({ a }) => a,
 *   }),
 * );
 * // { name: 'add', description: 'Add two numbers.', inputSchema: {...}, annotations: { readOnlyHint: true } }
 * ```
 */
export function toMcpTool(spec: ToolSpec): McpTool {
  const tool: McpTool = { name: spec.name, description: spec.description, inputSchema: spec.inputSchema };
  if (spec.title !== undefined) tool.title = spec.title;
  if (isObjectSchema(spec.outputSchema)) tool.outputSchema = spec.outputSchema;
  const annotations: McpToolAnnotations = {};
  const { readOnly, destructive, idempotent, openWorld } = spec.annotations;
  if (readOnly !== undefined) annotations.readOnlyHint = readOnly;
  if (destructive !== undefined) annotations.destructiveHint = destructive;
  if (idempotent !== undefined) annotations.idempotentHint = idempotent;
  if (openWorld !== undefined) annotations.openWorldHint = openWorld;
  if (Object.keys(annotations).length > 0) tool.annotations = annotations;
  return tool;
}

const listings = new WeakMap<ToolRegistry, { version: number; listing: McpToolListing }>();

/**
 * The MCP tool listing of a registry, with its content hash (`tools_hash`).
 *
 * Cached per registry and rebuilt only when the registry's tool set changes, so serving `tools/list`
 * costs a map lookup. A lazily registered tool whose factory throws is left out of the listing and
 * reported in `skipped` rather than failing the whole list.
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
  const tools: McpTool[] = [];
  const structured = new Set<string>();
  const skipped: McpToolListing['skipped'] = [];
  for (const name of registry.list()) {
    let spec: ToolSpec;
    try {
      spec = registry.get(name);
    } catch (error) {
      skipped.push({ name, error });
      continue;
    }
    const tool = toMcpTool(spec);
    if (tool.outputSchema !== undefined) structured.add(name);
    tools.push(tool);
  }
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
export function toolsHash(tools: readonly McpTool[]): string {
  return createHash('sha256').update(canonicalJson(tools)).digest('hex');
}

function isObjectSchema(schema: unknown): schema is JsonObjectSchema {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';
}
