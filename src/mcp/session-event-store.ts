import { randomUUID } from 'node:crypto';
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK transport's name for a session's standalone (GET) stream, the same in every transport. */
const STANDALONE_STREAM = '_GET_stream';
/** `<stream key>.<sequence number>`: stream keys are UUIDs (`g` and a UUID for a GET stream). */
const EVENT_ID_PATTERN = /^([0-9A-Za-z-]{1,64})\.(0|[1-9][0-9]{0,14})$/;

/**
 * The longest `Last-Event-ID` looked at; a longer one is refused before it is parsed.
 *
 * @example
 * ```ts
 * if (lastEventId.length > MAX_EVENT_ID_CHARS) return badRequest();
 * ```
 */
export const MAX_EVENT_ID_CHARS = 128;

/**
 * How much of a session's stream events are kept for replay: the newest `maxEvents` events and
 * `maxBytes` bytes of JSON, none older than `ttlMs`. Older events are forgotten; a client asking to
 * resume before them is told they are no longer kept.
 *
 * @example
 * ```ts
 * const limits: McpEventLimits = { maxEvents: 1000, maxBytes: 4 * 1024 * 1024, ttlMs: 10 * 60_000 };
 * ```
 */
export interface McpEventLimits {
  maxEvents: number;
  maxBytes: number;
  ttlMs: number;
}

/**
 * One event of a session's stream as it is kept for the other servers: its stream key and sequence
 * number (together its event id, `<streamKey>.<seq>`), the JSON-RPC message as JSON text (`null` for
 * the empty priming event that opens a stream), and when it expires (epoch milliseconds).
 *
 * @example
 * ```ts
 * const event: McpSharedEvent = { streamKey: '1b4e…', seq: 2, message: '{"jsonrpc":"2.0","id":1,"result":{}}', expiresAt: Date.now() + 600_000 };
 * ```
 */
export interface McpSharedEvent {
  streamKey: string;
  seq: number;
  message: string | null;
  expiresAt: number;
}

/**
 * Where a session's events go when another server may have to replay them (see
 * {@link SessionEventStore}): `store` keeps events, `drop` forgets a stream's events up to a
 * sequence number (they fell out of the limits here).
 *
 * @example
 * ```ts
 * const persistence: McpEventPersistence = {
 *   store: (events) => db.insertEvents(sessionId, events),
 *   drop: (streamKey, throughSeq) => db.deleteEvents(sessionId, streamKey, throughSeq),
 * };
 * ```
 */
export interface McpEventPersistence {
  store(events: readonly McpSharedEvent[]): Promise<void>;
  drop(streamKey: string, throughSeq: number): Promise<void>;
}

/**
 * What a `Last-Event-ID` names in a session, as {@link SessionEventStore.locate} finds it:
 *
 * - `malformed` — not an event id this server hands out;
 * - `live` — a stream this server is still writing, with every event after it kept: the transport
 *   replays them and goes on writing the stream;
 * - `ended` — a stream this server has finished (its answer is among `events`), or one whose writing
 *   is elsewhere: replay `events` and end the response;
 * - `elsewhere` — not kept here: another server may have it (`streamKey`, `seq`);
 * - `gone` — kept here once, but events after it were forgotten (the limits).
 *
 * @example
 * ```ts
 * const found: McpEventLocation = store.locate(request.headers.get('last-event-id') ?? '');
 * ```
 */
export type McpEventLocation =
  | { kind: 'malformed' }
  | { kind: 'live'; standalone: boolean }
  | { kind: 'ended'; standalone: boolean; events: McpReplayEvent[] }
  | { kind: 'elsewhere'; streamKey: string; seq: number; standalone: boolean }
  | { kind: 'gone' };

/**
 * An event to send again: its id and its JSON-RPC message as JSON text.
 *
 * @example
 * ```ts
 * const event: McpReplayEvent = { id: '1b4e….3', data: '{"jsonrpc":"2.0","id":1,"result":{}}' };
 * ```
 */
export interface McpReplayEvent {
  id: string;
  data: string;
}

interface KeptEvent {
  stream: StreamLog;
  seq: number;
  /** JSON text; `undefined` for a priming event. */
  data: string | undefined;
  bytes: number;
  expiresAt: number;
}

interface StreamLog {
  key: string;
  /** The transport's id of the stream. */
  transportId: StreamId;
  events: KeptEvent[];
  /** The sequence number of the first event not yet forgotten. */
  firstKept: number;
  nextSeq: number;
  /** Its answer was written (a POST stream ends with it). */
  finished: boolean;
  /** Its events go to the other servers too (see `detach`). */
  persisted: boolean;
  /** Writes to the persistence, one after the other so a replay elsewhere never sees a gap. */
  writing: Promise<void>;
}

