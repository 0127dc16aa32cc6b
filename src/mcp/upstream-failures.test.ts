import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, connectStdioMcp, runCli, startCli } from '../../test/cli/run-cli.js';
import { loadConfig } from '../config/load-config.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer } from './import-mcp-server.js';

const FIXTURES = resolve(import.meta.dirname, '__fixtures__');
const BOOM = join(FIXTURES, 'boom-server.mjs');
const SILENT = join(FIXTURES, 'silent-server.mjs');
const LATE = join(FIXTURES, 'late-server.mjs');
const EVERYTHING = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-upstream-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const scratchFile = (name: string) => join(scratch, `${files++}-${name}`);

/** Whether a process with this PID is running (a zombie, dead but not yet reaped, is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (command) state ...".
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** The PID the silent server wrote, once it has. */
async function silentPid(file: string): Promise<number> {
  await expect.poll(() => existsSync(file) && readFileSync(file, 'utf8') !== '', { timeout: 15_000 }).toBe(true);
  return Number(readFileSync(file, 'utf8'));
}

function writeConfig(yaml: string): string {
  const file = scratchFile('toolshed.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('an MCP server that does not come up', () => {
  it('names the server and shows the tail of its stderr', async () => {
    const registry = new ToolRegistry();
    const failure = importMcpServer(registry, { name: 'broken', command: process.execPath, args: [BOOM] });
    await expect(failure).rejects.toThrow(
      "Could not connect to MCP server 'broken': MCP error -32000: Connection closed\n" +
        "--- stderr of 'broken' (last lines) ---\nloading configuration\nboom: missing API key",
    );
    expect(registry.list()).toEqual([]);
  });

  it('gives up on a silent server after the entry timeout and kills it', async () => {
    const pidFile = scratchFile('silent.pid');
    const registry = new ToolRegistry();
    const failure = importMcpServer(registry, {
      name: 'mute',
      command: process.execPath,
      args: [SILENT, pidFile],
      timeoutMs: 500,
    });
    await expect(failure).rejects.toThrow(
      "Could not connect to MCP server 'mute': MCP error -32001: Request timed out",
    );
    const pid = await silentPid(pidFile);
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it('leaves the other servers of a configuration serving, and says which did not start', async () => {
    const pidFile = scratchFile('silent.pid');
    const config = writeConfig(
      [
        'mcp_servers:',
        `  - {name: broken, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(BOOM)}]}`,
        `  - {name: mute, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SILENT)}, ${JSON.stringify(pidFile)}], timeout: 1}`,
        `  - {name: everything, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio]}`,
      ].join('\n'),
    );
    const loaded = await loadConfig(config, { env: { PATH: process.env.PATH } });
    try {
      expect(loaded.mcpServers.map((server) => server.name)).toEqual(['everything']);
      expect(loaded.mcpFailures.map((failure) => failure.name)).toEqual(['broken', 'mute']);
      expect(loaded.mcpFailures[0]!.message).toContain('boom: missing API key');
      expect(loaded.mcpFailures[1]!.message).toBe(
        "Could not connect to MCP server 'mute': MCP error -32001: Request timed out",
      );
      const pid = await silentPid(pidFile);
      await expect.poll(() => alive(pid)).toBe(false);
      const result = await loaded.registry.call('everything__echo', { message: 'still here' });
      expect(result.status).toBe('success');
    } finally {
      await loaded.close();
    }
  });
});

describe('an MCP server that comes up only on a later try (retryStart)', () => {
  it('is returned down, tried again with backoff, and serves its tools once up', async () => {
    const registry = new ToolRegistry();
    const starts = scratchFile('late.starts');
    const changes: string[] = [];
    const connection = await importMcpServer(
      registry,
      { name: 'late', command: process.execPath, args: [LATE], env: { LATE_STARTS: starts } },
      {
        retryStart: true,
        reconnect: { initialDelayMs: 50 },
        onStateChange: (state, message) => changes.push(`${state}: ${message}`),
      },
    );
    try {
      expect({ state: connection.state, tools: connection.tools, lastError: connection.lastError }).toEqual({
        state: 'down',
        tools: [],
        lastError:
          "Could not connect to MCP server 'late': MCP error -32000: Connection closed\n" +
          "--- stderr of 'late' (last lines) ---\nnot ready yet (start 1)",
      });
      expect(registry.list()).toEqual([]);
      await expect.poll(() => changes, { timeout: 15_000 }).toEqual(["up: MCP server 'late' is up"]);
      // Failed twice (50 ms, then 100 ms later), up at the third start; coming up is not a reconnection.
      expect(readFileSync(starts, 'utf8')).toBe('start\nstart\nstart\n');
      expect({ state: connection.state, tools: connection.tools, reconnects: connection.reconnects }).toEqual({
        state: 'up',
        tools: ['late__greet'],
        reconnects: 0,
      });
      expect(await registry.call('late__greet', { name: 'Ada' })).toMatchObject({
        status: 'success',
        data: 'Hello, Ada!',
      });
    } finally {
      await connection.close();
    }
  });

  it('stops trying once closed', async () => {
    const starts = scratchFile('never.starts');
    const connection = await importMcpServer(
      new ToolRegistry(),
      { name: 'never', command: process.execPath, args: [LATE], env: { LATE_STARTS: starts, LATE_FAILURES: '1000' } },
      { retryStart: true, reconnect: { initialDelayMs: 50, maxDelayMs: 50 } },
    );
    await expect.poll(() => readFileSync(starts, 'utf8').split('\n').length, { timeout: 15_000 }).toBeGreaterThan(3);
    await connection.close();
    const after = readFileSync(starts, 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // At most the try under way when it closed had started; nothing after.
    expect(readFileSync(starts, 'utf8').length - after.length).toBeLessThanOrEqual('start\n'.length);
    expect(connection.state).toBe('closed');
  });

  it('without retryStart, still fails the import', async () => {
    const starts = scratchFile('once.starts');
    await expect(
      importMcpServer(
        new ToolRegistry(),
        { name: 'late', command: process.execPath, args: [LATE], env: { LATE_STARTS: starts } },
        { reconnect: { initialDelayMs: 50 } },
      ),
    ).rejects.toThrow("Could not connect to MCP server 'late'");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(starts, 'utf8')).toBe('start\n');
  });
});

describe('the CLI with an MCP server that does not come up', () => {
  assertBuilt();

  it('lists the tools of the others and prints the failing server with its stderr', async () => {
    const config = writeConfig(
      [
        'tools: []',
        'mcp_servers:',
        `  - {name: broken, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(BOOM)}]}`,
        `  - {name: everything, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio]}`,
      ].join('\n'),
    );
    const run = await runCli(['list', '--config', config, '--json'], { cwd: scratch });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('everything__echo');
    expect(run.stderr).toBe(
      "warning: going on without MCP server 'broken': Could not connect to MCP server 'broken': MCP error -32000: Connection closed\n" +
        "--- stderr of 'broken' (last lines) ---\nloading configuration\nboom: missing API key\n",
    );
  });

  it('validate --probe connects to each server: one that does not answer is an error on its entry', async () => {
    const config = writeConfig(
      [
        'mcp_servers:',
        `  - {name: broken, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(BOOM)}]}`,
        `  - {name: everything, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio]}`,
      ].join('\n'),
    );
    const plain = await runCli(['validate', config], { cwd: scratch });
    expect(plain.exitCode).toBe(0);
    const run = await runCli(['validate', config, '--probe'], { cwd: scratch });
    expect(run.exitCode).toBe(1);
    const shown = config.slice(scratch.length + 1);
    expect(run.stdout).toBe(
      `${shown}:2:5: error: probe failed: Could not connect to MCP server 'broken': MCP error -32000: Connection closed\n` +
        "--- stderr of 'broken' (last lines) ---\nloading configuration\nboom: missing API key\n",
    );
    expect(run.stderr).toMatch(
      /^MCP server 'everything' answered with \d+ tools: [a-z_, ]*everything__echo[a-z_, ]*\n/,
    );
    expect(run.stderr).toContain(`${shown}: 1 error, 0 warnings.`);
  });

  it('toolshed mcp tries a server again until it comes up, then serves its tools and says the list changed', async () => {
    const starts = scratchFile('late.starts');
    const config = writeConfig(
      [
        'mcp_servers:',
        `  - {name: late, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(LATE)}], env: {LATE_STARTS: ${JSON.stringify(starts)}, LATE_FAILURES: "3"}}`,
      ].join('\n'),
    );
    const client = new Client({ name: 'late-test', version: '1.0.0' });
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    const { stderr } = await connectStdioMcp(['--config', config], { cwd: scratch, client });
    try {
      // Tried again after 250, 500 and 1 000 ms: up at the fourth start.
      await expect
        .poll(async () => (await client.listTools()).tools.map((tool) => tool.name), { timeout: 20_000 })
        .toContain('late__greet');
      expect(await client.callTool({ name: 'late__greet', arguments: { name: 'Ada' } })).toMatchObject({
        content: [{ type: 'text', text: 'Hello, Ada!' }],
      });
      expect(listChanged).toBeGreaterThanOrEqual(1);
      expect(stderr()).toBe(
        "warning: going on without MCP server 'late' until it comes up (trying again): Could not connect to MCP server 'late': MCP error -32000: Connection closed\n" +
          "--- stderr of 'late' (last lines) ---\nnot ready yet (start 1)\n" +
          "MCP server 'late' is up\n",
      );
      expect(readFileSync(starts, 'utf8')).toBe('start\n'.repeat(4));
    } finally {
      await client.close();
    }
  });

  it('kills a server still starting when toolshed gets SIGTERM', async () => {
    const pidFile = scratchFile('silent.pid');
    const config = writeConfig(
      [
        'mcp_servers:',
        `  - {name: mute, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SILENT)}, ${JSON.stringify(pidFile)}], timeout: 60}`,
      ].join('\n'),
    );
    const cli = startCli(['list', '--config', config], { cwd: scratch });
    try {
      const pid = await silentPid(pidFile);
      expect(alive(pid)).toBe(true);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toEqual({ exitCode: null, signal: 'SIGTERM' });
      expect(alive(pid)).toBe(false);
    } finally {
      cli.child.kill('SIGKILL');
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });
});
