import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer } from './import-mcp-server.js';

const TOKEN = 'Bearer upstream-secret-4f1c9a';

/** A loopback Streamable HTTP MCP server that answers only requests carrying TOKEN. */
async function startGuarded(port = 0): Promise<Server> {
  const guarded = createServer((request, response) => {
    if (request.headers.authorization !== TOKEN) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Say who is asking.' }, () => ({
      content: [{ type: 'text', text: 'an authorized client' }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((done) => guarded.listen(port, '127.0.0.1', done));
  return guarded;
}

async function stop(guarded: Server): Promise<void> {
  guarded.closeAllConnections();
  await new Promise<void>((done) => guarded.close(() => done()));
}

let server: Server;
let url: string;

beforeAll(async () => {
  server = await startGuarded();
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  if (server.listening) await stop(server);
});

describe('an HTTP MCP server that needs an Authorization header', () => {
  it('is imported with the header read from the variable headers_env names', async () => {
    const registry = new ToolRegistry();
    const connection = await importMcpServer(
      registry,
      { name: 'guarded', url, headersEnv: { Authorization: 'GUARDED_AUTHORIZATION' } },
      { env: { GUARDED_AUTHORIZATION: TOKEN } },
    );
    try {
      expect(toModelText(await registry.call('guarded__whoami', {}))).toBe('an authorized client');
    } finally {
      await connection.close();
    }
  });

  it('refuses a wrong token with an error naming the server and the variable, never the value', async () => {
    const registry = new ToolRegistry();
    const failure = importMcpServer(
      registry,
      { name: 'guarded', url, headersEnv: { Authorization: 'GUARDED_AUTHORIZATION' } },
      { env: { GUARDED_AUTHORIZATION: 'Bearer wrong-token-77' } },
    );
    await expect(failure).rejects.toThrow(
      "Could not connect to MCP server 'guarded': it refused the credentials (HTTP 401); check the value of GUARDED_AUTHORIZATION (its Authorization header).",
    );
    await failure.catch((error: Error) => expect(error.message).not.toContain('wrong-token-77'));
    expect(registry.list()).toEqual([]);
  });

  it('is reconnected when it comes back after going away between calls', async () => {
    const registry = new ToolRegistry();
    const states: string[] = [];
    const connection = await importMcpServer(
      registry,
      { name: 'guarded', url, headersEnv: { Authorization: 'GUARDED_AUTHORIZATION' } },
      {
        env: { GUARDED_AUTHORIZATION: TOKEN },
        reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
        onStateChange: (state, message) => states.push(`${state}: ${message}`),
      },
    );
    try {
      const port = (server.address() as AddressInfo).port;
      await stop(server);
      const refused = await registry.call('guarded__whoami', {});
      // A refused connection, or a kept-alive one the server closed: either way it is unreachable.
      const unreachable = "MCP server 'guarded' cannot be reached \\((ECONNREFUSED|other side closed)\\)";
      expect(refused.status === 'error' && refused.error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(refused.status === 'error' && refused.error.retryable).toBe(true);
      expect(refused.status === 'error' && refused.error.message).toMatch(
        new RegExp(`^${unreachable} during the call to 'guarded__whoami'\\.$`),
      );
      expect(registry.get('guarded__whoami').metadata.mcpUnavailable).toBe(true);
      server = await startGuarded(port);
      // The state turns 'up' as the tools are listed again, and onStateChange reports it once they are.
      await expect.poll(() => states.length, { timeout: 10_000 }).toBe(2);
      expect(connection.state).toBe('up');
      expect(states[0]).toMatch(new RegExp(`^down: ${unreachable}$`));
      expect(states[1]).toBe("up: MCP server 'guarded' is back");
      expect(toModelText(await registry.call('guarded__whoami', {}))).toBe('an authorized client');
    } finally {
      await connection.close();
    }
  });
});
