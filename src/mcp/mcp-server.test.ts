import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolResultSchema,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConformanceRegistry, RED_PIXEL_PNG } from '../../test/mcp/conformance-tools.js';
import { defineTool, ToolRegistry, ToolResult } from '../index.js';
import { createMcpServer, listMcpTools, type McpServerOptions, type McpToolEntry, toolsHash } from './index.js';

const open: Array<{ client: Client; server: Server }> = [];

afterEach(async () => {
  for (const { client, server } of open.splice(0)) {
    await client.close();
    await server.close();
  }
});

async function connect(
  registry: ToolRegistry,
  options: McpServerOptions = {},
  capabilities: ClientCapabilities = {},
): Promise<{ client: Client; server: Server }> {
  const server = createMcpServer(registry, options);
  const client = new Client({ name: 'toolshed-test', version: '1.0.0' }, { capabilities });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  open.push({ client, server });
  return { client, server };
}

function text(result: object): string {
  const blocks = (result as { content: Array<{ type: string; text?: string }> }).content;
  return blocks.map((block) => block.text ?? `[${block.type}]`).join('\n');
}

const add = defineTool({
  name: 'add',
  title: 'Add Numbers',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  handler: ({ a, b }) => ({ sum: a + b }),
});

const count = defineTool({
  name: 'count',
  description: 'Count how many items there are.',
  outputSchema: { type: 'integer' },
  handler: () => 3,
});

