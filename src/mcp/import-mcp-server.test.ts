import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ProgressEvent } from '../core/call-context.js';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConnection } from './import-mcp-server.js';
import { mcpToolName } from './mcp-tool-name.js';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const FILESYSTEM = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

describe('mcpToolName', () => {
  it('joins server and tool in snake_case', () => {
    expect(mcpToolName('everything', 'longRunningOperation')).toBe('everything__long_running_operation');
    expect(mcpToolName('My-Server', 'get-tiny-image')).toBe('my_server__get_tiny_image');
  });

  it('keeps names valid when the server name starts with a digit or has no letters', () => {
    expect(mcpToolName('1password', 'read')).toBe('m_1password__read');
    expect(mcpToolName('!!!', '???')).toBe('mcp__tool');
  });

  it('cuts long names to 64 characters with a stable hash', () => {
    const name = mcpToolName('a_rather_long_server_name', 'an_extremely_long_tool_name_that_keeps_going_and_going');
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(mcpToolName('a_rather_long_server_name', 'an_extremely_long_tool_name_that_keeps_going_and_going')).toBe(
      name,
    );
    expect(mcpToolName('a_rather_long_server_name', 'an_extremely_long_tool_name_that_keeps_going_and_gone')).not.toBe(
      name,
    );
  });
});

describe('importing @modelcontextprotocol/server-everything over stdio', () => {
  const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
  let connection: McpServerConnection;

  beforeAll(async () => {
    connection = await importMcpServer(registry, {
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
  });
  afterAll(async () => {
    await connection.close();
  });

  it('registers its tools as everything__tool', () => {
    expect(connection.tools).toContain('everything__echo');
    expect(connection.tools).toContain('everything__get_sum');
    expect(registry.get('everything__echo').category).toBe('mcp');
    expect(registry.get('everything__trigger_long_running_operation').annotations.readOnly).toBe(true);
  });

  it('calls a remote tool through registry.call', async () => {
    const result = await registry.call('everything__echo', { message: 'hello' });
    expect(result.status).toBe('success');
    expect(toModelText(result)).toBe('Echo: hello');
  });

  it('validates arguments against the server schema before sending them', async () => {
    const result = await registry.call('everything__get_sum', { a: 1, b: 'two' });
    expect(result.status).toBe('error');
    expect(toModelText(result)).toContain(
      "Invalid arguments for 'everything__get_sum': 'b' must be a number, got string \"two\".",
    );
  });

  it('passes remote progress notifications to the caller', async () => {
    const events: ProgressEvent[] = [];
    const result = await registry.call(
      'everything__trigger_long_running_operation',
      { duration: 0.3, steps: 3 },
      { context: { onProgress: (event) => events.push(event) } },
    );
    expect(result.status).toBe('success');
    // The SDK client can drop the last notification when it arrives in the same read as the result
    // (a known client bug), so the steps seen are a prefix of 1, 2, 3 with at least two of them.
    const steps = events.map((event) => event.progress);
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps).toEqual([1, 2, 3].slice(0, steps.length));
    expect(events[0]?.total).toBe(3);
  });

  it('times out a slow remote call and keeps the server usable', async () => {
    const result = await registry.call(
      'everything__trigger_long_running_operation',
      { duration: 5, steps: 5 },
      { timeoutMs: 150 },
    );
    expect(result.status).toBe('timeout');
    expect(toModelText(result)).toContain("Tool 'everything__trigger_long_running_operation' timed out after 150 ms.");
    const next = await registry.call('everything__echo', { message: 'still here' });
    expect(toModelText(next)).toBe('Echo: still here');
  });

  it('passes image content blocks through', async () => {
    const result = await registry.call('everything__get_tiny_image', {});
    expect(result.status).toBe('success');
    if (result.status !== 'success') return;
    expect(result.content?.some((block) => block.type === 'image' && block.mimeType === 'image/png')).toBe(true);
  });
});

describe('a server that dies', () => {
  it('turns a crash mid-call into a clean error, and later calls into "not connected"', async () => {
    const registry = new ToolRegistry();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      stderr: 'ignore',
    });
    const connection = await importMcpServer(registry, { name: 'doomed' }, { transport });
    const pending = registry.call('doomed__trigger_long_running_operation', { duration: 10, steps: 2 });
    await new Promise((done) => setTimeout(done, 200));
    process.kill(transport.pid!, 'SIGKILL');
    const result = await pending;
    expect(result.status).toBe('error');
    expect(toModelText(result)).toContain(
      "MCP server 'doomed' closed the connection during the call to 'doomed__trigger_long_running_operation'.",
    );
    const after = await registry.call('doomed__echo', { message: 'x' });
    expect(toModelText(after)).toContain("MCP server 'doomed' closed the connection; 'doomed__echo' cannot run.");
    await connection.close();
  });

  it('refuses a command that cannot start, with the server name', async () => {
    const registry = new ToolRegistry();
    await expect(importMcpServer(registry, { name: 'ghost', command: '/nonexistent/mcp-server' })).rejects.toThrow(
      /Could not connect to MCP server 'ghost'/,
    );
    expect(registry.list()).toEqual([]);
  });

  it('refuses a config with neither command nor url', async () => {
    await expect(importMcpServer(new ToolRegistry(), { name: 'empty' })).rejects.toThrow(
      "MCP server 'empty' needs either a command (stdio) or a url (Streamable HTTP).",
    );
  });
});

