import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
