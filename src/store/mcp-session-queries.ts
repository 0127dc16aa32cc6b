import type { Selectable } from 'kysely';
import { describeValue } from '../core/define-tool.js';
import type { ChangeFeed } from './change-feed.js';
import { MAX_SIGNAL_BYTES } from './change-feed.js';
import type { McpSessionsTable } from './database.js';
import { toIsoTimestamp } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import type { McpSessionInput, McpSessionRecord, McpSessionSignal } from './store-records.js';
import { isPlainObject, requireId, requireText, STORE_LIMITS, serializeJsonObject } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreMcpSessions } from './toolshed-store.js';

/** Session ids: what the MCP specification allows (visible ASCII), at most 128 characters. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** Bytes of JSON of a session's client info and of its client capabilities. */
const CLIENT_JSON_BYTES = 16 * 1024;
const SIGNAL_KINDS = new Set(['messages', 'closed', 'events']);

/**
 * The `mcp_sessions` part of a store, and the signals between servers about those sessions (on
 * PostgreSQL a `NOTIFY` on `toolshed_signals`, heard by every server on the database; on SQLite in
 * this process). Reads of a session are one primary-key lookup; an expired session reads as absent.
 *
 * @example
 * ```ts
 * await store.mcpSessions.create({ id, workspaceId: 'acme', scope: '/mcp', protocolVersion: '2025-11-25', clientInfo: {}, clientCapabilities: {}, expiresAt: Date.now() + 60_000 });
 * const session = await store.mcpSessions.get(id);
 * ```
 */
export class McpSessionQueries implements StoreMcpSessions {
  readonly #context: StoreContext;
  readonly #feed: ChangeFeed;

  constructor(context: StoreContext, feed: ChangeFeed) {
    this.#context = context;
    this.#feed = feed;
  }

  async create(input: McpSessionInput): Promise<McpSessionRecord> {
    if (!isPlainObject(input)) throw new StoreValidationError('session', 'An MCP session must be an object.');
    const id = requireSessionId(input.id);
    const workspaceId = requireId(input.workspaceId, 'workspaceId');
    const agentId = input.agentId === undefined || input.agentId === null ? null : requireId(input.agentId, 'agentId');
    const tokenId =
      input.tokenId === undefined || input.tokenId === null
        ? null
        : requireText(input.tokenId, 'tokenId', STORE_LIMITS.nameChars);
    const scope = requireText(input.scope, 'scope', 2048);
    const protocolVersion = requireText(input.protocolVersion, 'protocolVersion', 64);
    const clientInfo = serializeJsonObject(input.clientInfo, 'clientInfo', CLIENT_JSON_BYTES) ?? '{}';
    const clientCapabilities =
      serializeJsonObject(input.clientCapabilities, 'clientCapabilities', CLIENT_JSON_BYTES) ?? '{}';
    const expiresAt = requireMillis(input.expiresAt, 'expiresAt');
    const now = Date.now();
    try {
      const row = await this.#context.dialect.db
        .insertInto('mcp_sessions')
        .values({
          id,
          workspace_id: workspaceId,
          agent_id: agentId,
          token_id: tokenId,
          scope,
          protocol_version: protocolVersion,
          client_info: clientInfo,
          client_capabilities: clientCapabilities,
          last_seen_at: now,
          expires_at: expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return sessionRecordOf(row);
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspaceId);
    }
  }

  async get(id: string, now: number = Date.now()): Promise<McpSessionRecord | undefined> {
    if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('mcp_sessions')
      .selectAll()
      .where('id', '=', id)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row === undefined ? undefined : sessionRecordOf(row);
  }

  async touch(id: string, expiresAt: number, now: number = Date.now()): Promise<boolean> {
    if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) return false;
    const until = requireMillis(expiresAt, 'expiresAt');
    const result = await this.#context.dialect.db
      .updateTable('mcp_sessions')
      .set({ last_seen_at: now, expires_at: until })
      .where('id', '=', id)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<boolean> {
    if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) return false;
    const result = await this.#context.dialect.db.deleteFrom('mcp_sessions').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async pruneExpired(now: number = Date.now()): Promise<number> {
    const result = await this.#context.dialect.db
      .deleteFrom('mcp_sessions')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async signal(signal: McpSessionSignal): Promise<void> {
    if (!isSessionSignal(signal)) {
      throw new StoreValidationError(
        'signal',
        `An MCP session signal needs a sessionId, an origin, kind 'messages' or 'closed' and, for messages, an array; got ${describeValue(signal)}.`,
      );
    }
    const payload = JSON.stringify(signal);
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_SIGNAL_BYTES) {
      throw new StoreValidationError(
        'signal',
        `The MCP session signal is ${bytes} bytes of JSON; the limit is ${MAX_SIGNAL_BYTES} bytes.`,
      );
    }
    await this.#feed.signal(payload);
  }

  onSignal(listener: (signal: McpSessionSignal) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('onSignal needs a listener function.');
    return this.#feed.onSignal((payload) => {
      let value: unknown;
      try {
        value = JSON.parse(payload);
      } catch {
        return; // not a signal of ours
      }
      if (isSessionSignal(value)) listener(value);
    });
  }
}

function requireSessionId(value: unknown): string {
  if (typeof value === 'string' && SESSION_ID_PATTERN.test(value)) return value;
  throw new StoreValidationError(
    'id',
    `id ${describeValue(value)} is invalid: use 1-128 visible ASCII characters (no spaces).`,
  );
}

function requireMillis(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  throw new StoreValidationError(
    field,
    `${field} must be a time in whole milliseconds since the epoch, got ${describeValue(value)}.`,
  );
}

function isSessionSignal(value: unknown): value is McpSessionSignal {
  if (!isPlainObject(value)) return false;
  const { sessionId, origin, kind, messages } = value;
  return (
    typeof sessionId === 'string' &&
    SESSION_ID_PATTERN.test(sessionId) &&
    typeof origin === 'string' &&
    origin.length > 0 &&
    origin.length <= 200 &&
    typeof kind === 'string' &&
    SIGNAL_KINDS.has(kind) &&
    (kind === 'closed' ? messages === undefined : Array.isArray(messages))
  );
}

function sessionRecordOf(row: Selectable<McpSessionsTable>): McpSessionRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    tokenId: row.token_id,
    scope: row.scope,
    protocolVersion: row.protocol_version,
    clientInfo: parseObject(row.client_info),
    clientCapabilities: parseObject(row.client_capabilities),
    createdAt: toIsoTimestamp(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

function parseObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return isPlainObject(value) ? value : {};
}
