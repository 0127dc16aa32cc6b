import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConfig } from './import-mcp-server.js';

const CLIENT_ID = 'toolshed-gateway';
const CLIENT_SECRET = 'cs-7d41f0b9e2a8';

/** What the fake authorization server saw and issued. */
const issued = {
  requests: [] as Array<{ clientId: string; scope: string | null; resource: string | null }>,
  valid: new Set<string>(),
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
}

async function body(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

let authorization: Server;
let upstream: Server;
let issuer: string;
let url: string;

beforeAll(async () => {
  // A fake authorization server: RFC 8414 metadata and a token endpoint for the client credentials grant.
  authorization = createServer(async (request, response) => {
    const json = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (request.method === 'GET' && request.url === '/.well-known/oauth-authorization-server') {
      json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
      return;
    }
    if (request.method === 'POST' && request.url === '/token') {
      const form = new URLSearchParams(await body(request));
      const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
      const [id, secret] = basic === null ? [] : Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      if (form.get('grant_type') !== 'client_credentials' || id !== CLIENT_ID || secret !== CLIENT_SECRET) {
        json(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
        return;
      }
      issued.requests.push({ clientId: id, scope: form.get('scope'), resource: form.get('resource') });
      const token = `at-${issued.requests.length}-${Math.random().toString(36).slice(2)}`;
      issued.valid.add(token);
      json(200, { access_token: token, token_type: 'Bearer', expires_in: 300 });
      return;
    }
    json(404, { error: 'not_found' });
  });
  issuer = await listen(authorization);

  // An MCP server that wants a bearer token the authorization server issued, and says where to get one.
  upstream = createServer((request, response) => {
    const metadata = `${url.replace(/\/mcp$/, '')}/.well-known/oauth-protected-resource/mcp`;
    if (request.method === 'GET' && request.url?.startsWith('/.well-known/oauth-protected-resource')) {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ resource: url, authorization_servers: [issuer] }));
      return;
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token === undefined || !issued.valid.has(token)) {
      response
        .writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadata}"`,
        })
        .end('{"error":"invalid_token"}');
      return;
    }
    const mcp = new McpServer({ name: 'crm', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Say who is asking.' }, () => ({
      content: [{ type: 'text', text: 'a client with a token' }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  url = `${await listen(upstream)}/mcp`;
});

afterAll(async () => {
  await stop(upstream);
  await stop(authorization);
});

beforeEach(() => {
  issued.requests.length = 0;
  issued.valid.clear();
});

const entry = (): McpServerConfig => ({
  name: 'crm',
  url,
  oauth: { issuer, clientIdEnv: 'CRM_CLIENT_ID', clientSecretEnv: 'CRM_CLIENT_SECRET', scope: 'tools:call' },
});

describe('an HTTP MCP server that wants an OAuth bearer token', () => {
  it('is imported with a token got with the client credentials from the environment, found through its metadata', async () => {
    const registry = new ToolRegistry();
    const connection = await importMcpServer(registry, entry(), {
      env: { CRM_CLIENT_ID: CLIENT_ID, CRM_CLIENT_SECRET: CLIENT_SECRET },
    });
    try {
      expect(toModelText(await registry.call('crm__whoami', {}))).toBe('a client with a token');
      expect(toModelText(await registry.call('crm__whoami', {}))).toBe('a client with a token');
      // One token for the handshake and both calls; asked for the configured scope, for this resource.
      expect(issued.requests).toEqual([{ clientId: CLIENT_ID, scope: 'tools:call', resource: url }]);
    } finally {
      await connection.close();
    }
  });

  it('gets a new token when the server refuses the one it has (expired or revoked), and the call goes through', async () => {
    const registry = new ToolRegistry();
    const connection = await importMcpServer(registry, entry(), {
      env: { CRM_CLIENT_ID: CLIENT_ID, CRM_CLIENT_SECRET: CLIENT_SECRET },
    });
    try {
      expect(issued.requests).toHaveLength(1);
      issued.valid.clear(); // every token issued so far has expired
      expect(toModelText(await registry.call('crm__whoami', {}))).toBe('a client with a token');
      expect(issued.requests).toHaveLength(2);
      expect(connection.state).toBe('up');
    } finally {
      await connection.close();
    }
  });

  it('with a wrong client secret: a clear error naming the server, its authorization server and the variables, never the secret', async () => {
    const registry = new ToolRegistry();
    const wrong = 'not-the-secret-0042';
    const failure = importMcpServer(registry, entry(), {
      env: { CRM_CLIENT_ID: CLIENT_ID, CRM_CLIENT_SECRET: wrong },
    });
    await expect(failure).rejects.toMatchObject({
      code: 'MCP_SERVER_UNAVAILABLE',
      message: `Could not connect to MCP server 'crm': its authorization server ${issuer} refused the client credentials (invalid_client); check the values of CRM_CLIENT_ID and CRM_CLIENT_SECRET.`,
    });
    const error = await failure.catch((caught: Error) => caught);
    expect(JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) })).not.toContain(
      wrong,
    );
    expect(registry.list().filter((name) => name.startsWith('crm__'))).toEqual([]);
    expect(issued.requests).toEqual([]);
  });

  it('whose metadata names another authorization server than the configured issuer: the credentials are not sent', async () => {
    const registry = new ToolRegistry();
    const failure = importMcpServer(
      registry,
      { ...entry(), oauth: { ...entry().oauth!, issuer: 'http://127.0.0.1:9/elsewhere' } },
      { env: { CRM_CLIENT_ID: CLIENT_ID, CRM_CLIENT_SECRET: CLIENT_SECRET } },
    );
    await expect(failure).rejects.toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE' });
    await expect(failure).rejects.toThrow(/^Could not connect to MCP server 'crm': /);
    expect(issued.requests).toEqual([]);
  });

  it('with a variable not set: an error naming the server and the variable, before any request', async () => {
    const registry = new ToolRegistry();
    await expect(importMcpServer(registry, entry(), { env: { CRM_CLIENT_ID: CLIENT_ID } })).rejects.toThrow(
      "MCP server 'crm' needs the environment variable CRM_CLIENT_SECRET for its OAuth client secret, which is not set.",
    );
    expect(issued.requests).toEqual([]);
  });
});
