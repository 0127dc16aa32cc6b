import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../test/mcp/listen.js';
import { defineTool, ToolRegistry } from '../index.js';
import {
  createMcpHttpHandler,
  type McpHttpHandler,
  type McpHttpHandlerOptions,
  type McpSessionSharing,
  type McpSessionSignalMessage,
  type McpSharedEvent,
  type McpSharedSession,
} from './index.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A promise with its resolver, for a tool that waits on the test. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A registry whose `long_job` reports progress 1, waits for `release`, reports progress 2 and answers. */
function longJobRegistry(release: Promise<void>): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'long_job',
      description: 'Reports progress, waits, then finishes.',
      handler: async (_args, ctx) => {
        ctx.progress(1, 2, 'started');
        await release;
        ctx.progress(2, 2, 'almost done');
        return 'finished after the drop';
      },
    }),
  );
  return registry;
}

async function start(
  registry: ToolRegistry,
  options: McpHttpHandlerOptions = {},
): Promise<Awaited<ReturnType<typeof listen>> & { handler: McpHttpHandler }> {
  const handler = createMcpHttpHandler(registry, options);
  const server = await listen(handler);
  cleanups.push(() => server.close());
  return { ...server, handler };
}

interface SeenRequest {
  method: string;
  lastEventId: string | null;
}

/**
 * A fetch for the SDK client that records requests, and can cut the response of the next `tools/call`
 * POST: `cut()` drops its connection, as a network failure would.
 */
function cuttingFetch(): { fetch: typeof fetch; seen: SeenRequest[]; cut(): void; cuttable: Promise<void> } {
  const seen: SeenRequest[] = [];
  const ready = gate();
  let cut = () => {};
  const wrapped: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const method = init?.method ?? 'GET';
    seen.push({ method, lastEventId: headers.get('last-event-id') });
    const isCall = method === 'POST' && typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (!isCall) return fetch(input, init);
    const abort = new AbortController();
    const response = await fetch(input, { ...init, signal: abort.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let fail: (error: Error) => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        fail = (error) => controller.error(error);
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          // cut below
        }
      },
    });
    cut = () => {
      abort.abort();
      fail(new Error('connection reset'));
    };
    ready.open();
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return {
    fetch: wrapped,
    seen,
    cut: () => cut(),
    cuttable: ready.promise,
  };
}

