import { defineTool } from '../core/define-tool.js';
import type { OutputStore } from '../core/output-store.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';

/** The name of the tool that pages through truncated output. */
export const READ_TOOL_OUTPUT = 'read_tool_output';

/**
 * The `read_tool_output` tool over `outputs`: a registry adds it as soon as any of its tools has an
 * output budget, so a model that sees a truncation marker can read the rest.
 */
export function createReadToolOutputTool(outputs: OutputStore): ToolSpec {
  return defineTool<{ handle: string; offset: number; limit: number }>({
    name: READ_TOOL_OUTPUT,
    title: 'Read Tool Output',
    description:
      'Read part of a tool output that was truncated. Pass the handle from the truncation marker and the offset to start at; returns the text and the offset of the next page.',
    whenToUse:
      'When a tool result ends with a "[... characters truncated ...]" marker and you need the part that was cut.',
    category: 'meta',
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: null,
    // Pages are bounded by `limit`; a registry-wide budget must not truncate the reader itself.
    maxOutputChars: 150_000,
    inputSchema: {
      type: 'object',
      properties: {
        handle: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'The handle from the truncation marker.',
        },
        offset: {
          type: 'integer',
          minimum: 0,
          default: 0,
          description: 'Character offset to start reading at.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 100_000,
          default: 10_000,
          description: 'How many characters to read.',
        },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    handler: ({ handle, offset, limit }) => {
      const page = outputs.read(handle, offset, limit);
      if (page === undefined) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `No stored output has the handle '${handle}'; it may have expired.`,
          {
            hint: 'Call the original tool again to get a fresh handle.',
          },
        );
      }
      return page;
    },
  });
}
