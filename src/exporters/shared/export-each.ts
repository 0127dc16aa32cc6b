import { endSentence } from '../../core/end-sentence.js';
import { isPlainObject } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { ExportResult, ExportTarget, ExportWarning } from './export-result.js';
import { jsonSchemaProblems } from './json-schema-problems.js';
import { SchemaIssues } from './schema-issues.js';
import { type ToolSource, toolList } from './tool-source.js';
import { createWireNameMap, toWireName } from './wire-name.js';

/**
 * A tool as an exporter's `build` step sees it: checked, named for the wire, schema normalised.
 *
 * @example
 * ```ts
 * exportEach(specs, 'anthropic', (input: ExportInput) => ({ name: input.name, input_schema: input.inputSchema }));
 * ```
 */
export interface ExportInput {
  readonly spec: ToolSpec;
  /** The name to export under (the canonical name unless it is invalid for the wire). */
  readonly name: string;
  readonly description: string;
  /** The input schema: a plain object with `type: 'object'` and `properties`, root `$schema`/`$id` removed. */
  readonly inputSchema: Record<string, unknown>;
}

/**
 * Human names of the targets, for messages.
 *
 * @example
 * ```ts
 * TARGET_LABELS.gemini; // 'Gemini'
 * ```
 */
export const TARGET_LABELS: Readonly<Record<ExportTarget, string>> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  bedrock: 'Amazon Bedrock',
  mcp: 'MCP',
};

/**
 * The loop every exporter shares: check each spec, give it its wire name, convert it with `build`, and
 * turn whatever went wrong for one tool into a warning for that tool alone. `specs` may be a registry
 * (its tools are exported); anything that is neither a list nor a registry is a `TypeError`, the only
 * throw.
 *
 * A spec that is not a spec (no name, an input schema that is not a JSON Schema object with
 * `type: 'object'`, a schema Ajv rejects) and a second spec with a taken name are `dropped`; a tool for
 * which `build` records an `unsupported` issue (or returns `undefined`) is `unsupported`; a throw inside
 * `build` drops that tool with the error's message. Tools keep the order of `specs`.
 *
 * @example
 * ```ts
 * const result = exportEach(specs, 'anthropic', (input) => ({
 *   name: input.name,
 *   description: input.description,
 *   input_schema: input.inputSchema,
 * }));
 * ```
 */
export function exportEach<Tool>(
  specs: ToolSource,
  target: ExportTarget,
  build: (input: ExportInput, issues: SchemaIssues) => Tool | undefined,
): ExportResult<Tool> {
  const tools: Tool[] = [];
  const warnings: ExportWarning[] = [];
  const accepted: Array<{ spec: ToolSpec; name: string; issues: SchemaIssues; inputSchema: Record<string, unknown> }> =
    [];
  const seen = new Set<string>();
  const list = toolList(specs);
  list.forEach((candidate, index) => {
    const label = toolLabel(candidate, index);
    const issues = new SchemaIssues();
    const checked = checkSpec(candidate, issues);
    if (typeof checked === 'string') {
      warnings.push({ tool: label, target, kind: 'dropped', message: checked });
      return;
    }
    if (seen.has(label)) {
      warnings.push({
        tool: label,
        target,
        kind: 'dropped',
        message: `Another tool named '${label}' comes first in the list; only the first one is exported.`,
      });
      return;
    }
    seen.add(label);
    accepted.push({ spec: candidate as ToolSpec, name: label, issues, inputSchema: checked });
  });

  const wireNames = createWireNameMap(accepted.map((entry) => entry.name));
  for (const { spec, name, issues, inputSchema } of accepted) {
    const wireName = wireNames.toWire.get(name) ?? name;
    if (wireName !== name) {
      const collision = wireNames.collisions.find((item) => item.name === name);
      const reason =
        collision === undefined
          ? ''
          : ` ('${toWireName(name)}' was taken by '${collision.collidedWith}', so it got a hash suffix)`;
      issues.rewritten(
        undefined,
        `Name '${name}' is not valid on the wire (1-64 letters, digits, '_' or '-', not starting with a digit or '-'); exported as '${wireName}'${reason}; createWireNameMap().toCanonical maps it back`,
      );
    }
    const description = typeof spec.description === 'string' ? spec.description : '';
    if (typeof spec.description !== 'string')
      issues.rewritten(undefined, 'The tool has no description; exported with an empty one.');
    let tool: Tool | undefined;
    try {
      tool = build({ spec, name: wireName, description, inputSchema }, issues);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      warnings.push({ tool: name, target, kind: 'dropped', message: `Could not be exported: ${message}` });
      continue;
    }
    if (issues.blocked || tool === undefined) {
      const summary = issues.unsupportedSummary() || 'this tool';
      warnings.push({
        tool: name,
        target,
        kind: 'unsupported',
        message: `${TARGET_LABELS[target]} cannot express ${summary}; the tool is left out.`,
      });
      continue;
    }
    tools.push(tool);
    warnings.push(...issues.toWarnings(name, target));
  }
  return { tools, warnings };
}

function toolLabel(candidate: unknown, index: number): string {
  if (typeof candidate === 'object' && candidate !== null) {
    const name = (candidate as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return `#${index}`;
}

/** The normalised input schema, or why the spec cannot be exported anywhere. */
function checkSpec(candidate: unknown, issues: SchemaIssues): Record<string, unknown> | string {
  if (typeof candidate !== 'object' || candidate === null) return `Not a tool spec (got ${describe(candidate)}).`;
  const spec = candidate as Partial<Record<keyof ToolSpec, unknown>>;
  if (typeof spec.name !== 'string' || spec.name === '') return `The tool has no name (got ${describe(spec.name)}).`;
  let schema = spec.inputSchema;
  if (schema === undefined) {
    issues.rewritten(undefined, 'The tool has no inputSchema; exported as a tool without arguments.');
    schema = { type: 'object', properties: {} };
  }
  if (!isPlainObject(schema)) return `inputSchema must be a JSON Schema object, got ${describe(schema)}.`;
  if (schema.type !== undefined && schema.type !== 'object') {
    return `inputSchema must have type "object", got ${JSON.stringify(schema.type) ?? describe(schema.type)}.`;
  }
  if (schema.properties !== undefined && !isPlainObject(schema.properties)) {
    return `inputSchema.properties must be an object, got ${describe(schema.properties)}.`;
  }
  const problems = jsonSchemaProblems(schema);
  if (problems.length > 0)
    return endSentence(`inputSchema is not valid JSON Schema: ${problems.slice(0, 3).join('; ')}`);
  const { $schema: _schema, $id: _id, ...rest } = schema;
  const normalized: Record<string, unknown> = { type: 'object', ...rest };
  if (normalized.properties === undefined) normalized.properties = {};
  return normalized;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value === 'string' ? JSON.stringify(value) : String(value);
}
