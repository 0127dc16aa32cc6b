import { toAnthropicTools } from './anthropic/to-anthropic-tools.js';
import { toBedrockTools } from './bedrock/to-bedrock-tools.js';
import { toGeminiTools } from './gemini/to-gemini-tools.js';
import { toMcpTools } from './mcp/to-mcp-tools.js';
import { toOpenAITools } from './openai/to-openai-tools.js';
import {
  formatSchemaFinding,
  lintInputExamples,
  lintSchema,
  type SchemaFinding,
  schemaCompileFinding,
} from './schema-lint.js';
import { type ExportResult, type ExportWarning, isExclusion } from './shared/export-result.js';
import { type ToolSource, toolList } from './shared/tool-source.js';

/**
 * The exports {@link checkExports} compiles every tool for.
 *
 * @example
 * ```ts
 * const target: ExportCheckTarget = 'openai-chat-strict';
 * ```
 */
export type ExportCheckTarget =
  | 'openai-chat'
  | 'openai-chat-strict'
  | 'anthropic'
  | 'gemini'
  | 'gemini-json-schema'
  | 'bedrock'
  | 'mcp';

/**
 * Every {@link ExportCheckTarget}, in report order.
 *
 * @example
 * ```ts
 * for (const target of EXPORT_CHECK_TARGETS) console.log(target, report.tools[0]?.targets[target].status);
 * ```
 */
export const EXPORT_CHECK_TARGETS: readonly ExportCheckTarget[] = [
  'openai-chat',
  'openai-chat-strict',
  'anthropic',
  'gemini',
  'gemini-json-schema',
  'bedrock',
  'mcp',
];

/**
 * How one tool fared with one target: `ok` (exported as is), `rewritten` (exported, changed to fit),
 * or `excluded` (left out: dropped or unsupported).
 *
 * @example
 * ```ts
 * const failing = report.tools.filter(({ targets }) => targets.gemini.status === 'excluded');
 * ```
 */
export type ExportCheckStatus = 'ok' | 'rewritten' | 'excluded';

/**
 * One tool's outcome for one target, with the warnings behind it.
 *
 * @example
 * ```ts
 * const outcome: ExportCheckOutcome = { status: 'rewritten', warnings: [{ tool: 'search', target: 'openai', kind: 'rewritten', message: '…' }] };
 * ```
 */
export interface ExportCheckOutcome {
  readonly status: ExportCheckStatus;
  readonly warnings: readonly ExportWarning[];
}

/**
 * One tool's outcome for every target.
 *
 * @example
 * ```ts
 * const entry: ToolExportCheck | undefined = checkExports(specs).tools.find((item) => item.tool === 'search');
 * ```
 */
export interface ToolExportCheck {
  readonly tool: string;
  readonly targets: Readonly<Record<ExportCheckTarget, ExportCheckOutcome>>;
  /** What the schema lint found in the tool's input schema (see `lintSchema`); empty when nothing. */
  readonly schema: readonly SchemaFinding[];
}

/**
 * The report of {@link checkExports}.
 *
 * @example
 * ```ts
 * const report: ExportCheckReport = checkExports(specs);
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export interface ExportCheckReport {
  /** True when every tool exports to every target (rewrites allowed). */
  readonly ok: boolean;
  /** One entry per distinct tool name, in the order of the specs. */
  readonly tools: readonly ToolExportCheck[];
  /**
   * Every schema lint finding of every tool, one line each (`tool: message (at /pointer)`). Findings
   * are warnings: they do not make `ok` false.
   */
  readonly findings: readonly string[];
}

/**
 * Compile every tool for every target — OpenAI Chat without and with strict mode, Anthropic, Gemini
 * (its OpenAPI subset and its JSON Schema mode), AWS Bedrock Converse and MCP — and report, per tool and target, whether it exported as is, was rewritten (and how), or
 * cannot be expressed; and lint every input schema (`lintSchema`: defaults that fail their schema,
 * enum values of the wrong type, undeclared `required` names, unknown formats, unsatisfiable bounds).
 * The check behind `registry.check()` and `toolshed validate`; never throws.
 *
 * The Responses API shares the Chat API's schemas, so `openai-chat-strict` speaks for both.
 *
 * @example
 * ```ts
 * const report = checkExports(registry.tools());
 * for (const { tool, targets } of report.tools) {
 *   for (const [target, outcome] of Object.entries(targets)) {
 *     if (outcome.status !== 'ok') console.log(`${tool} → ${target}: ${outcome.status}`);
 *   }
 * }
 * ```
 */
export function checkExports(specs: ToolSource): ExportCheckReport {
  const results: Record<ExportCheckTarget, ExportResult<unknown>> = {
    'openai-chat': toOpenAITools(specs, { api: 'chat' }),
    'openai-chat-strict': toOpenAITools(specs, { api: 'chat', strict: true }),
    anthropic: toAnthropicTools(specs),
    gemini: toGeminiTools(specs),
    'gemini-json-schema': toGeminiTools(specs, { schemaMode: 'json-schema' }),
    bedrock: toBedrockTools(specs),
    mcp: toMcpTools(specs),
  };
  const names: string[] = [];
  const list = toolList(specs);
  list.forEach((candidate, index) => {
    const name =
      typeof candidate === 'object' && candidate !== null ? (candidate as { name?: unknown }).name : undefined;
    const label = typeof name === 'string' && name !== '' ? name : `#${index}`;
    if (!names.includes(label)) names.push(label);
  });
  const schemas = new Map<string, { inputSchema: unknown; inputExamples: unknown }>();
  for (const candidate of list) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { name, inputSchema, inputExamples } = candidate as Record<string, unknown>;
    if (typeof name === 'string' && !schemas.has(name)) schemas.set(name, { inputSchema, inputExamples });
  }
  const findings: string[] = [];
  const tools = names.map((tool) => {
    const source = schemas.get(tool);
    const examples = Array.isArray(source?.inputExamples) ? source.inputExamples : undefined;
    const broken = schemaCompileFinding(source?.inputSchema);
    const schema = [
      ...(broken === undefined ? [] : [broken]),
      ...lintSchema(source?.inputSchema),
      ...lintInputExamples(source?.inputSchema, examples),
    ];
    for (const finding of schema) findings.push(formatSchemaFinding(tool, finding));
    const targets = {} as Record<ExportCheckTarget, ExportCheckOutcome>;
    for (const target of EXPORT_CHECK_TARGETS) {
      const warnings = results[target].warnings.filter((warning) => warning.tool === tool);
      const status: ExportCheckStatus = warnings.some(isExclusion)
        ? 'excluded'
        : warnings.length > 0
          ? 'rewritten'
          : 'ok';
      targets[target] = { status, warnings };
    }
    return { tool, targets, schema };
  });
  return {
    ok: tools.every((entry) => EXPORT_CHECK_TARGETS.every((target) => entry.targets[target].status !== 'excluded')),
    tools,
    findings,
  };
}