/**
 * The SDK transport's `EventStore` for one MCP session: every event written on the session's SSE
 * streams gets an id (`<stream key>.<sequence number>`) and is kept in memory within
 * {@link McpEventLimits}, so a client that reconnects with `Last-Event-ID` gets what it missed, in
 * order, once.
 *
 * With a {@link McpEventPersistence} (several servers sharing sessions), the events of streams a
 * client dropped before their answer (see {@link SessionEventStore.detach}) are also kept there, so
 * a client whose reconnection reaches another server gets them from it. Streams answered while their
 * client listened never leave this process.
 *
 * @example
 * ```ts
 * const events = new SessionEventStore({ maxEvents: 1000, maxBytes: 4 << 20, ttlMs: 600_000 });
 * const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, eventStore: events });
 * ```
 */
export class SessionEventStore implements EventStore {
  readonly #limits: McpEventLimits;
  readonly #persistence: McpEventPersistence | undefined;
  readonly #report: (error: unknown) => void;
  readonly #streams = new Map<string, StreamLog>();
  /** Every kept event, oldest first: what the limits forget first. */
  readonly #kept: KeptEvent[] = [];
  #keptHead = 0;
  #bytes = 0;
  /** This transport's key for its standalone stream: each server writes its own. */
  readonly #standaloneKey = `g${randomUUID()}`;

  constructor(limits: McpEventLimits, persistence?: McpEventPersistence, report: (error: unknown) => void = () => {}) {
    this.#limits = limits;
    this.#persistence = persistence;
    this.#report = report;
  }

