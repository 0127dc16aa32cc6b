import { isPlainObject } from '../../core/json-schema.js';
import { resolveToolAnnotations } from '../../core/resolve-annotations.js';
import type { ToolAnnotations } from '../../core/tool-spec.js';
import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toMcpInputSchema, toMcpOutputSchema } from './mcp-schema.js';
import type { McpObjectSchema, McpToolAnnotations, McpToolEntry } from './mcp-tool.js';

/**
 * Export tools as MCP `tools/list` entries: `{name, title?, description, inputSchema, outputSchema?,
 * annotations}`. A schema's `$schema` (its declared dialect) is kept, and so are the `execution`,
 * `icons` and `_meta` of a tool imported from another MCP server (`metadata.mcpUpstream`). A tool's
 * `execution.taskSupport` is listed as `execution: { taskSupport }`.
 *
 * Annotations are always complete, with MCP's defaults for what the tool leaves unset: `readOnlyHint`
 * false, `destructiveHint` true (false for a read-only tool, which cannot destroy), `idempotentHint`
 * false, `openWorldHint` true; `annotations.title` repeats the tool's `title`. An output schema that is
 * not an object schema is left out with a warning (see `toMcpOutputSchema`). Names that are not valid
 * wire names get one (`createWireNameMap` maps them back), the same as for the model APIs, because MCP
 * clients forward tool names to them. Never throws.
 *
 * @example
 * ```ts
 * const { tools } = toMcpTools(registry.tools());
 * server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
 * ```
 */
export function toMcpTools(specs: ToolSource): ExportResult<McpToolEntry> {
  return exportEach(specs, 'mcp', (input, issues): McpToolEntry => {
    const { spec } = input;
    const title = typeof spec.title === 'string' && spec.title !== '' ? spec.title : undefined;
    const outputSchema = toMcpOutputSchema(spec.outputSchema, issues);
    return {
      name: input.name,
      ...(title === undefined ? {} : { title }),
      description: input.description,
      inputSchema: keepDialect(toMcpInputSchema(input.inputSchema, issues), spec.inputSchema),
      ...(outputSchema === undefined ? {} : { outputSchema: keepDialect(outputSchema, spec.outputSchema) }),
      annotations: mcpAnnotations(spec.annotations, title),
      ...withExecution(upstreamExtras(spec.metadata), spec.execution),
    };
  });
}

/** `execution`, `icons` and `_meta` of a tool imported from another MCP server (`metadata.mcpUpstream`). */
function upstreamExtras(metadata: unknown): Pick<McpToolEntry, 'execution' | 'icons' | '_meta'> {
  const upstream = isPlainObject(metadata) ? metadata.mcpUpstream : undefined;
  if (!isPlainObject(upstream)) return {};
  return {
    ...(isPlainObject(upstream.execution) ? { execution: upstream.execution } : {}),
    ...(Array.isArray(upstream.icons) ? { icons: upstream.icons } : {}),
    ...(isPlainObject(upstream._meta) ? { _meta: upstream._meta } : {}),
  };
}

/**
 * The tool's own `execution.taskSupport` over what an upstream server said: a tool that declares none
 * lists none, which MCP reads as `forbidden`.
 */
function withExecution(
  extras: Pick<McpToolEntry, 'execution' | 'icons' | '_meta'>,
  execution: unknown,
): Pick<McpToolEntry, 'execution' | 'icons' | '_meta'> {
  if (!isPlainObject(execution) || typeof execution.taskSupport !== 'string') return extras;
  return { ...extras, execution: { ...extras.execution, taskSupport: execution.taskSupport } };
}

/** MCP speaks JSON Schema 2020-12 and clients honour a schema's `$schema`: a declared dialect stays. */
function keepDialect(schema: McpObjectSchema, source: unknown): McpObjectSchema {
  const dialect = isPlainObject(source) ? source.$schema : undefined;
  return typeof dialect === 'string' ? { $schema: dialect, ...schema } : schema;
}

function mcpAnnotations(annotations: unknown, title: string | undefined): McpToolAnnotations {
  const hints = resolveToolAnnotations(isPlainObject(annotations) ? (annotations as ToolAnnotations) : undefined);
  return {
    ...(title === undefined ? {} : { title }),
    readOnlyHint: hints.readOnly,
    destructiveHint: hints.destructive,
    idempotentHint: hints.idempotent,
    openWorldHint: hints.openWorld,
  };
}
