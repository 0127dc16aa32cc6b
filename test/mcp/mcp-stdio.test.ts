import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type JSONRPCMessage, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));
const registerTs = fileURLToPath(new URL('./fixtures/register-ts.mjs', import.meta.url));

describe('serveStdio', () => {
  it('serves a registry to the SDK client over a child process stdio, and ends when stdin closes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', registerTs, fixture],
      stderr: 'pipe',
    });
    let stderr = '';
    (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'toolshed-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('toolshed-stdio-fixture');

    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toContain('test_simple_text');
    expect(listing._meta?.tools_hash).toMatch(/^[0-9a-f]{64}$/);

    const simple = await client.callTool({ name: 'test_simple_text' });
    expect(simple.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);

    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params.data);
    });
    // Watch the wire rather than the `onprogress` callback: when the last progress notification and the
    // result arrive in one read, the SDK client drops that notification (typescript-sdk issue #2580).
    const progress: unknown[] = [];
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && message.method === 'notifications/progress') progress.push(message.params?.progress);
      deliver?.(message);
    };
    await client.callTool({ name: 'test_tool_with_progress' }, undefined, { onprogress: () => {} });
    await client.callTool({ name: 'test_tool_with_logging' });
    expect(progress).toEqual([0, 50, 100]);
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);

    const failed = await client.callTool({ name: 'test_error_handling' });
    expect(failed.isError).toBe(true);

    await client.close();
    await expect.poll(() => stderr, { timeout: 5000 }).toContain('stdio fixture: session closed');
  });
});
