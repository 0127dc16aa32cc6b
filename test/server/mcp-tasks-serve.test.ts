import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStore } from '../../src/store/index.js';
import { assertBuilt, type RunningCli, startCli } from '../cli/run-cli.js';
import { createTestWorkspace } from './server-harness.js';

// `toolshed serve` (SQLite) restarted while one MCP task runs and another has finished: after the
// restart the running one has ended as failed, saying why, and the finished one's result is still
// there, over MCP and over REST. And a server killed mid-task: its task ends once its lease lapses.

beforeAll(assertBuilt);

const CreatedTask = z.object({ task: z.object({ taskId: z.string(), status: z.string() }) });

let folder: string;
const running: RunningCli[] = [];
const clients: Client[] = [];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-tasks-serve-'));
  mkdirSync(join(folder, 'tools'));
  const definition = (name: string, handler: string) =>
    [
      `name: ${name}`,
      `description: ${name} for the restart test.`,
      'parameters:',
      '  type: object',
      '  properties: {}',
      `handler: ./handlers.mjs#${handler}`,
      'timeout: 600',
      'execution:',
      '  task_support: optional',
    ].join('\n');
  writeFileSync(join(folder, 'tools', 'never_done.yaml'), definition('never_done', 'neverDone'));
  writeFileSync(join(folder, 'tools', 'quick_sum.yaml'), definition('quick_sum', 'quickSum'));
  // never_done runs until its call is aborted; quick_sum answers at once.
  writeFileSync(
    join(folder, 'tools', 'handlers.mjs'),
    [
      'export const neverDone = (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));',
      'export const quickSum = () => "42";',
    ].join('\n'),
  );
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  for (const cli of running) {
    cli.child.kill('SIGKILL');
    await cli.exited;
  }
  rmSync(folder, { recursive: true, force: true });
});

async function serve(): Promise<{ cli: RunningCli; base: string }> {
  const cli = startCli(['serve', '--port', '0', '--tools', join(folder, 'tools')], {
    cwd: folder,
    env: { TOOLSHED_DATABASE_URL: join(folder, 'service.db') },
  });
  running.push(cli);
  const match = await cli.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api\n/);
  return { cli, base: match[1] ?? '' };
}

async function connect(base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'tasks-restart-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

describe('toolshed serve restarted mid-task', () => {
  it('ends the running task as failed with a message, keeps the finished one readable, over MCP and REST', async () => {
    const first = await serve();
    const token = (await first.cli.waitForStderr(/shown once\): (\S+)/))[1] ?? '';
    const before = await connect(first.base, token);
    const listed = await before.listTools();
    expect(listed.tools.find((tool) => tool.name === 'never_done')?.execution).toEqual({ taskSupport: 'optional' });

    const slow = await before.request(
      { method: 'tools/call', params: { name: 'never_done', arguments: {}, task: { ttl: 600_000 } } },
      CreatedTask,
    );
    const quick = await before.request(
      { method: 'tools/call', params: { name: 'quick_sum', arguments: {}, task: {} } },
      CreatedTask,
    );
    const quickResult = await before.experimental.tasks.getTaskResult(quick.task.taskId, CallToolResultSchema);
    expect(quickResult.content).toEqual([{ type: 'text', text: '42' }]);
    expect((await before.experimental.tasks.getTask(slow.task.taskId)).status).toBe('working');

    first.cli.child.kill('SIGTERM');
    expect((await first.cli.exited).exitCode).toBe(0);

    const second = await serve();
    const after = await connect(second.base, token);
    const ended = await after.experimental.tasks.getTask(slow.task.taskId);
    expect(ended).toMatchObject({
      status: 'failed',
      statusMessage: 'The server running this task shut down before it finished; call the tool again.',
    });
    const endedResult = await after.experimental.tasks.getTaskResult(slow.task.taskId, CallToolResultSchema);
    expect(endedResult.isError).toBe(true);
    const kept = await after.experimental.tasks.getTaskResult(quick.task.taskId, CallToolResultSchema);
    expect(kept.content).toEqual([{ type: 'text', text: '42' }]);
    const listedAfter = await after.experimental.tasks.listTasks();
    expect(listedAfter.tasks.map((task) => [task.taskId, task.status])).toEqual([
      [quick.task.taskId, 'completed'],
      [slow.task.taskId, 'failed'],
    ]);

    const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' };
    const rest = await fetch(`${second.base}/api/tasks/${quick.task.taskId}`, { headers });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({
      id: quick.task.taskId,
      tool: 'quick_sum',
      agent_id: null,
      status: 'completed',
      result: { content: [{ type: 'text', text: '42' }] },
    });
    const page = (await (await fetch(`${second.base}/api/tasks`, { headers })).json()) as {
      tasks: Array<{ id: string; status: string }>;
    };
    expect(page.tasks.map((task) => [task.id, task.status])).toEqual([
      [quick.task.taskId, 'completed'],
      [slow.task.taskId, 'failed'],
    ]);
  }, 60_000);
});

describe('a server killed mid-task', () => {
  it('leaves the task working until its lease lapses, then it reads as failed, saying why', async () => {
    const database = join(folder, 'killed.db');
    const setup = await createStore(database);
    await setup.migrate();
    const { token } = await createTestWorkspace(setup, 'ws_lease');
    await setup.close();
    const child = spawn(process.execPath, [join(import.meta.dirname, 'fixtures', 'task-lease-server.mjs')], {
      env: { ...process.env, DATABASE: database, LEASE_MS: '5000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          const match = /listening (\d+)/.exec(output);
          if (match !== null) resolve(match[1] as string);
        });
        child.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
      });
      const client = await connect(`http://127.0.0.1:${port}`, token);
      const created = await client.request(
        { method: 'tools/call', params: { name: 'never_done', arguments: {}, task: {} } },
        CreatedTask,
      );
      expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe('working');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));

      const store = await createStore(database);
      try {
        // Until the lease lapses the task still reads as working: nobody can tell a slow server from a dead one.
        const read = () => store.mcpTasks.get('ws_lease', created.task.taskId);
        expect((await read())?.status).toBe('working');
        await expect.poll(async () => (await read())?.status, { timeout: 20_000, interval: 200 }).toBe('failed');
        expect(await read()).toMatchObject({
          statusMessage: 'The server running this task stopped before it finished; call the tool again.',
          result: { isError: true },
        });
      } finally {
        await store.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
