import { outputTooLargeFailure } from './errors/failures.js';
import type { OutputStore } from './output-store.js';
import type { ToolFailure } from './tool-result.js';
import { stringifyData } from './tool-result.js';

/**
 * Cut output longer than `limit` characters to its head and tail, with a marker naming the handle
 * under which the whole text is kept in `outputs` for `read_tool_output`. Undefined when the output
 * fits; a failure when it is longer than the store can keep.
 *
 * @example
 * ```ts
 * capOutput('logs', 'x'.repeat(1000), 100, new OutputStore());
 * // { text: 'xxx…[... 900 characters truncated; call read_tool_output with {"handle": "out_1", "offset": 70} to read them ...]…xxx', handle: 'out_1' }
 * ```
 */
export function capOutput(
  toolName: string,
  data: unknown,
  limit: number,
  outputs: OutputStore,
): { text: string; handle: string } | { failure: ToolFailure } | undefined {
  if (typeof data === 'string' && data.length <= limit) return undefined;
  const text = typeof data === 'string' ? data : stringifyData(data);
  if (text.length <= limit) return undefined;
  if (text.length > outputs.capacityChars) {
    return { failure: outputTooLargeFailure(toolName, text.length, outputs.capacityChars) };
  }
  const handle = outputs.put(toolName, text);
  const head = Math.ceil(limit * 0.7);
  const tail = limit - head;
  const omitted = text.length - head - tail;
  const marker = `\n\n[... ${omitted} characters truncated; call read_tool_output with {"handle": "${handle}", "offset": ${head}} to read them ...]\n\n`;
  return { text: text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : ''), handle };
}
