import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cliEnv, SCRATCH } from './run-cli.js';

// Hostile JSON-RPC lines at `toolshed mcp` over stdio, each followed by a ping: every line is answered
// with a JSON-RPC error or handled, stdout carries nothing but JSON-RPC, and the session goes on.
// Bounded in runs and in time; `npm run fuzz:http` multiplies both by 100
// (TOOLSHED_HTTP_FUZZ_MULTIPLIER).

const MULTIPLIER = Number(process.env.TOOLSHED_HTTP_FUZZ_MULTIPLIER ?? 1);
const RUNS = 200 * MULTIPLIER;
const TIME_LIMIT_MS = 15_000 * MULTIPLIER;

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

let child: ChildProcessWithoutNullStreams;
const messages: Message[] = [];
const notJson: string[] = [];
let waiting: (() => void) | undefined;

function send(line: string | Buffer): void {
  child.stdin.write(line);
  child.stdin.write('\n');
}

async function answerTo(id: string): Promise<Message> {
  for (;;) {
    const found = messages.find((message) => message.id === id);
    if (found !== undefined) return found;
    if (child.exitCode !== null) throw new Error(`toolshed mcp exited with ${child.exitCode}`);
    await new Promise<void>((resolve) => {
      waiting = resolve;
    });
  }
}

beforeAll(async () => {
  assertBuilt();
  const folder = join(SCRATCH, 'stdio-fuzz');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'toolshed.yaml'), 'builtins: [calculator, list_files]\n');
  child = spawn(process.execPath, [BIN, 'mcp', '--config', 'toolshed.yaml'], { cwd: folder, env: cliEnv() });
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        messages.push(JSON.parse(line) as Message);
      } catch {
        notJson.push(line.slice(0, 200));
      }
    }
    waiting?.();
  });
  child.on('exit', () => waiting?.());
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  );
  expect((await answerTo('init')).result).toBeDefined();
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
}, 60_000);

afterAll(() => {
  child?.stdin.end();
});

function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const request = (method: string, params: string) =>
  `{"jsonrpc":"2.0","id":"h","method":"${method}","params":${params}}`;

const hostileLine: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc
    .record({ kind: fc.constantFrom('array' as const, 'object' as const), depth: fc.integer({ min: 2, max: 8_000 }) })
    .map(({ kind, depth }) =>
      request('tools/call', `{"name":"calculator","arguments":{"expression":${nested(kind, depth)}}}`),
    ),
  fc.integer({ min: 2, max: 6_000 }).map((depth) => `{"jsonrpc":"2.0","id":${nested('array', depth)},"method":"ping"}`),
  fc
    .constantFrom(300_000, 600_000, 1_100_000)
    .map((size) => request('tools/call', `{"name":"calculator","arguments":{"expression":"${'9'.repeat(size)}"}}`)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc
    .dictionary(fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error'), fc.jsonValue({ maxDepth: 3 }))
    .map((value) => JSON.stringify(value)),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((value) => request('tools/call', `{"name":"list_files","arguments":${JSON.stringify(value)}}`)),
  fc.constantFrom(
    request('tools/call', '{"name":"calculator","arguments":{"__proto__":{"polluted":true}}}'),
    request('tools/call', '{"name":"calculator","arguments":{"constructor":{"prototype":{"x":1}}}}'),
    request('tools/call', '{"name":"calculator","name":"list_files","arguments":{}}'),
    request('tools/call', '{"name":"calculator","arguments":{"expression":123456789012345678901234567890}}'),
    request('tools/call', '{"name":"__proto__","arguments":{}}'),
    request('tools/call', '{"name":"constructor","arguments":{}}'),
    request('tools/list', '{"cursor":"\\ud800"}'),
    request('resources/read', '{"uri":"file:///etc/passwd"}'),
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    '{"jsonrpc":"2.0","id":"h","method":"initialize","params":{}}',
    'not json',
    '{"unterminated":',
    '',
    '   ',
    'null',
    Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    `${'x'.repeat(1_100_000)}`,
  ),
  fc.string({ maxLength: 64 }).filter((text) => !text.includes('\n')),
);

describe('toolshed mcp over stdio with hostile JSON-RPC lines', () => {
  it(
    'answers or drops every line, writes nothing but JSON-RPC, and keeps the session',
    async () => {
      let lines = 0;
      let refused = 0;
      let pings = 0;
      const deadline = Date.now() + TIME_LIMIT_MS;
      await fc.assert(
        fc.asyncProperty(hostileLine, async (line) => {
          // Past the time budget, the remaining runs pass without a line.
          if (lines > 0 && Date.now() > deadline) return;
          const before = messages.length;
          send(line);
          const id = `ping-${pings++}`;
          send(`{"jsonrpc":"2.0","id":"${id}","method":"ping"}`);
          expect((await answerTo(id)).result).toEqual({});
          lines += 1;
          refused += messages
            .slice(before)
            .filter((message) => message.id === null && message.error !== undefined).length;
          expect(notJson).toEqual([]);
        }),
        { numRuns: RUNS },
      );
      send('{"jsonrpc":"2.0","id":"last","method":"tools/list"}');
      const listing = (await answerTo('last')).result as { tools: { name: string }[] };
      expect(listing.tools.map((tool) => tool.name).sort()).toEqual(['calculator', 'list_files']);
      expect(child.exitCode).toBeNull();
      console.log(
        `stdio MCP fuzz: ${lines} hostile lines (each followed by a ping), ${refused} refused with a JSON-RPC error, ${notJson.length} non-JSON lines on stdout, 0 crashes`,
      );
    },
    120_000 * MULTIPLIER,
  );

  it('answers a line over the limits with an error naming the limit', async () => {
    const before = messages.length;
    send(request('tools/call', `{"name":"calculator","arguments":{"expression":${nested('array', 6_000)}}}`));
    send(request('tools/call', '{"name":"calculator","arguments":{"__proto__":{}}}'));
    send('{"jsonrpc":"2.0","id":"after","method":"ping"}');
    await answerTo('after');
    // The refusals, without a late answer to a call of the fuzz above (a slow list_files) that may come between.
    expect(messages.slice(before).filter((message) => message.id === null)).toEqual([
      {
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            "Invalid Request: the message is nested more than 256 levels deep at 'params.arguments.expression[0][0][0][0][0]…' (limit: depth 256).",
        },
        id: null,
      },
      {
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            "Invalid Request: the message has the key '__proto__' at 'params.arguments', which is refused: it could change the prototype of an object it is copied into.",
        },
        id: null,
      },
    ]);
  });
});
