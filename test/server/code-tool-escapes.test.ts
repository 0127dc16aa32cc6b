import { existsSync, rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import {
  type EscapeAttempt,
  JAVASCRIPT_ESCAPE_TIMEOUT_MS,
  JAVASCRIPT_ESCAPES,
  PYTHON_ESCAPE_HOST_FILE,
  PYTHON_ESCAPES,
} from '../sandbox/escapes.cases.js';
import { type Expectation, HOST_STALL_LIMIT_MS, startLoopbackServer, watchEventLoop } from '../sandbox/support.js';

// The sandbox escape catalogues (test/sandbox/escapes.cases.ts), each attempt stored as the body of a
// code tool through POST /api/tools and called through the REST API: every one must stay contained
// as it does in the bare pool, come back within the sandbox's time limit, leave the host serving
// (a bystander tool answers meanwhile, the event loop keeps ticking) and the next call working.

/**
 * The sandbox's time limit of each language's server here: the Python catalogue's slowest attempt
 * (urllib) needs 5 s; the JavaScript catalogue runs under its own limit, as in the bare pool.
 */
const TIMEOUT_MS = { python: 5_000, javascript: JAVASCRIPT_ESCAPE_TIMEOUT_MS } as const;
/** How long after the limit an answer may come: killing and replacing the process, the HTTP round trip. */
const SLACK_MS = 5_000;
/** Sandbox processes of each language's pool: one for a long attack, one for its bystander. */
const POOL_SIZE = 2;

interface ToolResultBody {
  status: string;
  data?: unknown;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  metadata?: Record<string, unknown>;
}

/** The attempt as a Python function body: indented, its last line returned when a value is expected. */
function pythonTool(id: string, attack: string, returns: boolean): string {
  const lines = attack.split('\n');
  if (returns) lines[lines.length - 1] = `return ${lines[lines.length - 1]}`;
  return `def ${id}():\n${lines.map((line) => `    ${line}`).join('\n')}\n`;
}

/** The attempt as a JavaScript function body: evaluated as written, its completion value returned. */
function javascriptTool(id: string, attack: string): string {
  return `function ${id}() {\n  return eval(${JSON.stringify(attack)});\n}\n`;
}

const withoutLine = (text: string, timeoutMs: number) =>
  text.replace(/ \(line \d+\)\./, '.').replace('1.5 s', `${timeoutMs / 1000} s`);

/** A tool's answer meets what the bare sandbox's outcome was expected to be. */
function expectContained(
  name: string,
  id: string,
  result: ToolResultBody,
  expected: Expectation,
  timeoutMs: number,
): void {
  const shown = JSON.stringify(result).slice(0, 600);
  if (expected.ok) {
    if (name === 'a huge result value') {
      // A bare run cuts a huge value; a code tool refuses to answer a cut value as data.
      expect(result.error?.message, shown).toBe(
        `The value '${id}' returned is longer than the sandbox's output limit as JSON.`,
      );
      return;
    }
    expect(result.status, shown).toBe('success');
    if ('result' in expected) {
      if (expected.result === undefined) expect(result.data, shown).toBeNull();
      else expect(result.data, shown).toEqual(expected.result);
    }
    const stdout = (result.metadata?.stdout as string | undefined) ?? '';
    if (typeof expected.stdout === 'string') expect(stdout, shown).toBe(expected.stdout);
    if (expected.stdout instanceof RegExp) expect(stdout, shown).toMatch(expected.stdout);
    return;
  }
  expect(result.status, shown).toBe(expected.reason === 'timeout' ? 'timeout' : 'error');
  if (name === 'string doubling' && result.error?.details?.reason === 'exception') {
    // Inside a function, CPython doubles a local string in place; when Pyodide's allocation fails
    // there, the error comes out as a TypeError with empty type names instead of a MemoryError.
    // Either way the run failed inside the sandbox, which is what this checks.
    expect(result.error.message, shown).toMatch(/^Python raised TypeError: unsupported operand type\(s\) for \+=/);
    return;
  }
  expect(result.error?.details?.reason, shown).toBe(expected.reason);
  if (expected.errorType !== undefined) expect(result.error?.details?.errorType, shown).toBe(expected.errorType);
  const firstLine = withoutLine(result.error?.message.split('\n')[0] ?? '', timeoutMs);
  if (typeof expected.message === 'string') expect(firstLine, shown).toBe(withoutLine(expected.message, timeoutMs));
  // What the code printed follows the first line of the message (the bare outcome keeps it apart).
  if (expected.message instanceof RegExp) expect(firstLine, shown).toMatch(expected.message);
}

describe('the sandbox escape catalogues through stored code tools', () => {
  type Language = 'python' | 'javascript';
  /** The server each language's catalogue goes to, its sandbox limited to that catalogue's time. */
  const servers = new Map<Language, { store: ToolshedStore; app: FastifyInstance; headers: Record<string, string> }>();
  let loopback: Awaited<ReturnType<typeof startLoopbackServer>>;

  const catalogues: Array<{ language: Language; prefix: string; attempts: EscapeAttempt[] }> = [
    { language: 'python', prefix: 'escape_py', attempts: PYTHON_ESCAPES },
    { language: 'javascript', prefix: 'escape_js', attempts: JAVASCRIPT_ESCAPES },
  ];

  async function post(
    language: Language,
    url: string,
    body: unknown,
  ): Promise<{ status: number; body: ToolResultBody }> {
    const server = servers.get(language);
    if (server === undefined) throw new Error(`no server for ${language}`);
    const { app, headers } = server;
    const response = await app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
    return { status: response.statusCode, body: response.json() as ToolResultBody };
  }

  /**
   * Wait until every process of the language's pool is ready, as `/metrics` shows it, so that a long
   * attack and its bystander each find a process waiting and measure the sandbox, not the start of a
   * process that replaces one an earlier attempt used up (seconds on a loaded machine). For Python,
   * whose processes are not kept for a tenant between calls.
   */
  async function poolReady(language: Language): Promise<void> {
    const app = servers.get(language)?.app;
    if (app === undefined) throw new Error(`no server for ${language}`);
    const ready = `toolshed_sandbox_processes{language="${language}",state="idle"} ${POOL_SIZE}`;
    let text = '';
    for (let attempt = 0; attempt < 600; attempt += 1) {
      text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      if (text.includes(ready)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the ${language} pool was not ready within 60 s:\n${text}`);
  }

  beforeAll(async () => {
    rmSync(PYTHON_ESCAPE_HOST_FILE, { force: true });
    loopback = await startLoopbackServer();
    const bystanders = {
      python: { id: 'bystander_py', type: 'python', code: 'def bystander_py():\n    return sum(range(10))\n' },
      javascript: { id: 'bystander_js', type: 'javascript', code: 'function bystander_js() { return 6 * 7; }' },
    };
    for (const { language, prefix, attempts } of catalogues) {
      const store = await createStore(':memory:');
      await store.migrate();
      await store.tools.upsertBuiltins(createBuiltins());
      const app = createServer({
        store,
        builtins: { sandbox: { size: POOL_SIZE, timeoutMs: TIMEOUT_MS[language] }, emails: false },
      });
      await app.ready();
      await store.workspaces.create({ id: 'attacker', name: 'Attacker' });
      const { token } = await store.tokens.create('attacker');
      const headers = {
        authorization: `Bearer ${token}`,
        'x-workspace-id': 'attacker',
        'content-type': 'application/json',
      };
      servers.set(language, { store, app, headers });
      const bodies = [
        bystanders[language],
        ...attempts.map((attempt, index) => {
          const id = `${prefix}_${index}`;
          const code = attempt.code(loopback.port);
          const returns = attempt.expect.ok && 'result' in attempt.expect && attempt.expect.result !== undefined;
          return {
            id,
            type: language,
            code: language === 'python' ? pythonTool(id, code, returns) : javascriptTool(id, code),
          };
        }),
      ];
      // Each creation compiles and loads the code in the sandbox (never calling the function).
      const created = await Promise.all(
        bodies.map((body) =>
          post(language, '/api/tools', {
            ...body,
            description: 'An escape attempt.',
            parameters: { type: 'object', properties: {} },
          }),
        ),
      );
      for (const [index, response] of created.entries()) {
        expect(response.status, `${bodies[index]?.id}: ${JSON.stringify(response.body)}`).toBe(201);
      }
    }
  }, 180_000);

  afterAll(async () => {
    for (const { app, store } of servers.values()) {
      await app.close();
      await store.close();
    }
    await loopback?.close();
    rmSync(PYTHON_ESCAPE_HOST_FILE, { force: true });
  }, 30_000);

  for (const { language, prefix, attempts } of catalogues) {
    const bystander = language === 'python' ? 'bystander_py' : 'bystander_js';
    const bystanderValue = language === 'python' ? 45 : 42;
    for (const [index, attempt] of attempts.entries()) {
      it(`${language} contains: ${attempt.name}`, async () => {
        // Python gives every call a process of its own, so the attempts before left replacements starting.
        if (attempt.long === true && language === 'python') await poolReady(language);
        const loop = watchEventLoop();
        const startedAt = performance.now();
        let attackDoneAt = Number.POSITIVE_INFINITY;
        const attack = post(language, `/api/tools/${prefix}_${index}/call`, { arguments: {} }).then((response) => {
          attackDoneAt = performance.now();
          return response;
        });
        if (attempt.long === true) {
          // While the attack runs, another sandbox answers another tool of the same workspace.
          const other = await post(language, `/api/tools/${bystander}/call`, { arguments: {} });
          const bystanderDoneAt = performance.now();
          expect(other.body).toMatchObject({ status: 'success', data: bystanderValue });
          if (!attempt.expect.ok && attempt.expect.reason === 'timeout') {
            expect(bystanderDoneAt).toBeLessThan(attackDoneAt);
          }
        }
        const response = await attack;
        const { longestGapMs } = loop.stop();
        expect(response.status).toBe(200);
        expectContained(attempt.name, `${prefix}_${index}`, response.body, attempt.expect, TIMEOUT_MS[language]);
        expect(attackDoneAt - startedAt).toBeLessThan(TIMEOUT_MS[language] + SLACK_MS);
        expect(longestGapMs).toBeLessThan(HOST_STALL_LIMIT_MS);
        // Whatever happened, the next call succeeds (on a replacement sandbox if need be).
        expect((await post(language, `/api/tools/${bystander}/call`, { arguments: {} })).body).toMatchObject({
          status: 'success',
          data: bystanderValue,
        });
      }, 60_000);
    }
  }

  it('the loopback server received no connection and no byte', () => {
    expect(loopback.connections()).toBe(0);
    expect(loopback.bytes()).toBe(0);
  });

  it('no file was written on the host', () => {
    expect(existsSync(PYTHON_ESCAPE_HOST_FILE)).toBe(false);
  });
});
