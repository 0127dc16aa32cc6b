import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { EmailStore } from '../../src/emails/index.js';
import { createServer, createServiceBuiltins } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

/** The service's shared built-ins (SPEC §10): code execution and the email corpus, through the REST API. */
function defineServiceBuiltinCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let app: ReturnType<typeof createServer>;
  let headers: Record<string, string>;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    const shared = createServiceBuiltins(store);
    await store.tools.upsertBuiltins([...createBuiltins(), ...shared.tools]);
    await shared.close();
    await new EmailStore(store).insertBatch([
      {
        message_id: '<quarterly@example.com>',
        inbox: 'jeff@example.com',
        subject: 'Quarterly gas forecast',
        sender: 'ann@example.com',
        recipients: ['jeff@example.com'],
        date: '2001-05-14T09:30:00.000Z',
        body: 'The quarterly forecast for natural gas is attached.',
      },
    ]);
    app = createServer({
      store,
      builtins: { sandbox: { size: 1 } },
      registryOptions: { env: { SERPER_API_KEY: 'from-the-server-env' } },
    });
    await app.ready();
    const workspace = await store.workspaces.create({ id: 'builtins', name: 'Built-ins' });
    const { token } = await store.tokens.create(workspace.id);
    headers = { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id, 'content-type': 'application/json' };
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
  }, 30_000);

  async function call(tool: string, args: unknown) {
    const response = await app.inject({
      method: 'POST',
      url: `/api/tools/${tool}/call`,
      headers,
      payload: JSON.stringify({ arguments: args }),
    });
    expect(response.statusCode).toBe(200);
    return response.json() as { status: string; data?: unknown; error?: { code: string; message: string } };
  }

  it('lists the code and email tools with the other built-ins', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/tools', headers });
    const ids = (response.json() as { tools: Array<{ id: string; category: string }> }).tools.map((tool) => [
      tool.id,
      tool.category,
    ]);
    expect(ids).toEqual(
      expect.arrayContaining([
        ['execute_python', 'code'],
        ['execute_javascript', 'code'],
        ['email_search', 'email'],
        ['email_get', 'email'],
        ['email_inboxes', 'email'],
      ]),
    );
  });

  it("reports a tool's env requirements as set from the server's env, never their values", async () => {
    const response = await app.inject({ method: 'GET', url: '/api/tools/serper_search', headers });
    const { requires } = response.json() as { requires: { env: Array<{ name: string; set: boolean }> } };
    expect(requires.env.map((variable) => [variable.name, variable.set])).toEqual([['SERPER_API_KEY', true]]);
    expect(response.body).not.toContain('from-the-server-env');
  });

  it('runs Python and JavaScript in the sandbox', async () => {
    const python = await call('execute_python', { code: 'import math\nprint(math.factorial(10))\nmath.pi > 3' });
    expect(python).toMatchObject({ status: 'success', data: { stdout: '3628800\n', stderr: '', result: true } });
    const javascript = await call('execute_javascript', { code: 'console.log([1, 2, 3].map((n) => n * 2).join(","))' });
    expect(javascript).toMatchObject({ status: 'success', data: { stdout: '2,4,6\n' } });
    const escaped = await call('execute_python', { code: 'import os\nos.listdir("/")' });
    expect(escaped.status).toBe('error');
    expect(escaped.error?.code).toBe('EXECUTION_FAILED');
  }, 60_000);

  it('searches and reads the email corpus', async () => {
    const found = await call('email_search', { query: 'gas forecast', inbox_id: 'jeff@example.com' });
    expect(found.status).toBe('success');
    const data = found.data as { emails: Array<{ message_id: string; snippet: string }>; total: number };
    expect(data.total).toBe(1);
    expect(data.emails[0]?.message_id).toBe('<quarterly@example.com>');
    expect(data.emails[0]?.snippet).toContain('<mark>');
    const email = await call('email_get', { message_id: '<quarterly@example.com>' });
    expect(email).toMatchObject({ status: 'success', data: { recipients: ['jeff@example.com'] } });
    const hostile = await call('email_search', { query: '") OR 1=1; --', inbox_id: 'jeff@example.com' });
    expect(hostile).toEqual(
      expect.objectContaining({
        status: 'success',
        data: expect.objectContaining({
          emails: [],
          total: 0,
          total_is_lower_bound: false,
          // 'or' is one of PostgreSQL's stop words, which no search asks for.
          unmatched_words: harness.dialect === 'postgres' ? ['1'] : ['or', '1'],
        }),
      }),
    );
    const wordless = await call('email_search', { query: '"*" ( -', inbox_id: 'jeff@example.com' });
    expect(wordless.error?.code).toBe('INVALID_ARGUMENTS');
  });

  it('lists the inboxes, and answers an unknown inbox with the ones there are', async () => {
    const listed = await call('email_inboxes', {});
    expect(listed).toMatchObject({
      status: 'success',
      data: { inboxes: [{ inbox: 'jeff@example.com', count: 1 }], total: 1 },
    });
    const typo = await call('email_search', { query: 'gas', inbox_id: 'jef@example.com' });
    expect(typo).toMatchObject({
      status: 'error',
      error: {
        code: 'INVALID_ARGUMENTS',
        message: "No inbox 'jef@example.com'; did you mean 'jeff@example.com'? The largest is: jeff@example.com (1).",
      },
    });
    const over = await call('email_inboxes', { limit: 1_000_000 });
    expect(over.error?.message).toBe(
      "Invalid arguments for 'email_inboxes': 'limit' must be <= 200, got number 1000000.",
    );
    const tool = await app.inject({ method: 'GET', url: '/api/tools/email_inboxes', headers });
    expect(tool.json()).toMatchObject({
      id: 'email_inboxes',
      category: 'email',
      annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
    });
  });
}

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`the service's shared built-ins on ${harness.dialect}`, () => {
    defineServiceBuiltinCases(harness);
  });
}
