import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { quarantineMessage } from '../../src/mcp/upstream-pins.js';
import { createStore } from '../../src/store/index.js';
import { CHANGED_GREET, ORIGINAL_GREET, writeGatewayConfig } from '../support/gateway-fixture.js';
import { memoryCliIo, servedAt } from './server-harness.js';

const ORIGINAL = ORIGINAL_GREET;
const CHANGED = CHANGED_GREET;

const folder = mkdtempSync(join(tmpdir(), 'toolshed-pins-'));
const database = join(folder, 'service.db');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A configuration whose one MCP server describes its `greet` tool as `description`. */
function writeConfig(description: string): string {
  return writeGatewayConfig(folder, description);
}

/** An in-process CLI io on the test database that collects stdout and stderr. */
function memoryIo() {
  return memoryCliIo({ TOOLSHED_DATABASE_URL: database }, folder);
}

let token = '';

/** `toolshed serve --config` with `description`, until `work` is done; returns its stderr. */
async function serving(description: string, work: (base: string, headers: Record<string, string>) => Promise<void>) {
  const { io, stderr } = memoryIo();
  const running = runCli(['serve', '--port', '0', '--config', writeConfig(description)], io);
  const served = await servedAt(stderr);
  token ||= served.token;
  const base = served.base;
  expect(base).not.toBe('');
  const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default', 'content-type': 'application/json' };
  try {
    await work(base, headers);
  } finally {
    process.emit('SIGINT');
    expect(await running).toBe(0);
  }
  return stderr();
}

/** A JSON answer, its body read loosely: the assertions say what it must hold. */
// biome-ignore lint/suspicious/noExplicitAny: the assertions below say what each JSON body holds.
type Answer = { status: number; body: any };

async function json(response: Response | Promise<Response>): Promise<Answer> {
  const answer = await response;
  return { status: answer.status, body: (await answer.json()) as Answer['body'] };
}

