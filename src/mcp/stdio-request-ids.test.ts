import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createConformanceRegistry, waitingTool } from '../../test/mcp/conformance-tools.js';
import { serveStdio } from './serve-stdio.js';

/** `serveStdio` over in-memory pipes with a tool that waits until `release` (or its cancellation). */
async function connect() {
  const registry = createConformanceRegistry();
  const { tool, release } = waitingTool();
  registry.register(tool);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const serving = await serveStdio(registry, { stdin, stdout });
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
      buffered = buffered.slice(newline + 1);
    }
  });
  const send = (message: Record<string, unknown>) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
  });
  send({ method: 'notifications/initialized' });
  await expect.poll(() => lines.length).toBe(1);
  const answerTo = (id: unknown) => lines.filter((line) => line.id === id && ('result' in line || 'error' in line));
  return { serving, send, release, answerTo, end: () => stdin.end() };
}

const call = (id: unknown, name: string) => ({ id, method: 'tools/call', params: { name, arguments: {} } });

describe('serveStdio request ids', () => {
  it('refuses an id under way, answers the first request, and ends once both are answered', async () => {
    const { serving, send, release, answerTo, end } = await connect();
    send(call(7, 'wait_here'));
    send(call(7, 'echo'));
    await expect.poll(() => answerTo(7).length).toBe(1);
    expect(answerTo(7)[0]).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message:
          'Request id 7 is already in use by a request of this session that has not been answered; send each request with a new id.',
      },
    });
    // Closed with the first still under way: the session waits for its answer.
    end();
    release();
    await serving.closed;
    expect(answerTo(7)).toHaveLength(2);
    expect(answerTo(7)[1]).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('answers a cancelled request with -32800, so a session closed after it ends', async () => {
    const { serving, send, answerTo, end } = await connect();
    send(call('c', 'wait_here'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    send({ method: 'notifications/cancelled', params: { requestId: 'c' } });
    end();
    // Before, the cancelled id was counted as unanswered for good, and `closed` never settled.
    await serving.closed;
    expect(answerTo('c')).toEqual([
      {
        jsonrpc: '2.0',
        id: 'c',
        error: { code: -32800, message: 'The request was cancelled by the client; no result follows.' },
      },
    ]);
  });

  it('answers a request whose params its method refuses with -32602, and goes on', async () => {
    const { serving, send, answerTo, end } = await connect();
    send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: 'x' } });
    send({ id: 2, method: 'logging/setLevel', params: { level: 'loud' } });
    send({ id: 3, method: 'ping' });
    await expect.poll(() => answerTo(3).length).toBe(1);
    expect([...answerTo(1), ...answerTo(2)]).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: `Invalid params for tools/call: 'params.arguments' must be an object, got "x".`,
        },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32602,
          message:
            'Invalid params for logging/setLevel: \'params.level\' must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", got "loud".',
        },
      },
    ]);
    end();
    await serving.closed;
  });
});
