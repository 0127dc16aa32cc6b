import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toOpenAISchema } from './openai-schema.js';
import type {
  OpenAIChatTool,
  OpenAIChatToolsOptions,
  OpenAIResponsesTool,
  OpenAIResponsesToolsOptions,
  OpenAIToolsOptions,
} from './openai-tool.js';

/**
 * Export tools as OpenAI function tools, for the Chat Completions API (`api: 'chat'`, the default) or
 * the Responses API (`api: 'responses'`).
 *
 * Chat tools are `{type: 'function', function: {name, description, parameters, strict?}}`; Responses
 * tools are flat, `{type: 'function', name, description, parameters, strict}`. With `strict: true`
 * each schema is rewritten into strict mode's subset (see `toOpenAISchema`): optional properties become
 * required and nullable, so send the model's arguments through {@link decodeStrictArguments} before
 * validating them (the registry does this for you). A tool whose schema cannot be strict is exported
 * with `strict: false` and a `rewritten` warning, so one open-ended tool does not sink the list.
 *
 * Names that are not valid OpenAI names get a wire name (`createWireNameMap` maps them back). Never
 * throws: malformed tools are left out with a warning.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toOpenAITools(registry.tools(), { api: 'chat', strict: true });
 * const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools });
 * for (const call of completion.choices[0].message.tool_calls ?? []) {
 *   const spec = registry.get(call.function.name);
 *   await registry.call(spec.name, decodeStrictArguments(spec, call.function.arguments));
 * }
 * ```
 */
export function toOpenAITools(specs: ToolSource, options?: OpenAIChatToolsOptions): ExportResult<OpenAIChatTool>;
export function toOpenAITools(
  specs: ToolSource,
  options: OpenAIResponsesToolsOptions,
): ExportResult<OpenAIResponsesTool>;
export function toOpenAITools(
  specs: ToolSource,
  options?: OpenAIToolsOptions,
): ExportResult<OpenAIChatTool> | ExportResult<OpenAIResponsesTool>;
export function toOpenAITools(
  specs: ToolSource,
  options: OpenAIToolsOptions = { api: 'chat' },
): ExportResult<OpenAIChatTool> | ExportResult<OpenAIResponsesTool> {
  const strict = options.strict === true;
  // JavaScript callers may leave `api` out; the Chat Completions API is the documented default.
  const api = (options.api as OpenAIToolsOptions['api'] | undefined) ?? 'chat';
  switch (api) {
    case 'chat':
      return exportEach(specs, 'openai', (input, issues): OpenAIChatTool => {
        const schema = toOpenAISchema(input.inputSchema, { strict }, issues);
        const tool: OpenAIChatTool = {
          type: 'function',
          function: { name: input.name, description: input.description, parameters: schema.parameters },
        };
        if (strict) tool.function.strict = schema.strict;
        return tool;
      });
    case 'responses':
      return exportEach(specs, 'openai', (input, issues): OpenAIResponsesTool => {
        const schema = toOpenAISchema(input.inputSchema, { strict }, issues);
        return {
          type: 'function',
          name: input.name,
          description: input.description,
          parameters: schema.parameters,
          strict: schema.strict,
        };
      });
    default: {
      const unreachable: never = api;
      throw new TypeError(`Unknown OpenAI API ${JSON.stringify(unreachable)}; use 'chat' or 'responses'.`);
    }
  }
}
