// MCP `tools/call` over Streamable HTTP: `toolshed serve`'s /mcp (token auth, the workspace's view,
// the call log, on SQLite) beside a bare SDK `McpServer` over the SDK's Node transport, both child
// processes. Each side gets one session opened by the SDK client; autocannon (10 connections) then
// sends `tools/call add_numbers` in that session, each request with its own JSON-RPC id, in rounds
// that load the two back to back (bench/lib/rest-bench.js's comparePair), 9 rounds of 2 s.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, runCase } from '../lib/case.js';
import { comparePair, mcpCallLoad, scaledSeconds, TRIVIAL_TOOL, withServedConfig } from '../lib/rest-bench.js';
import { startBareMcpHttp } from '../lib/rest-servers.js';

/** Rounds of the pair, and each round's length in seconds (scaled like the REST pairs). */
const MCP_ROUNDS = 9;
const MCP_ROUND_S = scaledSeconds(2);

/**
 * Open a session with the SDK client, prove `add_numbers` answers 42, and return what a raw request
 * of that session needs.
 *
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {string} who
 */
async function openSession(url, headers, who) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: TRIVIAL_TOOL, arguments: { a: 6, b: 36 } });
  check(
    Array.isArray(result.content) && result.content[0]?.text === '42',
    `${who}: tools/call answered ${JSON.stringify(result)}`,
  );
  const sessionId = transport.sessionId;
  check(typeof sessionId === 'string', `${who}: no session id`);
  return {
    client,
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': /** @type {string} */ (sessionId),
      'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
    },
  };
}

await runCase('mcp-http', () =>
  withServedConfig('toolshed-bench-mcp-http-', async (server, cleanups) => {
    const bare = await startBareMcpHttp();
    cleanups.push(() => bare.stop());
    const toolshedSession = await openSession(
      `${server.base}/mcp`,
      { authorization: `Bearer ${server.token}` },
      'toolshed serve /mcp',
    );
    cleanups.push(() => toolshedSession.client.close());
    const bareSession = await openSession(`${bare.base}/mcp`, {}, 'bare McpServer');
    cleanups.push(() => bareSession.client.close());
    // More, shorter rounds than the REST pairs: one round's ratio swings by ±15 % on these machines
    // (the two servers and the load generator share 2 cores), and the median of 9 settles it.
    const calls = await comparePair(
      mcpCallLoad(`${server.base}/mcp`, toolshedSession.headers),
      mcpCallLoad(`${bare.base}/mcp`, bareSession.headers),
      { rounds: MCP_ROUNDS, roundSeconds: MCP_ROUND_S },
    );
    return { transport: 'streamable-http', ...calls };
  }),
);
