// An MCP server that fails its first LATE_FAILURES starts (default 2), then serves `greet`: each start
// appends a line to the file named by LATE_STARTS, and a start that finds that many lines or fewer
// there says so on stderr and exits 1.
import { appendFileSync, readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const starts = process.env.LATE_STARTS;
if (starts === undefined) throw new Error('late-server.mjs needs LATE_STARTS');
appendFileSync(starts, 'start\n');
const count = readFileSync(starts, 'utf8').split('\n').filter(Boolean).length;
if (count <= Number(process.env.LATE_FAILURES ?? '2')) {
  process.stderr.write(`not ready yet (start ${count})\n`);
  process.exit(1);
}
const server = new McpServer({ name: 'late-fixture', version: '1.0.0' });
server.registerTool('greet', { description: 'Say hello.', inputSchema: { name: z.string() } }, ({ name }) => ({
  content: [{ type: 'text', text: `Hello, ${name}!` }],
}));
await server.connect(new StdioServerTransport());
