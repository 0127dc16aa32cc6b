import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { memoryCliIo, servedAt } from './server-harness.js';

const FIXTURES = resolve(import.meta.dirname, '../../src/mcp/__fixtures__');
const SECRET = 'sk-live-upstream-0b7e41c9d2';

const folder = mkdtempSync(join(tmpdir(), 'toolshed-upstream-health-'));
const pidFile = join(folder, 'fixture.pids');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const file = join(folder, 'toolshed.yaml');
writeFileSync(
  file,
  [
    'mcp_servers:',
    '  - name: fixture',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(join(FIXTURES, 'gateway-server.mjs'))}]`,
    '    env:',
    `      PID_FILE: ${JSON.stringify(pidFile)}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's ${VAR} syntax, literally.
    '      LOG_SECRET: ${LEAKY_API_KEY}',
    '  - name: leaky',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(join(FIXTURES, 'leaky-server.mjs'))}]`,
    '    env:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's ${VAR} syntax, literally.
    '      LEAKY_API_KEY: ${LEAKY_API_KEY}',
    '',
  ].join('\n'),
);

function memoryIo() {
  return memoryCliIo({ TOOLSHED_DATABASE_URL: join(folder, 'service.db'), LEAKY_API_KEY: SECRET }, folder);
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 200 && !done(value); attempt += 1) {
    await new Promise((wait) => setTimeout(wait, 50));
    value = await read();
  }
  return value;
}

describe('toolshed serve with an MCP server that crashes and logs, and one that leaks its key at start', () => {
  it('shows each in /health, /metrics and GET /api/mcp-servers, and never the key', async () => {
    const { io, stderr } = memoryIo();
    const running = runCli(['serve', '--port', '0', '--config', file], io);
    const { base, token } = await servedAt(stderr);
    const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' };
    const health = async () => (await fetch(`${base}/health`)).json() as Promise<Record<string, unknown>>;
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    try {
      const leakyError = expect.stringMatching(
        /^Could not connect to MCP server 'leaky': .*\n--- stderr of 'leaky' \(last lines\) ---\nstarting\nauth failed: the API key \*\*\* was refused$/s,
      );
      expect(await health()).toEqual({
        status: 'degraded',
        mcp_servers: [
          { name: 'fixture', state: 'up', since: expect.any(String) },
          { name: 'leaky', state: 'failed', since: expect.any(String), last_error: leakyError },
        ],
      });
      expect(await metrics()).toContain(
        [
          '# HELP toolshed_mcp_server_up Whether each MCP server of the configuration is connected (1) or not (0).',
          '# TYPE toolshed_mcp_server_up gauge',
          'toolshed_mcp_server_up{server="fixture"} 1',
          'toolshed_mcp_server_up{server="leaky"} 0',
        ].join('\n'),
      );
      expect(await metrics()).toContain('toolshed_mcp_server_reconnects_total{server="fixture"} 0');
      const listed = await (await fetch(`${base}/api/mcp-servers`, { headers })).json();
      expect(listed).toEqual({
        servers: [
          { name: 'fixture', state: 'up', since: expect.any(String), tools: 2, reconnects: 0, changes: [] },
          {
            name: 'leaky',
            state: 'failed',
            since: expect.any(String),
            last_error: leakyError,
            tools: 0,
            reconnects: 0,
            changes: [],
          },
        ],
      });

      // The fixture server is killed: reconnected (the loss and the recovery logged), counted once.
      const firstPid = Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]);
      expect(firstPid).toBeGreaterThan(1);
      process.kill(firstPid, 'SIGKILL');
      const back = await poll(
        async () => ({ health: await health(), metrics: await metrics() }),
        (seen) => seen.metrics.includes('toolshed_mcp_server_reconnects_total{server="fixture"} 1'),
      );
      expect(back.metrics).toContain('toolshed_mcp_server_up{server="fixture"} 1');
      expect(back.metrics).toContain('toolshed_mcp_server_reconnects_total{server="fixture"} 1');
      expect(back.health).toMatchObject({ mcp_servers: [{ name: 'fixture', state: 'up' }, { name: 'leaky' }] });
      expect(readFileSync(pidFile, 'utf8').trim().split('\n')).toHaveLength(2);

      for (const text of [JSON.stringify(await health()), await metrics(), JSON.stringify(listed), stderr()]) {
        expect(text).not.toContain(SECRET);
      }
      expect(stderr()).toContain("warning: MCP server 'fixture' closed the connection; reconnecting\n");
      expect(stderr()).toContain('auth failed: the API key *** was refused');
      // What the server logs on its own reaches the serve log with its name, at each start.
      expect(
        stderr()
          .split('\n')
          .filter((line) => line.includes('[notice]')),
      ).toEqual([
        "toolshed serve: MCP server 'fixture' [notice] gateway: ready with key ***",
        "toolshed serve: MCP server 'fixture' [notice] gateway: ready with key ***",
      ]);
    } finally {
      process.emit('SIGINT');
      expect(await running).toBe(0);
    }
  }, 60_000);

  it('redacts the key from toolshed validate --probe', async () => {
    const { io, stdout, stderr } = memoryIo();
    expect(await runCli(['validate', '--probe', file], io)).toBe(1);
    const output = stdout() + stderr();
    expect(output).toContain('auth failed: the API key *** was refused');
    expect(output).not.toContain(SECRET);
  }, 30_000);
});
