import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createConformanceCatalog, RED_PIXEL_PNG } from '../../test/mcp/conformance-tools.js';
import { ContentCatalog, definePrompt, defineTool, ToolRegistry } from '../index.js';
import { createMcpServer, type McpServerOptions } from './index.js';

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
): Promise<{ client: Client; server: Server }> {
  const server = createMcpServer(registry, options);
  const client = new Client({ name: 'toolshed-catalog-test', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  open.push({ client, server });
  return { client, server };
}

/** The JSON-RPC error a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('the request was not refused');
}

function manyTools(count: number): ToolRegistry {
  const registry = new ToolRegistry();
  for (let index = 0; index < count; index++) {
    registry.register(
      defineTool({
        name: `tool_${String(index).padStart(3, '0')}`,
        description: `Tool number ${index}.`,
        handler: () => index,
      }),
    );
  }
  return registry;
}

describe('MCP prompts', () => {
  it('lists prompts with their arguments and renders them with the arguments substituted', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    expect(prompts[0]?.arguments).toEqual([
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ]);
    const rendered = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'a', arg2: 'b' },
    });
    expect(rendered.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } },
    ]);
    const embedded = await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'docs://x' },
    });
    expect(embedded.messages[0]?.content).toEqual({
      type: 'resource',
      resource: { uri: 'docs://x', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
    });
    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    expect(image.messages[0]?.content).toEqual({ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' });
  });

  it('refuses an unknown prompt, a missing argument and an undeclared one with -32602 and the way out', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    expect(await refusal(client.getPrompt({ name: 'test_simple_promt' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No prompt 'test_simple_promt'. Did you mean 'test_simple_prompt'?",
    });
    expect(await refusal(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } }))).toEqual({
      code: -32602,
      message: "MCP error -32602: Prompt 'test_prompt_with_arguments' needs the argument 'arg2'.",
    });
    expect(
      await refusal(client.getPrompt({ name: 'test_simple_prompt', arguments: { __proto__: 'x', constructor: 'y' } })),
    ).toEqual({
      code: -32602,
      message: "MCP error -32602: Prompt 'test_simple_prompt' has no argument 'constructor'; its arguments: none.",
    });
    expect(await refusal(client.getPrompt({ name: 'constructor' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No prompt 'constructor'.",
    });
  });

  it('answers a prompt whose own code fails with -32603 naming the prompt', async () => {
    const catalog = new ContentCatalog();
    catalog.registerPrompt(
      definePrompt({
        name: 'broken',
        description: 'Fails.',
        messages: () => {
          throw new Error('the template store is down');
        },
      }),
    );
    const errors: unknown[] = [];
    const { client } = await connect(new ToolRegistry(), { catalog, onError: (error) => errors.push(error) });
    expect(await refusal(client.getPrompt({ name: 'broken' }))).toEqual({
      code: -32603,
      message: "MCP error -32603: Prompt 'broken' failed to render: the template store is down",
    });
    expect(errors).toHaveLength(1);
  });

  it('tells the client when the prompts change', async () => {
    const catalog = new ContentCatalog();
    const { client } = await connect(new ToolRegistry(), { catalog });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()),
    );
    catalog.registerPrompt(
      definePrompt({
        name: 'late',
        description: 'Added later.',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
      }),
    );
    await changed;
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['late']);
  });
});

describe('MCP resources', () => {
  it('lists resources and templates and reads text, blobs and template matches', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'test://static-binary',
      'test://static-text',
      'test://watched-resource',
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        description: 'Data for any id.',
        mimeType: 'application/json',
      },
    ]);
    expect((await client.readResource({ uri: 'test://static-text' })).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    expect((await client.readResource({ uri: 'test://static-binary' })).contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: RED_PIXEL_PNG },
    ]);
    expect((await client.readResource({ uri: 'test://template/a%20b/data' })).contents).toEqual([
      {
        uri: 'test://template/a%20b/data',
        mimeType: 'application/json',
        text: JSON.stringify({ id: 'a b', templateTest: true, data: 'Data for ID: a b' }),
      },
    ]);
  });

  it('refuses an unknown URI, an over-long one and one a template almost matches with -32602', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    expect(await refusal(client.readResource({ uri: 'test://static-txt' }))).toEqual({
      code: -32602,
      message:
        "MCP error -32602: No resource 'test://static-txt'. List them with resources/list and resources/templates/list.",
    });
    expect(await refusal(client.readResource({ uri: 'test://template/1/2/data' }))).toEqual({
      code: -32602,
      message:
        "MCP error -32602: No resource 'test://template/1/2/data'. List them with resources/list and resources/templates/list.",
    });
    expect(await refusal(client.readResource({ uri: `test://${'x'.repeat(5000)}` }))).toEqual({
      code: -32602,
      message: 'MCP error -32602: The URI is 5007 characters long; at most 2048 are accepted.',
    });
    expect(await refusal(client.readResource({ uri: 'test://template/%E0%A4%A/data' }))).toMatchObject({
      code: -32602,
    });
  });

  it('sends resources/updated to a subscriber until it unsubscribes, and refuses to subscribe to what never changes', async () => {
    const catalog = createConformanceCatalog();
    const { client } = await connect(new ToolRegistry(), { catalog });
    const updates: string[] = [];
    let notify: () => void = () => {};
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
      notify();
    });
    await client.subscribeResource({ uri: 'test://watched-resource' });
    const first = new Promise<void>((resolve) => {
      notify = resolve;
    });
    catalog.notifyUpdated('test://static-text');
    catalog.notifyUpdated('test://watched-resource');
    await first;
    expect(updates).toEqual(['test://watched-resource']);
    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    catalog.notifyUpdated('test://watched-resource');
    // A round trip after the notification would have been sent: none came.
    await client.ping();
    expect(updates).toEqual(['test://watched-resource']);
    expect(await refusal(client.subscribeResource({ uri: 'test://static-text' }))).toEqual({
      code: -32602,
      message:
        "MCP error -32602: The resource 'test://static-text' never changes; there is nothing to subscribe to. Read it with resources/read.",
    });
    expect(await refusal(client.subscribeResource({ uri: 'test://nothing' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No resource 'test://nothing' to subscribe to. List them with resources/list.",
    });
  });

  it('links a truncated tool output to a resource that reads all of it', async () => {
    const registry = new ToolRegistry();
    const long = Array.from({ length: 400 }, (_, index) => `line ${index}`).join('\n');
    registry.register(
      defineTool({ name: 'dump_logs', description: 'Dump the logs.', maxOutputChars: 200, handler: () => long }),
    );
    const { client } = await connect(registry);
    const result = (await client.callTool({ name: 'dump_logs', arguments: {} })) as {
      content: Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string }>;
    };
    expect(result.content[0]?.text).toContain('characters truncated; call read_tool_output with');
    const link = result.content[1];
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'text/plain' });
    expect(link?.uri).toMatch(/^toolshed:\/\/tool-outputs\/out_/);
    const read = await client.readResource({ uri: link?.uri as string });
    expect(read.contents).toEqual([{ uri: link?.uri, mimeType: 'text/plain', text: long }]);
    expect(await refusal(client.readResource({ uri: 'toolshed://tool-outputs/out_zz_nothing' }))).toEqual({
      code: -32602,
      message:
        "MCP error -32602: No stored tool output at 'toolshed://tool-outputs/out_zz_nothing'; it may have expired. Call the tool again for a fresh link.",
    });
  });
});

describe('MCP completion', () => {
  it('completes prompt arguments and template variables from what was typed', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    });
    expect(prompt.completion).toEqual({ values: ['paris', 'park', 'party'], total: 3, hasMore: false });
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg2', value: 'x' },
    });
    expect(none.completion.values).toEqual([]);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
      argument: { name: 'id', value: '4' },
    });
    expect(template.completion.values).toEqual(['456']);
  });

  it('refuses to complete an unknown prompt, argument, template or variable with -32602', async () => {
    const { client } = await connect(new ToolRegistry(), { catalog: createConformanceCatalog() });
    expect(
      await refusal(
        client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'arg1', value: '' } }),
      ),
    ).toEqual({ code: -32602, message: "MCP error -32602: No prompt 'nope' to complete." });
    expect(
      await refusal(
        client.complete({
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg3', value: '' },
        }),
      ),
    ).toEqual({
      code: -32602,
      message:
        "MCP error -32602: Prompt 'test_prompt_with_arguments' has no argument 'arg3'; its arguments: arg1, arg2.",
    });
    expect(
      await refusal(
        client.complete({
          ref: { type: 'ref/resource', uri: 'test://template/{id}' },
          argument: { name: 'id', value: '' },
        }),
      ),
    ).toEqual({ code: -32602, message: "MCP error -32602: No resource template 'test://template/{id}' to complete." });
    expect(
      await refusal(
        client.complete({
          ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
          argument: { name: 'slug', value: '' },
        }),
      ),
    ).toEqual({
      code: -32602,
      message:
        "MCP error -32602: Resource template 'test://template/{id}/data' has no variable 'slug'; its variables: id.",
    });
  });
});

describe('MCP list pagination', () => {
  it('pages tools/list with nextCursor until the last page, every tool once', async () => {
    const { client } = await connect(manyTools(450));
    const first = await client.listTools();
    expect(first.tools).toHaveLength(200);
    expect(typeof first.nextCursor).toBe('string');
    const second = await client.listTools({ cursor: first.nextCursor as string });
    expect(second.tools).toHaveLength(200);
    const third = await client.listTools({ cursor: second.nextCursor as string });
    expect(third.tools).toHaveLength(50);
    expect(third.nextCursor).toBeUndefined();
    const names = [...first.tools, ...second.tools, ...third.tools].map((tool) => tool.name);
    expect(new Set(names).size).toBe(450);
    expect(names[0]).toBe('tool_000');
    expect(names.at(-1)).toBe('tool_449');
  });

  it('honours pageSize and sends no nextCursor when everything fits', async () => {
    const small = await connect(manyTools(3), { pageSize: 2 });
    const page = await small.client.listTools();
    expect(page.tools.map((tool) => tool.name)).toEqual(['tool_000', 'tool_001']);
    expect(
      (await small.client.listTools({ cursor: page.nextCursor as string })).tools.map((tool) => tool.name),
    ).toEqual(['tool_002']);
    const fits = await connect(manyTools(3));
    expect((await fits.client.listTools()).nextCursor).toBeUndefined();
    expect(() => createMcpServer(new ToolRegistry(), { pageSize: 0 })).toThrow(
      'pageSize must be a whole number of at least 1, got 0.',
    );
  });

  it('refuses a malformed cursor, another list\u2019s cursor and a forged offset with -32602', async () => {
    const { client } = await connect(manyTools(450), { catalog: createConformanceCatalog(), pageSize: 2 });
    const way = 'pass the nextCursor of the previous page, or no cursor for the first page.';
    expect(await refusal(client.listTools({ cursor: 'not a cursor!' }))).toEqual({
      code: -32602,
      message: `MCP error -32602: Invalid cursor 'not a cursor!' for tools/list: ${way}`,
    });
    const promptsCursor = (await client.listPrompts()).nextCursor as string;
    expect(await refusal(client.listTools({ cursor: promptsCursor }))).toEqual({
      code: -32602,
      message: `MCP error -32602: Invalid cursor '${promptsCursor}' for tools/list: ${way}`,
    });
    const forged = Buffer.from('tools:0').toString('base64url');
    expect(await refusal(client.listTools({ cursor: forged }))).toMatchObject({ code: -32602 });
    expect(await refusal(client.listResources({ cursor: 'x'.repeat(500) }))).toEqual({
      code: -32602,
      message: `MCP error -32602: Invalid cursor '${'x'.repeat(79)}…' for resources/list: ${way}`,
    });
  });
});
