import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeListener } from './node-http-bridge.js';

const encoder = new TextEncoder();

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** Serve `handle` through `nodeListener` on a free loopback port; resolves with its base URL. */
async function serve(handle: (request: Request) => Promise<Response>): Promise<string> {
  const listening = createServer(nodeListener(handle, () => new Response('malformed', { status: 400 })));
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

/** An event stream whose events the test pushes one at a time. */
function eventStream(): { response: Response; push(text: string): void; end(): void; cancelled: Promise<void> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start: (started) => {
      controller = started;
    },
    cancel: () => onCancel(),
  });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    push: (text) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    cancelled,
  };
}

describe('nodeListener', () => {
  it('answers a POST whose event stream ends at once with the whole stream', async () => {
    const base = await serve(async () => {
      const stream = eventStream();
      stream.push('event: message\ndata: {"id":1}\n\n');
      stream.end();
      return stream.response;
    });
    const response = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('event: message\ndata: {"id":1}\n\n');
  });

  it('sends the headers of a silent POST event stream before its first event', async () => {
    let stream: ReturnType<typeof eventStream> | undefined;
    const base = await serve(async () => {
      stream = eventStream();
      return stream.response;
    });
    const response = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    // The headers came while the stream had produced nothing yet.
    expect(response.status).toBe(200);
    stream?.push('data: late\n\n');
    stream?.end();
    expect(await response.text()).toBe('data: late\n\n');
  });

  it('sends the headers of a GET event stream before any event', async () => {
    let stream: ReturnType<typeof eventStream> | undefined;
    const base = await serve(async () => {
      stream = eventStream();
      return stream.response;
    });
    const response = await fetch(`${base}/mcp`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    stream?.push('data: one\n\n');
    stream?.end();
    expect(await response.text()).toBe('data: one\n\n');
  });

  it('delivers each event as it is produced, not when the stream ends', async () => {
    let stream: ReturnType<typeof eventStream> | undefined;
    const base = await serve(async () => {
      stream = eventStream();
      stream.push('data: first\n\n');
      return stream.response;
    });
    const response = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: first\n\n');
    stream?.push('data: second\n\n');
    expect(decoder.decode((await reader.read()).value)).toBe('data: second\n\n');
    stream?.end();
    expect((await reader.read()).done).toBe(true);
  });

  it('cancels the body when the client goes away mid-stream', async () => {
    let stream: ReturnType<typeof eventStream> | undefined;
    const base = await serve(async () => {
      stream = eventStream();
      stream.push('data: first\n\n');
      return stream.response;
    });
    const aborter = new AbortController();
    const response = await fetch(`${base}/mcp`, { method: 'POST', body: '{}', signal: aborter.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    aborter.abort();
    await expect(stream?.cancelled).resolves.toBeUndefined();
  });

  it('answers a plain JSON response with its body and headers', async () => {
    const base = await serve(
      async () => new Response('{"ok":true}', { status: 202, headers: { 'content-type': 'application/json' } }),
    );
    const response = await fetch(`${base}/x`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: true });
  });
});
