import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type McpEventPersistence,
  type McpSharedEvent,
  parseEventId,
  SessionEventStore,
} from './session-event-store.js';

const STREAM = '1b4e28ba-2fa1-4d2b-883f-0016d3cca427';
const limits = { maxEvents: 100, maxBytes: 1 << 20, ttlMs: 60_000 };
const progress = (step: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: step },
});
const answer: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: { content: [] } };

function recordingPersistence(): McpEventPersistence & { stored: McpSharedEvent[]; dropped: Array<[string, number]> } {
  const stored: McpSharedEvent[] = [];
  const dropped: Array<[string, number]> = [];
  return {
    stored,
    dropped,
    async store(events) {
      stored.push(...events);
    },
    async drop(streamKey, throughSeq) {
      dropped.push([streamKey, throughSeq]);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionEventStore', () => {
  it('numbers events per stream and replays those after an id, priming events left out', async () => {
    const store = new SessionEventStore(limits);
    const ids = [
      await store.storeEvent(STREAM, {} as JSONRPCMessage),
      await store.storeEvent(STREAM, progress(1)),
      await store.storeEvent(STREAM, progress(2)),
    ];
    expect(ids).toEqual([`${STREAM}.0`, `${STREAM}.1`, `${STREAM}.2`]);
    const sent: Array<[string, JSONRPCMessage]> = [];
    const stream = await store.replayEventsAfter(ids[0] as string, {
      send: async (id, message) => {
        sent.push([id, message]);
      },
    });
    expect(stream).toBe(STREAM);
    expect(sent).toEqual([
      [ids[1], progress(1)],
      [ids[2], progress(2)],
    ]);
    expect(store.locate(ids[1] as string)).toEqual({ kind: 'live', standalone: false });
    await store.storeEvent(STREAM, answer);
    expect(store.locate(ids[1] as string)).toEqual({
      kind: 'ended',
      standalone: false,
      events: [
        { id: ids[2], data: JSON.stringify(progress(2)) },
        { id: `${STREAM}.3`, data: JSON.stringify(answer) },
      ],
    });
  });

  it('gives the standalone stream a key of its own, so two servers never share its ids', async () => {
    const first = new SessionEventStore(limits);
    const second = new SessionEventStore(limits);
    const one = await first.storeEvent('_GET_stream', progress(1));
    const other = await second.storeEvent('_GET_stream', progress(1));
    expect(one).toMatch(/^g[0-9a-f-]{36}\.0$/);
    expect(one).not.toBe(other);
    expect(await first.getStreamIdForEventId(one)).toBe('_GET_stream');
    expect(first.locate(other)).toMatchObject({ kind: 'elsewhere', standalone: true });
  });

  it('forgets the oldest events past maxEvents and maxBytes; resuming before them is gone', async () => {
    const store = new SessionEventStore({ ...limits, maxEvents: 3 });
    for (let step = 0; step < 5; step++) await store.storeEvent(STREAM, progress(step));
    expect(store.size).toBe(3);
    expect(store.locate(`${STREAM}.0`)).toEqual({ kind: 'gone' });
    expect(store.locate(`${STREAM}.1`)).toEqual({ kind: 'live', standalone: false });
    const bytes = JSON.stringify(progress(0)).length;
    const small = new SessionEventStore({ ...limits, maxBytes: bytes * 2 });
    for (let step = 0; step < 4; step++) await small.storeEvent(STREAM, progress(step));
    expect(small.size).toBe(2);
  });

  it('forgets events older than ttlMs', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const store = new SessionEventStore({ ...limits, ttlMs: 1000 });
    const id = await store.storeEvent(STREAM, progress(1));
    await store.storeEvent(STREAM, progress(2));
    vi.setSystemTime(new Date('2026-01-01T00:00:02Z'));
    expect(store.locate(id)).toEqual({ kind: 'gone' });
    expect(store.size).toBe(0);
  });

  it('reads malformed, oversized and foreign ids as such, never as events', async () => {
    const store = new SessionEventStore(limits);
    await store.storeEvent(STREAM, progress(1));
    for (const id of ['', '42', `${STREAM}`, `${STREAM}.-1`, `${STREAM}.01`, `__proto__.0`, `${'a'.repeat(200)}.1`]) {
      expect(store.locate(id)).toEqual({ kind: 'malformed' });
      expect(await store.getStreamIdForEventId(id)).toBeUndefined();
    }
    expect(store.locate(`${STREAM}.7`)).toMatchObject({ kind: 'elsewhere', seq: 7 });
    expect(store.locate('constructor.0')).toMatchObject({ kind: 'elsewhere', streamKey: 'constructor' });
    await expect(store.replayEventsAfter('constructor.0', { send: async () => {} })).rejects.toThrow('is not kept');
    expect(parseEventId(`${STREAM}.12`)).toEqual({ streamKey: STREAM, seq: 12 });
  });

  it('persists nothing until a client drops a stream; then the streams still waiting, and what follows', async () => {
    const persistence = recordingPersistence();
    const store = new SessionEventStore(limits, persistence);
    const done = 'f0f0f0f0-2fa1-4d2b-883f-0016d3cca427';
    await store.storeEvent(done, {} as JSONRPCMessage);
    await store.storeEvent(done, answer);
    await store.storeEvent(STREAM, {} as JSONRPCMessage);
    await store.storeEvent(STREAM, progress(1));
    expect(persistence.stored).toEqual([]);
    store.detach();
    await store.storeEvent(STREAM, progress(2));
    expect(persistence.stored.map((event) => [event.streamKey, event.seq, event.message])).toEqual([
      [STREAM, 0, null],
      [STREAM, 1, JSON.stringify(progress(1))],
      [STREAM, 2, JSON.stringify(progress(2))],
    ]);
    // Asked for by another server: the finished stream too.
    store.keep(done);
    await store.storeEvent(STREAM, progress(3));
    expect(persistence.stored.filter((event) => event.streamKey === done).map((event) => event.seq)).toEqual([0, 1]);
  });

  it('drops from the persistence what falls out of the limits here', async () => {
    const persistence = recordingPersistence();
    const store = new SessionEventStore({ ...limits, maxEvents: 2 }, persistence);
    await store.storeEvent(STREAM, progress(0));
    store.detach();
    await store.storeEvent(STREAM, progress(1));
    await store.storeEvent(STREAM, progress(2));
    expect(persistence.dropped).toEqual([[STREAM, 0]]);
  });
});
