import type { ToolSpec } from '../core/tool-spec.js';
import { toAnthropicTools } from '../exporters/anthropic/index.js';
import { toGeminiTools } from '../exporters/gemini/index.js';
import { toMcpTools } from '../exporters/mcp/index.js';
import { toOpenAITools } from '../exporters/openai/index.js';
import { validationError } from './api-error.js';

/** The provider formats of `GET /api/agents/:agentId/export` and `GET /api/tools/:id/export`. */
export const EXPORT_FORMATS = ['openai', 'anthropic', 'gemini', 'mcp'] as const;

/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Check a `format` query parameter: one of {@link EXPORT_FORMATS}, else 400 `VALIDATION_ERROR`
 * naming `format`. Called before any lookup, so a bad format is reported first.
 *
 * @example
 * ```ts
 * const format = exportFormatOf(request.query.format);
 * ```
 */
export function exportFormatOf(format: unknown): ExportFormat {
  if (typeof format !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw validationError('format', `'format' must be one of ${EXPORT_FORMATS.join(', ')}.`);
  }
  return format as ExportFormat;
}

/**
 * The export routes' body: `{format, tools, warnings}` of `tools` in a provider's format (OpenAI chat
 * completions, Anthropic, Gemini or MCP).
 *
 * @example
 * ```ts
 * exportTools('anthropic', registry.tools()); // { format: 'anthropic', tools: [...], warnings: [] }
 * ```
 */
export function exportTools(format: ExportFormat, tools: readonly ToolSpec[]) {
  switch (format) {
    case 'openai':
      return { format, ...toOpenAITools(tools) };
    case 'anthropic':
      return { format, ...toAnthropicTools(tools) };
    case 'gemini':
      return { format, ...toGeminiTools(tools) };
    case 'mcp':
      return { format, ...toMcpTools(tools) };
    default: {
      const unreachable: never = format;
      throw validationError('format', `Unknown format '${String(unreachable)}'.`);
    }
  }
}
