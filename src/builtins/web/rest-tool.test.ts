import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toModelText } from '../../core/tool-result.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createRestTool, type WorkspaceSecrets } from './rest-tool.js';
import type { RestToolConfig } from './rest-tool-config.js';

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
    expect(text).toBe('Error [EXECUTION_FAILED]: The API answered 401 Unauthorized: bad token [redacted]');
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

describe('REST tools of a workspace', () => {
  const SECRET = 'ws_secret_9f8e7d6c5b4a';

  function workspaceRegistry(config: RestToolConfig, secrets: Record<string, string> = { COMPANY_TOKEN: SECRET }) {
    const workspaceSecrets: WorkspaceSecrets = {
      workspaceId: 'acme',
      reveal: async (name) => (Object.hasOwn(secrets, name) ? secrets[name] : undefined),
    };
    // The server's environment holds a variable of the same name: a workspace tool must never read it.
    const registry = new ToolRegistry({ env: { COMPANY_API_TOKEN: TOKEN, COMPANY_TOKEN: TOKEN } });
    registry.register(createRestTool(config, { workspaceSecrets, guard: { allowHosts: [new URL(base).host] } }));
    return registry;
  }

  function workspaceTool(overrides: Partial<RestToolConfig> = {}): RestToolConfig {
    const { allow_private_network: _operatorOnly, ...config } = tool({
      auth: { type: 'bearer', secret: 'COMPANY_TOKEN' },
      ...overrides,
    });
    return config;
  }

  it('sends the workspace secret as the bearer token', async () => {
    const result = await workspaceRegistry(workspaceTool()).call('company_search', { query: 'x' });
    expect(result.status).toBe('success');
    expect(recorded[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('sends a header or query secret', async () => {
    await workspaceRegistry(
      workspaceTool({ auth: { type: 'header', name: 'X-Api-Key', secret: 'COMPANY_TOKEN' } }),
    ).call('company_search', { query: 'x' });
    expect(recorded[0]!.headers['x-api-key']).toBe(SECRET);
    await workspaceRegistry(
      workspaceTool({
        method: 'GET',
        request: undefined,
        auth: { type: 'query', name: 'key', secret: 'COMPANY_TOKEN' },
      }),
    ).call('company_search', { query: 'x' });
    expect(recorded[1]!.url).toBe(`/search?query=x&key=${SECRET}`);
  });

  it('fails with MISSING_CREDENTIALS naming the missing secret and how to set it, and sends nothing', async () => {
    const result = await workspaceRegistry(workspaceTool(), {}).call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe(
      "Error [MISSING_CREDENTIALS]: Tool 'company_search' needs the workspace secret 'COMPANY_TOKEN', which is not set in workspace 'acme'.\n" +
        'Hint: Store it with PUT /api/secrets/COMPANY_TOKEN and the body {"value": "..."} (or \'toolshed secret set COMPANY_TOKEN --workspace acme --value-stdin\'), then call again.',
    );
    expect(recorded).toHaveLength(0);
  });

  it('never reads the server environment, even for a stored token_env', async () => {
    const config = workspaceTool({ auth: { type: 'bearer', token_env: 'COMPANY_API_TOKEN' } });
    const tool = createRestTool(config, { workspaceSecrets: { workspaceId: 'acme', reveal: async () => undefined } });
    expect(tool.requires.env).toEqual([]);
    const result = await workspaceRegistry(config).call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe(
      "Error [MISSING_CREDENTIALS]: Tool 'company_search' reads the server environment variable 'COMPANY_API_TOKEN', which only operator config files may use.\n" +
        'Hint: Store the value as a workspace secret with PUT /api/secrets/COMPANY_API_TOKEN, then create the tool again with auth.secret: COMPANY_API_TOKEN.',
    );
    expect(recorded).toHaveLength(0);
  });

  it('ignores allow_private_network: a loopback target is refused', async () => {
    const registry = new ToolRegistry();
    registry.register(
      createRestTool(
        { ...workspaceTool(), allow_private_network: true },
        { workspaceSecrets: { workspaceId: 'acme', reveal: async () => SECRET } },
      ),
    );
    const result = await registry.call('company_search', { query: 'x' });
    expect(toModelText(result)).toContain('was refused');
    expect(recorded).toHaveLength(0);
  });

  it('reports a secret that cannot be read without sending anything', async () => {
    const registry = new ToolRegistry();
    const reveal = async () => {
      throw new Error("Secret 'COMPANY_TOKEN' was stored with another key than TOOLSHED_SECRET_KEY.");
    };
    registry.register(createRestTool(workspaceTool(), { workspaceSecrets: { workspaceId: 'acme', reveal } }));
    const result = await registry.call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe(
      "Error [EXECUTION_FAILED]: Tool 'company_search' cannot read its secret 'COMPANY_TOKEN': Secret 'COMPANY_TOKEN' was stored with another key than TOOLSHED_SECRET_KEY.\n" +
        'Hint: This is a problem of the server, not of the arguments; tell its operator.',
    );
  });

  it('refuses auth.secret in an operator tool (there is no workspace)', async () => {
    const result = await registryWith(workspaceTool()).call('company_search', { query: 'x' });
    expect(toModelText(result)).toBe(
      "Error [MISSING_CREDENTIALS]: Tool 'company_search' names the workspace secret 'COMPANY_TOKEN', but it is not a workspace tool; workspace secrets exist only for tools created through the service API.\n" +
        'Hint: In a configuration file, read the value from the environment with token_env (value_env for header and query auth).',
    );
  });
});

describe('the secret in what a REST tool returns', () => {
  const SECRET = 'sk_echo_1234567890abcdef';
  const everywhere = (header: string) => ({
    echoed: header,
    nested: { deeper: [{ value: `prefix ${header} suffix` }, [header]] },
    [header]: 'as a key',
    [`key with ${SECRET} inside`]: 1,
    escaped: JSON.stringify(header),
  });

  function echoing(config: Partial<RestToolConfig> = {}) {
    const registry = new ToolRegistry({ env: { COMPANY_API_TOKEN: SECRET } });
    registry.register(createRestTool(tool({ response: {}, ...config })));
    return registry;
  }

  it('removes it from JSON bodies: strings, keys and nested arrays', async () => {
    reply = (request) => ({ body: JSON.stringify(everywhere(String(request.headers.authorization))) });
    const result = await echoing().call('company_search', { query: 'x' });
    expect(result.status === 'success' && result.data).toEqual({
      echoed: '[redacted]',
      nested: { deeper: [{ value: 'prefix [redacted] suffix' }, ['[redacted]']] },
      '[redacted]': 'as a key',
      'key with [redacted] inside': 1,
      escaped: '"[redacted]"',
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(toModelText(result)).not.toContain(SECRET);
  });

  it('removes it from a picked response path, text bodies and JSON-escaped text', async () => {
    reply = (request) => ({ body: JSON.stringify({ data: { results: [String(request.headers.authorization)] } }) });
    const picked = await echoing({ response: { path: 'data.results' } }).call('company_search', { query: 'x' });
    expect(picked.status === 'success' && picked.data).toEqual(['[redacted]']);
    reply = () => ({ type: 'text/plain', body: `token=${SECRET}; json={"t":${JSON.stringify(`a\n${SECRET}`)}}` });
    const text = await echoing().call('company_search', { query: 'x' });
    expect(text.status === 'success' && text.data).toBe('token=[redacted]; json={"t":"a\\n[redacted]"}');
  });

  it('removes a numeric secret from numbers', async () => {
    const registry = new ToolRegistry({ env: { COMPANY_API_TOKEN: '987654321' } });
    registry.register(createRestTool(tool({ response: {} })));
    reply = () => ({ body: '{"pin": 987654321, "other": 5}' });
    const result = await registry.call('company_search', { query: 'x' });
    expect(result.status === 'success' && result.data).toEqual({ pin: '[redacted]', other: 5 });
  });

  it('removes it from an error body before cutting it to 300 characters', async () => {
    reply = (request) => ({ status: 500, body: `${'x'.repeat(280)} ${String(request.headers.authorization)}` });
    const result = await echoing().call('company_search', { query: 'x' });
    expect(result.status === 'error' && result.error.message).toBe(
      `The API answered 500 Internal Server Error: ${'x'.repeat(280)} [redacted]`,
    );
    expect(JSON.stringify(result)).not.toContain(SECRET.slice(0, 4));
  });

  it('removes a query secret from the message of a failed request', async () => {
    const registry = new ToolRegistry({ env: { COMPANY_API_TOKEN: 'a b/c?d' } });
    registry.register(
      createRestTool(
        tool({
          method: 'GET',
          request: undefined,
          endpoint: 'http://127.0.0.1:9/nothing-listens-here',
          auth: { type: 'query', name: 'key', value_env: 'COMPANY_API_TOKEN' },
        }),
      ),
    );
    const result = await registry.call('company_search', { query: 'x' });
    expect(result.status).toBe('error');
    const text = JSON.stringify(result);
    for (const form of ['a b/c?d', 'a%20b%2Fc%3Fd', 'a+b%2Fc%3Fd']) expect(text).not.toContain(form);
  });
});
