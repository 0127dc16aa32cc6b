// A small stdio MCP server for the gateway tests:
// - `greet` says hello; its description is GREET_DESCRIPTION (default "Say hello."), so a test can
//   change the definition between runs;
// - `slow` waits `ms` milliseconds; a cancelled call appends "cancelled <ms>" to the file named by
//   CANCEL_LOG, so a test can check that the cancellation reached the server;
// - with PID_FILE set, it writes its PID there (appending a line per start);
// - once initialized it logs "ready" (with LOG_SECRET's value when set), not tied to any call.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

if (process.env.PID_FILE) appendFileSync(process.env.PID_FILE, `${process.pid}\n`);
const server = new McpServer({ name: 'gateway-fixture', version: '1.0.0' }, { capabilities: { logging: {} } });
server.server.oninitialized = () => {
  const key = process.env.LOG_SECRET ? ` with key ${process.env.LOG_SECRET}` : '';
  void server.server.sendLoggingMessage({ level: 'notice', logger: 'gateway', data: `ready${key}` });
};
server.registerTool(
  'greet',
  { description: process.env.GREET_DESCRIPTION ?? 'Say hello.', inputSchema: { name: z.string() } },
  ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
);
server.registerTool('slow', { description: 'Wait a while.', inputSchema: { ms: z.number() } }, ({ ms }, extra) => {
  return new Promise((resolve) => {
    const cancelled = () => {
      clearTimeout(timer);
      if (process.env.CANCEL_LOG) appendFileSync(process.env.CANCEL_LOG, `cancelled ${ms}\n`);
      resolve({ content: [{ type: 'text', text: 'cancelled' }], isError: true });
    };
    const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `waited ${ms} ms` }] }), ms);
    // A request read together with its cancellation (the server was stopped) is cancelled already.
    if (extra.signal.aborted) cancelled();
    else extra.signal.addEventListener('abort', cancelled);
  });
});
await server.connect(new StdioServerTransport());
