import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
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
 * (`toolshed mcp`). Resolves once the server listens; `closed` settles when the client closes stdin.
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
  const { stdin = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  const server = createMcpServer(registry, serverOptions);
  const transport = new StdioServerTransport(stdin, stdout);
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
  // The SDK transport does not notice the client going away; an ended stdin is the end of the session.
  const onEnd = () => {
    server.close().catch(() => markClosed());
  };
  stdin.on('end', onEnd);
  await server.connect(transport);
  return { server, closed, close: () => server.close() };
}