async function mcpToolNames(base: string): Promise<string[]> {
  const client = new Client({ name: 'pins-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('fixture__'));
  } finally {
    await client.close();
  }
}

const greetRow = async (base: string, headers: Record<string, string>) =>
  (await json(fetch(`${base}/api/tools`, { headers }))).body.tools.find(
    (tool: { id: string }) => tool.id === 'fixture__greet',
  );

describe('toolshed serve with an MCP server whose tool description changes between runs', () => {
  it('pins it on the first run, quarantines it on the next, shows the diff, and serves it again once approved over REST', async () => {
    await serving(ORIGINAL, async (base, headers) => {
      expect(await greetRow(base, headers)).toMatchObject({ id: 'fixture__greet', available: true });
      const called = await json(
        fetch(`${base}/api/tools/fixture__greet/call`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ arguments: { name: 'Ada' } }),
        }),
      );
      expect(called.body).toMatchObject({ status: 'success', data: 'Hello, Ada!' });
    });

    await serving(CHANGED, async (base, headers) => {
      const message = quarantineMessage('fixture__greet', 'fixture', 'greet', ['description']);
      expect(await greetRow(base, headers)).toMatchObject({
        available: false,
        unavailable_reason: message,
        quarantined: true,
        description: CHANGED,
      });
      const detail = await json(fetch(`${base}/api/tools/fixture__greet`, { headers }));
      expect(detail.body).toMatchObject({ available: false, unavailable_reason: message, quarantined: true });
      expect(await mcpToolNames(base)).toEqual(['fixture__slow']);
      const refused = await json(
        fetch(`${base}/api/tools/fixture__greet/call`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ arguments: { name: 'Ada' } }),
        }),
      );
      expect(refused.body).toMatchObject({ status: 'error', error: { code: 'DISABLED', message, retryable: false } });

      const listed = await json(fetch(`${base}/api/mcp-servers`, { headers }));
      expect(listed.body).toEqual({
        servers: [
          {
            name: 'fixture',
            state: 'up',
            since: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
            tools: 2,
            reconnects: 0,
            changes: [
              {
                server: 'fixture',
                tool: 'greet',
                changed: ['description'],
                approved_at: expect.any(String),
                pending_since: expect.any(String),
                approved: expect.objectContaining({ name: 'greet', description: ORIGINAL }),
                current: expect.objectContaining({ name: 'greet', description: CHANGED }),
                diff: `description:\n- ${ORIGINAL}\n+ ${CHANGED}`,
              },
            ],
          },
        ],
      });

      // Malformed approvals are refused, naming the field, and approve nothing.
      const approve = (name: string, body?: string) =>
        json(
          fetch(`${base}/api/mcp-servers/${name}/approve`, {
            method: 'POST',
            headers,
            ...(body === undefined ? {} : { body }),
          }),
        );
      const refusals: Array<[Promise<Answer>, number, string]> = [
        [
          approve('..%2Fetc'),
          400,
          "The MCP server name must be a letter, then up to 31 letters, digits, '_' or '-' (its name in mcp_servers:).",
        ],
        [
          approve('fixture', '[]'),
          400,
          'The request body must be a JSON object like {"tool": "read_graph"}, or empty.',
        ],
        [
          approve('fixture', '{"tool": 7}'),
          400,
          "'tool' must be the tool's name as its MCP server lists it (1-256 characters).",
        ],
        [
          approve('fixture', '{"tool": "greet", "all": true}'),
          400,
          "Unknown field 'all'; the body has one field, 'tool'.",
        ],
        [
          approve('fixture', '{"tool": "slow"}'),
          404,
          "MCP server 'fixture' has no change of tool 'slow' waiting for approval.",
        ],
        [approve('other'), 404, "MCP server 'other' has no changed tool waiting for approval."],
      ];
      for (const [answer, status, text] of refusals) {
        const { status: got, body } = await answer;
        expect([got, body.error.message]).toEqual([status, text]);
      }
      expect((await json(fetch(`${base}/api/mcp-servers`, { headers }))).body.servers[0].changes).toHaveLength(1);
      expect((await fetch(`${base}/api/mcp-servers`)).status).toBe(401);

      const approved = await approve('fixture', '{"tool": "greet"}');
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        approved: ['greet'],
        changes: [{ tool: 'greet', changed: ['description'] }],
      });
      // Served again at once: listed as available, over MCP too, and callable.
      for (let attempt = 0; attempt < 100 && (await greetRow(base, headers)).available !== true; attempt += 1) {
        await new Promise((done) => setTimeout(done, 50));
      }
      expect(await greetRow(base, headers)).toMatchObject({ available: true, description: CHANGED });
      expect((await greetRow(base, headers)).quarantined).toBeUndefined();
      expect(await mcpToolNames(base)).toEqual(['fixture__greet', 'fixture__slow']);
      const called = await json(
        fetch(`${base}/api/tools/fixture__greet/call`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ arguments: { name: 'Ada' } }),
        }),
      );
      expect(called.body).toMatchObject({ status: 'success', data: 'Hello, Ada!' });
      expect((await json(fetch(`${base}/api/mcp-servers`, { headers }))).body.servers[0].changes).toEqual([]);
    });
  }, 60_000);

  it('shows the change and approves it with toolshed mcp-servers, refusing malformed names before opening the database', async () => {
    await serving(ORIGINAL, async (base, headers) => {
      expect(await greetRow(base, headers)).toMatchObject({ available: false });
    });
    const changes = memoryIo();
    expect(await runCli(['mcp-servers', 'changes'], changes.io)).toBe(0);
    expect(changes.stdout()).toMatch(
      new RegExp(
        `^fixture greet \\(changed since \\S+; approved \\S+\\)\\ndescription:\\n- ${escapeRegExp(CHANGED)}\\n\\+ ${escapeRegExp(ORIGINAL)}\\n$`,
      ),
    );

    const usage = memoryIo();
    expect(await runCli(['mcp-servers', 'approve', '../etc'], usage.io)).toBe(2);
    expect(usage.stderr()).toBe(
      "error: command-argument value '../etc' is invalid for argument 'server'. Use an MCP server name: a letter, then up to 31 letters, digits, '_' or '-'.\nRun 'toolshed mcp-servers approve --help' for usage.\n",
    );
    const nothing = memoryIo();
    expect(await runCli(['mcp-servers', 'approve', 'fixture', 'slow'], nothing.io)).toBe(1);
    expect(nothing.stderr()).toBe(
      "error: MCP server 'fixture' has no change of tool 'slow' waiting for approval in workspace 'default'; list them with 'toolshed mcp-servers changes --workspace default'.\n",
    );

    const approve = memoryIo();
    expect(await runCli(['mcp-servers', 'approve', 'fixture', 'greet'], approve.io)).toBe(0);
    expect(approve.stdout()).toContain(`description:\n- ${CHANGED}\n+ ${ORIGINAL}\n`);
    expect(approve.stdout()).toContain('approved 1 change of MCP server fixture: greet\n');

    await serving(ORIGINAL, async (base, headers) => {
      expect(await greetRow(base, headers)).toMatchObject({ available: true, description: ORIGINAL });
      expect(await mcpToolNames(base)).toEqual(['fixture__greet', 'fixture__slow']);
    });
    const store = await createStore(database);
    try {
      expect((await store.upstreamPins.list('default', 'fixture')).map((pin) => pin.pending)).toEqual([
        undefined,
        undefined,
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
