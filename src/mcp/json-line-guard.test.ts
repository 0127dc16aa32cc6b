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

const error = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

describe('createJsonLineGuard', () => {
  it('passes JSON lines through unchanged, across chunks, and drops blank lines', async () => {
    const { passed, answers } = await run(['{"jsonrpc":"2.0",', '"id":1,"method":"ping"}\r\n\n  \n{"a":', '1}\n']);
    expect(passed).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"a":1}\n');
    expect(answers).toEqual([]);
  });

  it('reads a last line without its newline', async () => {
    expect((await run(['{"a":1}'])).passed).toBe('{"a":1}\n');
  });

  it('answers a line that breaks a limit or is not JSON, and goes on with the next', async () => {
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    const { passed, answers } = await run([`${deep}\n{"a":1,"a":2}\nnot json\n{"ok":true}\n`]);
    expect(passed).toBe('{"ok":true}\n');
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
    const { passed, answers } = await run([Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d, 0x0a]), '{}\n']);
    expect(passed).toBe('{}\n');
    expect(answers).toEqual([error(-32700, 'Parse error: the message is not valid UTF-8.')]);
  });

  it('does not buffer a line past the limit, answers it once, and reads the next line', async () => {
    const { passed, answers } = await run(['x'.repeat(40), 'y'.repeat(40), 'z'.repeat(40), '\n{"b":2}\n'], 64);
    expect(passed).toBe('{"b":2}\n');
    expect(answers).toEqual([
      error(-32600, 'Invalid Request: the message is larger than 64 bytes (limit: bodyBytes 64).'),
    ]);
  });
});
