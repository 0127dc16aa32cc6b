import type { Selectable } from 'kysely';
import { describeValue } from '../core/define-tool.js';
import type { McpStreamEventsTable } from './database.js';
import type { StoreContext } from './store-context.js';
import type { McpStreamEvent } from './store-records.js';
import { isPlainObject } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreMcpStreamEvents } from './toolshed-store.js';

/** Session ids: what the MCP specification allows (visible ASCII), at most 128 characters. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** Stream keys as the MCP handler makes them: UUIDs, or `g` and a UUID. */
const STREAM_KEY_PATTERN = /^[0-9A-Za-z-]{1,64}$/;
/** Bytes of one event's JSON: above an MCP request body (1 MiB) and a tool's usual output budget. */
const EVENT_BYTES = 4 * 1024 * 1024;
/** Rows per insert: well under SQLite's bound on a statement's parameters. */
const INSERT_BATCH = 500;
const MAX_READ = 10_000;

/**
 * The `mcp_stream_events` part of a store: events of MCP sessions' SSE streams kept for clients that
 * resume a stream on another server. Reads are one range of the primary key; expired events read as
 * absent and are deleted by `pruneExpired`; a session's events go with it.
 *
 * @example
 * ```ts
 * await store.mcpStreamEvents.append(sessionId, [{ streamKey, seq: 0, message: null, expiresAt: Date.now() + 300_000 }]);
 * const events = await store.mcpStreamEvents.from(sessionId, streamKey, 0, 100);
 * ```
 */
export class McpStreamEventQueries implements StoreMcpStreamEvents {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async append(sessionId: string, events: readonly McpStreamEvent[]): Promise<number> {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) {
      throw new StoreValidationError(
        'sessionId',
        `sessionId ${describeValue(sessionId)} is invalid: use 1-128 visible ASCII characters (no spaces).`,
      );
    }
    if (!Array.isArray(events)) {
      throw new StoreValidationError('events', `events must be an array, got ${describeValue(events)}.`);
    }
    const rows = events.map((event, index) => rowOf(sessionId, event, index));
    let added = 0;
    try {
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const result = await this.#context.dialect.db
          .insertInto('mcp_stream_events')
          .values(rows.slice(start, start + INSERT_BATCH))
          .onConflict((conflict) => conflict.columns(['session_id', 'stream_key', 'seq']).doNothing())
          .executeTakeFirst();
        added += Number(result.numInsertedOrUpdatedRows ?? 0);
      }
    } catch (error) {
      // The session ended meanwhile: nothing to keep for it.
      if (this.#context.dialect.classifyError(error) === 'foreign-key') return added;
      throw error;
    }
    return added;
  }

  async from(
    sessionId: string,
    streamKey: string,
    seq: number,
    limit: number,
    now: number = Date.now(),
  ): Promise<McpStreamEvent[]> {
    if (!isKey(sessionId, SESSION_ID_PATTERN) || !isKey(streamKey, STREAM_KEY_PATTERN) || !isSeq(seq)) return [];
    if (!Number.isSafeInteger(limit) || limit < 1) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('mcp_stream_events')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('stream_key', '=', streamKey)
      .where('seq', '>=', seq)
      .where('expires_at', '>', now)
      .orderBy('seq')
      .limit(Math.min(limit, MAX_READ))
      .execute();
    return rows.map(eventOf);
  }

  async drop(sessionId: string, streamKey: string, throughSeq: number): Promise<number> {
    if (!isKey(sessionId, SESSION_ID_PATTERN) || !isKey(streamKey, STREAM_KEY_PATTERN) || !isSeq(throughSeq)) return 0;
    const result = await this.#context.dialect.db
      .deleteFrom('mcp_stream_events')
      .where('session_id', '=', sessionId)
      .where('stream_key', '=', streamKey)
      .where('seq', '<=', throughSeq)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async pruneExpired(now: number = Date.now()): Promise<number> {
    const result = await this.#context.dialect.db
      .deleteFrom('mcp_stream_events')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function rowOf(sessionId: string, event: unknown, index: number): McpStreamEventsTable {
  if (!isPlainObject(event)) {
    throw new StoreValidationError('events', `events[${index}] must be an object, got ${describeValue(event)}.`);
  }
  const { streamKey, seq, message, expiresAt } = event;
  if (!isKey(streamKey, STREAM_KEY_PATTERN)) {
    throw new StoreValidationError(
      'streamKey',
      `events[${index}].streamKey ${describeValue(streamKey)} is invalid: use 1-64 letters, digits or '-'.`,
    );
  }
  if (!isSeq(seq)) {
    throw new StoreValidationError(
      'seq',
      `events[${index}].seq must be a whole number of at least 0, got ${describeValue(seq)}.`,
    );
  }
  if (message !== null && (typeof message !== 'string' || Buffer.byteLength(message) > EVENT_BYTES)) {
    throw new StoreValidationError(
      'message',
      `events[${index}].message must be null or JSON text of at most ${EVENT_BYTES} bytes, got ${typeof message === 'string' ? `${Buffer.byteLength(message)} bytes` : describeValue(message)}.`,
    );
  }
  if (typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt) || expiresAt <= 0) {
    throw new StoreValidationError(
      'expiresAt',
      `events[${index}].expiresAt must be a time in whole milliseconds since the epoch, got ${describeValue(expiresAt)}.`,
    );
  }
  return { session_id: sessionId, stream_key: streamKey, seq, message, expires_at: expiresAt };
}

function isKey(value: unknown, pattern: RegExp): value is string {
  return typeof value === 'string' && pattern.test(value);
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function eventOf(row: Selectable<McpStreamEventsTable>): McpStreamEvent {
  return {
    streamKey: row.stream_key,
    seq: Number(row.seq),
    message: row.message,
    expiresAt: Number(row.expires_at),
  };
}
