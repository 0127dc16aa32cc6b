// Types of definitions.mjs, for the TypeScript tests that define the conformance tools with the
// library's source.
import type { defineTool, ToolResult, ToolSpec } from '../../../../src/index.js';

/** A 1×1 red PNG. */
export const RED_PIXEL_PNG: string;

/** Eight samples of silence: 8 kHz, mono, 8-bit PCM WAV. */
export const SILENT_WAV: string;

/** The conformance suite's tools, defined with `toolshed`'s `defineTool` and `ToolResult`. */
export function conformanceToolDefinitions(toolshed: {
  defineTool: typeof defineTool;
  ToolResult: typeof ToolResult;
}): ToolSpec[];
