import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { createJsonLineGuard } from './json-line-guard.js';
import type { ModernMcpServerOptions } from './mcp-modern.js';
import { createMcpServer } from './mcp-server.js';
import {
  alreadyInitializedMessage,
  deliverAnswering,
  invalidRequestAnswer,
  notInitialized,
  requestIdInUse,
} from './session-requests.js';
import { eraOf, openModernStdioLane } from './stdio-modern-lane.js';

/**
 * Settings of {@link serveStdio}: the server's, and the streams to use instead of the process's.
 *
 * @example
 * ```ts
 * const options: StdioServeOptions = { name: 'my-tools', stdin: child.stdout, stdout: child.stdin };
 * ```
 */
export interface StdioServeOptions extends ModernMcpServerOptions {
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
 * The first message picks the protocol era for the connection: `initialize` (or anything without the
 * 2026-07-28 `_meta`) serves 2025-11-25 with `server`, as before; a 2026-07-28 request (a
 * `server/discover` probe) serves 2026-07-28 from then on, each request answered by its own
 * {@link createModernMcpServer}.
 *
 * On 2025-11-25 the MCP lifecycle holds: before `initialize` only `ping` is answered (any other
 * request gets `-32600` saying to send `initialize` first), and a second `initialize` is refused with
 * `-32600`; an `initialize` naming a version this server does not know is answered with the latest it
 * supports.
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
  let lane: ReturnType<typeof openModernStdioLane> | undefined;
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stdin.off('end', onEnd);
    lane?.close().catch(() => undefined);
    markClosed();
    previousOnClose?.();
  };
  let ended = false;
  const closeWhenAnswered = () => {
    if (ended && transport.answering === 0) server.close().catch(() => markClosed());
  };
  const transport = new AnsweringStdioTransport(stdin, stdout, closeWhenAnswered);
  let era: 'modern' | 'legacy' | undefined;
  transport.route = (message) => {
    era ??= eraOf(message);
    if (era === 'legacy') return false;
    lane ??= openModernStdioLane(registry, serverOptions, (answer) => transport.send(answer as JSONRPCMessage));
    lane.deliver(message);
    return true;
  };
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
  /** Whether an initialize was taken: before it, only ping is served. */
  #initialized = false;
  /** Takes a message for the 2026-07-28 side of the connection (true), or leaves it to the server. */
  route: ((message: JSONRPCMessage) => boolean) | undefined;

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
      if ('method' in message && 'id' in message) {
        // A second request under an id still under way would take its answer: refused, as over HTTP.
        if (this.#unanswered.has(message.id)) {
          void super.send(requestIdInUse(message.id)).catch(() => undefined);
          return;
        }
        this.#unanswered.add(message.id);
      }
      if (this.route?.(message) === true) return;
      // The MCP lifecycle: before initialize only ping is served, and initialize is sent once.
      if ('method' in message && 'id' in message) {
        if (message.method === 'initialize') {
          if (this.#initialized) {
            void this.send(invalidRequestAnswer(message.id, alreadyInitializedMessage('start the server again'))).catch(
              () => undefined,
            );
            return;
          }
          // Refused params (-32602, below) leave the session as it was.
          this.#initialized = isInitializeRequest(message);
        } else if (!this.#initialized && message.method !== 'ping') {
          void this.send(notInitialized(message.id)).catch(() => undefined);
          return;
        }
      }
      // A cancelled request gets no answer from the SDK: one sent here ends it, so the session can end.
      deliverAnswering(
        message,
        (delivered) => deliver?.(delivered),
        (answer) => void this.send(answer).catch(() => undefined),
        (id) => this.#unanswered.has(id),
      );
    };
    await super.start();
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message);
    const id = 'method' in message || !('id' in message) ? undefined : message.id;
    if (id !== undefined && this.#unanswered.delete(id)) this.#onAnswered();
  }
}
