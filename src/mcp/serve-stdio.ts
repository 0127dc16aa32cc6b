import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { createJsonLineGuard } from './json-line-guard.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';

/**
 * Settings of {@link serveStdio}: the server's, and the streams to use instead of the process's.
 *
 * @example
 * ```ts
 * const options: StdioServeOptions = { name: 'my-tools', stdin: child.stdout, stdout: child.stdin };
 * ```
 */
export interface StdioServeOptions extends McpServerOptions {
  /** Where JSON-RPC messages come from (default `process.stdin`). */
  stdin?: Readable;
  /** Where JSON-RPC messages go (default `process.stdout`). */
  stdout?: Writable;
}

/**
 * A registry being served over stdio.
 *
 * @example
 * ```ts
 * const serving: StdioServing = await serveStdio(registry);
 * process.on('SIGTERM', () => void serving.close());
 * await serving.closed;
 * ```
 */
export interface StdioServing {
  server: Server;
  /** Settles when the session ends: the client closed stdin, or `close()` was called. */
  closed: Promise<void>;
  /** End the session. */
  close(): Promise<void>;
}

/**
 * Serve a registry over stdio, the way MCP clients such as Claude Desktop launch local servers
 * (`toolshed mcp`). Resolves once the server listens; `closed` settles when the client has closed stdin
and every request read before that has been answered (a client may write its requests and close at
once: it still gets every answer).
 *
 * Every line is checked against `INPUT_LIMITS` (size, nesting, refused and duplicate keys) before
 * it is parsed; one that breaks a limit or is not JSON is answered with a JSON-RPC error (`id: null`)
 * and the session goes on.
 *
 * stdout carries the protocol, so nothing else may write to it while serving: tools should log with
 * `ctx.log` (sent to the client) or to stderr, never with `console.log`.
 *
 * @example
 * ```ts
 * import { serveStdio } from 'toolshed/mcp';
 *
 * const serving = await serveStdio(registry);
 * await serving.closed;
 * ```
 */
export async function serveStdio(registry: ToolRegistry, options: StdioServeOptions = {}): Promise<StdioServing> {
  const { stdin: input = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  // Lines over the limits of INPUT_LIMITS, or not JSON, are answered here and never reach the SDK.
  const stdin = input.pipe(createJsonLineGuard((line) => stdout.write(line)));
  const server = createMcpServer(registry, serverOptions);
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stdin.off('end', onEnd);
    markClosed();
    previousOnClose?.();
  };
  let ended = false;
  const closeWhenAnswered = () => {
    if (ended && transport.answering === 0) server.close().catch(() => markClosed());
  };
  const transport = new AnsweringStdioTransport(stdin, stdout, closeWhenAnswered);
  // The SDK transport does not notice the client going away; an ended stdin is the end of the session,
  // once every request already read has been answered (each call is bounded by its own timeout).
  const onEnd = () => {
    ended = true;
    closeWhenAnswered();
  };
  stdin.on('end', onEnd);
  await server.connect(transport);
  return { server, closed, close: () => server.close() };
}

/** The SDK's stdio transport, counting the requests it has read and not yet answered. */
class AnsweringStdioTransport extends StdioServerTransport {
  readonly #unanswered = new Set<string | number>();
  readonly #onAnswered: () => void;

  constructor(stdin: Readable, stdout: Writable, onAnswered: () => void) {
    super(stdin, stdout);
    this.#onAnswered = onAnswered;
  }

  /** Requests read whose response has not been written yet. */
  get answering(): number {
    return this.#unanswered.size;
  }

  override async start(): Promise<void> {
    // The server has set `onmessage` by now (connect() does, then starts the transport).
    const deliver = this.onmessage;
    this.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) this.#unanswered.add(message.id);
      deliver?.(message);
    };
    await super.start();
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message);
    const id = 'method' in message || !('id' in message) ? undefined : message.id;
    if (id !== undefined && this.#unanswered.delete(id)) this.#onAnswered();
  }
}
