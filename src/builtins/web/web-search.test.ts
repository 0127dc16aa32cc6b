import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFailure,
  expectSuccess,
  type FakeServer,
  installNetworkTripwire,
  startFakeServer,
} from '../../../test/builtins/support.js';
import { toModelText } from '../../core/tool-result.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createWebTools } from './create-web-tools.js';
import { createDuckDuckGoSearchTool } from './duckduckgo-search-tool.js';
import { parseDuckDuckGoHtml } from './parse-duckduckgo-html.js';
import { createSerperSearchTool } from './serper-search-tool.js';

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const SERPER_RESPONSE = readFileSync(join(FIXTURES, 'serper-search.json'), 'utf8');
const DDG_RESULTS = readFileSync(join(FIXTURES, 'duckduckgo-results.html'), 'utf8');
const DDG_CHALLENGE = readFileSync(join(FIXTURES, 'duckduckgo-challenge.html'), 'utf8');
const KEY = 'sk-test-0123456789abcdef';

let serper: FakeServer;
let duckduckgo: FakeServer;
let tripwire: ReturnType<typeof installNetworkTripwire>;
let serperReply: { status: number; body: string } = { status: 200, body: SERPER_RESPONSE };
let duckduckgoReply: { status: number; body: string } = { status: 200, body: DDG_RESULTS };

function registryWith(env: Record<string, string | undefined>): ToolRegistry {
  const registry = new ToolRegistry({ env });
  registry.registerAll(createWebTools({ baseUrls: { serper: `${serper.url}/`, duckduckgo: duckduckgo.url } }));
  return registry;
}

beforeAll(async () => {
  tripwire = installNetworkTripwire();
  serper = await startFakeServer((_request, response) => {
    response.writeHead(serperReply.status, { 'content-type': 'application/json' });
    response.end(serperReply.body);
  });
  duckduckgo = await startFakeServer((_request, response) => {
    response.writeHead(duckduckgoReply.status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(duckduckgoReply.body);
  });
});

afterAll(async () => {
  tripwire.restore();
  await serper.close();
  await duckduckgo.close();
});

afterEach(() => {
  serperReply = { status: 200, body: SERPER_RESPONSE };
  duckduckgoReply = { status: 200, body: DDG_RESULTS };
  expect(tripwire.violations).toEqual([]);
});

describe('serper_search', () => {
  it('POSTs the query to /search with the key in X-API-KEY and returns trimmed organic results', async () => {
    const before = serper.requests.length;
    const result = await registryWith({ SERPER_API_KEY: KEY }).call('serper_search', {
      query: 'model context protocol',
      num: 3,
    });
    const success = expectSuccess(result);
    const sent = serper.requests[before]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/search');
    expect(sent.headers['x-api-key']).toBe(KEY);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ q: 'model context protocol', num: 3 });
    expect(success.data).toEqual({
      query: 'model context protocol',
      results: [
        {
          title: 'Introduction - Model Context Protocol',
          link: 'https://modelcontextprotocol.io/introduction',
          snippet: 'MCP is an open protocol that standardizes how applications provide context to LLMs.',
        },
        {
          title: 'modelcontextprotocol/specification - GitHub',
          link: 'https://github.com/modelcontextprotocol/specification',
          snippet: 'The specification of the Model Context Protocol.',
        },
        {
          title: 'Specification - Model Context Protocol',
          link: 'https://modelcontextprotocol.io/specification',
          snippet: 'This specification defines the authoritative protocol requirements.',
        },
      ],
      answer:
        'The Model Context Protocol (MCP) is an open protocol that standardizes how applications provide context to LLMs.',
    });
    expect(toModelText(result)).not.toContain(KEY);
  });

  it('returns at most num results and defaults num to 10', async () => {
    const registry = registryWith({ SERPER_API_KEY: KEY });
    const before = serper.requests.length;
    const one = expectSuccess(await registry.call('serper_search', { query: 'x', num: 1 }));
    expect((one.data as { results: unknown[] }).results).toHaveLength(1);
    await registry.call('serper_search', { query: 'x' });
    expect(JSON.parse(serper.requests[before + 1]!.body)).toEqual({ q: 'x', num: 10 });
  });

  it('answers MISSING_CREDENTIALS without calling Serper when the key is unset', async () => {
    const before = serper.requests.length;
    const failure = expectFailure(await registryWith({}).call('serper_search', { query: 'x' }));
    expect(failure.error.code).toBe('MISSING_CREDENTIALS');
    expect(failure.error.message).toContain('SERPER_API_KEY');
    expect(toModelText(failure)).toContain('https://serper.dev');
    expect(serper.requests.length).toBe(before);
  });

  it('treats an empty key as unset', async () => {
    const failure = expectFailure(await registryWith({ SERPER_API_KEY: '' }).call('serper_search', { query: 'x' }));
    expect(failure.error.code).toBe('MISSING_CREDENTIALS');
  });

  it('explains a rejected key without repeating it', async () => {
    serperReply = {
      status: 403,
      body: JSON.stringify({ message: `Unauthorized: ${KEY} is not valid`, statusCode: 403 }),
    };
    const failure = expectFailure(await registryWith({ SERPER_API_KEY: KEY }).call('serper_search', { query: 'x' }));
    expect(failure.error.code).toBe('EXECUTION_FAILED');
    expect(failure.error.message).toBe(
      'Serper rejected the API key with HTTP 403 (Unauthorized: [redacted] is not valid).',
    );
    expect(failure.error.hint).toContain('SERPER_API_KEY');
    expect(JSON.stringify(failure)).not.toContain(KEY);
  });

  it('reports rate limiting as RATE_LIMITED and server errors as retryable', async () => {
    serperReply = { status: 429, body: '{"message":"Too many requests"}' };
    const limited = expectFailure(await registryWith({ SERPER_API_KEY: KEY }).call('serper_search', { query: 'x' }));
    expect(limited.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    serperReply = { status: 502, body: 'Bad gateway' };
    const broken = expectFailure(await registryWith({ SERPER_API_KEY: KEY }).call('serper_search', { query: 'x' }));
    expect(broken.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      retryable: true,
      message: 'Serper answered HTTP 502.',
    });
  });

  it('refuses a blank query through the schema', async () => {
    const failure = expectFailure(await registryWith({ SERPER_API_KEY: KEY }).call('serper_search', { query: '   ' }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
  });

  it('reads the key from the call context environment too, and uses an injected fetch', async () => {
    const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
    const fetchImpl = (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), init });
      return new Response('{"organic":[{"title":"T","link":"https://t.example/","snippet":"S"}]}', { status: 200 });
    }) as typeof fetch;
    const registry = new ToolRegistry({ env: {} });
    registry.register(createSerperSearchTool({ fetchImpl, baseUrl: 'https://serper.invalid' }));
    const success = expectSuccess(
      await registry.call('serper_search', { query: 'q' }, { context: { env: { SERPER_API_KEY: 'context-key' } } }),
    );
    expect(success.data).toEqual({ query: 'q', results: [{ title: 'T', link: 'https://t.example/', snippet: 'S' }] });
    expect(calls[0]!.url).toBe('https://serper.invalid/search');
    expect((calls[0]!.init!.headers as Record<string, string>)['X-API-KEY']).toBe('context-key');
  });
});