async function connect(url: string, fetchFn: typeof fetch): Promise<Client> {
  const client = new Client({ name: 'resume-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: fetchFn,
    reconnectionOptions: {
      initialReconnectionDelay: 50,
      maxReconnectionDelay: 200,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3,
    },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe('resumable MCP streams', () => {
  it('resumes a call whose stream dropped mid-call: the SDK client gets the rest of its progress and the result', async () => {
    const release = gate();
    const server = await start(longJobRegistry(release.promise), { resumableStreams: { retryMs: 50 } });
    const network = cuttingFetch();
    const client = await connect(server.url, network.fetch);
    const progress: Array<string | undefined> = [];
    const firstProgress = gate();
    const call = client.callTool({ name: 'long_job', arguments: {} }, undefined, {
      onprogress: (event) => {
        progress.push(event.message);
        firstProgress.open();
      },
    });
    await firstProgress.promise;
    network.cut();
    // The server learns of the drop, then the tool finishes while no one listens.
    await new Promise((resolve) => setTimeout(resolve, 20));
    release.open();
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'finished after the drop' }]);
    expect(progress).toEqual(['started', 'almost done']);
    const resumed = network.seen.filter((request) => request.method === 'GET' && request.lastEventId !== null);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(resumed[0]?.lastEventId).toMatch(/^[0-9a-f-]{36}\.1$/);
  });

  it('closes a long call’s stream after pollAfterMs, and the client polls its way to the result', async () => {
    const release = gate();
    const server = await start(longJobRegistry(release.promise), {
      resumableStreams: { retryMs: 30, pollAfterMs: 50 },
    });
    const network = cuttingFetch();
    const client = await connect(server.url, network.fetch);
    const progress: Array<string | undefined> = [];
    const call = client.callTool({ name: 'long_job', arguments: {} }, undefined, {
      onprogress: (event) => progress.push(event.message),
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    release.open();
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'finished after the drop' }]);
    expect(progress).toEqual(['started', 'almost done']);
    expect(network.seen.some((request) => request.method === 'GET' && request.lastEventId !== null)).toBe(true);
  });

  it('sends a priming event with an id and a retry field first on a POST stream', async () => {
    const server = await start(longJobRegistry(Promise.resolve()), { resumableStreams: { retryMs: 1500 } });
    const sessionId = await openSession(server.url);
    const response = await post(server.url, sessionId, toolsCall(7));
    const text = await response.text();
    const first = text.split('\n\n')[0];
    expect(first).toMatch(/^id: [0-9a-f-]{36}\.0\nretry: 1500\ndata: $/);
    const events = sseEvents(text);
    expect(events.map((event) => event.id)).toEqual(
      events.map((_, index) => `${events[0]?.id.split('.')[0]}.${index}`),
    );
    expect(events.at(-1)?.data).toContain('finished after the drop');
  });

  it('replays a finished stream once and in order, then ends the response', async () => {
    const server = await start(longJobRegistry(Promise.resolve()));
    const sessionId = await openSession(server.url);
    const events = sseEvents(await (await post(server.url, sessionId, toolsCall(3))).text());
    expect(events).toHaveLength(4); // priming, progress 1, progress 2, result
    const replay = await get(server.url, sessionId, events[1]?.id as string);
    expect(replay.status).toBe(200);
    const replayed = sseEvents(await replay.text()).filter((event) => event.data !== '');
    expect(replayed.map((event) => event.id)).toEqual([events[2]?.id, events[3]?.id]);
    expect(replayed.map((event) => event.data)).toEqual([events[2]?.data, events[3]?.data]);
  });

  describe('a hostile or stale Last-Event-ID gets 400 and changes nothing', () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        'malformed',
        '../../etc/passwd',
        /^Bad Request: Last-Event-ID '\.\.\/\.\.\/etc\/passwd' is not an event id of this server/,
      ],
      ['a bare number', '42', /^Bad Request: Last-Event-ID '42' is not an event id of this server/],
      [
        'oversized',
        `${'a'.repeat(300)}.1`,
        /^Bad Request: the Last-Event-ID header is 302 characters long; this server's event ids have at most 128\./,
      ],
      [
        'unknown',
        '7b0c7a52-3f0e-4a8e-9d4c-1d2e3f4a5b6c.0',
        /^Bad Request: event '7b0c7a52-3f0e-4a8e-9d4c-1d2e3f4a5b6c\.0' is not one this session keeps/,
      ],
      [
        'a sequence number overflowing',
        '7b0c7a52-3f0e-4a8e-9d4c-1d2e3f4a5b6c.99999999999999999999',
        /is not an event id/,
      ],
    ];
    for (const [name, lastEventId, message] of cases) {
      it(`answers ${name}`, async () => {
        const server = await start(longJobRegistry(Promise.resolve()));
        const sessionId = await openSession(server.url);
        const events = sseEvents(await (await post(server.url, sessionId, toolsCall(3))).text());
        const refused = await get(server.url, sessionId, lastEventId);
        expect(refused.status).toBe(400);
        const body = (await refused.json()) as { error: { code: number; message: string } };
        expect(body.error.code).toBe(-32000);
        expect(body.error.message).toMatch(message);
        // Nothing changed: the session still replays its own stream.
        const replay = sseEvents(await (await get(server.url, sessionId, events[2]?.id as string)).text());
        expect(replay.filter((event) => event.data !== '').map((event) => event.id)).toEqual([events[3]?.id]);
      });
    }

    it("answers another session's event id, and never sends that session's events", async () => {
      const server = await start(longJobRegistry(Promise.resolve()));
      const owner = await openSession(server.url);
      const other = await openSession(server.url);
      const events = sseEvents(await (await post(server.url, owner, toolsCall(3))).text());
      const refused = await get(server.url, other, events[0]?.id as string);
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text).toContain('is not one this session keeps');
      expect(text).not.toContain('finished after the drop');
    });
  });

  it('forgets the oldest events beyond maxEventsPerSession: resuming before them is refused', async () => {
    const server = await start(longJobRegistry(Promise.resolve()), { resumableStreams: { maxEventsPerSession: 4 } });
    const sessionId = await openSession(server.url);
    const first = sseEvents(await (await post(server.url, sessionId, toolsCall(3))).text());
    const second = sseEvents(await (await post(server.url, sessionId, toolsCall(4))).text());
    expect((await get(server.url, sessionId, first[1]?.id as string)).status).toBe(400);
    const replay = sseEvents(await (await get(server.url, sessionId, second[1]?.id as string)).text());
    expect(replay.filter((event) => event.data !== '').map((event) => event.id)).toEqual([
      second[2]?.id,
      second[3]?.id,
    ]);
  });

  it('refuses settings that are not whole numbers above 0, naming the setting', () => {
    const registry = longJobRegistry(Promise.resolve());
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ retryMs: 0 }, 'resumableStreams.retryMs must be a whole number above 0, got 0.'],
      [{ maxEventsPerSession: -1 }, 'resumableStreams.maxEventsPerSession must be a whole number above 0, got -1.'],
      [{ maxBytesPerSession: 1.5 }, 'resumableStreams.maxBytesPerSession must be a whole number above 0, got 1.5.'],
      [{ eventTtlMs: Number.NaN }, 'resumableStreams.eventTtlMs must be a whole number above 0, got NaN.'],
      [{ pollAfterMs: '30s' }, 'resumableStreams.pollAfterMs must be a whole number above 0, got 30s.'],
    ];
    for (const [settings, message] of bad) {
      expect(() => createMcpHttpHandler(registry, { resumableStreams: settings as never })).toThrow(message);
    }
  });

  it('keeps no event ids with resumableStreams: false', async () => {
    const server = await start(longJobRegistry(Promise.resolve()), { resumableStreams: false });
    const sessionId = await openSession(server.url);
    const text = await (await post(server.url, sessionId, toolsCall(3))).text();
    expect(text).not.toContain('id: ');
    expect(text).not.toContain('retry: ');
  });
});

