import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpHttpHandler } from '../../src/mcp/index.js';

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
