import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type ToolResult, toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConnection } from './import-mcp-server.js';
import { createMcpServer } from './mcp-server.js';

const HTTP_SERVER = resolve(import.meta.dirname, '__fixtures__/http-server.mjs');

/** Start the HTTP fixture server (on `port`, or a free one) and wait until it listens. */
async function startServer(port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [HTTP_SERVER], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listening = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening (\d+)/.exec(out);
      if (match !== null) done(Number(match[1]));
    });
    child.once('exit', (code) => fail(new Error(`the fixture server exited (${code}) before it listened`)));
  });
  return { child, port: listening };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

/** An MCP client of toolshed's own server over `registry`, counting the `list_changed` it is sent. */
async function watch(
  registry: ToolRegistry,
): Promise<{ client: Client; changes: () => number; listed: () => Promise<string[]> }> {
  const server = createMcpServer(registry);
  const client = new Client({ name: 'watcher', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    changes: () => changes,
    listed: async () =>
      (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('web__')),
  };
}

describe('an imported Streamable HTTP MCP server that is lost', () => {
  const children: ChildProcess[] = [];
  let connection: McpServerConnection | undefined;
  let watcher: Client | undefined;
  afterEach(async () => {
    await connection?.close();
    await watcher?.close();
    for (const child of children.splice(0)) await kill(child);
  });

  it('whose process is killed between calls: goes down (list_changed), is reconnected once it is back (list_changed), and serves again', async () => {
    const first = await startServer();
    children.push(first.child);
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    const states: string[] = [];
    connection = await importMcpServer(
      registry,
      { name: 'web', url: `http://127.0.0.1:${first.port}/mcp` },
      {
        reconnect: { initialDelayMs: 100, maxDelayMs: 400 },
        onStateChange: (state, message) => states.push(`${state}: ${message}`),
      },
    );
    const watching = await watch(registry);
    watcher = watching.client;
    expect(toModelText(await registry.call('web__greet', { name: 'Ada' }))).toBe('Hello, Ada!');
    expect(await watching.listed()).toEqual(['web__drop', 'web__greet', 'web__slow']);

    await kill(first.child);
    // Seen without any call: the GET stream of the session drops and the server no longer answers.
    await expect.poll(() => connection!.state, { timeout: 15_000 }).toBe('down');
    // Refused once the process is gone; reset when the drop of its stream is what is seen first.
    expect(states).toEqual([
      expect.stringMatching(/^down: MCP server 'web' cannot be reached \((ECONNREFUSED|ECONNRESET)\)$/),
    ]);
    await expect.poll(() => watching.changes(), { timeout: 5_000 }).toBeGreaterThan(0);
    expect(await watching.listed()).toEqual([]);
    const refused: ToolResult = await registry.call('web__greet', { name: 'Bob' });
    expect(refused.status === 'error' && refused.error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message: expect.stringMatching(
        /^MCP server 'web' cannot be reached \((ECONNREFUSED|ECONNRESET)\); 'web__greet' cannot run until it is back \(reconnecting\)\.$/,
      ),
    });
    const changesWhileDown = watching.changes();

    // Back on the same port: the retries (with backoff) find it.
    children.push((await startServer(first.port)).child);
    await expect.poll(() => states.at(-1), { timeout: 15_000 }).toBe("up: MCP server 'web' is back");
    expect(connection.state).toBe('up');
    expect(connection.reconnects).toBe(1);
    await expect.poll(() => watching.changes(), { timeout: 5_000 }).toBeGreaterThan(changesWhileDown);
    expect(await watching.listed()).toEqual(['web__drop', 'web__greet', 'web__slow']);
    expect(toModelText(await registry.call('web__greet', { name: 'Cy' }))).toBe('Hello, Cy!');
  });

  it('whose stream drops and whose session is forgotten while the process lives on: reconnects with a new session', async () => {
    const server = await startServer();
    children.push(server.child);
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    const states: string[] = [];
    connection = await importMcpServer(
      registry,
      { name: 'web', url: `http://127.0.0.1:${server.port}/mcp` },
      { reconnect: { initialDelayMs: 100 }, onStateChange: (state, message) => states.push(`${state}: ${message}`) },
    );
    const watching = await watch(registry);
    watcher = watching.client;
    expect(toModelText(await registry.call('web__drop', {}))).toBe('dropping');

    await expect
      .poll(() => states, { timeout: 15_000 })
      .toEqual(["down: MCP server 'web' lost the session (HTTP 404)", "up: MCP server 'web' is back"]);
    // One change when its tools went, one (or more) when they came back.
    expect(watching.changes()).toBeGreaterThanOrEqual(2);
    expect(connection.state).toBe('up');
    expect(await watching.listed()).toEqual(['web__drop', 'web__greet', 'web__slow']);
    expect(toModelText(await registry.call('web__greet', { name: 'Dee' }))).toBe('Hello, Dee!');
  });

  it('whose process is killed during a call: the call gets a retryable UPSTREAM_UNAVAILABLE, later calls work once it is back', async () => {
    const first = await startServer();
    children.push(first.child);
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    connection = await importMcpServer(
      registry,
      { name: 'web', url: `http://127.0.0.1:${first.port}/mcp` },
      { reconnect: { initialDelayMs: 100, maxDelayMs: 400 } },
    );
    const pending = registry.call('web__slow', { ms: 5_000 });
    // The call is under way once the server has it; killing it then cuts the call's response stream.
    await new Promise((done) => setTimeout(done, 300));
    await kill(first.child);
    const result = await pending;
    expect(result.status === 'error' && result.error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    expect(result.status === 'error' && result.error.message).toMatch(
      /^MCP server 'web' (cannot be reached \(ECONN(REFUSED|RESET)\)|did not answer a ping after its stream failed \(.*\)) during the call to 'web__slow'\.$/,
    );

    children.push((await startServer(first.port)).child);
    await expect.poll(() => connection!.state, { timeout: 15_000 }).toBe('up');
    expect(toModelText(await registry.call('web__slow', { ms: 10 }))).toBe('waited 10 ms');
  });
});
