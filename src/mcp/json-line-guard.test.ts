import { describe, expect, it } from 'vitest';
import { createJsonLineGuard } from './json-line-guard.js';

async function run(chunks: readonly (string | Buffer)[], maxLineBytes?: number) {
  const answers: unknown[] = [];
  const guard = createJsonLineGuard((line) => answers.push(JSON.parse(line)), maxLineBytes);
  const passed: string[] = [];
  guard.on('data', (chunk: Buffer) => passed.push(chunk.toString()));
  const ended = new Promise((resolve) => guard.on('end', resolve));
  for (const chunk of chunks) guard.write(chunk);
  guard.end();
  await ended;
  return { passed: passed.join(''), answers };
}

const error = (code: number, message: string, id: string | number | null = null) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id,
});

const PING = '{"jsonrpc":"2.0","id":9,"method":"ping"}';

describe('createJsonLineGuard', () => {
  it('passes JSON lines through unchanged, across chunks, and drops blank lines', async () => {
    const { passed, answers } = await run([
      '{"jsonrpc":"2.0",',
      '"id":1,"method":"ping"}\r\n\n  \n{"jsonrpc":"2.0","method":',
      '"notifications/initialized"}\n',
    ]);
    expect(passed).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
    );
    expect(answers).toEqual([]);
  });

  it('reads a last line without its newline', async () => {
    expect((await run([PING])).passed).toBe(`${PING}\n`);
  });

  it('answers a line that breaks a limit or is not JSON, and goes on with the next', async () => {
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    const { passed, answers } = await run([`${deep}\n{"a":1,"a":2}\nnot json\n${PING}\n`]);
    expect(passed).toBe(`${PING}\n`);
    expect(answers).toEqual([
      error(
        -32600,
        "Invalid Request: the message is nested more than 256 levels deep at '[0][0][0][0][0][0][0][0]…' (limit: depth 256).",
      ),
      error(-32600, "Invalid Request: the message has the key 'a' twice; send each key once."),
      error(
        -32700,
        expect.stringMatching(/^Parse error: the message is not valid JSON \(.+\)\.$/) as unknown as string,
      ),
    ]);
  });

  it('answers a line that is not UTF-8', async () => {
    const { passed, answers } = await run([Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d, 0x0a]), `${PING}\n`]);
    expect(passed).toBe(`${PING}\n`);
    expect(answers).toEqual([error(-32700, 'Parse error: the message is not valid UTF-8.')]);
  });

  it('does not buffer a line past the limit, answers it once, and reads the next line', async () => {
    const { passed, answers } = await run(['x'.repeat(40), 'y'.repeat(40), 'z'.repeat(40), `\n${PING}\n`], 64);
    expect(passed).toBe(`${PING}\n`);
    expect(answers).toEqual([
      error(-32600, 'Invalid Request: the message is larger than 64 bytes (limit: bodyBytes 64).'),
    ]);
  });

  it.each([
    [
      '[{"jsonrpc":"2.0","id":5,"method":"ping"}]',
      null,
      'batches are not part of MCP; send one JSON-RPC message per line.',
    ],
    ['[]', null, 'batches are not part of MCP; send one JSON-RPC message per line.'],
    ['"ping"', null, 'a JSON-RPC message is an object, got "ping".'],
    ['{"jsonrpc":"1.0","id":8,"method":"ping"}', 8, `'jsonrpc' must be "2.0", got "1.0".`],
    [
      '{"jsonrpc":"2.0","id":8,"method":"ping","extra":1}',
      8,
      "unknown key 'extra'; a message has only jsonrpc, id, method, params.",
    ],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, "'id' must be a string or an integer, got null."],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, "'id' must be a string or an integer, got an object."],
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, "'id' must be a string or an integer, got 1.5."],
    [
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1.5}}}',
      3,
      "'params._meta.progressToken' must be a string or an integer, got 1.5.",
    ],
    ['{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}', 4, "'params' must be an object, got an array."],
    ['{"jsonrpc":"2.0"}', null, "a message has a 'method' (a request or a notification) or an 'id' (a response)."],
  ])('answers %s, which is not one JSON-RPC message, with -32600 and its id', async (line, id, message) => {
    const { passed, answers } = await run([`${line}\n${PING}\n`]);
    expect(passed).toBe(`${PING}\n`);
    expect(answers).toEqual([error(-32600, `Invalid Request: ${message}`, id)]);
  });
});
