import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConnection } from './import-mcp-server.js';
import { createMcpServer } from './mcp-server.js';

// A real SDK MCP server, run as a child process, whose `render_video` runs only as a task: toolshed
// keeps its execution.taskSupport, calls it as a task and waits for its result, and cancels the
// upstream task when its own call is cancelled or times out.

const TASK_SERVER = resolve(import.meta.dirname, '__fixtures__', 'task-server.mjs');

describe('a proxied tool that requires a task', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'toolshed-upstream-tasks-'));
  const taskLog = join(scratch, 'tasks.log');
  const logged = () => (existsSync(taskLog) ? readFileSync(taskLog, 'utf8') : '');
  const registry = new ToolRegistry({ defaultTimeoutMs: 20_000 });
  let connection: McpServerConnection;
  let server: Server;
  let client: Client;

  beforeAll(async () => {
    connection = await importMcpServer(registry, {
      name: 'studio',
      command: process.execPath,
      args: [TASK_SERVER],
      env: { TASK_LOG: taskLog },
    });
    server = createMcpServer(registry);
    client = new Client({ name: 'upstream-tasks-test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await connection?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("keeps the upstream execution.taskSupport in the spec and in toolshed's own tools/list", async () => {
    expect(registry.get('studio__render_video').execution).toEqual({ taskSupport: 'required' });
    // The SDK's McpServer says `forbidden` of its plain tools; that is kept as said.
    expect(registry.get('studio__ping').execution).toEqual({ taskSupport: 'forbidden' });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'studio__render_video')?.execution).toEqual({ taskSupport: 'required' });
    expect(tools.find((tool) => tool.name === 'studio__ping')?.execution).toEqual({ taskSupport: 'forbidden' });
  });

  it('answers a plain registry call with the result of the upstream task', async () => {
    const result = await registry.call('studio__render_video', { frames: 3 });
    expect(result.status).toBe('success');
    expect(toModelText(result)).toBe('rendered 3 frames');
  });

  it("runs as a task of toolshed's own MCP server, which runs the upstream task", async () => {
    // The SDK client asks for a task by itself for the tools its last listing marked as needing one.
    await client.listTools();
    let created: string | undefined;
    let final: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'studio__render_video', arguments: { frames: 2 } },
      CallToolResultSchema,
    )) {
      if (message.type === 'taskCreated') created = message.task.taskId;
      if (message.type === 'result') final = message.result;
    }
    expect(created).toMatch(/^task_/);
    expect(final).toMatchObject({ content: [{ type: 'text', text: 'rendered 2 frames' }] });
    // A plain call is refused as the upstream would refuse it.
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'studio__render_video', arguments: { frames: 1 } } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
  });

  it('cancels the upstream task when the call is cancelled', async () => {
    const before = logged();
    const controller = new AbortController();
    const call = registry.call('studio__render_video', { frames: 500 }, { signal: controller.signal });
    await expect.poll(() => logged().slice(before.length), { timeout: 10_000 }).toMatch(/^created \S+\n$/);
    const taskId = /^created (\S+)/.exec(logged().slice(before.length))?.[1];
    controller.abort();
    const result = await call;
    expect(result.status).toBe('cancelled');
    await expect.poll(() => logged(), { timeout: 10_000 }).toContain(`cancelled ${taskId}\n`);
  });

  it('cancels the upstream task when the call times out', async () => {
    const before = logged();
    const result = await registry.call('studio__render_video', { frames: 500 }, { timeoutMs: 1500 });
    expect(result.status).toBe('timeout');
    const taskId = /^created (\S+)/.exec(logged().slice(before.length))?.[1];
    expect(taskId).toBeDefined();
    await expect.poll(() => logged(), { timeout: 10_000 }).toContain(`cancelled ${taskId}\n`);
  });
});
