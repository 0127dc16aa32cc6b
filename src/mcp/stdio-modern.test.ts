import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createConformanceRegistry } from '../../test/mcp/conformance-tools.js';
import { type StdioServing, serveStdio } from './serve-stdio.js';
import { eraOf } from './stdio-modern-lane.js';

/** toolshed's version as its package.json says, read here rather than through the code under test. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const servings: StdioServing[] = [];
afterEach(async () => {
  for (const serving of servings.splice(0)) await serving.close();
});

/** `serveStdio` over in-memory pipes: send lines, and wait for the answer with an id. */
async function connect() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const serving = await serveStdio(createConformanceRegistry(), { stdin, stdout, listTtlMs: 5000 });
  servings.push(serving);
  const lines: Array<Record<string, unknown>> = [];
  const waiting = new Map<unknown, (message: Record<string, unknown>) => void>();
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      lines.push(message);
      if ('result' in message || 'error' in message) waiting.get(message.id)?.(message);
    }
  });
  const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiting.set(id, resolve);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return { request, lines };
}

describe('serveStdio, both eras', () => {
  it('answers a server/discover probe and then serves the connection as 2026-07-28', async () => {
    const { request, lines } = await connect();
    const discovered = await request(1, 'server/discover', { _meta: ENVELOPE });
    expect(discovered.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true } },
      ttlMs: 5000,
      cacheScope: 'public',
    });
    const listed = await request(2, 'tools/list', { _meta: ENVELOPE });
    expect(listed.result).toMatchObject({ resultType: 'complete', ttlMs: 5000 });
    expect((listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain(
      'test_tool_with_progress',
    );
    const called = await request(3, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { ...ENVELOPE, progressToken: 'p' },
    });
    expect(called.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Tool with progress executed successfully' }],
    });
    const progress = lines.filter((line) => line.method === 'notifications/progress');
    expect(progress.map((line) => (line.params as { progress: number }).progress)).toEqual([0, 50, 100]);
    // A 2025-11-25 opening on a 2026-07-28 connection is refused, naming the versions served.
    const late = await request(4, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'late', version: '1' },
    });
    expect(late.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
  });

  it('keeps a connection that opens with initialize on 2025-11-25', async () => {
    const { request } = await connect();
    const opened = await request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(opened.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'toolshed', version: PACKAGE_VERSION },
    });
    const listed = await request(2, 'tools/list');
    expect(listed.result).not.toHaveProperty('resultType');
    expect(listed.result).not.toHaveProperty('ttlMs');
  });

  it('tells the eras apart by the _meta claim only', () => {
    expect(eraOf({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } })).toBe('modern');
    for (const message of [
      { jsonrpc: '2.0', id: 1, method: 'server/discover' },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 42 } },
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: null } },
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }],
      'tools/list',
      null,
    ]) {
      expect(eraOf(message)).toBe('legacy');
    }
  });
});
