import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, ROOT, type RunningCli, runCli, SCRATCH, SERPER_WARNING, startCli } from './run-cli.js';

beforeAll(assertBuilt);

const LISTENING =
  /toolshed serving (\d+) tools? in workspace '([^']+)': MCP at (http:\/\/127\.0\.0\.1:(\d+))\/mcp\n(?: {2}agent .*\n)*/;

const TOKEN = /its API token \(shown once\): (tsk_\S+)\n/;

let server: RunningCli;
let base: string;
let token: string;
beforeAll(async () => {
  server = startCli(['serve', '--config', 'examples/toolshed.yaml', '--port', '0'], { cwd: ROOT });
  token = (await server.waitForStderr(TOKEN))[1] ?? '';
  const match = await server.waitForStderr(LISTENING);
  base = match[3] ?? '';
  // The REST API and web catalog lines come last, after the MCP lines.
  await server.waitForStderr(/toolshed serve: REST API at .*\ntoolshed serve: web catalog at .*\n/);
}, 60_000);
afterAll(async () => {
  if (server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(path: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-serve-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

/**
 * The default workspace's default set: the built-ins the configuration names (no other built-in exists
 * in that workspace) and its own tool, plus the output reader every MCP view has.
 */
const DEFAULT_VIEW = [
  'calculator',
  'fetch_url',
  'list_files',
  'read_file',
  'read_tool_output',
  'search_code',
  'serper_search',
  'word_count',
  'write_file',
];

describe('toolshed serve', () => {
  it('prints the first token of a new database once, then where it serves, after the configuration warnings', () => {
    const [warning, token, usage, listening, agent, api, catalog] = lines(server.stderr);
    expect(warning).toBe(SERPER_WARNING);
    expect(token).toMatch(
      /^toolshed serve: created workspace 'default'; its API token \(shown once\): tsk_[0-9a-f]{32}_\S{43}$/,
    );
    expect(usage).toBe("  use it as 'Authorization: Bearer <token>' with 'X-Workspace-Id: default'");
    expect(listening).toBe(`toolshed serving 8 tools in workspace 'default': MCP at ${base}/mcp`);
    expect(agent).toBe(`  agent assistant (5 tools): ${base}/mcp/agents/assistant`);
    expect(api).toBe(`toolshed serve: REST API at ${base}/api`);
    expect(catalog).toBe(`toolshed serve: web catalog at ${base}/`);
    expect(server.stdout).toBe('');
  });

  it('answers GET /health', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe('{"status":"ok"}');
  });

  it("serves the default workspace's tools with the configuration's over MCP at /mcp", async () => {
    const client = await connect('/mcp');
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual(DEFAULT_VIEW);
    const found = await client.callTool({ name: 'search_code', arguments: { pattern: 'RESTOCK_THRESHOLD =' } });
    expect(found.isError).not.toBe(true);
    expect((found.content as Array<{ text: string }>)[0]?.text).toContain('/src/inventory.js');
    const missing = await client.callTool({ name: 'serper_search', arguments: { query: 'toolshed' } });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]?.text).toMatch(/^Error \[MISSING_CREDENTIALS\]/);
  });

  it("serves each agent's tools, with its per-tool config, at /mcp/agents/:id", async () => {
    const client = await connect('/mcp/agents/assistant');
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'list_files',
      'read_file',
      'read_tool_output',
      'search_code',
      'word_count',
    ]);
    const counted = await client.callTool({ name: 'word_count', arguments: { text: 'a b c d e f a' } });
    expect(JSON.parse((counted.content as Array<{ text: string }>)[0]?.text ?? '').frequent).toHaveLength(3);
    const outside = await client.callTool({ name: 'fetch_url', arguments: { url: 'https://example.com' } });
    expect(outside.isError).toBe(true);
    expect((outside.content as Array<{ text: string }>)[0]?.text).toMatch(/^Error \[TOOL_NOT_FOUND\]/);
  });

  it('answers 404 with a JSON error for an unknown agent, naming the closest ids', async () => {
    const response = await fetch(`${base}/mcp/agents/asistant`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'NOT_FOUND', message: "No agent 'asistant' in this workspace. Did you mean 'assistant'?" },
    });
    await expect(connect('/mcp/agents/nobody')).rejects.toThrow(/No agent 'nobody' in this workspace\./);
  });

  it('answers 401 for MCP and the API without a token, and 404 for a path it does not serve', async () => {
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /nowhere.' } });
    for (const path of ['/api/tools', '/mcp', '/mcp/agents/assistant']) {
      const refused = await fetch(`${base}${path}`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        error: { code: 'UNAUTHORIZED', message: 'Send an API token as "Authorization: Bearer <token>".' },
      });
    }
    const post = await fetch(`${base}/health`, { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('closes the sessions and exits 0 on SIGTERM', async () => {
    await connect('/mcp');
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ exitCode: 0, signal: null });
    expect(lines(server.stderr).at(-1)).toBe('toolshed serve: SIGTERM received, shutting down');
    clients.splice(0);
  });
});

