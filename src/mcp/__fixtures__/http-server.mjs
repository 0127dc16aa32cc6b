// A Streamable HTTP MCP server (stateful sessions, with the GET stream) on 127.0.0.1 for the gateway
// tests. It listens on PORT (a free port when unset) and prints "listening <port>" once it does.
// - `greet` says hello; `slow` waits `ms` milliseconds;
// - `drop` answers, then drops every connection and forgets every session (a stream that drops while
//   the process lives on, as behind a proxy that restarts);
// - with BEARER_TOKEN set, every request must carry "Authorization: Bearer <BEARER_TOKEN>".
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

function dropEverything() {
  const open = [...sessions.values()];
  sessions.clear();
  for (const transport of open) void transport.close();
  http.closeAllConnections();
}

function newServer() {
  const server = new McpServer({ name: 'http-fixture', version: '1.0.0' });
  server.registerTool('greet', { description: 'Say hello.', inputSchema: { name: z.string() } }, ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}!` }],
  }));
  server.registerTool('slow', { description: 'Wait a while.', inputSchema: { ms: z.number() } }, ({ ms }) => {
    return new Promise((resolve) =>
      setTimeout(() => resolve({ content: [{ type: 'text', text: `waited ${ms} ms` }] }), ms),
    );
  });
  server.registerTool('drop', { description: 'Drop every connection.' }, () => {
    setTimeout(dropEverything, 50);
    return { content: [{ type: 'text', text: 'dropping' }] };
  });
  return server;
}

const http = createServer(async (request, response) => {
  if (process.env.BEARER_TOKEN && request.headers.authorization !== `Bearer ${process.env.BEARER_TOKEN}`) {
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
    return;
  }
  const id = request.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const transport = sessions.get(id);
    if (transport === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    await transport.handleRequest(request, response);
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
  });
  await newServer().connect(transport);
  await transport.handleRequest(request, response);
});

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
