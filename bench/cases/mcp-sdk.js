// (l) MCP TypeScript SDK: Client.callTool -> McpServer over InMemoryTransport.createLinkedPair().
import { ADD_ARGS, runDispatchCase } from '../lib/add-tool.js';
import { connectClient, createBareMcpServer, verifyMcpAdd } from '../lib/mcp-add.js';

await runDispatchCase('mcp-sdk', async () => {
  const client = await connectClient(createBareMcpServer());
  return {
    call: () => client.callTool({ name: 'add', arguments: ADD_ARGS }),
    async: true,
    verify: () => verifyMcpAdd(client, 'McpServer'),
  };
});
