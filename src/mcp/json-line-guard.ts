import { Transform, type TransformCallback } from 'node:stream';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeValue } from '../core/define-tool.js';
import { checkJsonText, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import { unsafeRequestIdMessage } from './unsafe-request-id.js';

/**
 * A filter in front of a stdio MCP transport: each newline-terminated JSON-RPC line that is over
 * {@link INPUT_LIMITS}.bodyBytes, not UTF-8, not JSON, or breaks a limit of {@link INPUT_LIMITS}
 * (nesting, sizes, refused or duplicate keys) is answered with a JSON-RPC error through `answer`
 * (`id: null`: a refused line is not read further) and never reaches the transport; so is JSON that
 * is not one JSON-RPC 2.0 message (a batch, `"jsonrpc": "1.0"`, an id that is neither a string nor an
 * integer, or a number too large to be read exactly, an unknown top-level key, a progress token of another type), answered `-32600` with its id
 * when it has a usable one; blank lines are dropped; the rest pass through unchanged. A line that
 * never ends is not buffered past the limit.
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      refuse(-32700, `Parse error: the message is not valid JSON (${(error as Error).message}).`);
      return undefined;
    }
    // The SDK drops a message that is not JSON-RPC without a word; its sender would wait for good.
    const problem = jsonRpcProblem(value);
    if (problem !== undefined) {
      answer(
        `${JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${problem.message}` }, id: problem.id })}\n`,
      );
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

/** Why `value` is not one JSON-RPC 2.0 message the SDK takes, and the id to answer with; `undefined` when it is. */
function jsonRpcProblem(value: unknown): { id: string | number | null; message: string } | undefined {
  // Before the schema, which takes any whole number: a rounded id would be answered as another one.
  const unsafeId = unsafeRequestIdMessage(value);
  if (unsafeId !== undefined) return { id: null, message: unsafeId };
  if (Array.isArray(value)) {
    return { id: null, message: 'batches are not part of MCP; send one JSON-RPC message per line.' };
  }
  if (typeof value !== 'object' || value === null) {
    return { id: null, message: `a JSON-RPC message is an object, got ${describeValue(value)}.` };
  }
  if (JSONRPCMessageSchema.safeParse(value).success) return undefined;
  const fields = value as Record<string, unknown>;
  const rawId = fields.id;
  const usableId = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isInteger(rawId));
  const id = usableId ? (rawId as string | number) : null;
  if (fields.jsonrpc !== '2.0')
    return { id, message: `'jsonrpc' must be "2.0", got ${describeValue(fields.jsonrpc)}.` };
  if ('id' in fields && !usableId) {
    return { id, message: `'id' must be a string or an integer, got ${describeValue(rawId)}.` };
  }
  const known =
    typeof fields.method === 'string' ? ['jsonrpc', 'id', 'method', 'params'] : ['jsonrpc', 'id', 'result', 'error'];
  const unknown = Object.keys(fields).find((key) => !known.includes(key));
  if (unknown !== undefined)
    return { id, message: `unknown key '${unknown}'; a message has only ${known.join(', ')}.` };
  const params = fields.params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return { id, message: `'params' must be an object, got ${describeValue(params)}.` };
  }
  const token = (params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;
  if (token !== undefined && typeof token !== 'string' && !(typeof token === 'number' && Number.isInteger(token))) {
    return { id, message: `'params._meta.progressToken' must be a string or an integer, got ${describeValue(token)}.` };
  }
  if (typeof fields.method !== 'string' && !('id' in fields)) {
    return { id, message: "a message has a 'method' (a request or a notification) or an 'id' (a response)." };
  }
  return { id, message: 'the message is not a JSON-RPC 2.0 request, notification or response MCP takes.' };
}