describe('toolshed serve: bad input', () => {
  it.each(['70000', '-1', 'http', '80.5', ''])('rejects --port %j (exit 2)', async (port) => {
    const run = await runCli(['serve', '--tools', 'tools', '--port', port]);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: option '--port <port>' argument '${port}' is invalid. Use a whole number from 0 to 65535.`,
      "Run 'toolshed serve --help' for usage.",
    ]);
  });

  it('reports a port in use in one line (exit 1), creating no database, workspace or token', async () => {
    const database = join(SCRATCH, `serve-busy-${process.pid}.db`);
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const run = await runCli(['serve', '--tools', 'tools', '--port', String(port)], {
        env: { TOOLSHED_DATABASE_URL: database },
      });
      expect(run.exitCode).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `error: cannot listen on 127.0.0.1:${port}: the port is already in use; stop the other server or pass another --port (0 picks a free one).`,
      ]);
      expect(run.stdout).toBe('');
      expect(existsSync(database)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    // The token was never made, so the next start on a free port makes it and prints it.
    const running = startCli(['serve', '--tools', 'tools', '--port', '0'], {
      env: { TOOLSHED_DATABASE_URL: database },
    });
    try {
      await running.waitForStderr(TOKEN);
      await running.waitForStderr(LISTENING);
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toEqual({ exitCode: 0, signal: null });
    }
  });

  it('refuses an unknown --agent before it creates the database', async () => {
    const database = join(SCRATCH, `serve-agent-${process.pid}.db`);
    const run = await runCli(['serve', '--config', 'examples/toolshed.yaml', '--agent', 'asistant', '--port', '0'], {
      cwd: ROOT,
      env: { TOOLSHED_DATABASE_URL: database },
    });
    expect(run.exitCode).toBe(1);
    expect(lines(run.stderr)).toEqual([
      SERPER_WARNING,
      "error: agent 'asistant' not found in examples/toolshed.yaml. Did you mean 'assistant'? Agents: assistant.",
    ]);
    expect(run.stdout).toBe('');
    expect(readdirSync(SCRATCH).filter((name) => name.startsWith(`serve-agent-${process.pid}.db`))).toEqual([]);
  });

  it('exits 0 on SIGINT, serving without a configuration', async () => {
    const database = join(SCRATCH, `serve-tools-${process.pid}.db`);
    const running = startCli(['serve', '--tools', 'tools', '--port', '0'], {
      env: { TOOLSHED_DATABASE_URL: database },
    });
    const fresh = (await running.waitForStderr(TOKEN))[1] ?? '';
    const match = await running.waitForStderr(LISTENING);
    const health = await fetch(`${match[3]}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    // The count is the default view's: every built-in (no configuration hides one) and the 6 tools.
    const listed = await fetch(`${match[3]}/api/tools`, {
      headers: { authorization: `Bearer ${fresh}`, 'x-workspace-id': 'default' },
    });
    const { tools } = (await listed.json()) as { tools: Array<{ id: string; source: string }> };
    expect(Number(match[1])).toBe(tools.length);
    expect(tools.filter((tool) => tool.source === 'config')).toHaveLength(6);
    // The served built-ins are those every other verb has without a configuration.
    const bare = mkdtempSync(join(SCRATCH, 'no-config-'));
    try {
      const cli = await runCli(['list', '--json'], { cwd: bare });
      const cliNames = (JSON.parse(cli.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
      expect(cliNames).toHaveLength(13);
      expect(
        tools
          .filter((tool) => tool.source === 'builtin')
          .map((tool) => tool.id)
          .sort(),
      ).toEqual(cliNames.sort());
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    const agents = await fetch(`${match[3]}/mcp/agents/anyone`, { method: 'POST', body: '{}' });
    expect(agents.status).toBe(401);
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ exitCode: 0, signal: null });
  });
});
