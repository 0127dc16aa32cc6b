import type { ToolSpec } from '../../core/tool-spec.js';
import { failingExamples } from '../schema-lint.js';
import { type ExportInput, exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import { SchemaIssues } from '../shared/schema-issues.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toAnthropicSchema } from './anthropic-schema.js';
import { ANTHROPIC_STRICT_LIMITS, toAnthropicStrictSchema } from './anthropic-strict-schema.js';
import type { AnthropicTool, AnthropicToolsOptions } from './anthropic-tool.js';

/**
 * Export tools as Anthropic Messages API client tools: `{name, description, input_schema}`.
 *
 * The input schema passes through except for composition at its root, which Anthropic rejects (see
 * `toAnthropicSchema`). Names that are not valid Anthropic names get a wire name (`createWireNameMap`
 * maps them back). Never throws: malformed tools are left out with a warning.
 *
 * With `strict: true`, each schema is rewritten into the subset strict tool use accepts (see
 * `toAnthropicStrictSchema`) and the tool carries `strict: true`. A tool strict tool use cannot express,
 * or one past the request's limits (20 strict tools, 24 optional properties, 16 union properties, in
 * list order), is exported as it would be without strict mode, with `strict: false` and a `rewritten`
 * warning saying why.
 *
 * @example
 * ```ts
 * const { tools } = toAnthropicTools(registry.tools(), { strict: true });
 * const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools });
 * for (const block of message.content) {
 *   if (block.type === 'tool_use') await registry.call(block.name, block.input);
 * }
 * ```
 */
export function toAnthropicTools(specs: ToolSource, options: AnthropicToolsOptions = {}): ExportResult<AnthropicTool> {
  const used = { tools: 0, optionalProperties: 0, unionProperties: 0 };
  return exportEach(specs, 'anthropic', (input, issues) =>
    withInputExamples(build(input, issues), input.spec.inputExamples, issues),
  );

  function build(input: ExportInput, issues: SchemaIssues): AnthropicTool {
    const tool = { name: input.name, description: input.description };
    if (options.strict !== true) return { ...tool, input_schema: toAnthropicSchema(input.inputSchema, issues) };
    const attempt = new SchemaIssues();
    const strict = toAnthropicStrictSchema(input.inputSchema, attempt);
    let refusal: string | undefined;
    if ('unsupported' in strict) refusal = `Strict tool use cannot express ${strict.unsupported}`;
    else if (used.tools + 1 > ANTHROPIC_STRICT_LIMITS.tools)
      refusal = `The request already has ${ANTHROPIC_STRICT_LIMITS.tools} strict tools, Anthropic's limit`;
    else if (used.optionalProperties + strict.optionalProperties > ANTHROPIC_STRICT_LIMITS.optionalProperties)
      refusal = `Its ${strict.optionalProperties} optional properties would pass Anthropic's limit of ${ANTHROPIC_STRICT_LIMITS.optionalProperties} across a request's strict tools`;
    else if (used.unionProperties + strict.unionProperties > ANTHROPIC_STRICT_LIMITS.unionProperties)
      refusal = `Its ${strict.unionProperties} union-typed properties would pass Anthropic's limit of ${ANTHROPIC_STRICT_LIMITS.unionProperties} across a request's strict tools`;
    if (refusal !== undefined || 'unsupported' in strict) {
      issues.rewritten(undefined, `${refusal}; exported with strict: false`);
      return { ...tool, input_schema: toAnthropicSchema(input.inputSchema, issues), strict: false };
    }
    issues.absorb(attempt);
    used.tools++;
    used.optionalProperties += strict.optionalProperties;
    used.unionProperties += strict.unionProperties;
    return { ...tool, input_schema: strict.schema, strict: true };
  }
}

// The tool with its input examples that fit the exported schema; the others are left out with a warning.
function withInputExamples(
  tool: AnthropicTool,
  examples: ToolSpec['inputExamples'],
  issues: SchemaIssues,
): AnthropicTool {
  if (examples === undefined || examples.length === 0) return tool;
  const failing = failingExamples(tool.input_schema, examples);
  for (const { index, problem } of failing)
    issues.rewritten(undefined, `Input example ${index} left out: it fails the exported input schema (${problem})`);
  const kept = examples.filter((_, index) => !failing.some((entry) => entry.index === index));
  return kept.length === 0 ? tool : { ...tool, input_examples: kept.map((example) => ({ ...example })) };
}