  /** How many events are kept here. */
  get size(): number {
    return this.#kept.length - this.#keptHead;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const now = Date.now();
    this.#expire(now);
    const key = streamId === STANDALONE_STREAM ? this.#standaloneKey : streamId;
    let stream = this.#streams.get(key);
    if (stream === undefined) {
      stream = {
        key,
        transportId: streamId,
        events: [],
        firstKept: 0,
        nextSeq: 0,
        finished: false,
        persisted: false,
        writing: Promise.resolve(),
      };
      this.#streams.set(key, stream);
    }
    // The SDK primes a stream with an empty object: an id for the client to hold, nothing to replay.
    const priming = !('jsonrpc' in message);
    const data = priming ? undefined : JSON.stringify(message);
    const bytes = data === undefined ? 0 : data.length;
    const event: KeptEvent = { stream, seq: stream.nextSeq++, data, bytes, expiresAt: now + this.#limits.ttlMs };
    stream.events.push(event);
    this.#kept.push(event);
    this.#bytes += bytes;
    if (!priming && ('result' in message || 'error' in message)) stream.finished = true;
    this.#enforceLimits();
    if (stream.persisted) await this.#persist(stream, [event]);
    return `${key}.${event.seq}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const found = this.#find(eventId);
    return found === undefined ? undefined : found.stream.transportId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const found = this.#find(lastEventId);
    if (found === undefined) throw new Error(`Event '${lastEventId.slice(0, MAX_EVENT_ID_CHARS)}' is not kept.`);
    // Read as it grows: an event stored while an earlier one is being sent is sent too.
    const { stream } = found;
    for (let index = found.index + 1; index < stream.events.length; index++) {
      const event = stream.events[index] as KeptEvent;
      if (event.data !== undefined) await send(`${stream.key}.${event.seq}`, JSON.parse(event.data) as JSONRPCMessage);
    }
    return stream.transportId;
  }

  /**
   * What `lastEventId` names in this session (see {@link McpEventLocation}); never another session's
   * events, since each session has a store of its own.
   */
  locate(lastEventId: string): McpEventLocation {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) return { kind: 'malformed' };
    this.#expire(Date.now());
    const stream = this.#streams.get(parsed.streamKey);
    const standalone = parsed.streamKey.startsWith('g');
    if (stream === undefined || parsed.seq >= stream.nextSeq) {
      return { kind: 'elsewhere', streamKey: parsed.streamKey, seq: parsed.seq, standalone };
    }
    const found = this.#find(lastEventId);
    if (found === undefined) return { kind: 'gone' };
    if (!stream.finished) return { kind: 'live', standalone: stream.key === this.#standaloneKey };
    const events: McpReplayEvent[] = [];
    for (const event of stream.events.slice(found.index + 1)) {
      if (event.data !== undefined) events.push({ id: `${stream.key}.${event.seq}`, data: event.data });
    }
    return { kind: 'ended', standalone, events };
  }

  /**
   * A client dropped a stream of this session: from now on the events of its streams still waiting
   * for an answer are kept by the persistence as well (those kept so far first), so that its
   * reconnection may reach any server. Without a persistence, nothing to do.
   */
  detach(): void {
    if (this.#persistence === undefined) return;
    for (const stream of this.#streams.values()) {
      if (stream.finished || stream.persisted) continue;
      stream.persisted = true;
      void this.#persist(stream, stream.events);
    }
  }

  /**
   * Keep the events of the stream `streamKey` in the persistence too, those kept so far and those to
   * come, finished or not: another server was asked to resume it. Nothing to do for a stream this
   * store does not hold, or without a persistence.
   */
  keep(streamKey: string): void {
    const stream = this.#streams.get(streamKey);
    if (this.#persistence === undefined || stream === undefined || stream.persisted) return;
    stream.persisted = true;
    void this.#persist(stream, stream.events);
  }

  /** Forget every event (the session ended). */
  clear(): void {
    this.#streams.clear();
    this.#kept.length = 0;
    this.#keptHead = 0;
    this.#bytes = 0;
  }

  #persist(stream: StreamLog, events: readonly KeptEvent[]): Promise<void> {
    const persistence = this.#persistence as McpEventPersistence;
    const shared = events.map((event) => ({
      streamKey: stream.key,
      seq: event.seq,
      message: event.data ?? null,
      expiresAt: event.expiresAt,
    }));
    stream.writing = stream.writing
      .then(() => (shared.length === 0 ? undefined : persistence.store(shared)))
      .catch(this.#report);
    return stream.writing;
  }

  #find(eventId: string): { stream: StreamLog; index: number } | undefined {
    const parsed = parseEventId(eventId);
    if (parsed === undefined) return undefined;
    const stream = this.#streams.get(parsed.streamKey);
    // Everything after the event must still be kept, or the replay would skip some.
    if (stream === undefined || parsed.seq < stream.firstKept - 1 || parsed.seq >= stream.nextSeq) return undefined;
    const first = stream.events[0];
    if (first === undefined) {
      // All forgotten: only the very last event may be resumed after (nothing to replay).
      return parsed.seq === stream.nextSeq - 1 ? { stream, index: -1 } : undefined;
    }
    return { stream, index: parsed.seq - first.seq };
  }

  #expire(now: number): void {
    while (this.#keptHead < this.#kept.length) {
      const oldest = this.#kept[this.#keptHead] as KeptEvent;
      if (oldest.expiresAt > now) break;
      this.#forgetOldest();
    }
  }

  #enforceLimits(): void {
    while (this.size > this.#limits.maxEvents || (this.#bytes > this.#limits.maxBytes && this.size > 1)) {
      this.#forgetOldest();
    }
  }

  #forgetOldest(): void {
    const oldest = this.#kept[this.#keptHead] as KeptEvent;
    this.#kept[this.#keptHead] = undefined as unknown as KeptEvent;
    this.#keptHead++;
    if (this.#keptHead > 1024 && this.#keptHead * 2 > this.#kept.length) {
      this.#kept.splice(0, this.#keptHead);
      this.#keptHead = 0;
    }
    this.#bytes -= oldest.bytes;
    const stream = oldest.stream;
    stream.events.shift();
    stream.firstKept = oldest.seq + 1;
    if (stream.events.length === 0 && stream.finished) this.#streams.delete(stream.key);
    if (stream.persisted) {
      const persistence = this.#persistence as McpEventPersistence;
      stream.writing = stream.writing.then(() => persistence.drop(stream.key, oldest.seq)).catch(this.#report);
    }
  }
}

/**
 * The stream key and sequence number of an event id, or `undefined` when it is not one of ours (the
 * shape `<key>.<number>`, at most {@link MAX_EVENT_ID_CHARS} characters).
 *
 * @example
 * ```ts
 * parseEventId('1b4e28ba-2fa1-4d2b-883f-0016d3cca427.3'); // { streamKey: '1b4e28ba-…', seq: 3 }
 * parseEventId('../etc/passwd'); // undefined
 * ```
 */
export function parseEventId(eventId: string): { streamKey: string; seq: number } | undefined {
  if (eventId.length > MAX_EVENT_ID_CHARS) return undefined;
  const match = EVENT_ID_PATTERN.exec(eventId);
  if (match === null) return undefined;
  return { streamKey: match[1] as string, seq: Number(match[2]) };
}
