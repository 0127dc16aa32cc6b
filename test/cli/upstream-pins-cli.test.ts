import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { memoryCliIo } from '../server/server-harness.js';
import { CHANGED_GREET, ORIGINAL_GREET, writeGatewayConfig } from '../support/gateway-fixture.js';
import { assertBuilt, BIN, cliEnv, connectStdioMcp } from './run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'toolshed-cli-pins-'));
const database = join(folder, 'service.db');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ORIGINAL = ORIGINAL_GREET;
const CHANGED = CHANGED_GREET;

/** A configuration whose one MCP server describes its `greet` tool as `description`. */
function writeConfig(description: string): string {
  return writeGatewayConfig(folder, description);
}

/** Run the CLI in process with `env`; its exit code, stdout and stderr. */
async function cli(args: string[], env: Record<string, string>) {
  const memory = memoryCliIo(env, folder);
  const code = await runCli(args, memory.io);
  return { code, stdout: memory.stdout(), stderr: memory.stderr() };
}

describe('toolshed list and call pin the tools of mcp_servers in the service database', () => {
  const env = { TOOLSHED_DATABASE_URL: database };

  it('pins on first sight, quarantines a changed tool, serves it again once approved', async () => {
    const first = await cli(['list', '--config', writeConfig(ORIGINAL), '--json'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('fixture__greet');
    expect(existsSync(database)).toBe(true);

    // The server now describes greet otherwise: the call is refused, naming the change.
    const refused = await cli(
      ['call', 'fixture__greet', '--args', '{"name":"Ada"}', '--config', writeConfig(CHANGED)],
      env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain(
      "Tool 'fixture__greet' is quarantined: MCP server 'fixture' changed its description since it was approved.",
    );
    expect(refused.stdout + refused.stderr).not.toContain('Hello, Ada!');

    const changes = await cli(['mcp-servers', 'changes'], env);
    expect(changes.code).toBe(0);
    expect(changes.stdout).toContain(`- ${ORIGINAL}`);
    expect(changes.stdout).toContain(`+ ${CHANGED}`);

    expect((await cli(['mcp-servers', 'approve', 'fixture', 'greet'], env)).code).toBe(0);
    const served = await cli(
      ['call', 'fixture__greet', '--args', '{"name":"Ada"}', '--config', writeConfig(CHANGED)],
      env,
    );
    expect(served.code).toBe(0);
    expect(served.stdout).toContain('Hello, Ada!');
  });

  it('without TOOLSHED_DATABASE_URL pins nothing and serves what the server lists', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'toolshed-cli-nopins-'));
    try {
      const config = writeConfig(`${CHANGED} And more.`);
      const memory = memoryCliIo({}, bare);
      expect(await runCli(['call', 'fixture__greet', '--args', '{"name":"Bo"}', '--config', config], memory.io)).toBe(
        0,
      );
      expect(memory.stdout()).toContain('Hello, Bo!');
      expect(existsSync(join(bare, 'toolshed.db'))).toBe(false);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('toolshed mcp (stdio) pins the tools of mcp_servers in the service database', () => {
  it('leaves a changed tool out of tools/list and refuses its call until it is approved', async () => {
    assertBuilt();
    const pinsDatabase = join(folder, 'stdio.db');
    const env = cliEnv({ TOOLSHED_DATABASE_URL: pinsDatabase });
    const session = async (description: string) => {
      const client = new Client({ name: 'pins-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--config', writeConfig(description)],
          cwd: folder,
          env,
          stderr: 'ignore',
        }),
      );
      return client;
    };
    const first = await session(ORIGINAL);
    try {
      expect((await first.listTools()).tools.map((tool) => tool.name)).toContain('fixture__greet');
    } finally {
      await first.close();
    }
    const changed = await session(CHANGED);
    try {
      const names = (await changed.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('fixture__slow');
      expect(names).not.toContain('fixture__greet');
      const refused = await changed.callTool({ name: 'fixture__greet', arguments: { name: 'Ada' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain(
        "MCP server 'fixture' changed its description since it was approved",
      );
    } finally {
      await changed.close();
    }
    expect(
      (await cli(['mcp-servers', 'approve', 'fixture', 'greet'], { TOOLSHED_DATABASE_URL: pinsDatabase })).code,
    ).toBe(0);
    const approved = await session(CHANGED);
    try {
      const served = await approved.callTool({ name: 'fixture__greet', arguments: { name: 'Ada' } });
      expect(JSON.stringify(served.content)).toContain('Hello, Ada!');
    } finally {
      await approved.close();
    }
  });

  it("started six times at once on one new database, each serves the server's tools", async () => {
    assertBuilt();
    const env = cliEnv({ TOOLSHED_DATABASE_URL: join(mkdtempSync(join(folder, 'at-once-')), 'service.db') });
    const config = writeConfig(ORIGINAL);
    const sessions = await Promise.all(
      Array.from({ length: 6 }, () =>
        connectStdioMcp(['--config', config], {
          cwd: folder,
          env,
          client: new Client({ name: 'pins-test', version: '1.0.0' }),
        }),
      ),
    );
    try {
      for (const session of sessions) {
        const names = (await session.client.listTools()).tools.map((tool) => tool.name);
        // Each one migrated the new database, or waited for the one that did, and pinned the tools.
        expect({ names, stderr: session.stderr() }).toEqual({
          names: expect.arrayContaining(['fixture__greet', 'fixture__slow']),
          stderr: '',
        });
      }
    } finally {
      await Promise.all(sessions.map((session) => session.client.close()));
    }
  });
});
