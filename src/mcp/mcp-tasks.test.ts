import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry } from '../index.js';
import { createMcpServer, createMemoryTaskStore, type McpServerOptions, type McpTaskStore } from './index.js';

const open: Array<{ client: Client; server: Server }> = [];

afterEach(async () => {
  for (const { client, server } of open.splice(0)) {
    await client.close();
    await server.close();
  }
});

async function connect(registry: ToolRegistry, options: McpServerOptions = {}): Promise<Client> {
  const server = createMcpServer(registry, options);
  const client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  open.push({ client, server });
  return client;
}

function text(result: object): string {
  const blocks = (result as { content: Array<{ type: string; text?: string }> }).content;
  return blocks.map((block) => block.text ?? `[${block.type}]`).join('\n');
}

/** A gate the test opens: the tool runs until then, so the test sees it `working` without a timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

function registryWith(release: Promise<void>, seen: { signal?: AbortSignal } = {}, defaultTimeoutMs?: number) {
  const registry = new ToolRegistry(defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs });
  registry.registerAll([
    defineTool({
      name: 'build_report',
      description: 'Build the quarterly report.',
      input: z.object({ quarter: z.string() }),
      execution: { taskSupport: 'optional' },
      handler: async ({ quarter }, context) => {
        seen.signal = context.signal;
        await Promise.race([
          release,
          new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))),
        ]);
        return `Report for ${quarter} is ready.`;
      },
    }),
    defineTool({
      name: 'export_archive',
      description: 'Export the whole archive.',
      execution: { taskSupport: 'required' },
      handler: () => 'archive.zip',
    }),
    defineTool({
      name: 'echo',
      description: 'Echo the text.',
      input: z.object({ text: z.string() }),
      handler: ({ text }) => text,
    }),
  ]);
  return registry;
}

async function settle(client: Client, taskId: string) {
  return client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
}

describe('MCP tasks', () => {
  it('lists execution.taskSupport for the tools that declare it, and none for the others', async () => {
    const client = await connect(registryWith(Promise.resolve()));
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(byName).toEqual({
      build_report: { taskSupport: 'optional' },
      export_archive: { taskSupport: 'required' },
      echo: undefined,
    });
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it('runs a call as a task: working at first, then completed with the result from tasks/result', async () => {
    const { open, opened } = gate();
    const client = await connect(registryWith(opened));
    const created = await client.request(
      { method: 'tools/call', params: { name: 'build_report', arguments: { quarter: 'Q3' }, task: { ttl: 60_000 } } },
      z.object({
        task: z.object({ taskId: z.string(), status: z.string(), ttl: z.number(), pollInterval: z.number() }),
      }),
    );
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
    const working = await client.experimental.tasks.getTask(created.task.taskId);
    expect(working.status).toBe('working');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((task) => task.taskId)).toEqual([created.task.taskId]);
    open();
    const result = await settle(client, created.task.taskId);
    expect(text(result)).toBe('Report for Q3 is ready.');
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe('completed');
  });

  it('streams a required-task tool to its result with callToolStream', async () => {
    const client = await connect(registryWith(Promise.resolve()));
    await client.listTools();
    const kinds: string[] = [];
    let final: unknown;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'export_archive', arguments: {} })) {
      kinds.push(message.type);
      if (message.type === 'result') final = message.result;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(text(final as object)).toBe('archive.zip');
  });

  it('refuses with -32601 a task for a tool that does not support one, and a plain call of a required-task tool', async () => {
    const client = await connect(registryWith(Promise.resolve()));
    const asTask = client.request(
      { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, task: {} } },
      CallToolResultSchema,
    );
    await expect(asTask).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
      message: expect.stringContaining("Tool 'echo' does not run as a task (its execution.taskSupport is 'forbidden')"),
    });
    const plain = client.request(
      { method: 'tools/call', params: { name: 'export_archive', arguments: {} } },
      CallToolResultSchema,
    );
    await expect(plain).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
      message: expect.stringContaining("Tool 'export_archive' runs only as a task"),
    });
    const unknown = client.request(
      { method: 'tools/call', params: { name: 'nope', arguments: {}, task: {} } },
      CallToolResultSchema,
    );
    await expect(unknown).rejects.toBeInstanceOf(McpError);
  });

  it('cancels a running task: the tool is aborted and the task stays cancelled', async () => {
    const seen: { signal?: AbortSignal } = {};
    const client = await connect(registryWith(new Promise(() => {}), seen));
    const created = await client.request(
      { method: 'tools/call', params: { name: 'build_report', arguments: { quarter: 'Q4' }, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }) }),
    );
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(seen.signal?.aborted).toBe(true);
    const result = await settle(client, created.task.taskId);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('[CANCELLED]');
    await expect(client.experimental.tasks.cancelTask(created.task.taskId)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  it('ends a failing call as a failed task whose result is the tool error', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'flaky',
        description: 'Fail.',
        execution: { taskSupport: 'optional' },
        handler: () => {
          throw new Error('disk full');
        },
      }),
    );
    const client = await connect(registry);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'flaky', arguments: {}, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }) }),
    );
    const result = await settle(client, created.task.taskId);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('disk full');
    const task = await client.experimental.tasks.getTask(created.task.taskId);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toContain('disk full');
  });

  it('says each refusal of a task method once, with one error prefix', async () => {
    const client = await connect(registryWith(Promise.resolve()));
    const refusal = (pending: Promise<unknown>) =>
      pending.then(
        () => undefined,
        (error: McpError) => ({ code: error.code, message: error.message }),
      );
    expect(await refusal(client.experimental.tasks.getTask('nope'))).toEqual({
      code: -32602,
      message: 'MCP error -32602: Failed to retrieve task: Task not found',
    });
    expect(await refusal(client.experimental.tasks.getTaskResult('nope', CallToolResultSchema))).toEqual({
      code: -32602,
      message: 'MCP error -32602: Task not found: nope',
    });
    expect(await refusal(client.experimental.tasks.cancelTask('nope'))).toEqual({
      code: -32602,
      message: 'MCP error -32602: Task not found: nope',
    });
    const created = await client.request(
      { method: 'tools/call', params: { name: 'build_report', arguments: { quarter: 'Q2' }, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }) }),
    );
    await settle(client, created.task.taskId);
    expect(await refusal(client.experimental.tasks.cancelTask(created.task.taskId))).toEqual({
      code: -32602,
      message: 'MCP error -32602: Cannot cancel task in terminal status: completed',
    });
  });

  it('answers an unknown task id with -32602 and keeps tasks of one store apart from another', async () => {
    const shared: McpTaskStore = createMemoryTaskStore();
    const first = await connect(registryWith(Promise.resolve()), { tasks: { store: shared } });
    const second = await connect(registryWith(Promise.resolve()), { tasks: { store: shared } });
    const other = await connect(registryWith(Promise.resolve()));
    const created = await first.request(
      { method: 'tools/call', params: { name: 'build_report', arguments: { quarter: 'Q1' }, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }) }),
    );
    expect(text(await settle(second, created.task.taskId))).toBe('Report for Q1 is ready.');
    await expect(other.experimental.tasks.getTask(created.task.taskId)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    await expect(other.experimental.tasks.getTask('x'.repeat(10_000))).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    await expect(first.experimental.tasks.listTasks('not-a-cursor')).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  it('keeps the ttl a client asks for between one second and maxTtlMs, and gives the default for none', async () => {
    const client = await connect(registryWith(Promise.resolve()), { tasks: { defaultTtlMs: 5000, maxTtlMs: 60_000 } });
    const ttlOf = async (task: Record<string, unknown>) =>
      (
        await client.request(
          { method: 'tools/call', params: { name: 'build_report', arguments: { quarter: 'Q1' }, task } },
          z.object({ task: z.object({ ttl: z.number().nullable() }) }),
        )
      ).task.ttl;
    expect(await ttlOf({})).toBe(5000);
    expect(await ttlOf({ ttl: -5 })).toBe(1000);
    expect(await ttlOf({ ttl: 0.5 })).toBe(1000);
    expect(await ttlOf({ ttl: 1e300 })).toBe(60_000);
    expect(await ttlOf({ ttl: 30_000.7 })).toBe(30_000);
    // A ttl that is not a number is refused by the SDK's own request schema, before any task is made.
    const before = (await client.experimental.tasks.listTasks()).tasks.length;
    await expect(ttlOf({ ttl: 'forever' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: expect.stringContaining('ttl'),
    });
    expect((await client.experimental.tasks.listTasks()).tasks.length).toBe(before);
    expect(() => createMcpServer(new ToolRegistry(), { tasks: { defaultTtlMs: 10, maxTtlMs: 5 } })).toThrow(
      'tasks.defaultTtlMs (10) is above tasks.maxTtlMs (5); lower it or raise maxTtlMs.',
    );
    expect(() => createMcpServer(new ToolRegistry(), { tasks: { pollIntervalMs: 0 } })).toThrow(
      'tasks.pollIntervalMs must be a whole number of milliseconds of at least 1, got 0.',
    );
  });

  it('forgets the oldest ended task first when the memory store is full', async () => {
    let now = 1_000_000;
    const store = createMemoryTaskStore({ maxTasks: 2, now: () => now });
    const first = await store.create({ tool: 'a', ttlMs: 10_000, pollIntervalMs: 100 });
    const second = await store.create({ tool: 'b', ttlMs: 10_000, pollIntervalMs: 100 });
    await store.finish(second.id, { status: 'completed', result: { content: [] } });
    const third = await store.create({ tool: 'c', ttlMs: 10_000, pollIntervalMs: 100 });
    expect((await store.list()).tasks.map((task) => task.id)).toEqual([third.id, first.id]);
    now += 10_000;
    expect(await store.get(first.id)).toBeUndefined();
    expect((await store.list()).tasks).toEqual([]);
  });

  it('runs a task through the one door: validation, timeouts, hooks and onCallResult', async () => {
    // The tool never finishes: its call ends by the registry's timeout.
    const registry = registryWith(new Promise(() => {}), {}, 100);
    const hooked: string[] = [];
    registry.use({
      before: (call) => void hooked.push(`before ${call.tool}`),
      after: (call) => void hooked.push(`after ${call.tool}`),
    });
    const logged: Array<[string, string]> = [];
    const client = await connect(registry, {
      onCallResult: (tool, result) => void logged.push([tool, result.status]),
    });
    const run = async (params: Record<string, unknown>) => {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'build_report', task: {}, ...params } },
        z.object({ task: z.object({ taskId: z.string() }) }),
      );
      return settle(client, created.task.taskId);
    };
    const invalid = await run({ arguments: { quarter: 3 } });
    expect(text(invalid)).toMatch(/^Error \[INVALID_ARGUMENTS\]/);
    const timedOut = await run({ arguments: { quarter: 'Q1' } });
    expect(text(timedOut)).toMatch(/^Error \[TIMEOUT\]/);
    expect(logged).toEqual([
      ['build_report', 'error'],
      ['build_report', 'timeout'],
    ]);
    expect(hooked).toEqual(['before build_report', 'after build_report', 'before build_report', 'after build_report']);
  });

  it('ends a task whose result its store refuses as failed, saying why', async () => {
    const memory = createMemoryTaskStore();
    // A store that keeps results of at most 100 bytes of JSON, as the service's keeps 1 MiB.
    const store: McpTaskStore = {
      ...memory,
      finish: async (id, outcome) => {
        const bytes = JSON.stringify(outcome.result ?? null).length;
        if (bytes > 100) throw new Error(`result is ${bytes} bytes of JSON; the limit is 100 bytes.`);
        return memory.finish(id, outcome);
      },
    };
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'big_dump',
        description: 'Dump a lot.',
        execution: { taskSupport: 'optional' },
        handler: () => 'x'.repeat(500),
      }),
    );
    const client = await connect(registry, { tasks: { store } });
    const created = await client.request(
      { method: 'tools/call', params: { name: 'big_dump', arguments: {}, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }) }),
    );
    const result = await settle(client, created.task.taskId);
    // Even the message is over the limit here, so the task keeps no result and the answer is built from its status.
    const message =
      /^The result of 'big_dump' could not be kept: result is \d+ bytes of JSON; the limit is 100 bytes\.$/;
    expect(text(result)).toMatch(/^Error \[EXECUTION_FAILED\]: The result of 'big_dump' could not be kept/);
    const task = await client.experimental.tasks.getTask(created.task.taskId);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(message);
  });

  it('declares no tasks capability with tasks: false, and runs the call as usual', async () => {
    const client = await connect(registryWith(Promise.resolve()), { tasks: false });
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(text(result)).toBe('hi');
  });
});
