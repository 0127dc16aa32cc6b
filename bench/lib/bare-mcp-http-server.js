/**
 * The baseline of the MCP-over-HTTP case, run as its own process (`node
 * bench/lib/bare-mcp-http-server.js`): the official SDK's `McpServer` serving `add_numbers` (a zod
 * shape, the one-line handler of the toolshed side) over its Node `StreamableHTTPServerTransport`
 * at `POST /mcp`, one server and transport per session as the SDK's own example does. No auth, no
 * views, no call log: the least an SDK server does for a `tools/call`. Prints `listening PORT` on
 * stdout once bound to 127.0.0.1 on a free port; exits on SIGTERM.
 */

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** @type {Map<string, StreamableHTTPServerTransport>} */
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: 'bare', version: '1.0.0' });
  server.registerTool(
    'add_numbers',
    { description: 'Add two numbers and return their sum.', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

/** @param {import('node:http').IncomingMessage} request */
async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const http = createServer(async (request, response) => {
  try {
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined && body !== undefined && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await newServer().connect(created);
      transport = created;
    }
    if (transport === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no session"}');
      return;
    }
    await transport.handleRequest(request, response, body);
  } catch (error) {
    if (!response.headersSent) response.writeHead(500).end(String(error));
  }
});

http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  for (const transport of transports.values()) void transport.close();
  http.close(() => process.exit(0));
});