describe('duckduckgo_search', () => {
  it('GETs /html/ with the encoded query and parses titles, unwrapped links and snippets, skipping ads', async () => {
    const before = duckduckgo.requests.length;
    const success = expectSuccess(
      await registryWith({}).call('duckduckgo_search', { query: 'model context protocol & more' }),
    );
    const sent = duckduckgo.requests[before]!;
    expect(sent.method).toBe('GET');
    expect(sent.url).toBe('/html/?q=model%20context%20protocol%20%26%20more');
    expect(sent.headers['user-agent']).toContain('toolshed');
    expect(success.data).toEqual({
      query: 'model context protocol & more',
      results: [
        {
          title: 'Introduction - Model Context Protocol',
          link: 'https://modelcontextprotocol.io/introduction',
          snippet: 'MCP is an open protocol that standardizes how applications provide context to LLMs & agents.',
        },
        {
          title: 'GitHub - modelcontextprotocol/specification: The "spec"',
          link: 'https://github.com/modelcontextprotocol/specification?tab=readme-ov-file',
          snippet: "The specification of the Model Context Protocol — it's written in TypeScript.",
        },
        {
          title: 'Model Context Protocol - Wikipedia',
          link: 'https://en.wikipedia.org/wiki/Model_Context_Protocol',
          snippet: '',
        },
      ],
    });
  });

  it('returns at most max_results', async () => {
    const success = expectSuccess(await registryWith({}).call('duckduckgo_search', { query: 'x', max_results: 2 }));
    expect((success.data as { results: unknown[] }).results).toHaveLength(2);
  });

  it('needs no credentials', () => {
    expect(createDuckDuckGoSearchTool().requires).toEqual({});
  });

  it('answers RATE_LIMITED for the bot-check page', async () => {
    duckduckgoReply = { status: 202, body: DDG_CHALLENGE };
    const failure = expectFailure(await registryWith({}).call('duckduckgo_search', { query: 'x' }));
    expect(failure.error.code).toBe('RATE_LIMITED');
  });

  it('returns no results for a page without any', async () => {
    duckduckgoReply = { status: 200, body: '<html><body><div class="no-results">No results.</div></body></html>' };
    const success = expectSuccess(await registryWith({}).call('duckduckgo_search', { query: 'zzzz' }));
    expect(success.data).toEqual({ query: 'zzzz', results: [] });
  });

  it('reports an unreachable service as a retryable failure', async () => {
    const closed = await startFakeServer(() => undefined);
    const url = closed.url;
    await closed.close();
    const registry = new ToolRegistry();
    registry.register(createDuckDuckGoSearchTool({ baseUrl: url }));
    const failure = expectFailure(await registry.call('duckduckgo_search', { query: 'x' }));
    expect(failure.error).toMatchObject({ code: 'EXECUTION_FAILED', retryable: true });
    expect(failure.error.message).toContain('Could not reach DuckDuckGo');
  });

  it('parses links that are not wrapped and ignores non-http links', () => {
    const html =
      '<a class="result__a" href="javascript:alert(1)">Bad</a><a class="result__a" href="https://ok.example/a?b=1&amp;c=2">Good &lt;one&gt;</a><a class="result__snippet">Snip</a>';
    expect(parseDuckDuckGoHtml(html, 10)).toEqual([
      { title: 'Good <one>', link: 'https://ok.example/a?b=1&c=2', snippet: 'Snip' },
    ]);
  });
});
