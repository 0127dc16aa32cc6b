import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from '../../src/mcp/index.js';
import { createConformanceRegistry } from './conformance-tools.js';

/** A node:http server on 127.0.0.1 and a free port, sending `/mcp...` paths to the handler. */
export async function listen(handler: McpHttpHandler): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith('/mcp') === true) void handler(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A handler listening on a free port, with the handler itself. */
export type ListeningHandler = Awaited<ReturnType<typeof listen>> & { handler: McpHttpHandler };

/**
 * For a test file of `createMcpHttpHandler`: `start` serves a handler over the registry (default: the
 * conformance tools) on a free port; `cleanups` takes what else a test opens. After each test, the
 * cleanups run in reverse order, the servers started among them.
 */
export function handlerHarness(): {
  cleanups: Array<() => Promise<void>>;
  start(
    registryOrResolver?: Parameters<typeof createMcpHttpHandler>[0],
    options?: McpHttpHandlerOptions,
  ): Promise<ListeningHandler>;
} {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    async start(registryOrResolver = createConformanceRegistry(), options = {}) {
      const handler = createMcpHttpHandler(registryOrResolver, options);
      const server = await listen(handler);
      cleanups.push(() => server.close());
      return { ...server, handler };
    },
  };
}