describe('resumable MCP streams across servers sharing sessions', () => {
  it('replays on another server what a dropped stream missed, and the client polls there until the result', async () => {
    const sharing = memorySharing();
    const release = gate();
    const registry = longJobRegistry(release.promise);
    const a = await start(registry, { sessions: sharing, resumableStreams: { retryMs: 20 } });
    const b = await start(registry, { sessions: sharing, resumableStreams: { retryMs: 20 } });
    const sessionId = await openSession(a.url);
    // The call runs on A; its client reads the priming event and the first progress, then drops.
    const abort = new AbortController();
    const response = await post(a.url, sessionId, toolsCall(9), abort.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes('"progress":1')) seen += (await reader.read()).value ?? '';
    abort.abort();
    const lastId = sseEvents(seen).at(-1)?.id as string;
    await until(() => sharing.events.size > 0);
    release.open();
    // Polling B (which never ran the call) until the answer: each event exactly once, in order.
    const received: string[] = [];
    let cursor = lastId;
    for (let poll = 0; poll < 50 && !received.some((data) => data.includes('"result"')); poll++) {
      const replay = await get(b.url, sessionId, cursor);
      expect(replay.status).toBe(200);
      for (const event of sseEvents(await replay.text())) {
        cursor = event.id;
        if (event.data !== '') received.push(event.data);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received).toHaveLength(2);
    expect(JSON.parse(received[0] as string).params.message).toBe('almost done');
    expect(JSON.parse(received[1] as string).result.content).toEqual([
      { type: 'text', text: 'finished after the drop' },
    ]);
  });

  it('replays on another server a stream finished before its server saw the client go: that server is asked to keep it', async () => {
    const sharing = memorySharing();
    const a = await start(longJobRegistry(Promise.resolve()), { sessions: sharing, resumableStreams: { retryMs: 20 } });
    const b = await start(longJobRegistry(Promise.resolve()), { sessions: sharing, resumableStreams: { retryMs: 20 } });
    const sessionId = await openSession(a.url);
    // The call ends on A while its client has read only the first progress (A wrote the rest to a socket).
    const events = sseEvents(await (await post(a.url, sessionId, toolsCall(5))).text());
    expect(sharing.events.size).toBe(0);
    const replay = await get(b.url, sessionId, events[1]?.id as string);
    expect(replay.status).toBe(200);
    const replayed = sseEvents(await replay.text()).filter((event) => event.data !== '');
    expect(replayed.map((event) => event.id)).toEqual([events[2]?.id, events[3]?.id]);
    expect(replayed.map((event) => event.data)).toEqual([events[2]?.data, events[3]?.data]);
  });

  it('answers 400 on another server for an event id no server keeps, after asking them', async () => {
    const sharing = memorySharing();
    const a = await start(longJobRegistry(Promise.resolve()), { sessions: sharing });
    const b = await start(longJobRegistry(Promise.resolve()), { sessions: sharing });
    const sessionId = await openSession(a.url);
    const refused = await get(b.url, sessionId, '7b0c7a52-3f0e-4a8e-9d4c-1d2e3f4a5b6c.3');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(
      "event '7b0c7a52-3f0e-4a8e-9d4c-1d2e3f4a5b6c.3' is not one this session keeps",
    );
    expect(sharing.events.size).toBe(0);
  });

  it('keeps nothing in the shared store for a stream answered while its client listened', async () => {
    const sharing = memorySharing();
    const a = await start(longJobRegistry(Promise.resolve()), { sessions: sharing });
    const sessionId = await openSession(a.url);
    await (await post(a.url, sessionId, toolsCall(3))).text();
    expect(sharing.events.size).toBe(0);
  });
});

/** In-memory session sharing with an event store, as two servers on one database would use it. */
function memorySharing(): McpSessionSharing & { events: Map<string, McpSharedEvent & { sessionId: string }> } {
  const records = new Map<string, McpSharedSession>();
  const listeners = new Set<(message: McpSessionSignalMessage) => void>();
  const events = new Map<string, McpSharedEvent & { sessionId: string }>();
  const keyOf = (sessionId: string, streamKey: string, seq: number) => `${sessionId}\n${streamKey}\n${seq}`;
  return {
    events,
    async create(session) {
      records.set(session.id, session);
    },
    async get(id) {
      return records.get(id);
    },
    async touch(id) {
      return records.has(id);
    },
    async delete(id) {
      return records.delete(id);
    },
    async pruneExpired() {
      return 0;
    },
    async signal(message) {
      queueMicrotask(() => {
        for (const listener of listeners) listener(message);
      });
    },
    onSignal(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async storeEvents(sessionId, stored) {
      for (const event of stored) events.set(keyOf(sessionId, event.streamKey, event.seq), { ...event, sessionId });
    },
    async eventsFrom(sessionId, streamKey, seq, limit) {
      return [...events.values()]
        .filter((event) => event.sessionId === sessionId && event.streamKey === streamKey && event.seq >= seq)
        .sort((left, right) => left.seq - right.seq)
        .slice(0, limit);
    },
    async dropEvents(sessionId, streamKey, throughSeq) {
      for (const [key, event] of events) {
        if (event.sessionId === sessionId && event.streamKey === streamKey && event.seq <= throughSeq)
          events.delete(key);
      }
    },
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
    }),
  });
  await response.text();
  const sessionId = response.headers.get('mcp-session-id') as string;
  await post(url, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return sessionId;
}

function toolsCall(id: number): unknown {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'long_job', arguments: {}, _meta: { progressToken: id } },
  };
}

function post(url: string, sessionId: string, message: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message),
    ...(signal === undefined ? {} : { signal }),
  });
}

function get(url: string, sessionId: string, lastEventId: string): Promise<Response> {
  return fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
  });
}

/** The id-bearing events of an SSE body. */
function sseEvents(text: string): Array<{ id: string; data: string }> {
  const events: Array<{ id: string; data: string }> = [];
  for (const block of text.split('\n\n')) {
    const id = /^id: (.*)$/m.exec(block)?.[1];
    if (id === undefined) continue;
    events.push({ id, data: /^data: ?(.*)$/m.exec(block)?.[1] ?? '' });
  }
  return events;
}
