import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type JSONRPCMessage, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cliEnv, FIXTURES, ROOT, runCli, SCRATCH, startCli } from './run-cli.js';

beforeAll(assertBuilt);

interface Session {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Every JSON-RPC message the client received, as seen on the wire. */
  received: JSONRPCMessage[];
}

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.client.close()));
});

async function connect(args: string[], cwd: string): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd,
    env: cliEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'toolshed-cli-test', version: '1.0.0' });
  await client.connect(transport);
  // Watch the wire rather than the SDK callbacks: when the last progress notification and the result
  // arrive in one read, the SDK client drops that notification (typescript-sdk issue #2580).
  const received: JSONRPCMessage[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message);
    deliver?.(message);
  };
  const session = { client, transport, stderr: () => stderr, received };
  sessions.push(session);
  return session;
}

const MCP_CONFIG = `${FIXTURES}/mcp-config`;

describe('toolshed mcp', () => {
  it('lists and calls the tools over stdio, with progress notifications and error results', async () => {
    const { client, received } = await connect(['--config', 'toolshed.yaml'], MCP_CONFIG);
    expect(client.getServerVersion()?.name).toBe('toolshed');

    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual(['always_fails', 'dyn__add_tool', 'progress_steps']);

    const result = await client.callTool({ name: 'progress_steps', arguments: { steps: 3 } }, undefined, {
      onprogress: () => {},
    });
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'done in 3 steps' }]);
    const progress = received
      .filter((message) => 'method' in message && message.method === 'notifications/progress')
      .map((message) => ('params' in message ? message.params : undefined));
    expect(progress).toEqual([
      expect.objectContaining({ progress: 1, total: 3, message: 'step 1 of 3' }),
      expect.objectContaining({ progress: 2, total: 3, message: 'step 2 of 3' }),
      expect.objectContaining({ progress: 3, total: 3, message: 'step 3 of 3' }),
    ]);

    const failed = await client.callTool({ name: 'always_fails' });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([
      {
        type: 'text',
        text: "Error [EXECUTION_FAILED]: Tool 'always_fails' failed: RangeError: the fixture failed on purpose",
      },
    ]);

    const unknown = await client.callTool({ name: 'no_such_tool' });
    expect(unknown.isError).toBe(true);
  });

  it('serves the built-ins `list` shows without a configuration, code and email tools included, and calls them', async () => {
    const folder = mkdtempSync(join(SCRATCH, 'mcp-no-config-'));
    const listed = await runCli(['list', '--json'], { cwd: folder });
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    const { client, stderr } = await connect([], folder);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(names);
    expect(names).toEqual(expect.arrayContaining(['email_search', 'execute_javascript', 'execute_python']));
    const sum = await client.callTool({ name: 'execute_javascript', arguments: { code: '6 * 7' } });
    expect(sum.content).toEqual([{ type: 'text', text: '{"stdout":"","stderr":"","result":42}' }]);
    // The service database (cliEnv's, in the scratch folder) holds no emails: an empty corpus, no file made.
    const inboxes = await client.callTool({ name: 'email_inboxes', arguments: {} });
    expect(inboxes.content).toEqual([{ type: 'text', text: '{"inboxes":[],"total":0}' }]);
    expect(readdirSync(folder)).toEqual([]);
    expect(stderr()).toBe(
      `note: no configuration or --tools: using the built-in tools; the file tools work in ${folder}.\n`,
    );
  });

  it('sends tools/list_changed when an imported MCP server adds a tool', async () => {
    const { client } = await connect(['--config', 'toolshed.yaml'], MCP_CONFIG);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    const added = await client.callTool({ name: 'dyn__add_tool' });
    expect(added.content).toEqual([{ type: 'text', text: 'added extra_tool' }]);
    await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(0);
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toContain('dyn__extra_tool');
    const extra = await client.callTool({ name: 'dyn__extra_tool' });
    expect(extra.content).toEqual([{ type: 'text', text: 'extra tool ran' }]);
  });

  it("serves one agent's tools with --agent", async () => {
    const { client } = await connect(['--config', 'toolshed.yaml', '--agent', 'narrow'], MCP_CONFIG);
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual(['progress_steps']);
  });

  it('keeps stdout for the protocol: configuration warnings go to stderr', async () => {
    const session = await connect(['--config', 'examples/toolshed.yaml', '--agent', 'assistant'], ROOT);
    const listing = await session.client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toContain('word_count');
    const counted = await session.client.callTool({ name: 'word_count', arguments: { text: 'to be or not to be' } });
    expect(JSON.parse((counted.content as Array<{ text: string }>)[0]?.text ?? '')).toMatchObject({
      words: 6,
      frequent: [
        { word: 'be', count: 2 },
        { word: 'to', count: 2 },
        { word: 'not', count: 1 },
      ],
    });
    expect(session.stderr()).toContain("warning: tool 'serper_search' needs SERPER_API_KEY");
  });
});

