// MCP `tools/call` over Streamable HTTP on `toolshed serve`'s /mcp (token auth, the workspace's view,
// the call log, on SQLite), in the two protocol eras the endpoint serves: 2026-07-28 (no session,
// every request carries its `_meta` envelope and the Mcp-Method / Mcp-Name headers) against
// 2025-11-25 in one session opened by the SDK client. autocannon (10 connections), each request its
// own JSON-RPC id, rounds that load the two back to back (bench/lib/rest-bench.js's comparePair):
// `ratio` is 2026-07-28 calls/s over 2025-11-25 calls/s. Not part of `npm run bench`'s report:
//
//   node bench/cases/mcp-http-modern.js     one JSON line
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, runCase } from '../lib/case.js';
import { comparePair, mcpCallLoad, TRIVIAL_TOOL, withServedConfig } from '../lib/rest-bench.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

await runCase('mcp-http-modern', () =>
  withServedConfig('toolshed-bench-mcp-http-modern-', async (server, cleanups) => {
    const url = `${server.base}/mcp`;
    const auth = { authorization: `Bearer ${server.token}` };
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
    const client = new Client({ name: 'bench-client', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    check(typeof transport.sessionId === 'string', '2025-11-25: no session id');
    const base = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const modern = {
      ...base,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': TRIVIAL_TOOL,
    };
    const probe = await fetch(url, {
      method: 'POST',
      headers: modern,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: TRIVIAL_TOOL, arguments: { a: 6, b: 36 }, _meta: ENVELOPE },
      }),
    });
    const answered = await probe.text();
    check(probe.status === 200 && answered.includes('"text":"42"'), `2026-07-28: tools/call answered ${answered}`);
    const session = {
      ...base,
      'mcp-session-id': /** @type {string} */ (transport.sessionId),
      'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
    };
    // comparePair names its sides toolshed and bare: here 2026-07-28 and the 2025-11-25 session.
    const calls = await comparePair(mcpCallLoad(url, modern, ENVELOPE), mcpCallLoad(url, session));
    return {
      modernRps: calls.toolshedRps,
      sessionRps: calls.bareRps,
      ratio: calls.ratio,
      roundsModernRps: calls.roundsToolshedRps,
      roundsSessionRps: calls.roundsBareRps,
    };
  }),
);