describe('MCP server over the SDK client', () => {
  it("lists the MCP exporter's entries: titles, raw 2020-12 schemas, object output schemas and every MCP hint", async () => {
    const registry = createConformanceRegistry();
    registry.registerAll([add, count]);
    const { client, server } = await connect(registry);
    expect(server.getClientVersion()?.name).toBe('toolshed-test');

    const listing = await client.listTools();
    const names = listing.tools.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('json_schema_2020_12_tool');

    const addEntry = listing.tools.find((tool) => tool.name === 'add');
    expect(addEntry).toMatchObject({
      name: 'add',
      title: 'Add Numbers',
      description: 'Add two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
    });
    // Every hint resolved, as the export routes give them: a read-only tool destroys nothing.
    expect(addEntry?.annotations).toEqual({
      title: 'Add Numbers',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(listing.tools).toEqual(registry.toMcpTools().tools);

    const rich = listing.tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    expect(rich?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    });

    // MCP output schemas must describe objects: an integer output schema is left out.
    expect(listing.tools.find((tool) => tool.name === 'count')).not.toHaveProperty('outputSchema');
    expect(listing._meta?.tools_hash).toBe(listMcpTools(registry).toolsHash);
    expect(listing._meta?.tools_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('calls a tool and returns its text, or its own content blocks', async () => {
    const { client } = await connect(createConformanceRegistry());
    const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(simple).toEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });

    const image = await client.callTool({ name: 'test_image_content' });
    expect(image.content).toEqual([{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }]);
    expect(image.isError).toBeUndefined();
  });

  it('returns structuredContent for a tool with an object output schema', async () => {
    const registry = new ToolRegistry();
    registry.registerAll([add, count]);
    const { client } = await connect(registry);
    await client.listTools();
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(text(sum)).toBe('{"sum":5}');
    const counted = await client.callTool({ name: 'count' });
    expect(counted).toEqual({ content: [{ type: 'text', text: '3' }] });
    // The model reads which arguments were ignored; the structured data stays the output alone.
    const extra = await client.callTool({ name: 'add', arguments: { a: 2, b: 3, c: 4 } });
    expect(extra.structuredContent).toEqual({ sum: 5 });
    expect(text(extra)).toBe("{\"sum\":5}\n\nNote: the argument 'c' was ignored: 'add' does not take it.");
  });

  it('keeps a raw 2020-12 output schema as is, and SDK clients validate results against it', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'locate',
        description: 'Find a place.',
        outputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: { point: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] } },
          properties: { where: { $ref: '#/$defs/point' } },
          required: ['where'],
        },
        handler: () => ({ where: { lat: 52.1 } }),
      }),
    );
    const { client } = await connect(registry);
    const listing = await client.listTools();
    expect(listing.tools[0]?.outputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { point: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] } },
      properties: { where: { $ref: '#/$defs/point' } },
      required: ['where'],
    });
    const result = await client.callTool({ name: 'locate' });
    expect(result.structuredContent).toEqual({ where: { lat: 52.1 } });
  });

  it('reports tool failures as isError results with the model-facing message, never as JSON-RPC errors', async () => {
    const registry = createConformanceRegistry();
    registry.register(add);
    const { client } = await connect(registry);

    const thrown = await client.callTool({ name: 'test_error_handling' });
    expect(thrown.isError).toBe(true);
    expect(text(thrown)).toBe(
      "Error [EXECUTION_FAILED]: Tool 'test_error_handling' failed: Error: This tool intentionally returns an error for testing",
    );
    expect(thrown._meta).toEqual({ error_code: 'EXECUTION_FAILED', retryable: false });

    const invalid = await client.callTool({ name: 'add', arguments: { a: 'one', b: 2 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Error \[INVALID_ARGUMENTS\]: Invalid arguments for 'add'/);

    const unknown = await client.callTool({ name: 'ad', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/^Error \[TOOL_NOT_FOUND\]: Tool 'ad' not found\. Did you mean 'add'\?/);

    const hostile = await client.callTool({ name: '__proto__', arguments: {} });
    expect(hostile.isError).toBe(true);
    expect(hostile._meta?.error_code).toBe('TOOL_NOT_FOUND');
  });

  it('sends ctx.progress as progress notifications echoing the progress token', async () => {
    const { client } = await connect(createConformanceRegistry());
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(text(result)).toBe('Tool with progress executed successfully');
    expect(seen).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
  });

  it('sends progress with whatever token the client chose, and none without a token', async () => {
    const server = createMcpServer(createConformanceRegistry());
    const client = new Client({ name: 'toolshed-test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const sent: JSONRPCMessage[] = [];
    const send = serverTransport.send.bind(serverTransport);
    serverTransport.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    open.push({ client, server });
    const progressTokens = () =>
      sent.flatMap((message) =>
        'method' in message && message.method === 'notifications/progress' ? [message.params?.progressToken] : [],
      );

    await client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', _meta: { progressToken: 'my-token-7' } } },
      CallToolResultSchema,
    );
    expect(progressTokens()).toEqual(['my-token-7', 'my-token-7', 'my-token-7']);

    sent.length = 0;
    const result = await client.callTool({ name: 'test_tool_with_progress' });
    expect(text(result)).toBe('Tool with progress executed successfully');
    expect(progressTokens()).toEqual([]);
  });

  it('sends ctx.log as log notifications, filtered by logging/setLevel', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'chatty',
        description: 'Logs at several levels.',
        handler: (_args, ctx) => {
          ctx.log('debug', 'details');
          ctx.log('info', { step: 1 });
          ctx.log('warning', 'careful');
          ctx.log('error', 'broken');
          return 'done';
        },
      }),
    );
    const { client } = await connect(registry);
    const logs: Array<{ level: string; logger?: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });

    await client.callTool({ name: 'chatty' });
    expect(logs).toEqual([
      { level: 'info', logger: 'chatty', data: { step: 1 } },
      { level: 'warning', logger: 'chatty', data: 'careful' },
      { level: 'error', logger: 'chatty', data: 'broken' },
    ]);

    logs.length = 0;
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'chatty' });
    expect(logs.map((log) => log.level)).toEqual(['warning', 'error']);

    logs.length = 0;
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'chatty' });
    expect(logs.map((log) => log.level)).toEqual(['debug', 'info', 'warning', 'error']);
  });

  it('sends tools/list_changed when the registry changes, and the tools_hash follows the tool set', async () => {
    const registry = createConformanceRegistry();
    const { client } = await connect(registry);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    const before = await client.listTools();

    registry.register(add);
    await expect.poll(() => changes).toBe(1);
    const after = await client.listTools();
    expect(after.tools.map((tool) => tool.name)).toContain('add');
    expect(after._meta?.tools_hash).not.toBe(before._meta?.tools_hash);

    registry.unregister('add');
    await expect.poll(() => changes).toBe(2);
    const back = await client.listTools();
    expect(back._meta?.tools_hash).toBe(before._meta?.tools_hash);
    expect(toolsHash(back.tools as McpToolEntry[])).toBe(before._meta?.tools_hash);
  });

  it('coalesces a burst of registrations into one list_changed', async () => {
    const registry = new ToolRegistry();
    const { client } = await connect(registry);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    registry.register(add);
    registry.register(count);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changes).toBe(1);
  });

  it('stops listening to the registry when the connection closes', async () => {
    const registry = new ToolRegistry();
    const { client, server } = await connect(registry);
    let sent = 0;
    const original = server.sendToolListChanged.bind(server);
    server.sendToolListChanged = () => {
      sent++;
      return original();
    };
    await client.close();
    registry.register(add);
    expect(sent).toBe(0);
  });

  it('lets a tool ask the user through elicitation when the client supports it', async () => {
    const { client } = await connect(createConformanceRegistry(), {}, { elicitation: {} });
    let asked: unknown;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked = request.params;
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(asked).toMatchObject({ message: 'Who are you?', requestedSchema: { required: ['username', 'email'] } });
    expect(text(result)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
  });

  it('lets a tool sample the client model when the client supports it', async () => {
    const { client } = await connect(createConformanceRegistry(), {}, { sampling: {} });
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const content = request.params.messages[0]?.content;
      const prompt = content !== undefined && !Array.isArray(content) && content.type === 'text' ? content.text : '';
      return { role: 'assistant', content: { type: 'text', text: `echo ${prompt}` }, model: 'test-model' };
    });
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(text(result)).toBe('LLM response: echo hi');
  });

  it('fails elicitation and sampling with a clear error when the client did not declare them', async () => {
    const { client } = await connect(createConformanceRegistry());
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
    expect(elicited.isError).toBe(true);
    expect(text(elicited)).toContain('needs an MCP client that supports it');
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(sampled.isError).toBe(true);
    expect(text(sampled)).toContain('sampling needs an MCP client that supports it');
  });

  it("aborts the tool's signal when the client cancels the call", async () => {
    const registry = new ToolRegistry();
    let aborted = false;
    registry.register(
      defineTool({
        name: 'slow',
        description: 'Waits until cancelled.',
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              resolve('stopped');
            });
          }),
      }),
    );
    const { client } = await connect(registry);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort('user gave up');
    await expect(call).rejects.toThrow();
    await expect.poll(() => aborted).toBe(true);
  });

  it('hands per-tool context (agent config) to handlers', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'whoami',
        description: 'Reports its config.',
        handler: (_args, ctx) => ctx.config,
      }),
    );
    const { client } = await connect(registry, { context: (tool) => ({ config: { tool, team: 'blue' } }) });
    const result = await client.callTool({ name: 'whoami' });
    expect(text(result)).toBe('{"tool":"whoami","team":"blue"}');
  });

  it('reports a call waiting for approval as a plain result with the approval id', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'delete_everything',
        description: 'Deletes everything.',
        requiresApproval: true,
        handler: () => 'deleted',
      }),
    );
    const { client } = await connect(registry);
    const result = await client.callTool({ name: 'delete_everything' });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toMatch(/^Approval required: .*approval id appr_/);
    expect(result._meta?.approval_id).toMatch(/^appr_/);
  });

  it('turns content blocks MCP cannot carry into an OUTPUT_INVALID result', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'bad_image',
        description: 'Returns an image whose data is not base64.',
        handler: () => ToolResult.content([{ type: 'image', data: 'not base64!!', mimeType: 'image/png' }]),
      }),
    );
    const { client } = await connect(registry);
    const result = await client.callTool({ name: 'bad_image' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Error \[OUTPUT_INVALID\]: Tool 'bad_image' returned content blocks that MCP cannot carry/,
    );
  });

  it('leaves a tool whose factory fails out of the listing and reports it', async () => {
    const registry = new ToolRegistry();
    registry.register(add);
    registry.registerFactory('broken', () => {
      throw new Error('factory exploded');
    });
    const errors: unknown[] = [];
    const { client } = await connect(registry, { onError: (error) => errors.push(error) });
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual(['add']);
    expect(String(errors[0])).toContain('factory exploded');
    const called = await client.callTool({ name: 'broken' });
    expect(called.isError).toBe(true);
  });

  it('declares the tools, logging, prompts, resources, completions and tasks capabilities and its name and version', async () => {
    const { client } = await connect(new ToolRegistry(), { name: 'my-tools', instructions: 'Use the tools.' });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      logging: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(client.getServerVersion()).toEqual({ name: 'my-tools', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(client.getInstructions()).toBe('Use the tools.');
  });
});
