import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli } from '../../test/cli/run-cli.js';
import { loadConfig } from '../config/load-config.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer } from './import-mcp-server.js';

const FIXTURES = resolve(import.meta.dirname, '__fixtures__');
const BOOM = join(FIXTURES, 'boom-server.mjs');
const SILENT = join(FIXTURES, 'silent-server.mjs');
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
