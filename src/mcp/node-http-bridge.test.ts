import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientSignal, nodeListener, readRequestText, type WriteWebResponseOptions } from './node-http-bridge.js';

const encoder = new TextEncoder();

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** Serve `handle` through `nodeListener` on a free loopback port; resolves with its base URL. */
async function serve(
  handle: (request: Request) => Promise<Response>,
  writeOptionsOf?: (response: Response) => WriteWebResponseOptions | undefined,
): Promise<string> {
  const listening = createServer(
    nodeListener(handle, () => new Response('malformed', { status: 400 }), writeOptionsOf),
  );
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

  it('hands the handler the headers as a Request would show them, read-only, and copyable into a new Headers', async () => {
    let seen: Record<string, unknown> = {};
    const base = await serve(async (request) => {
      const copy = new Headers(request.headers);
      copy.set('x-added', 'yes');
      let refusal = '';
      try {
        request.headers.set('x-trace', 'changed');
      } catch (error) {
        refusal = (error as Error).message;
      }
      seen = {
        method: request.method,
        path: new URL(request.url).pathname,
        trace: request.headers.get('X-Trace'),
        missing: request.headers.get('x-missing'),
        hasAccept: request.headers.has('accept'),
        entries: Object.fromEntries(request.headers.entries()),
        copied: copy.get('x-trace'),
        added: copy.get('x-added'),
        refusal,
      };
      return new Response('ok');
    });
    const port = Number(new URL(base).port);
    const raw = [
      'POST /mcp?x=1 HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Accept: application/json',
      'X-Trace: one',
      'X-Trace: two',
      'Content-Length: 0',
      'Connection: close',
      '',
      '',
    ].join('\r\n');
    const socket = connect(port, '127.0.0.1');
    socket.end(raw);
    let answer = '';
    for await (const chunk of socket) answer += String(chunk);
    expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
    expect(seen).toEqual({
      method: 'POST',
      path: '/mcp',
      trace: 'one, two',
      missing: null,
      hasAccept: true,
      entries: {
        accept: 'application/json',
        connection: 'close',
        'content-length': '0',
        host: `127.0.0.1:${port}`,
        'x-trace': 'one, two',
      },
      copied: 'one, two',
      added: 'yes',
      refusal:
        "The headers of a received request cannot be changed (header 'x-trace'); copy them with new Headers(headers) first.",
    });
  });

  it('reads a POST body from the node stream (the Request has none of its own), dropping a byte order mark', async () => {
    let own: ReadableStream | null | undefined;
    const base = await serve(async (request) => {
      own = request.body;
      const text = await readRequestText(request, 1024);
      return new Response(JSON.stringify({ text }), { headers: { 'content-type': 'application/json' } });
    });
    const response = await fetch(`${base}/mcp`, { method: 'POST', body: '\ufeff{"jsonrpc":"2.0","method":"é"}' });
    expect(await response.json()).toEqual({ text: '{"jsonrpc":"2.0","method":"é"}' });
    expect(own).toBeNull();
  });

  it('stops reading a body past its limit, and the answer still reaches the client', async () => {
    const base = await serve(async (request) => {
      const text = await readRequestText(request, 1024);
      return text === 'too large'
        ? new Response('too large', { status: 413, headers: { connection: 'close' } })
        : new Response(text);
    });
    // Sent in chunks, with no content-length to refuse it by.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 8; index++) controller.enqueue(encoder.encode('x'.repeat(512)));
        controller.close();
      },
    });
    const response = await fetch(`${base}/mcp`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.text()).toBe('too large');
  });

  it("aborts the request's client signal when the client goes away before its answer", async () => {
    let signal: AbortSignal | undefined;
    let aborted!: () => void;
    const gone = new Promise<void>((resolve) => (aborted = resolve));
    const base = await serve(async (request) => {
      signal = clientSignal(request);
      signal.addEventListener('abort', () => aborted());
      await gone;
      return new Response('late');
    });
    const aborter = new AbortController();
    const answer = fetch(`${base}/mcp`, { method: 'POST', body: '{}', signal: aborter.signal }).catch(() => undefined);
    await vi.waitFor(() => expect(signal).toBeDefined());
    expect(signal?.aborted).toBe(false);
    aborter.abort();
    await gone;
    expect(signal?.aborted).toBe(true);
    await answer;
  });

  it('holds the first event for the next one when asked, so both reach the socket in one write', async () => {
    const base = await serve(
      async () => {
        const stream = eventStream();
        stream.push('data: first\n\n');
        setTimeout(() => {
          stream.push('data: second\n\n');
          stream.end();
        }, 30);
        return stream.response;
      },
      () => ({ holdFirstChunkMs: 5_000 }),
    );
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    const reads: string[] = [];
    socket.on('data', (chunk: Buffer) => reads.push(chunk.toString('utf8')));
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    await new Promise((resolve) => socket.on('close', resolve));
    const first = reads.find((read) => read.includes('data: first'));
    expect(first).toContain('data: second');
  });

  it('ends a stream after endAfterMs and reports it cut; a stream that ends by itself is not', async () => {
    const ends: boolean[] = [];
    let stream: ReturnType<typeof eventStream> | undefined;
    const base = await serve(
      async (request) => {
        stream = eventStream();
        stream.push('data: first\n\n');
        if (new URL(request.url).pathname === '/short') stream.end();
        return stream.response;
      },
      () => ({ endAfterMs: 100, onEnd: (cut) => ends.push(cut) }),
    );
    const polled = await fetch(`${base}/long`, { method: 'POST', body: '{}' });
    expect(await polled.text()).toBe('data: first\n\n');
    await expect(stream?.cancelled).resolves.toBeUndefined();
    expect(ends).toEqual([true]);
    const short = await fetch(`${base}/short`, { method: 'POST', body: '{}' });
    expect(await short.text()).toBe('data: first\n\n');
    await vi.waitFor(() => expect(ends).toEqual([true, false]));
  });
});
