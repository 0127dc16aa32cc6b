import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCARDED_BODY_LIMITS } from '../../src/mcp/node-http-bridge.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { databaseSnapshot } from './database-snapshot.js';

// What only a real socket can send: bytes Node's HTTP parser refuses before any route sees them.
// Each is answered in the API's error shape (never a 5xx, nothing echoed), and the server goes on.

let store: ToolshedStore;
let app: FastifyInstance;
let port: number;
let token: string;

beforeAll(async () => {
  store = await createStore(':memory:');
  await store.migrate();
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  token = (await store.tokens.create('acme', { name: 't' })).token;
  app = createServer({ store, builtins: false, webCatalog: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
});

/** Send raw bytes, read until the server closes or answers in full. */
function raw(bytes: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.end(bytes);
  });
}

describe('requests Node refuses before routing', () => {
  it('answers headers over 16 KiB 431 in the API error shape', async () => {
    const before = await databaseSnapshot(store);
    const response = await raw(
      `PUT /api/secrets/A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Junk: ${'y'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request headers are larger than the limit.' },
    });
    expect(await databaseSnapshot(store)).toEqual(before);
  });

  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    [
      'two Content-Length headers that disagree',
      'POST /api/agents HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    ['a NUL byte in a header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
    [
      'broken chunked framing',
      'POST /api/agents HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
  ])('answers %s 400 in the API error shape', async (_name, bytes) => {
    const before = await databaseSnapshot(store);
    const response = await raw(bytes);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'The request is not valid HTTP.', details: { field: 'request' } },
    });
    expect(await databaseSnapshot(store)).toEqual(before);
  });

  it('answers raw bytes that are not UTF-8 in the path without a 5xx, and keeps answering', async () => {
    const response = await raw(
      Buffer.concat([
        Buffer.from('GET /api/tools/'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      ]),
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    const health = await raw('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(health.status).toBe(200);
  });
});

/**
 * POST `bytes` through node:http as a client that reads the answer once it has sent its whole request
 * (as many do): its socket is not read until the body is written. A server that answers and closes
 * before reading the body resets the connection under it, and the answer is lost.
 */
function postBody(
  path: string,
  headers: Record<string, string>,
  bytes: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.on('socket', (socket) => socket.pause());
    request.end(bytes, () => request.socket?.resume());
  });
}

describe('a body over the limit', () => {
  // 20 MiB of a JSON string: the server answers 413 long before the client has written it all.
  const oversized = Buffer.from(`{"arguments":"${'x'.repeat(20 * 1024 * 1024)}"}`);

  it('is answered 413 on the REST API every time, never a reset connection', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await postBody(
        '/api/agents',
        { authorization: `Bearer ${token}`, 'x-workspace-id': 'acme' },
        oversized,
      );
      expect({ attempt, status: response.status, body: JSON.parse(response.body) }).toEqual({
        attempt,
        status: 413,
        body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than the limit.' } },
      });
    }
  });

  it('is answered 413 on /mcp every time, never a reset connection', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await postBody(
        '/mcp',
        { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
        oversized,
      );
      expect({ attempt, status: response.status, body: JSON.parse(response.body) }).toEqual({
        attempt,
        status: 413,
        body: {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Payload Too Large: the request body exceeds 1048576 bytes.' },
          id: null,
        },
      });
    }
  });

  it.each([
    ['/api/agents', { 'x-workspace-id': 'acme' }],
    ['/mcp', { accept: 'application/json, text/event-stream' }],
  ])('on %s, when it never ends, is read only so far: the server closes the connection', async (path, headers) => {
    const written = await new Promise<number>((resolve) => {
      let bytes = 0;
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const writeOn = () => {
        while (!request.destroyed) {
          bytes += chunk.length;
          if (!request.write(chunk)) {
            request.once('drain', writeOn);
            return;
          }
        }
      };
      // An answer, a reset or a closed socket: any of them ends the upload.
      request.on('response', (response) => {
        response.resume();
        request.destroy();
      });
      request.on('error', () => undefined);
      request.on('close', () => resolve(bytes));
      writeOn();
    });
    expect(written).toBeGreaterThan(DISCARDED_BODY_LIMITS.maxBytes);
  });
});
