import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

// Code tools (POST /api/tools with type python or javascript) on both stores: created, checked,
// called like any other tool on every surface, and refused with the field named when malformed.

interface Tenant {
  id: string;
  token: string;
  headers: Record<string, string>;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

const ADD_NUMBERS = `def add_numbers(a, b):
    print(f"adding {a} and {b}")
    return {"sum": a + b}
`;

const WORD_STATS = `async function word_stats({ text }) {
  const words = text.split(/\\s+/).filter(Boolean);
  console.log(\`\${words.length} words\`);
  return { words: words.length, longest: words.reduce((a, b) => (b.length > a.length ? b : a), '') };
}
`;

const NUMBERS = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};

const fn = (name: string) => `def ${name}():\n    return 1\n`;

function codeTool(id: string, type: string, code: string, extra: Record<string, unknown> = {}) {
  return { id, type, code, description: `The ${id} tool.`, parameters: { type: 'object', properties: {} }, ...extra };
}

function defineCodeToolCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;
  const clients: Client[] = [];

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.tools.upsertBuiltins(createBuiltins());
    app = createServer({ store, builtins: { sandbox: { size: 1, timeoutMs: 5_000 }, emails: false } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app?.close();
    await store?.close();
    await harness.teardown();
  }, 60_000);

  async function tenant(): Promise<Tenant> {
    const workspace = await store.workspaces.create({ id: unique('ws'), name: 'Code tools' });
    const { token } = await store.tokens.create(workspace.id, { name: 'test' });
    return { id: workspace.id, token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
  }

  async function send(owner: Tenant, method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? owner.headers : { ...owner.headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  async function connect(path: string, token: string): Promise<Client> {
    const client = new Client({ name: 'toolshed-code-tools-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(path, base), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function workspaceToolIds(owner: Tenant): Promise<string[]> {
    const listed = await send(owner, 'GET', '/api/tools');
    return (listed.body.tools as Array<{ id: string; scope: string }>)
      .filter((tool) => tool.scope === 'workspace')
      .map((tool) => tool.id);
  }

  async function expectRefused(owner: Tenant, body: unknown, status: number, field: string, message: string | RegExp) {
    const response = await send(owner, 'POST', '/api/tools', body);
    const shown = JSON.stringify(response.body);
    expect(response.status, shown).toBe(status);
    const error = response.body.error as { code: string; message: string; details?: { field?: string } };
    expect(error.code, shown).toBe(status === 409 ? 'ALREADY_EXISTS' : 'VALIDATION_ERROR');
    if (status === 400) expect(error.details?.field, shown).toBe(field);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  }

  it('creates a Python code tool and calls it with keyword arguments; print() output is in the metadata', async () => {
    const owner = await tenant();
    const created = await send(
      owner,
      'POST',
      '/api/tools',
      codeTool('add_numbers', 'python', ADD_NUMBERS, { description: 'Add two numbers.', parameters: NUMBERS }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      id: 'add_numbers',
      handler_key: 'python',
      scope: 'workspace',
      category: 'code',
      parameters_schema: NUMBERS,
    });
    const called = await send(owner, 'POST', '/api/tools/add_numbers/call', { arguments: { a: 2, b: 3.5 } });
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({
      status: 'success',
      data: { sum: 5.5 },
      metadata: { tool: 'add_numbers', stdout: 'adding 2 and 3.5\n' },
    });
    const invalid = await send(owner, 'POST', '/api/tools/add_numbers/call', { arguments: { a: 'two', b: 3 } });
    expect(invalid.body).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGUMENTS' } });
    const shown = await send(owner, 'GET', '/api/tools/add_numbers');
    expect(shown.body).toMatchObject({ id: 'add_numbers', type: 'python', code: ADD_NUMBERS });
  });

  it('creates a JavaScript code tool and calls it with one object, awaiting an async function', async () => {
    const owner = await tenant();
    const parameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const created = await send(
      owner,
      'POST',
      '/api/tools',
      codeTool('word_stats', 'javascript', WORD_STATS, { parameters }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const called = await send(owner, 'POST', '/api/tools/word_stats/call', {
      arguments: { text: 'the quick brown fox' },
    });
    expect(called.body).toMatchObject({
      status: 'success',
      data: { words: 4, longest: 'quick' },
      metadata: { stdout: '4 words\n' },
    });
  });

  it('answers an exception with its message and the line of the code, and a call mistake without a line', async () => {
    const owner = await tenant();
    const divide = 'def divide(a, b):\n    """Divide a by b."""\n    return a / b\n';
    // The schema offers a `precision` the function does not take: a mistake of the tool's author.
    const parameters = { ...NUMBERS, properties: { ...NUMBERS.properties, precision: { type: 'integer' } } };
    expect((await send(owner, 'POST', '/api/tools', codeTool('divide', 'python', divide, { parameters }))).status).toBe(
      201,
    );
    const failed = await send(owner, 'POST', '/api/tools/divide/call', { arguments: { a: 1, b: 0 } });
    const error = failed.body.error as { code: string; message: string; details: Record<string, unknown> };
    expect(failed.body.status).toBe('error');
    expect(error.code).toBe('EXECUTION_FAILED');
    expect(error.message).toBe(
      'Python raised ZeroDivisionError: division by zero (line 3).\nTraceback (most recent call last):\n  line 3, in divide\n    return a / b\nZeroDivisionError: division by zero',
    );
    expect(error.details).toMatchObject({ reason: 'exception', errorType: 'ZeroDivisionError', line: 3 });
    // The call line after the code is not the code's: no line is named.
    const mistake = await send(owner, 'POST', '/api/tools/divide/call', { arguments: { a: 1, b: 2, precision: 2 } });
    expect((mistake.body.error as { message: string }).message).toBe(
      "Python raised TypeError: divide() got an unexpected keyword argument 'precision'.\nTypeError: divide() got an unexpected keyword argument 'precision'",
    );
    expect(mistake.body.error).not.toHaveProperty('details.line');

    const thrower =
      'function checked({ n }) {\n  if (n < 0) {\n    throw new RangeError("negative: " + n);\n  }\n  return n;\n}';
    const byN = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    expect(
      (await send(owner, 'POST', '/api/tools', codeTool('checked', 'javascript', thrower, { parameters: byN }))).status,
    ).toBe(201);
    const thrown = await send(owner, 'POST', '/api/tools/checked/call', { arguments: { n: -2 } });
    expect(thrown.body).toMatchObject({
      status: 'error',
      error: { code: 'EXECUTION_FAILED', details: { reason: 'exception', errorType: 'RangeError', line: 3 } },
    });
    expect((thrown.body.error as { message: string }).message).toMatch(
      /^JavaScript threw RangeError: negative: -2 \(line 3\)\.\nRangeError: negative: -2\nat checked \(code\.js:3:/,
    );
    expect((await send(owner, 'POST', '/api/tools/checked/call', { arguments: { n: 4 } })).body).toMatchObject({
      status: 'success',
      data: 4,
    });
  });

  it('hands hostile argument text to the function intact, never as code', async () => {
    const owner = await tenant();
    const parameters = {
      type: 'object',
      properties: { text: { type: 'string' }, nested: { type: 'object' } },
      required: ['text', 'nested'],
    };
    const text = `"]); import os; ("\\' \n\u2028\u0000 \${x} */ \`); process.exit(1); (\` 😀 \ud800`;
    const nested = { 'key"with\'quotes': [null, true, false, 1.5, -0, 12345678901, { deep: [[['x']]] }], '': 'empty' };
    const echo: Array<[string, string]> = [
      ['python', 'def echo_py(text, nested):\n    return {"text": text, "nested": nested, "length": len(text)}\n'],
      ['javascript', 'function echo_js({ text, nested }) {\n  return { text, nested, length: [...text].length };\n}'],
    ];
    for (const [type, code] of echo) {
      const id = type === 'python' ? 'echo_py' : 'echo_js';
      expect((await send(owner, 'POST', '/api/tools', codeTool(id, type, code, { parameters }))).status).toBe(201);
      const called = await send(owner, 'POST', `/api/tools/${id}/call`, { arguments: { text, nested } });
      expect(called.body, type).toMatchObject({ status: 'success' });
      const data = called.body.data as { text: string; nested: unknown; length: number };
      expect(data.text, type).toBe(text);
      expect(data.nested, type).toEqual({
        ...nested,
        'key"with\'quotes': [null, true, false, 1.5, 0, 12345678901, { deep: [[['x']]] }],
      });
      expect(data.length, type).toBe([...text].length);
    }
  });

  it('answers a return value that is not JSON with an error naming it', async () => {
    const owner = await tenant();
    const code = 'def unique_letters(text="abca"):\n    return set(text)\n';
    expect((await send(owner, 'POST', '/api/tools', codeTool('unique_letters', 'python', code))).status).toBe(201);
    const called = await send(owner, 'POST', '/api/tools/unique_letters/call', { arguments: {} });
    expect(called.body).toMatchObject({ status: 'error', error: { code: 'EXECUTION_FAILED' } });
    expect((called.body.error as { message: string }).message).toMatch(
      /^The value 'unique_letters' returned is not JSON-serializable: \{'[abc]', '[abc]', '[abc]'\}\.$/,
    );
  });

  it('refuses a syntax error with its line, never running the code, and writes nothing', async () => {
    const owner = await tenant();
    await expectRefused(
      owner,
      codeTool('broken', 'python', 'def broken(x):\n    print("ran")\n    return x +\n'),
      400,
      'code',
      "'code' has a Python syntax error on line 3: invalid syntax.",
    );
    await expectRefused(
      owner,
      codeTool('broken', 'python', 'def broken(x):\nreturn x\n'),
      400,
      'code',
      "'code' has a Python syntax error on line 2: expected an indented block after function definition on line 1.",
    );
    await expectRefused(
      owner,
      codeTool('broken', 'javascript', 'function broken(x) {\n  return x +;\n}'),
      400,
      'code',
      "'code' has a JavaScript syntax error on line 2: Unexpected token ';'.",
    );
    await expectRefused(
      owner,
      codeTool('broken', 'javascript', 'function broken(x) {\n  return x;\n}\nif (x)'),
      400,
      'code',
      "'code' has a JavaScript syntax error on line 4: Unexpected end of input.",
    );
    expect(await workspaceToolIds(owner)).toEqual([]);
  });

  it('refuses a code that does not define the function, or whose top level fails', async () => {
    const owner = await tenant();
    await expectRefused(
      owner,
      codeTool('needs_fn', 'python', 'def other():\n    return 1\n'),
      400,
      'code',
      "'code' does not define a function named 'needs_fn'; a code tool calls the function named like its id, so add 'def needs_fn(...):' at the top level.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'javascript', 'const other = () => 1;'),
      400,
      'code',
      "'code' does not define a function named 'needs_fn'; a code tool calls the function named like its id, so add 'function needs_fn(args) { ... }' at the top level.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'python', 'needs_fn = 42\n'),
      400,
      'code',
      "'code' defines 'needs_fn' as a int, not a function; a code tool calls the function named like its id.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'javascript', 'const needs_fn = "text";'),
      400,
      'code',
      "'code' defines 'needs_fn' as a string, not a function; a code tool calls the function named like its id.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'javascript', 'class needs_fn { run() { return 1; } }'),
      400,
      'code',
      "'code' defines 'needs_fn' as a class, not a function; a code tool calls the function named like its id.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'python', 'async def needs_fn():\n    return 1\n'),
      400,
      'code',
      "'needs_fn' is an async function; Python code tools call it without an event loop, so define it with 'def'.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'python', 'import os\n\ndef needs_fn():\n    return os.getcwd()\n'),
      400,
      'code',
      "'code' raised ImportError on line 1 when its top level ran: module 'os' is not allowed in the sandbox; allowed modules: datetime, json, math, re, typing. The top level runs once when the tool is created, to find 'needs_fn', and before every call; it must not fail.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'javascript', 'function needs_fn() {}\nnull.boom;'),
      400,
      'code',
      "'code' raised TypeError on line 2 when its top level ran: cannot read property 'boom' of null. The top level runs once when the tool is created, to find 'needs_fn', and before every call; it must not fail.",
    );
    await expectRefused(
      owner,
      codeTool('needs_fn', 'javascript', 'function needs_fn() {}\nwhile (true) {}'),
      400,
      'code',
      "JavaScript code ran longer than the 5 s time limit and was stopped, at the top level of 'code', which runs once when the tool is created; the tool was not created.",
    );
    expect(await workspaceToolIds(owner)).toEqual([]);
  }, 30_000);

  it('changes its code with PATCH, checked as at creation: bad code is refused with its line and the old code runs on', async () => {
    const owner = await tenant();
    const created = await send(
      owner,
      'POST',
      '/api/tools',
      codeTool('add_numbers', 'python', ADD_NUMBERS, { description: 'Add two numbers.', parameters: NUMBERS }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const broken = await send(owner, 'PATCH', '/api/tools/add_numbers', {
      code: 'def add_numbers(a, b):\n    return {"sum": a +* b}\n',
    });
    expect(broken.status, JSON.stringify(broken.body)).toBe(400);
    expect(broken.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'code' } });
    expect((broken.body.error as { message: string }).message).toMatch(/line 2/);
    const stillOld = await send(owner, 'POST', '/api/tools/add_numbers/call', { arguments: { a: 2, b: 3 } });
    expect(stillOld.body).toMatchObject({ status: 'success', data: { sum: 5 } });

    const endless = await send(owner, 'PATCH', '/api/tools/add_numbers', {
      code: 'def add_numbers(a, b):\n    return 1\nwhile True:\n    pass\n',
    });
    expect((endless.body.error as { message: string }).message).toMatch(
      /at the top level of 'code', which runs once when the tool is changed; the tool was not changed\.$/,
    );
    const renamed = await send(owner, 'PATCH', '/api/tools/add_numbers', { code: 'def other(a, b):\n    return 1\n' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error).toMatchObject({ details: { field: 'code' } });
    for (const [code, message] of [
      [7, "'code' must be the tool's python source text, got 7."],
      ['   ', `'code' must be the tool's python source text, got "   ".`],
    ] as const) {
      const refused = await send(owner, 'PATCH', '/api/tools/add_numbers', { code });
      expect(refused.status).toBe(400);
      expect((refused.body.error as { message: string }).message).toBe(message);
    }

    const changed = await send(owner, 'PATCH', '/api/tools/add_numbers', {
      code: 'def add_numbers(a, b):\n    return {"sum": a + b, "doubled": 2 * (a + b)}\n',
      description: 'Add two numbers, and double the sum.',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ description: 'Add two numbers, and double the sum.' });
    const called = await send(owner, 'POST', '/api/tools/add_numbers/call', { arguments: { a: 2, b: 3 } });
    expect(called.body).toMatchObject({ status: 'success', data: { sum: 5, doubled: 10 } });
  }, 60_000);

  it('refuses code over the size limit with a clear 400', async () => {
    const owner = await tenant();
    const huge = `def huge():\n    return 1\n${'# padding\n'.repeat(7_000)}`;
    const bytes = JSON.stringify(huge).length - 2;
    expect(bytes).toBe(77_027);
    await expectRefused(
      owner,
      codeTool('huge', 'python', huge),
      400,
      'code',
      `'code' must be at most 65472 bytes as JSON text (where a newline or a quote takes 2), got ${bytes}; keep data out of the code or split the tool in two.`,
    );
    // Just under the limit is accepted.
    const fits = `def fits():\n    return 1\n${'#'.repeat(65_472 - 27)}`;
    expect(JSON.stringify(fits).length - 2).toBe(65_472);
    expect((await send(owner, 'POST', '/api/tools', codeTool('fits', 'python', fits))).status).toBe(201);
    const bodyTooBig = await send(owner, 'POST', '/api/tools', codeTool('huge', 'python', 'x'.repeat(1_100_000)));
    expect(bodyTooBig.status).toBe(413);
    expect(await workspaceToolIds(owner)).toEqual(['fits']);
  });

  it('refuses every field of the wrong type with VALIDATION_ERROR naming it, writing nothing', async () => {
    const owner = await tenant();
    const valid = codeTool('typed', 'python', 'def typed():\n    return 1\n');
    const cases: Array<[string, unknown, string]> = [
      ['id', { ...valid, id: 7 }, "Invalid code tool: 'id' must be a string, got number 7."],
      ['id', (({ id: _id, ...rest }) => rest)(valid), "Invalid code tool: missing required field 'id' (a string)."],
      [
        'type',
        { ...valid, type: 'ruby' },
        "'type' must be 'rest_api' (a REST tool), 'python' or 'javascript' (a code tool), got \"ruby\".",
      ],
      [
        'type',
        { ...valid, type: ['python'] },
        "'type' must be 'rest_api' (a REST tool), 'python' or 'javascript' (a code tool), got an array.",
      ],
      ['code', { ...valid, code: 5 }, "Invalid code tool: 'code' must be a string, got number 5."],
      [
        'code',
        { ...valid, code: '  \n ' },
        'Invalid code tool: \'code\' must be a string matching /\\S/, got string "  \\n ".',
      ],
      [
        'code',
        (({ code: _code, ...rest }) => rest)(valid),
        "Invalid code tool: missing required field 'code' (a string).",
      ],
      [
        'parameters',
        { ...valid, parameters: 'x' },
        'Invalid code tool: \'parameters\' must be an object, got string "x".',
      ],
      [
        'parameters',
        { ...valid, parameters: { type: 'array', items: {} } },
        "Invalid code tool: missing required field 'parameters.properties' (an object).",
      ],
      ['description', { ...valid, description: 7 }, "Invalid code tool: 'description' must be a string, got number 7."],
      [
        'description',
        { ...valid, description: ' ' },
        'Invalid code tool: \'description\' must be a string matching /\\S/, got string " ".',
      ],
      ['title', { ...valid, title: 5 }, "Invalid code tool: 'title' must be a string, got number 5."],
      [
        'when_to_use',
        { ...valid, when_to_use: ['x'] },
        "Invalid code tool: 'when_to_use' must be a string, got a list of 1 item.",
      ],
      [
        'category',
        { ...valid, category: '' },
        'Invalid code tool: \'category\' must be at least 1 character long, got string "".',
      ],
      [
        'annotations',
        { ...valid, annotations: { read_only: 'yes' } },
        'Invalid code tool: \'annotations.read_only\' must be a boolean, got string "yes".',
      ],
      [
        'annotations',
        { ...valid, annotations: { sneaky: true } },
        "Invalid code tool: unknown field 'annotations.sneaky'; allowed fields of 'annotations': read_only, destructive, idempotent, open_world.",
      ],
      [
        'requires_approval',
        { ...valid, requires_approval: 'no' },
        'Invalid code tool: \'requires_approval\' must be a boolean, got string "no".',
      ],
      [
        'endpoint',
        { ...valid, endpoint: 'https://example.com' },
        "Invalid code tool: unknown field 'endpoint'; allowed fields: id, type, code, title, description, when_to_use, category, input_examples, parameters, annotations, requires_approval.",
      ],
      [
        'description',
        (({ description, ...rest }) => ({ ...rest, descripton: description }))(valid),
        "Invalid code tool: missing required field 'description' (a string); 'descripton' was sent: did you mean 'description'?",
      ],
      [
        'descripton',
        { ...valid, descripton: 'Spelt twice.' },
        "Invalid code tool: unknown field 'descripton' (did you mean 'description'?); allowed fields: id, type, code, title, description, when_to_use, category, input_examples, parameters, annotations, requires_approval.",
      ],
      [
        'auth',
        { ...valid, auth: { type: 'bearer', secret: 'X' } },
        "Invalid code tool: unknown field 'auth'; allowed fields: id, type, code, title, description, when_to_use, category, input_examples, parameters, annotations, requires_approval.",
      ],
      ['body', [valid], 'The request body must be a JSON object, got an array.'],
    ];
    for (const [field, body, message] of cases) {
      const response = await send(owner, 'POST', '/api/tools', body);
      const shown = `${field}: ${JSON.stringify(response.body)}`;
      expect(response.status, shown).toBe(400);
      expect(response.body, shown).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field } } });
      expect((response.body.error as { message: string }).message, shown).toBe(message);
    }
    expect(await workspaceToolIds(owner)).toEqual([]);
  });

  it('refuses hostile and reserved ids, and ids another tool has', async () => {
    const owner = await tenant();
    for (const id of ['__proto__', 'Bad-Name', "x'); import os; ('", 'a'.repeat(65), '', 'name with space']) {
      const response = await send(owner, 'POST', '/api/tools', codeTool(id, 'python', fn('x')));
      expect(response.status, id).toBe(400);
      expect(response.body, id).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field: 'id' } } });
    }
    await expectRefused(
      owner,
      codeTool('class', 'python', 'pass'),
      400,
      'id',
      "'class' cannot name a Python function (a reserved word or built-in of Python), and a code tool's function is named like its id; choose another id.",
    );
    for (const id of ['constructor', 'eval', 'typeof']) {
      await expectRefused(
        owner,
        codeTool(id, 'javascript', 'function f() {}'),
        400,
        'id',
        `'${id}' cannot name a JavaScript function (a reserved word or built-in of JavaScript), and a code tool's function is named like its id; choose another id.`,
      );
    }
    // A tool the server defines for every workspace, listed as a row or not.
    await expectRefused(
      owner,
      codeTool('execute_python', 'python', fn('execute_python')),
      409,
      '',
      "Tool id 'execute_python' is already taken; choose another id.",
    );
    await expectRefused(
      owner,
      codeTool('calculator', 'python', fn('calculator')),
      409,
      '',
      "Tool id 'calculator' is already taken; choose another id.",
    );
    // `constructor` is an ordinary name in Python.
    expect((await send(owner, 'POST', '/api/tools', codeTool('constructor', 'python', fn('constructor')))).status).toBe(
      201,
    );
    await expectRefused(
      owner,
      codeTool('constructor', 'python', fn('constructor')),
      409,
      '',
      "Tool id 'constructor' is already taken; choose another id.",
    );
    expect(await workspaceToolIds(owner)).toEqual(['constructor']);
    expect((await send(owner, 'POST', '/api/tools/constructor/call', { arguments: {} })).body).toMatchObject({
      status: 'success',
      data: 1,
    });
  });

  it('is not seen, exported, attached or called by another workspace (404)', async () => {
    const owner = await tenant();
    const other = await tenant();
    expect(
      (
        await send(
          owner,
          'POST',
          '/api/tools',
          codeTool('private_calc', 'javascript', 'function private_calc() { return "mine"; }'),
        )
      ).status,
    ).toBe(201);
    expect(await workspaceToolIds(other)).toEqual([]);
    expect(JSON.stringify((await send(other, 'GET', '/api/tools?q=private_calc')).body)).not.toContain('private_calc');
    for (const [method, path, body] of [
      ['GET', '/api/tools/private_calc'],
      ['GET', '/api/tools/private_calc/export?format=openai'],
      ['POST', '/api/tools/private_calc/call', { arguments: {} }],
    ] as Array<[string, string, unknown]>) {
      const response = await send(other, method, path, body);
      expect(response.status, path).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain('mine');
    }
    const agent = (await send(other, 'POST', '/api/agents', { name: 'Other' })).body.id as string;
    expect((await send(other, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'private_calc' })).status).toBe(404);
    const client = await connect('/mcp', other.token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('private_calc');
    const called = await client.callTool({ name: 'private_calc', arguments: {} });
    expect(called.isError).toBe(true);
    // The owner's own workspace, meanwhile, gets its tool's answer.
    expect((await send(owner, 'POST', '/api/tools/private_calc/call', { arguments: {} })).body).toMatchObject({
      data: 'mine',
    });
  });

  it('on a server without the sandbox: refused at creation, and a stored one is listed as unavailable', async () => {
    const owner = await tenant();
    expect(
      (await send(owner, 'POST', '/api/tools', codeTool('stored_early', 'python', fn('stored_early')))).status,
    ).toBe(201);
    const plain = createServer({ store, builtins: false, mcp: false, webCatalog: false });
    await plain.ready();
    try {
      const inject = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
        const response = await plain.inject({
          method,
          url,
          headers: body === undefined ? owner.headers : { ...owner.headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        return { status: response.statusCode, body: response.json() as Record<string, unknown> };
      };
      const refused = await inject('POST', '/api/tools', codeTool('later', 'javascript', 'function later() {}'));
      expect(refused).toEqual({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message:
              "This server runs no sandbox, so it cannot run 'javascript' code tools; the operator turns the sandbox on (it is on unless the service's built-ins leave it out).",
            details: { field: 'type' },
          },
        },
      });
      const reason = "Tool 'stored_early' runs python code, and this server runs without the sandbox.";
      expect((await inject('GET', '/api/tools/stored_early')).body).toMatchObject({
        available: false,
        unavailable_reason: reason,
      });
      const called = await inject('POST', '/api/tools/stored_early/call', { arguments: {} });
      expect(called.body).toMatchObject({ status: 'error', error: { code: 'EXECUTION_FAILED', message: reason } });
    } finally {
      await plain.close();
    }
    expect(await workspaceToolIds(owner)).toEqual(['stored_early']);
  });

  it('behaves like any other tool: search, attach, agent calls, exports, prompt docs and MCP', async () => {
    const owner = await tenant();
    const parameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    await send(
      owner,
      'POST',
      '/api/tools',
      codeTool('word_stats', 'javascript', WORD_STATS, {
        title: 'Word statistics',
        description: 'Count the words of a text and find the longest one.',
        when_to_use: 'When the user asks how long a text is.',
        parameters,
      }),
    );
    await send(
      owner,
      'POST',
      '/api/tools',
      codeTool('add_numbers', 'python', ADD_NUMBERS, { description: 'Add two numbers.', parameters: NUMBERS }),
    );
    const found = await send(owner, 'GET', '/api/tools?q=longest%20word');
    expect((found.body.tools as Array<{ id: string }>)[0]?.id).toBe('word_stats');

    const agent = (await send(owner, 'POST', '/api/agents', { name: 'Writer' })).body.id as string;
    for (const tool_id of ['word_stats', 'add_numbers']) {
      expect((await send(owner, 'POST', `/api/agents/${agent}/tools`, { tool_id })).status).toBe(201);
    }
    const attached = await send(owner, 'GET', `/api/agents/${agent}/tools`);
    expect((attached.body.tools as Array<{ id: string }>).map((tool) => tool.id)).toEqual([
      'add_numbers',
      'word_stats',
    ]);
    expect(
      (await send(owner, 'POST', '/api/tools/word_stats/call', { arguments: { text: 'a bb' }, agent_id: agent })).body,
    ).toMatchObject({ status: 'success', data: { words: 2, longest: 'bb' } });

    for (const format of ['openai', 'anthropic', 'gemini', 'mcp']) {
      const one = await send(owner, 'GET', `/api/tools/word_stats/export?format=${format}`);
      expect(one.status, format).toBe(200);
      expect(JSON.stringify(one.body), format).toContain('Count the words of a text');
      const all = await send(owner, 'GET', `/api/agents/${agent}/export?format=${format}`);
      expect(all.status, format).toBe(200);
      expect(JSON.stringify(all.body), format).toContain('word_stats');
      expect(JSON.stringify(all.body), format).toContain('add_numbers');
    }
    const prompt = await fetch(`${base}/api/agents/${agent}/prompt`, { headers: owner.headers });
    const markdown = await prompt.text();
    expect(markdown).toContain('word_stats');
    expect(markdown).toContain('When the user asks how long a text is.');

    const workspaceView = await connect('/mcp', owner.token);
    expect((await workspaceView.listTools()).tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['add_numbers', 'word_stats']),
    );
    const sum = await workspaceView.callTool({ name: 'add_numbers', arguments: { a: 40, b: 2 } });
    expect(sum.isError).not.toBe(true);
    expect(JSON.parse((sum.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual({ sum: 42 });

    const agentView = await connect(`/mcp/agents/${agent}`, owner.token);
    const listed = (await agentView.listTools()).tools;
    expect(listed.map((tool) => tool.name)).toEqual(['add_numbers', 'word_stats']);
    expect(listed.find((tool) => tool.name === 'word_stats')).toMatchObject({
      title: 'Word statistics',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    });
    // The REST views tell each tool's hints as MCP lists them (a code tool's defaults included).
    for (const tool of listed) {
      const hints = tool.annotations ?? {};
      const expected = {
        read_only: hints.readOnlyHint,
        destructive: hints.destructiveHint,
        idempotent: hints.idempotentHint,
        open_world: hints.openWorldHint,
      };
      expect((await send(owner, 'GET', `/api/tools/${tool.name}`)).body.annotations, tool.name).toEqual(expected);
      const listing = (await send(owner, 'GET', '/api/tools')).body.tools as Array<Record<string, unknown>>;
      expect(listing.find((row) => row.id === tool.name)?.annotations, tool.name).toEqual(expected);
    }
    const stats = await agentView.callTool({ name: 'word_stats', arguments: { text: 'one three' } });
    expect(JSON.parse((stats.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual({
      words: 2,
      longest: 'three',
    });
    const failed = await agentView.callTool({ name: 'add_numbers', arguments: { a: 1 } });
    expect(failed.isError).toBe(true);
  }, 60_000);
}

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`code tools on ${harness.dialect}`, () => {
    defineCodeToolCases(harness);
  });
}