describe('keeping in sync', () => {
  let connection: McpServerConnection | undefined;
  afterEach(async () => {
    await connection?.close();
  });

  it('adds and removes tools when the server sends list_changed', async () => {
    const server = new McpServer(
      { name: 'dynamic', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool('first', { description: 'The first tool.', inputSchema: { x: z.number() } }, ({ x }) => ({
      content: [{ type: 'text', text: String(x * 2) }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const registry = new ToolRegistry();
    const changes: string[][] = [];
    registry.on('change', (change) => changes.push(change.names));
    connection = await importMcpServer(registry, { name: 'dyn' }, { transport: clientSide });
    expect(registry.list()).toEqual(['dyn__first']);
    expect(toModelText(await registry.call('dyn__first', { x: 21 }))).toBe('42');

    const second = server.registerTool('second', { description: 'The second tool.' }, () => ({
      content: [{ type: 'text', text: 'two' }],
    }));
    await expect.poll(() => registry.list()).toEqual(['dyn__first', 'dyn__second']);
    expect(toModelText(await registry.call('dyn__second', {}))).toBe('two');

    second.remove();
    await expect.poll(() => registry.list()).toEqual(['dyn__first']);
    expect(changes.length).toBeGreaterThanOrEqual(3);
  });

  it('reports a remote isError result as EXECUTION_FAILED with the server text', async () => {
    const server = new McpServer({ name: 'failing', version: '1.0.0' });
    server.registerTool('fail', { description: 'Always fails.' }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'quota exceeded' }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const registry = new ToolRegistry();
    connection = await importMcpServer(registry, { name: 'failing' }, { transport: clientSide });
    const result = await registry.call('failing__fail', {});
    expect(result.status).toBe('error');
    expect(toModelText(result)).toBe('Error [EXECUTION_FAILED]: quota exceeded');
  });
});

describe('importing @modelcontextprotocol/server-filesystem', () => {
  it('lists and reads files in the allowed folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolshed-fs-'));
    writeFileSync(join(root, 'notes.txt'), 'remember the milk');
    const registry = new ToolRegistry();
    const connection = await importMcpServer(registry, {
      name: 'files',
      command: process.execPath,
      args: [FILESYSTEM, root],
    });
    try {
      expect(registry.has('files__read_text_file')).toBe(true);
      const read = await registry.call('files__read_text_file', { path: join(root, 'notes.txt') });
      expect(toModelText(read)).toContain('remember the milk');
      const outside = await registry.call('files__read_text_file', { path: '/etc/passwd' });
      expect(outside.status).toBe('error');
    } finally {
      await connection.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
