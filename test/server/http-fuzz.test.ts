import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerRoute, serverRoutes } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { databaseSnapshot } from './database-snapshot.js';
import { openHostileServer, postgresHarness, sqliteHarness } from './server-harness.js';

// Hostile requests at every route of the server, enumerated from Fastify (a route added later is
// fuzzed without changing this file), and at the MCP endpoint: never a 5xx, always the documented
// error shape, the database unchanged by every refused request, the server answering afterwards.
// Bounded in runs and in time; `npm run fuzz:http` multiplies both by 100
// (TOOLSHED_HTTP_FUZZ_MULTIPLIER).

const MULTIPLIER = Number(process.env.TOOLSHED_HTTP_FUZZ_MULTIPLIER ?? 1);
const RUNS = 600 * MULTIPLIER;
const TIME_LIMIT_MS = 20_000 * MULTIPLIER;

let store: ToolshedStore;
let app: FastifyInstance;
let token: string;
let routes: readonly ServerRoute[];
const logLines: string[] = [];

function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const FIELDS = [
  'arguments',
  'config',
  'tool_id',
  'id',
  'name',
  'description',
  'parameters',
  'tools',
  'value',
  'approved',
  'endpoint',
  'code',
] as const;

const field = fc.constantFrom(...FIELDS);

/** Path parameter values: real ids, unicode, 10 kB, path tricks and broken encodings. */
const hostileId = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('research', 'calculator', 'read_file', 'nope', 'API_KEY') },
  {
    weight: 3,
    arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }).map((text) => encodeURIComponent(text)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'a'.repeat(10_240),
      encodeURIComponent('é'.repeat(5_000)),
      '..',
      '..%2F..%2Fetc%2Fpasswd',
      '%2e%2e%2f',
      '%00',
      '%',
      '%zz',
      '%E0%A4%A',
      encodeURIComponent('\u202eevil'),
      encodeURIComponent('😀'),
      'a%2Fb',
      '__proto__',
      'constructor',
    ),
  },
);

/**
 * Bodies a route accepts, by its URL pattern, for a hostile value to join: the request gets past the
 * first checks and reaches the write. A route not named here (one added later) gets all of them.
 */
const VALID_BODIES: Readonly<Record<string, readonly Record<string, unknown>[]>> = {
  '/api/agents/:agentId/tools': [{ tool_id: 'calculator' }, { tool_id: 'read_file' }],
  '/api/agents': [{ id: 'fuzz_agent', name: 'Fuzz agent' }, { name: 'Fuzz agent' }],
  '/api/agents/:agentId': [{ name: 'Renamed' }, { description: 'Says more.' }],
  '/api/tools': [
    {
      id: 'fuzz_tool',
      type: 'rest_api',
      description: 'A tool.',
      endpoint: 'https://api.example.com/x',
      method: 'POST',
      parameters: { type: 'object', properties: {} },
    },
  ],
  '/api/tools/:id': [{ description: 'Says more.' }, { parameters: { type: 'object', properties: {} } }],
  '/api/tools/:id/call': [{ arguments: { expression: '1+1' } }, { agent_id: 'research', arguments: {} }],
  '/api/secrets/*': [{ value: 'v' }],
  '/api/workspace/default-tools': [{ tool_ids: ['calculator'] }],
  '/api/approvals/:id': [{ decision: 'approve' }],
};
const ALL_BODIES = Object.values(VALID_BODIES).flat();
const HOLE = '\u0000hostile\u0000';

/** The value a path parameter has in the fixture: the request reaches a row that exists. */
const KNOWN_IDS: Readonly<Record<string, string>> = {
  agentId: 'research',
  toolId: 'calculator',
  id: 'calculator',
  '*': 'FUZZ_SECRET',
};

