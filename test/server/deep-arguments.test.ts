import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from './server-harness.js';

// Arguments nested deeper than the registry takes (200 levels) but within the body's limit (256) come
// back as INVALID_ARGUMENTS; bodies nested thousands of levels deep are refused before they are parsed.
// Nothing that answers them (validation, an approval's copy, the JSON of the reply) may overflow.

const harness = sqliteHarness();
let store: ToolshedStore;
let app: FastifyInstance;
let headers: Record<string, string>;

const TOO_DEEP = {
  code: 'INVALID_ARGUMENTS',
  retryable: false,
  hint: 'Send arguments with at most 200 levels of nested objects and lists.',
  details: { maxDepth: 200 },
};

function nestedJson(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function call(tool: string, argumentsJson: string) {
  return app.inject({
    method: 'POST',
    url: `/api/tools/${tool}/call`,
    headers,
    payload: `{"arguments": ${argumentsJson}}`,
  });
}

beforeAll(async () => {
  store = await harness.open();
  await store.migrate();
  await store.tools.upsertBuiltins(createBuiltins());
  app = createServer({ store });
  await app.ready();
  const workspace = await store.workspaces.create({ id: 'ws_deep', name: 'Deep' });
  const { token } = await store.tokens.create(workspace.id, { name: 'test' });
  headers = { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id, 'content-type': 'application/json' };
  const created = await app.inject({
    method: 'POST',
    url: '/api/tools',
    headers,
    payload: JSON.stringify({
      id: 'guarded_lookup',
      type: 'rest_api',
      description: 'Look a record up, once a person approves.',
      endpoint: 'https://api.example.com/records',
      method: 'POST',
      requires_approval: true,
      parameters: { type: 'object', properties: { query: {} } },
    }),
  });
  expect(created.statusCode).toBe(201);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await store?.close();
  await harness.teardown();
});

describe('POST /api/tools/:id/call with deeply nested arguments', () => {
  for (const depth of [3_000, 6_000, 20_000]) {
    for (const kind of ['array', 'object'] as const) {
      it(`refuses a body with ${kind}s nested ${depth} levels deep with 400 naming the depth limit, not 500`, async () => {
        const response = await call('calculator', `{"expression": ${nestedJson(kind, depth)}}`);
        expect(response.statusCode).toBe(400);
        const field =
          kind === 'array' ? 'arguments.expression[0][0][0][0][0][0]…' : 'arguments.expression.a.a.a.a.a.a…';
        expect(response.json()).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message: `The request body is nested more than 256 levels deep at '${field}' (limit: depth 256).`,
            details: { field, limit: 'depth', max: 256 },
          },
        });
      });
    }
  }

  for (const depth of [210, 253]) {
    for (const kind of ['array', 'object'] as const) {
      it(`answers ${kind}s nested ${depth} levels deep with INVALID_ARGUMENTS, not 500`, async () => {
        const response = await call('calculator', `{"expression": ${nestedJson(kind, depth)}}`);
        expect(response.statusCode).toBe(200);
        const body = response.json() as { status: string; error: unknown; metadata: { tool: string } };
        expect(body.status).toBe('error');
        expect(body.error).toEqual({
          ...TOO_DEEP,
          message: "Arguments for 'calculator' are nested more than 200 levels deep.",
        });
        expect(body.metadata.tool).toBe('calculator');
      });
    }
  }

  it('answers a tool that needs approval with INVALID_ARGUMENTS rather than storing a copy it cannot send', async () => {
    const response = await call('guarded_lookup', `{"query": ${nestedJson('array', 240)}}`);
    expect(response.statusCode).toBe(200);
    expect((response.json() as { error: unknown }).error).toEqual({
      ...TOO_DEEP,
      message: "Arguments for 'guarded_lookup' are nested more than 200 levels deep.",
    });
  });

  it('takes arguments 200 levels deep (the arguments object is the first) and refuses 201', async () => {
    const deepest = await call('guarded_lookup', `{"query": ${nestedJson('object', 199)}}`);
    expect(deepest.statusCode).toBe(200);
    expect((deepest.json() as { status: string }).status).toBe('pending_approval');
    const tooDeep = await call('guarded_lookup', `{"query": ${nestedJson('object', 200)}}`);
    expect((tooDeep.json() as { error: { message: string } }).error.message).toBe(
      "Arguments for 'guarded_lookup' are nested more than 200 levels deep.",
    );
  });

  it('puts a summary of a large rejected value in details, not the value', async () => {
    const numbers = Array.from({ length: 50_000 }, (_, index) => index);
    const response = await call('calculator', JSON.stringify({ expression: numbers }));
    expect(response.statusCode).toBe(200);
    const body = response.json() as { error: { message: string; details: unknown } };
    expect(body.error.message).toBe(
      "Invalid arguments for 'calculator': 'expression' must be a string, got a list of 50000 items.",
    );
    expect(body.error.details).toEqual([
      {
        path: 'expression',
        pointer: '/expression',
        keyword: 'type',
        expected: 'a string',
        received: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '[and 49990 more items]'],
        message: "'expression' must be a string, got a list of 50000 items",
      },
    ]);
    expect(response.body.length).toBeLessThan(1_000);
  });
});
