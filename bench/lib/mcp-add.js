/**
 * The `add` tool behind an MCP server, reached by the official SDK `Client` over
 * `InMemoryTransport.createLinkedPair()`: a bare SDK `McpServer` with the tool registered with zod,
 * and toolshed's `createMcpServer(registry)`.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createMcpServer } from '../../dist/mcp/index.js';
import { ADD_ARGS, ADD_DESCRIPTION, add, BAD_ARGS } from './add-tool.js';
import { check } from './case.js';
import { createAddRegistry } from './toolshed-add.js';

/** A bare SDK `McpServer` serving `add`, its arguments declared as a zod shape. */
export function createBareMcpServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: ADD_DESCRIPTION, inputSchema: { a: z.number(), b: z.number() } },
    (args) => ({ content: [{ type: 'text', text: String(add(args)) }] }),
  );
  return server;
}

/** toolshed's MCP server (the SDK's low-level `Server`) over a registry holding `add` (JSON Schema, sync handler). */
export function createToolshedMcpServer() {
  return createMcpServer(createAddRegistry({ handler: add }));
}

/**
 * Connect an SDK `Client` to `server` over a fresh in-memory transport pair. The pair is closed when
 * the process is about to exit (a timed loop ends before the process does).
 *
 * @param {{ connect: (transport: import('@modelcontextprotocol/sdk/shared/transport.js').Transport) => Promise<void> }} server
 * @returns {Promise<Client>}
 */
export async function connectClient(server) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientTransport);
  process.once('beforeExit', () => void client.close());
  return client;
}

/**
 * Prove `client.callTool('add')` returns the text 3 and turns bad arguments into an `isError` result.
 *
 * @param {Client} client
 * @param {string} who names the server in the error message
 * @returns {Promise<void>}
 */
export async function verifyMcpAdd(client, who) {
  const result = await client.callTool({ name: 'add', arguments: ADD_ARGS });
  check(result.content[0]?.text === '3', `${who}: callTool returned ${JSON.stringify(result)}`);
  const rejected = await client.callTool({ name: 'add', arguments: BAD_ARGS });
  check(rejected.isError === true, `${who}: callTool accepted BAD_ARGS: ${JSON.stringify(rejected)}`);
}