/** A hostile value: deep, long, wide, prototype-bearing, huge or odd numbers. */
const hostileValue = fc.oneof(
  fc
    .record({ kind: fc.constantFrom('array' as const, 'object' as const), depth: fc.integer({ min: 100, max: 8_000 }) })
    .map(({ kind, depth }) => nested(kind, depth)),
  fc.constantFrom(
    `"${'x'.repeat(600_000)}"`,
    `[${'1,'.repeat(100_000)}1]`,
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '123456789012345678901234567890',
    '1e400',
    '-0',
    '"\ud800"',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
);

/** Bodies: deep nesting, huge strings, wrong types, prototype keys, invalid UTF-8, big numbers, not JSON. */
const anyHostileBody: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  fc
    .record({
      kind: fc.constantFrom('array' as const, 'object' as const),
      depth: fc.integer({ min: 2, max: 8_000 }),
      field,
    })
    .map(({ kind, depth, field: name }) => `{"${name}": ${nested(kind, depth)}}`),
  fc
    .record({ size: fc.constantFrom(300_000, 600_000, 1_100_000), field })
    .map(({ size, field: name }) => `{"${name}": "${'x'.repeat(size)}"}`),
  fc.dictionary(field, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }).map((value) => JSON.stringify(value)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc
    .record({
      field,
      key: fc.constantFrom('"__proto__"', '"\\u005f_proto__"', '"constructor"', '"prototype"'),
    })
    .map(({ field: name, key }) => `{"${name}": {${key}: {"prototype": {"polluted": true}}}}`),
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    '{"limit": 9007199254740993, "arguments": {"expression": 123456789012345678901234567890}}',
    '{"arguments": {"expression": 1e400}, "config": {"n": -1e400}}',
    '{"tool_id": "calculator", "tool_id": "read_file"}',
    '{"arguments": {"a": 1, "a": 2}}',
    '',
    ' ',
    'null',
    'not json at all',
    '{"unterminated": ',
    '\u0000\u0001',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"__proto__":{}}}',
    '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
  ),
  fc.string({ maxLength: 64 }),
  fc.constant(undefined),
);

function hostileBody(route: ServerRoute): fc.Arbitrary<string | Buffer | undefined> {
  const bases = VALID_BODIES[route.url] ?? ALL_BODIES;
  const own = [...new Set(bases.flatMap((base) => Object.keys(base)))];
  return fc.oneof(
    // A body the route takes, with one hostile value in one of its own fields (or another field).
    {
      weight: 4,
      arbitrary: fc
        .record({
          base: fc.constantFrom(...bases),
          name: fc.oneof(fc.constantFrom(...own), field),
          value: hostileValue,
        })
        .map(({ base, name, value }) =>
          JSON.stringify({ ...base, [name]: HOLE }).replace(JSON.stringify(HOLE), () => value),
        ),
    },
    { weight: 4, arbitrary: anyHostileBody },
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'multipart/form-data; boundary=x',
  undefined,
);

/** Authorization: mostly the real token (so bodies reach the routes), else wrong schemes, huge, duplicated. */
function authorization(): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${token}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'Basic dXNlcjpwYXNz',
        'Bearer',
        'Bearer ',
        `bearer ${token}`,
        `Token ${token}`,
        `Bearer ${token} extra`,
        `Bearer ${'x'.repeat(16_000)}`,
        'Bearer tsk_\u00ff\u00fe',
        'Digest username="a"',
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([`Bearer ${token}`, 'Bearer tsk_other']) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const workspace = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | string[] | undefined>('ws_fuzz') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | string[] | undefined>(
      'other',
      'w'.repeat(10_240),
      ['ws_fuzz', 'ws_fuzz'],
      ['ws_fuzz', 'other'],
      undefined,
      'ws_fuzz\u00ff',
      '',
    ),
  },
);

const junkHeaders = fc.option(
  fc.constantFrom<Record<string, string | string[]>>(
    { 'x-junk': 'y'.repeat(30_000) },
    { accept: 'application/json, text/event-stream' },
    { 'mcp-session-id': 'z'.repeat(5_000) },
    { 'content-length': '999999999' },
    { 'x-request-id': 'forged\u00ff' },
    { cookie: 'a=b; '.repeat(2_000) },
  ),
  { nil: undefined },
);

/** The route's URL with each parameter the fixture's own id (mostly) or a hostile one. */
function urlOf(route: ServerRoute): fc.Arbitrary<string> {
  const names = [...route.url.matchAll(/:([A-Za-z]+)|\*/g)].map((match) => match[1] ?? '*');
  if (names.length === 0) return fc.constant(route.url);
  return fc
    .tuple(
      ...names.map((name) =>
        fc.oneof({ weight: 2, arbitrary: fc.constant(KNOWN_IDS[name] ?? 'x') }, { weight: 3, arbitrary: hostileId }),
      ),
    )
    .map((ids) => {
      let position = 0;
      return route.url.replace(/:[A-Za-z]+|\*/g, () => ids[position++] ?? 'x');
    });
}

