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

/** `serveStdio` over in-memory pipes, not initialized: send lines, read every line written. */
async function connectRaw() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const serving = await serveStdio(createConformanceRegistry(), { stdin, stdout });
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
      buffered = buffered.slice(newline + 1);
    }
  });
  const sendLine = (line: string) => stdin.write(`${line}\n`);
  const send = (message: Record<string, unknown>) => sendLine(JSON.stringify({ jsonrpc: '2.0', ...message }));
  const answerTo = (id: unknown) => lines.filter((line) => line.id === id && ('result' in line || 'error' in line));
  return { serving, send, sendLine, lines, answerTo, end: () => stdin.end() };
}

const initialize = (id: unknown) => ({
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

describe('serveStdio lifecycle', () => {
  it('answers only ping before initialize, refusing other requests with -32600, then serves them', async () => {
    const { serving, send, answerTo, end } = await connectRaw();
    send({ id: 1, method: 'tools/list' });
    send(call(2, 'echo'));
    send({ id: 3, method: 'ping' });
    await expect.poll(() => answerTo(3).length).toBe(1);
    const refusal = (id: number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32600,
        message:
          "Invalid Request: the session is not initialized; send 'initialize' first (before it, only 'ping' is answered).",
      },
    });
    expect([...answerTo(1), ...answerTo(2), ...answerTo(3)]).toEqual([
      refusal(1),
      refusal(2),
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
    send(initialize(4));
    send({ method: 'notifications/initialized' });
    send({ id: 5, method: 'tools/list' });
    await expect.poll(() => answerTo(5).length).toBe(1);
    expect(answerTo(4)[0]).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    expect(answerTo(5)[0]).toMatchObject({ result: { tools: expect.any(Array) } });
    end();
    await serving.closed;
  });

  it('refuses an initialize whose params are wrong with -32602, and stays uninitialized', async () => {
    const { serving, send, answerTo, end } = await connectRaw();
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ id: 2, method: 'tools/list' });
    await expect.poll(() => answerTo(2).length).toBe(1);
    expect(answerTo(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: "Invalid params for initialize: 'params.protocolVersion' must be a string, got 5.",
        },
      },
    ]);
    expect(answerTo(2)[0]).toMatchObject({ error: { code: -32600 } });
    end();
    await serving.closed;
  });

  it('refuses a second initialize with -32600, and the session goes on', async () => {
    const { serving, send, answerTo, end } = await connectRaw();
    send(initialize(1));
    send({ method: 'notifications/initialized' });
    await expect.poll(() => answerTo(1).length).toBe(1);
    send(initialize(2));
    send({ id: 3, method: 'ping' });
    await expect.poll(() => answerTo(3).length).toBe(1);
    expect(answerTo(2)).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32600,
          message:
            "Invalid Request: the session is already initialized; 'initialize' is sent once, to open a session (start the server again to open a new one).",
        },
      },
    ]);
    end();
    await serving.closed;
  });

  it('negotiates a version it supports for an initialize naming one it does not know', async () => {
    const { serving, send, answerTo, end } = await connectRaw();
    send({
      ...initialize(1),
      params: { protocolVersion: '9999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await expect.poll(() => answerTo(1).length).toBe(1);
    expect(answerTo(1)[0]).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    end();
    await serving.closed;
  });

  it('refuses a numeric id past 2^53 with -32600 and id null, instead of answering a rounded id', async () => {
    const { serving, send, sendLine, lines, answerTo, end } = await connectRaw();
    sendLine('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}');
    send({ id: 'after', method: 'ping' });
    await expect.poll(() => answerTo('after').length).toBe(1);
    expect(lines[0]).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          "Invalid Request: 'id' 1.2345678901234568e+29 is a number too large to be answered with the same id (a whole number between -9007199254740991 and 9007199254740991 is); send a smaller number or a string.",
      },
    });
    expect(lines).toHaveLength(2);
    end();
    await serving.closed;
  });
});
