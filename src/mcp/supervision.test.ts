import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../core/tool-result.js';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConnection } from './import-mcp-server.js';
import { listMcpTools } from './mcp-tool-list.js';

const GATEWAY_SERVER = resolve(import.meta.dirname, '__fixtures__/gateway-server.mjs');
const EVERYTHING = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

describe('an imported MCP server that crashes', () => {
  let connection: McpServerConnection | undefined;
  afterEach(async () => {
    await connection?.close();
  });

  it('is reconnected after SIGKILL between calls; meanwhile its tools are unlisted and answer a retryable error', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    const states: string[] = [];
    let whileDown: { listed: string[]; call: Promise<ToolResult> } | undefined;
    connection = await importMcpServer(
      registry,
      { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      {
        reconnect: { initialDelayMs: 100 },
        onStateChange: (state, message) => {
          states.push(`${state}: ${message}`);
          if (state === 'down') {
            whileDown = {
              listed: listMcpTools(registry).tools.map((tool) => tool.name),
              call: registry.call('everything__echo', { message: 'too soon' }),
            };
          }
        },
      },
    );
    expect(toModelText(await registry.call('everything__echo', { message: 'before' }))).toBe('Echo: before');
    expect(listMcpTools(registry).tools.map((tool) => tool.name)).toContain('everything__echo');
    const changesBefore = registry.version;
    const firstPid = connection.pid!;
    process.kill(firstPid, 'SIGKILL');

    await expect
      .poll(() => states, { timeout: 15_000 })
      .toEqual(["down: MCP server 'everything' closed the connection", "up: MCP server 'everything' is back"]);
    expect(whileDown!.listed.filter((name) => name.startsWith('everything__'))).toEqual([]);
    const refused = await whileDown!.call;
    expect(refused.status).toBe('error');
    expect(refused.status === 'error' && refused.error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message:
        "MCP server 'everything' closed the connection; 'everything__echo' cannot run until it is back (reconnecting).",
    });

    expect(connection.state).toBe('up');
    expect(connection.pid).not.toBe(firstPid);
    expect(registry.version).toBeGreaterThan(changesBefore);
    expect(listMcpTools(registry).tools.map((tool) => tool.name)).toContain('everything__echo');
    expect(toModelText(await registry.call('everything__echo', { message: 'after' }))).toBe('Echo: after');
  });

  it('answers a call in flight when the server is killed with a retryable error, then reconnects', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    connection = await importMcpServer(
      registry,
      { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      { reconnect: { initialDelayMs: 100 } },
    );
    const firstPid = connection.pid!;
    let killed = false;
    const pending = registry.call(
      'everything__trigger_long_running_operation',
      { duration: 10, steps: 10 },
      {
        context: {
          // Killed once the remote operation is under way.
          onProgress: () => {
            if (killed) return;
            killed = true;
            process.kill(firstPid, 'SIGKILL');
          },
        },
      },
    );
    const result = await pending;
    expect(killed).toBe(true);
    expect(result.status === 'error' && result.error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message:
        "MCP server 'everything' closed the connection during the call to 'everything__trigger_long_running_operation'.",
    });
    await expect.poll(() => connection!.state, { timeout: 15_000 }).toBe('up');
    expect(connection.pid).not.toBe(firstPid);
    expect(toModelText(await registry.call('everything__echo', { message: 'again' }))).toBe('Echo: again');
  });
});

describe('an imported MCP server that is stopped (SIGSTOP)', () => {
  let connection: McpServerConnection | undefined;
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-sigstop-'));
  afterEach(async () => {
    await connection?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("times a call out at the tool's timeout and cancels it upstream; after SIGCONT the same process serves again", async () => {
    const cancelLog = join(folder, 'cancelled.log');
    // The call's deadline (the registry's here), not the handshake's: that one stays at its default.
    const registry = new ToolRegistry({ defaultTimeoutMs: 1000 });
    connection = await importMcpServer(registry, {
      name: 'fixture',
      command: process.execPath,
      args: [GATEWAY_SERVER],
      env: { CANCEL_LOG: cancelLog },
    });
    const pid = connection.pid!;
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, 'SIGSTOP');
    let result: ToolResult;
    try {
      result = await registry.call('fixture__slow', { ms: 60_000 });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(result.status).toBe('timeout');
    expect(result.status === 'timeout' && result.error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    // Once running again, the server reads the request and then its cancellation.
    await expect
      .poll(() => readFileSync(cancelLog, { encoding: 'utf8', flag: 'a+' }) as string, { timeout: 10_000 })
      .toBe('cancelled 60000\n');
    expect(connection.state).toBe('up');
    expect(connection.pid).toBe(pid);
    expect(toModelText(await registry.call('fixture__greet', { name: 'Ada' }))).toBe('Hello, Ada!');
  });
});