function hasApiErrorShape(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

// OAuth dynamic client registration answers errors as RFC 7591 says (what OAuth clients read).
function hasOAuthErrorShape(body: unknown): boolean {
  const message = body as { error?: unknown; error_description?: unknown } | null;
  return typeof message?.error === 'string' && typeof message.error_description === 'string';
}

function hasJsonRpcErrorShape(body: unknown): boolean {
  const message = body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  return (
    message?.jsonrpc === '2.0' && typeof message.error?.code === 'number' && typeof message.error.message === 'string'
  );
}

// SQLite gets the larger share of the runs; PostgreSQL the rest (its round trips are slower).
for (const [harness, share] of [
  [sqliteHarness(), 1],
  [postgresHarness(), 0.4],
] as const) {
  describe(`hostile HTTP requests at every route on ${harness.dialect}`, () => {
    beforeAll(async () => {
      logLines.length = 0;
      ({ store, app, token } = await openHostileServer(harness, 'ws_fuzz', logLines));
      routes = serverRoutes(app);
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      await store?.close();
      await harness.teardown();
    });

    it(
      'never answer 5xx, always answer errors in the documented shape, and never write half a request',
      async () => {
        expect(routes.length).toBeGreaterThan(20);
        const tried = new Map<string, number>();
        let requests = 0;
        let serverErrors = 0;
        let partialWrites = 0;
        let badShapes = 0;
        const failures: string[] = [];
        let before = await databaseSnapshot(store);

        const perRoute = Math.ceil((RUNS * share) / routes.length);
        const started = Date.now();
        for (const [index, route] of routes.entries()) {
          // Each route gets its share of the time left, so a slow machine tries every route, fewer times.
          const left = (TIME_LIMIT_MS * share - (Date.now() - started)) / (routes.length - index);
          const routeDeadline = Date.now() + left;
          let routeRequests = 0;
          await fc.assert(
            fc.asyncProperty(
              urlOf(route),
              hostileBody(route),
              contentType,
              authorization(),
              workspace,
              junkHeaders,
              async (url, body, type, auth, workspaceId, extra) => {
                // Past this route's share of the time, the remaining runs pass without a request
                // (every route still gets at least one).
                if (routeRequests > 0 && Date.now() > routeDeadline) return;
                routeRequests += 1;
                const headers: Record<string, string | string[]> = { ...extra };
                if (type !== undefined) headers['content-type'] = type;
                if (auth !== undefined) headers.authorization = auth;
                if (workspaceId !== undefined) headers['x-workspace-id'] = workspaceId;
                const response = await app.inject({
                  method: route.method as 'GET',
                  url,
                  headers,
                  ...(body === undefined || route.method === 'GET' ? {} : { payload: body }),
                });
                requests += 1;
                const key = `${route.method} ${route.url}`;
                tried.set(key, (tried.get(key) ?? 0) + 1);
                const status = response.statusCode;
                const shown = `${route.method} ${url.slice(0, 80)} → ${status} ${response.body.slice(0, 200)}`;
                if (status >= 500) {
                  serverErrors += 1;
                  failures.push(shown);
                }
                if (status >= 400) {
                  let parsed: unknown;
                  try {
                    parsed = response.json();
                  } catch {
                    parsed = undefined;
                  }
                  const isMcp = route.url.startsWith('/mcp');
                  const isOAuth = route.url === '/register';
                  if (
                    !(
                      hasApiErrorShape(parsed) ||
                      (isMcp && hasJsonRpcErrorShape(parsed)) ||
                      (isOAuth && hasOAuthErrorShape(parsed))
                    )
                  ) {
                    badShapes += 1;
                    failures.push(`shape: ${shown}`);
                  }
                  const after = await databaseSnapshot(store);
                  if (JSON.stringify(after) !== JSON.stringify(before)) {
                    partialWrites += 1;
                    failures.push(`write: ${shown}`);
                    before = after;
                  }
                } else {
                  before = await databaseSnapshot(store);
                }
                expect(failures).toEqual([]);
              },
            ),
            { numRuns: perRoute },
          );
        }

        const health = await app.inject({ method: 'GET', url: '/health' });
        expect(health.statusCode).toBe(200);
        const call = await app.inject({
          method: 'POST',
          url: '/api/tools/calculator/call',
          headers: {
            authorization: `Bearer ${token}`,
            'x-workspace-id': 'ws_fuzz',
            'content-type': 'application/json',
          },
          payload: '{"arguments":{"expression":"6*7"}}',
        });
        expect(call.statusCode).toBe(200);
        expect(call.json()).toMatchObject({ status: 'success' });

        const untried = routes.map((route) => `${route.method} ${route.url}`).filter((key) => !tried.has(key));
        console.log(
          `HTTP fuzz (${harness.dialect}): ${requests} requests over ${tried.size} of ${routes.length} routes, ${serverErrors} × 5xx, ${badShapes} × wrong error shape, ${partialWrites} partial writes`,
        );
        expect({ serverErrors, badShapes, partialWrites }).toEqual({ serverErrors: 0, badShapes: 0, partialWrites: 0 });
        expect(logLines).toEqual([]);
        // Enough runs reach every route at least once (the routes are drawn uniformly).
        expect(untried).toEqual([]);
      },
      120_000 * MULTIPLIER,
    );
  });
}
