// (l) MCP TypeScript SDK: Client.callTool -> McpServer over InMemoryTransport.createLinkedPair().
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ADD_ARGS, ADD_DESCRIPTION, add, BAD_ARGS, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('mcp-sdk', async () => {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: ADD_DESCRIPTION, inputSchema: { a: z.number(), b: z.number() } },
    (args) => ({
      content: [{ type: 'text', text: String(add(args)) }],
    }),
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientTransport);
  // The timed loop ends before the process does; close the pair so the process exits.
  process.once('beforeExit', () => void client.close());
  return {
    call: () => client.callTool({ name: 'add', arguments: ADD_ARGS }),
    async: true,
    verify: async () => {
      const result = await client.callTool({ name: 'add', arguments: ADD_ARGS });
      check(result.content[0]?.text === '3', `callTool returned ${JSON.stringify(result)}`);
      const rejected = await client.callTool({ name: 'add', arguments: BAD_ARGS });
      check(rejected.isError === true, `callTool accepted BAD_ARGS: ${JSON.stringify(rejected)}`);
    },
  };
});
