import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { exchange, INITIALIZE, startMcpRemote } from './mcp-remote-bridge.js';
import { sqliteHarness } from './server-harness.js';

const harness = sqliteHarness();
let store: ToolshedStore;
let app: FastifyInstance;
let base: string;
let token: string;
let home: string;

beforeAll(async () => {
  store = await harness.open();
  await store.migrate();
  await store.workspaces.create({ id: 'default', name: 'Default' });
  const echo = defineTool({
    name: 'echo_text',
    description: 'Say a text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }: { text: string }) => text,
  });
  app = createServer({
    store,
    builtins: false,
    config: { workspaceId: 'default', origin: 'toolshed.yaml', tools: [{ spec: echo, source: 'config' }], agents: [] },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  token = (await store.tokens.create('default', { name: 'bridge' })).token;
  home = mkdtempSync(join(tmpdir(), 'toolshed-mcp-remote-'));
});

afterAll(async () => {
  await app.close();
  await store.close();
  await harness.teardown();
  rmSync(home, { recursive: true, force: true });
});

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function bridge(authorization: string): { child: ChildProcessWithoutNullStreams; stderr: () => string } {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${VAR} in a header itself.
  const started = startMcpRemote(`${base}/mcp`, ['--header', 'Authorization:${TOOLSHED_AUTH}'], home, {
    TOOLSHED_AUTH: authorization,
  });
  children.push(started.child);
  return started;
}

describe('mcp-remote in front of toolshed serve', () => {
  it("lists and calls the workspace's tools with the API token sent as a header", async () => {
    const { child } = bridge(`Bearer ${token}`);
    await exchange(child, [INITIALIZE], 1);
    const answers = await exchange(
      child,
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo_text', arguments: { text: 'hi' } } },
      ],
      3,
    );
    const list = answers.find((answer) => answer.id === 2) as { result: { tools: Array<{ name: string }> } };
    expect(list.result.tools.map((tool) => tool.name)).toEqual(['echo_text']);
    const call = answers.find((answer) => answer.id === 3) as { result: { content: unknown[] } };
    expect(call.result.content).toEqual([{ type: 'text', text: 'hi' }]);
  }, 60_000);

  it("shows toolshed's own message for a wrong token, and exits", async () => {
    const { child, stderr } = bridge('Bearer tsk_wrong');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    const code = await exited;
    expect(code).not.toBe(0);
    // mcp-remote starts OAuth on any 401; toolshed names no authorization server, so the client
    // registration it tries at the server's origin answers with toolshed's message, which it prints.
    expect(stderr()).toContain(
      'toolshed has no OAuth authorization server: its MCP endpoints take a toolshed API token, and the one sent was missing, malformed, unknown or revoked.',
    );
  }, 60_000);
});
