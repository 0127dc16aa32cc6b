import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { OpenAIEmbeddings } from './embeddings.js';
import { HybridToolSearch } from './hybrid-tool-search.js';
import { createSearchToolsTool } from './search-tools-tool.js';

// A fake embeddings model: one dimension per concept, a text scores 1 on each concept one of whose
// words it contains. "Will it rain tomorrow?" and a weather forecast share a concept and no word.
const CONCEPTS = [
  ['rain', 'forecast', 'weather', 'sunny', 'temperature'],
  ['email', 'mail', 'inbox', 'message'],
  ['money', 'currency', 'euros', 'dollars', 'exchange'],
  ['file', 'document', 'disk'],
];

function fakeEmbedding(text: string): number[] {
  const words = new Set(text.toLowerCase().split(/[^a-z]+/));
  return [...CONCEPTS.map((concept) => (concept.some((word) => words.has(word)) ? 1 : 0)), 0.01];
}

interface Received {
  body: { model: string; input: string[] };
  authorization: string | undefined;
}

type Answer = (request: Received, response: ServerResponse) => void;

const answerWithVectors: Answer = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      object: 'list',
      data: request.body.input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
    }),
  );
};

let server: Server;
let baseURL: string;
let received: Received[];
let answer: Answer;

beforeEach(async () => {
  received = [];
  answer = answerWithVectors;
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
        response.writeHead(404).end();
        return;
      }
      const entry: Received = { body: JSON.parse(text), authorization: request.headers.authorization };
      received.push(entry);
      answer(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.registerAll([
    defineTool({ name: 'get_forecast', description: 'Weather forecast for a city.', handler: () => 'sunny' }),
    defineTool({ name: 'send_email', description: 'Send a message to a mailbox.', handler: () => 'sent' }),
    defineTool({ name: 'convert_currency', description: 'Convert money between currencies.', handler: () => 1 }),
    defineTool({ name: 'read_file', description: 'Read a document from disk.', handler: () => '' }),
    defineTool({ name: 'tomorrow_planner', description: 'Plan what to do tomorrow.', handler: () => '' }),
  ]);
  return tools;
}

describe('HybridToolSearch with OpenAIEmbeddings', () => {
  it('finds a tool that shares no word with the question, beside the lexical matches', async () => {
    const tools = registry();
    expect(tools.search('Will it rain tomorrow?').map((hit) => hit.name)).toEqual(['tomorrow_planner']);
    const hybrid = new HybridToolSearch(tools, new OpenAIEmbeddings({ baseURL, model: 'fake-embed' }));
    const { hits, warnings } = await hybrid.search('Will it rain tomorrow?', { limit: 2 });
    expect(warnings).toEqual([]);
    expect(hits.map((hit) => hit.name).sort()).toEqual(['get_forecast', 'tomorrow_planner']);
    expect(hits[0]).toMatchObject({ description: expect.any(String), category: 'general' });
  });

  it('sends the tools in batches, with the model and the API key', async () => {
    const embeddings = new OpenAIEmbeddings({ baseURL, model: 'fake-embed', apiKey: 'k-123', batchSize: 2 });
    await new HybridToolSearch(registry(), embeddings).search('send mail');
    expect(received.map((request) => request.body.input.length)).toEqual([2, 2, 2]);
    expect(received.every((request) => request.body.model === 'fake-embed')).toBe(true);
    expect(received[0]!.authorization).toBe('Bearer k-123');
    expect(received.flatMap((request) => request.body.input)[0]).toBe('send mail');
  });

  it('embeds each tool once, and again only when its text changes', async () => {
    const tools = registry();
    const hybrid = new HybridToolSearch(tools, new OpenAIEmbeddings({ baseURL, model: 'fake-embed' }));
    await hybrid.search('exchange euros');
    expect(received.map((request) => request.body.input.length)).toEqual([6]);
    await hybrid.search('check my inbox');
    expect(received[1]!.body.input).toEqual(['check my inbox']);
    tools.unregister('read_file');
    tools.register(defineTool({ name: 'read_file', description: 'Read bytes from a path.', handler: () => '' }));
    const { hits } = await hybrid.search('exchange euros', { limit: 1 });
    expect(received[2]!.body.input).toEqual(['exchange euros', expect.stringContaining('Read bytes from a path.')]);
    expect(hits.map((hit) => hit.name)).toEqual(['convert_currency']);
  });

  describe('falls back to lexical results with a warning, never failing', () => {
    async function fallback(options: { timeoutMs?: number } = {}) {
      const warned: string[] = [];
      const tools = registry();
      const hybrid = new HybridToolSearch(tools, new OpenAIEmbeddings({ baseURL, model: 'fake-embed', ...options }), {
        onWarning: (message) => warned.push(message),
      });
      const result = await hybrid.search('convert money', { limit: 3 });
      expect(result.hits.map((hit) => hit.name)).toEqual(
        tools.search('convert money', { limit: 3 }).map((h) => h.name),
      );
      expect(result.hits.length).toBeGreaterThan(0);
      expect(warned).toEqual(result.warnings);
      return result.warnings;
    }

    it('on an error status', async () => {
      answer = (_request, response) => response.writeHead(503).end('{"error":{"message":"model is loading"}}');
      expect(await fallback()).toEqual([
        `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings answered 503: {"error":{"message":"model is loading"}}`,
      ]);
    });

    it('on malformed JSON', async () => {
      answer = (_request, response) => response.writeHead(200).end('{"data": [');
      expect(await fallback()).toEqual([
        `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings answered with malformed JSON: {"data": [`,
      ]);
    });

    it('on an answer without one vector per input', async () => {
      answer = (_request, response) => response.writeHead(200).end('{"data": [{"embedding": [1, 0]}]}');
      expect(await fallback()).toEqual([
        `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings answered with 1 embeddings for 6 inputs.`,
      ]);
      answer = (request, response) =>
        response
          .writeHead(200)
          .end(JSON.stringify({ data: request.body.input.map((_text, index) => ({ index, embedding: ['x'] })) }));
      expect(await fallback()).toEqual([
        `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings answered with an invalid embedding at data[0]: expected {embedding: number[], index}.`,
      ]);
    });

    it('on a timeout', async () => {
      answer = () => {
        // Never answers.
      };
      expect(await fallback({ timeoutMs: 50 })).toEqual([
        `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings did not answer within 50 ms.`,
      ]);
    });

    it('when nothing listens', async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      const warnings = await fallback();
      expect(warnings[0]).toMatch(
        new RegExp(
          `^Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL.replaceAll('.', '\\.')}/embeddings could not be reached: .*ECONNREFUSED`,
        ),
      );
      server.listen(0, '127.0.0.1');
    });
  });

  it('ranks search_tools results with it, and reports a fallback in the result', async () => {
    const tools = registry();
    const hybrid = new HybridToolSearch(tools, new OpenAIEmbeddings({ baseURL, model: 'fake-embed' }));
    tools.register(createSearchToolsTool(tools, { hybrid }));
    const found = await tools.call('search_tools', { query: 'Will it rain tomorrow?', limit: 2 });
    expect(found.status).toBe('success');
    expect((found as { data: { tools: Array<{ name: string }> } }).data.tools.map((tool) => tool.name).sort()).toEqual([
      'get_forecast',
      'tomorrow_planner',
    ]);

    answer = (_request, response) => response.writeHead(500).end('boom');
    const fallback = await tools.call('search_tools', { query: 'convert money', limit: 1 });
    expect(fallback).toMatchObject({
      status: 'success',
      data: {
        tools: [{ name: 'convert_currency' }],
        total: 1,
        warnings: [
          `Semantic tool search is unavailable, so these results are lexical only: The embeddings endpoint ${baseURL}/embeddings answered 500: boom`,
        ],
      },
    });
  });
});