describe('toolshed mcp process', () => {
  const initialize = `${JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
  })}\n`;

  it('writes only JSON-RPC to stdout and exits 0 when stdin closes', async () => {
    const running = startCli(['mcp', '--tools', 'tools']);
    running.child.stdin.write(initialize);
    await expect.poll(() => running.stdout, { timeout: 10_000 }).toContain('"id":1');
    running.child.stdin.end();
    expect(await running.exited).toEqual({ exitCode: 0, signal: null });
    for (const line of running.stdout.split('\n').filter((item) => item !== '')) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(running.stderr).toBe('');
  });

  it('answers every request it read before stdin closed, slow ones included, then exits 0', async () => {
    const running = startCli(['mcp', '--tools', 'tools']);
    const call = (id: number, name: string, args: object) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })}\n`;
    // A client that writes all its requests and closes its end at once.
    running.child.stdin.end(
      [
        initialize,
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
        call(2, 'sleep', { ms: 400 }),
        call(3, 'echo', { text: 'fast' }),
        call(4, 'sleep', { ms: 200 }),
      ].join(''),
    );
    expect(await running.exited).toEqual({ exitCode: 0, signal: null });
    const answers = running.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id: number; result: { content: Array<{ text: string }> } });
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4]);
    const text = (id: number) => answers.find((answer) => answer.id === id)?.result.content[0]?.text;
    expect([text(2), text(3), text(4)]).toEqual(['slept 400 ms', 'fast', 'slept 200 ms']);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s', async (signal) => {
    const running = startCli(['mcp', '--tools', 'tools']);
    running.child.stdin.write(initialize);
    await expect.poll(() => running.stdout, { timeout: 10_000 }).toContain('"id":1');
    running.child.kill(signal);
    expect(await running.exited).toEqual({ exitCode: 0, signal: null });
  });
});

describe('toolshed mcp prompts and resources', () => {
  const fixture = `${ROOT}/test/mcp/conformance/serve-fixture`;

  it("serves the configuration's prompts, resources and templates over stdio", async () => {
    const { client } = await connect(['--config', 'toolshed.yaml'], fixture);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    const rendered = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'hello', arg2: 'world' },
    });
    expect(rendered.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } },
    ]);
    expect((await client.readResource({ uri: 'test://template/7/data' })).contents).toEqual([
      {
        uri: 'test://template/7/data',
        mimeType: 'application/json',
        text: '{"id":"7","templateTest":true,"data":"Data for ID: 7"}',
      },
    ]);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'pa' },
    });
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
  });

  it("serves an --agent's view the prompts and resources the agent names", async () => {
    const { client } = await connect(['--config', 'toolshed.yaml', '--agent', 'conformance'], fixture);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'test://static-binary',
      'test://static-text',
      'test://watched-resource',
    ]);
    expect((await client.listPrompts()).prompts).toHaveLength(4);
  });
});
