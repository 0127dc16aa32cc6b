import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRestTool } from '../../src/config/rest-tool.js';
import type { RestToolConfig } from '../../src/config/rest-tool-config.js';
import { toModelText } from '../../src/core/tool-result.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const TOKEN = 'tok_live_0123456789abcdef';
let server: Server;
let base: string;
let recorded: Recorded[] = [];
let reply: (request: Recorded) => { status?: number; type?: string; body: string } = () => ({ body: '{}' });

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      recorded.push(entry);
      const answer = reply(entry);
      response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' });
      response.end(answer.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  recorded = [];
  reply = () => ({ body: JSON.stringify({ data: { results: [{ title: 'Handbook' }] } }) });
});

function tool(overrides: Partial<RestToolConfig> = {}): RestToolConfig {
  return {
    id: 'company_search',
    type: 'rest_api',
    description: 'Search the company knowledge base.',
    endpoint: `${base}/search`,
    method: 'POST',
    auth: { type: 'bearer', token_env: 'COMPANY_API_TOKEN' },
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    },
    request: { body: { query: '{query}', limit: '{limit}', source: 'agent' } },
    response: { path: 'data.results' },
    allow_private_network: true,
    ...overrides,
  };
}

function registryWith(
  config: RestToolConfig,
  env: Record<string, string> = { COMPANY_API_TOKEN: TOKEN },
): ToolRegistry {
  const registry = new ToolRegistry({ env });
  registry.register(createRestTool(config));
  return registry;
}

describe('REST tools from custom_tools', () => {
  it('sends the templated JSON body with the bearer token and returns the response path', async () => {
    const result = await registryWith(tool()).call('company_search', { query: 'vacation policy', limit: 3 });
    expect(result.status).toBe('success');
    if (result.status !== 'success') return;
    expect(result.data).toEqual([{ title: 'Handbook' }]);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.method).toBe('POST');
    expect(recorded[0]!.url).toBe('/search');
    expect(recorded[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(recorded[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(recorded[0]!.body)).toEqual({ query: 'vacation policy', limit: 3, source: 'agent' });
  });

  it('leaves out body fields whose argument is absent', async () => {
    await registryWith(tool()).call('company_search', { query: 'x' });
    expect(JSON.parse(recorded[0]!.body)).toEqual({ query: 'x', source: 'agent' });
  });

  it('sends a header secret and query templates on GET', async () => {
    const config = tool({
      method: 'GET',
      endpoint: `${base}/items/{query}`,
      auth: { type: 'header', name: 'X-Api-Key', value_env: 'COMPANY_API_TOKEN' },
      request: { query: { q: '{query}', page: 'p{limit}' } },
      response: {},
    });
    await registryWith(config).call('company_search', { query: 'a b/c', limit: 2 });
    expect(recorded[0]!.method).toBe('GET');
    expect(recorded[0]!.url).toBe('/items/a%20b%2Fc?q=a+b%2Fc&page=p2');
    expect(recorded[0]!.headers['x-api-key']).toBe(TOKEN);
    expect(recorded[0]!.body).toBe('');
  });

  it('sends the arguments as the query string of a GET without templates, and a query secret', async () => {
    const config = tool({
      method: 'GET',
      request: undefined,
      response: undefined,
      auth: { type: 'query', name: 'key', value_env: 'COMPANY_API_TOKEN' },
    });
    await registryWith(config).call('company_search', { query: 'x', limit: 5 });
    expect(recorded[0]!.url).toBe(`/search?query=x&limit=5&key=${TOKEN}`);
  });

  it('fails with MISSING_CREDENTIALS naming the variable, and sends nothing', async () => {
    const result = await registryWith(tool(), {}).call('company_search', { query: 'x' });
    expect(result.status).toBe('error');
    expect(toModelText(result)).toContain("Tool 'company_search' needs the environment variable COMPANY_API_TOKEN");
    expect(recorded).toHaveLength(0);
  });

  it('never returns the secret, even when the API echoes it', async () => {
    reply = (request) => ({ status: 401, body: `bad token ${String(request.headers.authorization)}` });
    const result = await registryWith(tool()).call('company_search', { query: 'x' });
    const text = toModelText(result);
    expect(text).toBe('Error [EXECUTION_FAILED]: The API answered 401 Unauthorized: bad token Bearer [redacted]');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('maps 429 to RATE_LIMITED and 5xx to a retryable failure', async () => {
    reply = () => ({ status: 429, body: 'slow down' });
    const limited = await registryWith(tool()).call('company_search', { query: 'x' });
    expect(limited.status === 'error' && limited.error.code).toBe('RATE_LIMITED');
    reply = () => ({ status: 503, body: 'maintenance' });
    const down = await registryWith(tool()).call('company_search', { query: 'x' });
    expect(down.status === 'error' && down.error.retryable).toBe(true);
    expect(toModelText(down)).toBe('Error [EXECUTION_FAILED]: The API answered 503 Service Unavailable: maintenance');
  });

  it('reports a missing response path', async () => {
    reply = () => ({ body: '{"data": {}}' });
    const result = await registryWith(tool()).call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe("Error [EXECUTION_FAILED]: The API response has no 'data.results'.");
  });

  it('returns a plain-text answer as text', async () => {
    reply = () => ({ type: 'text/plain', body: 'just words' });
    const result = await registryWith(tool({ response: {} })).call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe('just words');
  });

  it('refuses a loopback endpoint unless allow_private_network is set', async () => {
    const result = await registryWith(tool({ allow_private_network: false })).call('company_search', { query: 'x' });
    expect(result.status).toBe('error');
    expect(toModelText(result)).toContain('company_search: request to');
    expect(toModelText(result)).toContain('was refused');
    expect(recorded).toHaveLength(0);
  });

  it('refuses the cloud metadata address and private ranges', async () => {
    for (const endpoint of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.8/api', 'http://[::1]:9/x']) {
      const result = await registryWith(tool({ endpoint, allow_private_network: false })).call('company_search', {
        query: 'x',
      });
      expect(result.status).toBe('error');
      expect(toModelText(result)).toContain('was refused');
    }
  });

  it('times out a slow API with TIMEOUT', async () => {
    const slow = createServer(() => undefined);
    await new Promise<void>((done) => slow.listen(0, '127.0.0.1', done));
    const port = (slow.address() as AddressInfo).port;
    try {
      const result = await registryWith(tool({ endpoint: `http://127.0.0.1:${port}/`, timeout: 0.2 })).call(
        'company_search',
        { query: 'x' },
      );
      expect(result.status).toBe('timeout');
      expect(toModelText(result)).toContain("Tool 'company_search' timed out after 200 ms.");
    } finally {
      slow.closeAllConnections();
      await new Promise((done) => slow.close(done));
    }
  });

  it('refuses an answer larger than max_response_bytes', async () => {
    reply = () => ({ body: JSON.stringify({ data: { results: 'x'.repeat(5000) } }) });
    const result = await registryWith(tool({ max_response_bytes: 1000 })).call('company_search', { query: 'x' });
    expect(result.status === 'error' && result.error.code).toBe('OUTPUT_TOO_LARGE');
  });

  it('validates arguments against the configured parameters before sending', async () => {
    const result = await registryWith(tool()).call('company_search', { query: 42 });
    expect(toModelText(result)).toContain(
      "Invalid arguments for 'company_search': 'query' must be a string, got number 42.",
    );
    expect(recorded).toHaveLength(0);
  });
});
