import { Transform, type TransformCallback } from 'node:stream';
import { checkJsonText, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';

/**
 * A filter in front of a stdio MCP transport: each newline-terminated JSON-RPC line that is over
 * {@link INPUT_LIMITS}.bodyBytes, not UTF-8, not JSON, or breaks a limit of {@link INPUT_LIMITS}
 * (nesting, sizes, refused or duplicate keys) is answered with a JSON-RPC error through `answer`
 * (`id: null`: a refused line is not read further) and never reaches the transport; blank lines are
 * dropped; the rest pass through unchanged. A line that never ends is not buffered past the limit.
 *
 * @example
 * ```ts
 * const guard = createJsonLineGuard((line) => process.stdout.write(line));
 * const transport = new StdioServerTransport(process.stdin.pipe(guard), process.stdout);
 * ```
 */
export function createJsonLineGuard(
  answer: (line: string) => void,
  maxLineBytes: number = INPUT_LIMITS.bodyBytes,
): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overLimit = false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const refuse = (code: number, message: string) => {
    answer(`${JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })}\n`);
  };
  const tooLarge = () =>
    refuse(
      -32600,
      `Invalid Request: the message is larger than ${maxLineBytes} bytes (limit: bodyBytes ${maxLineBytes}).`,
    );

  const lineOf = (bytes: Buffer): string | undefined => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      refuse(-32700, 'Parse error: the message is not valid UTF-8.');
      return undefined;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return undefined;
    const breach = checkJsonText(text);
    if (breach !== undefined) {
      refuse(-32600, `Invalid Request: ${describeJsonLimitBreach('the message', breach)}`);
      return undefined;
    }
    try {
      JSON.parse(text);
    } catch (error) {
      refuse(-32700, `Parse error: the message is not valid JSON (${(error as Error).message}).`);
      return undefined;
    }
    return `${text}\n`;
  };

  return new Transform({
    transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback) {
      let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a)) {
        const head = bytes.subarray(0, newline);
        bytes = bytes.subarray(newline + 1);
        if (overLimit || pendingBytes + head.length > maxLineBytes) {
          tooLarge();
        } else {
          const line = lineOf(pending.length === 0 ? head : Buffer.concat([...pending, head]));
          if (line !== undefined) this.push(line);
        }
        pending = [];
        pendingBytes = 0;
        overLimit = false;
      }
      if (bytes.length > 0 && !overLimit) {
        pendingBytes += bytes.length;
        if (pendingBytes > maxLineBytes) {
          // Past the limit: forget what was read and skip to the end of the line.
          overLimit = true;
          pending = [];
        } else {
          pending.push(Buffer.from(bytes));
        }
      }
      done();
    },
    flush(done: TransformCallback) {
      // The last line without its newline: read it as the SDK would not (it waits for the newline).
      if (overLimit) tooLarge();
      else if (pendingBytes > 0) {
        const line = lineOf(Buffer.concat(pending));
        if (line !== undefined) this.push(line);
      }
      done();
    },
  });
}
