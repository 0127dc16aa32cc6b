import type { JSONRPCMessage as ModernMessage, Transport as ModernTransport } from '@modelcontextprotocol/server';
import { serveStdio as serveModernStdio } from '@modelcontextprotocol/server/stdio';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { createModernMcpServer, type ModernMcpServerOptions } from './mcp-modern.js';

/**
 * Which protocol era a stdio connection speaks, decided by its first message: a request carrying the
 * 2026-07-28 `_meta` claim (a `server/discover` probe, or any request) makes it modern for good;
 * anything else (`initialize` first) keeps it on 2025-11-25, as before.
 *
 * @example
 * ```ts
 * const era = eraOf({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } }); // 'modern'
 * ```
 */
export function eraOf(message: unknown): 'modern' | 'legacy' {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'legacy';
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return 'legacy';
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return 'legacy';
  return typeof (meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] === 'string'
    ? 'modern'
    : 'legacy';
}

/**
 * The 2026-07-28 side of a stdio connection: `@modelcontextprotocol/server`'s `serveStdio` over a
 * transport that gets the connection's messages from `deliver` and writes its answers with `write`
 * (the connection's own stdout writer, so both eras share one serializer).
 *
 * @example
 * ```ts
 * const lane = openModernStdioLane(registry, {}, (message) => transport.send(message));
 * lane.deliver(firstMessage);
 * await lane.close();
 * ```
 */
export function openModernStdioLane(
  registry: ToolRegistry,
  options: ModernMcpServerOptions,
  write: (message: ModernMessage) => Promise<void>,
): { deliver(message: unknown): void; close(): Promise<void> } {
  const transport: ModernTransport = {
    async start() {},
    async send(message) {
      await write(message);
    },
    async close() {
      transport.onclose?.();
    },
  };
  const report = options.onError ?? (() => {});
  const handle = serveModernStdio(() => createModernMcpServer(registry, options), {
    legacy: 'reject',
    transport,
    onerror: report,
  });
  return {
    deliver(message) {
      transport.onmessage?.(message as ModernMessage);
    },
    close: () => handle.close(),
  };
}
