import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { canonicalJson } from '../core/approvals.js';
import { describeValue } from '../core/define-tool.js';
import { ToolResult } from '../core/tool-result.js';
import { inTraceContext } from '../core/tracing.js';
import { STORE_LIMITS, TOOL_CALL_STATUSES, type ToolCallStatus } from '../store/index.js';
import { ApiError, notFound, refuseUnknownQuery, validationError } from './api-error.js';
import { toolCallView } from './api-views.js';
import { requireObjectBody } from './body-validation.js';
import { isLimitRefusal, retryAfterMsOf } from './call-limits.js';
import { admitCall, callApprovedTool, refuseApprovedTool } from './call-tool.js';
import type { ServerContext } from './server-context.js';

/** `GET /api/calls` (the call log) and `POST /api/approvals/:id` (decide a pending call). */
export function registerActivityRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get<{ Querystring: Record<string, unknown> }>('/api/calls', async (request, reply) => {
    const query = callQueryOf(request.query, request.headers.accept);
    const filter = {
      ...(query.agentId === undefined ? {} : { agentId: query.agentId }),
      ...(query.toolId === undefined ? {} : { toolId: query.toolId }),
      ...(query.tokenId === undefined ? {} : { tokenId: query.tokenId }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.since === undefined ? {} : { since: query.since }),
      ...(query.until === undefined ? {} : { until: query.until }),
    };
    const workspaceId = request.workspaceId;
    if (query.format === 'jsonl') {
      // Every call that matches (or `limit` of them), a line each, read a page at a time.
      const pages = async function* () {
        let beforeId = query.beforeId;
        let left = query.limit ?? Number.POSITIVE_INFINITY;
        while (left > 0) {
          const limit = Math.min(left, STORE_LIMITS.recentCalls);
          const calls = await store.toolCalls.listRecent(workspaceId, {
            ...filter,
            limit,
            ...(beforeId === undefined ? {} : { beforeId }),
          });
          if (calls.length > 0) yield calls.map((call) => `${JSON.stringify(toolCallView(call))}\n`).join('');
          if (calls.length < limit) return;
          left -= calls.length;
          beforeId = calls[calls.length - 1]?.id;
        }
      };
      reply.type('application/x-ndjson; charset=utf-8');
      return reply.send(Readable.from(pages()));
    }
    const limit = query.limit ?? DEFAULT_CALLS_PAGE;
    // One more than the page: whether there is a next page, without a second query.
    const calls = await store.toolCalls.listRecent(workspaceId, {
      ...filter,
      limit: Math.min(limit + 1, STORE_LIMITS.recentCalls),
      ...(query.beforeId === undefined ? {} : { beforeId: query.beforeId }),
    });
    const page = calls.slice(0, limit);
    const last = page[page.length - 1];
    const next = calls.length > limit && last !== undefined ? callCursorOf(last.id) : null;
    return { calls: page.map(toolCallView), next };
  });

  app.post<{ Params: { id: string } }>('/api/approvals/:id', async (request, reply) => {
    const body = requireObjectBody(request.body, ['decision', 'arguments']);
    const decision = body.decision;
    if (decision !== 'approve' && decision !== 'deny') {
      throw validationError('decision', `'decision' must be "approve" or "deny", got ${describeValue(decision)}.`);
    }
    const workspaceId = request.workspaceId;
    const approvals = store.approvals(workspaceId);
    const id = request.params.id;
    const record = await approvals.getRecord(id);
    if (record === undefined) throw notFound(`Approval '${id}' does not exist in this workspace.`);
    if (body.arguments !== undefined && canonicalJson(body.arguments) !== record.arguments) {
      throw new ApiError(
        409,
        'APPROVAL_INVALID',
        `Approval '${id}' was requested for other arguments than the ones sent; refusing to run it.`,
      );
    }
    if (record.status !== 'pending') {
      throw new ApiError(409, 'APPROVAL_INVALID', `Approval '${id}' was already decided (${record.status}).`);
    }
    // An approved call runs now: admitted before the decision is stored, so a refusal leaves it pending.
    const admission =
      decision === 'approve'
        ? await admitCall(context, request.tokenIdentity, record.toolId, record.agentId)
        : undefined;
    if (admission !== undefined && !admission.admitted) {
      // Never run, but logged, counted and traced as a refused call.
      const refusal = admission.result;
      await inTraceContext(request.headers, () =>
        refuseApprovedTool(context, workspaceId, record, refusal, request.tokenIdentity.tokenId),
      );
      const { message, hint } = admission.result.error;
      if (isLimitRefusal(admission.result)) {
        reply.header('retry-after', String(Math.ceil(retryAfterMsOf(admission.result) / 1000)));
      }
      throw new ApiError(429, 'RATE_LIMITED', `${message} The approval is still pending.`, {
        hint,
        ...(isLimitRefusal(admission.result) ? (admission.result.error.details as Record<string, unknown>) : {}),
      });
    }
    try {
      try {
        await approvals.decide(id, decision);
      } catch (error) {
        if (ApiError.isInstance(error)) throw error;
        throw new ApiError(409, 'APPROVAL_INVALID', `Approval '${id}' was already decided.`);
      }
      if (decision === 'deny') {
        const denied = ToolResult.error(
          'CANCELLED',
          `The call to '${record.toolId}' was denied by the approver; do not retry it.`,
        );
        await inTraceContext(request.headers, () =>
          refuseApprovedTool(context, workspaceId, record, denied, request.tokenIdentity.tokenId),
        );
        return { approval: { id, status: 'denied' } };
      }
      const result = await inTraceContext(request.headers, () =>
        callApprovedTool(context, workspaceId, record, admission?.release, request.tokenIdentity.tokenId),
      );
      return { approval: { id, status: 'used' }, result };
    } finally {
      admission?.release();
    }
  });
}

/** Calls on a page of `GET /api/calls` when `limit` is not given. */
const DEFAULT_CALLS_PAGE = 50;

/** Query parameters `GET /api/calls` takes; any other is refused. */
const CALL_QUERY_KEYS = ['agent_id', 'tool_id', 'token_id', 'status', 'since', 'until', 'cursor', 'limit', 'format'];

/** An ISO-8601 date, or date and time with a zone (`Z` or `±hh:mm`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Whether the `YYYY-MM-DD` an ISO time starts with is a day of the calendar (`Date.parse` rolls 02-30 over). */
function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

interface CallQuery {
  agentId?: string;
  toolId?: string;
  tokenId?: string;
  status?: ToolCallStatus;
  since?: string;
  until?: string;
  beforeId?: number;
  limit?: number;
  format: 'json' | 'jsonl';
}

/**
 * The query of `GET /api/calls` checked: each parameter once, a known status, ISO-8601 times in order,
 * a cursor this server gave out, a limit in range; JSON Lines when `format=jsonl` or the client
 * accepts `application/x-ndjson` (and not `application/json` before it).
 */
function callQueryOf(query: Record<string, unknown>, accept: string | undefined): CallQuery {
  refuseUnknownQuery(query, CALL_QUERY_KEYS);
  const text = (key: string, maxLength: number): string | undefined => {
    const value = query[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      throw validationError(key, `'${key}' must be given once, got ${describeValue(value)}.`);
    }
    if (value === '' || value.length > maxLength) {
      throw validationError(
        key,
        `'${key}' must be a non-empty string of at most ${maxLength} characters, got ${describeValue(value)}.`,
      );
    }
    return value;
  };
  const result: CallQuery = { format: 'json' };
  const agentId = text('agent_id', 128);
  if (agentId !== undefined) result.agentId = agentId;
  const toolId = text('tool_id', STORE_LIMITS.nameChars);
  if (toolId !== undefined) result.toolId = toolId;
  const tokenId = text('token_id', 128);
  if (tokenId !== undefined) result.tokenId = tokenId;
  const status = text('status', 32);
  if (status !== undefined) {
    if (!TOOL_CALL_STATUSES.includes(status as ToolCallStatus)) {
      throw validationError(
        'status',
        `'status' must be one of ${TOOL_CALL_STATUSES.join(', ')}, got ${describeValue(status)}.`,
      );
    }
    result.status = status as ToolCallStatus;
  }
  for (const key of ['since', 'until'] as const) {
    const value = text(key, 40);
    if (value === undefined) continue;
    if (!ISO_TIME.test(value) || Number.isNaN(Date.parse(value)) || !isCalendarDay(value)) {
      throw validationError(
        key,
        `'${key}' must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got ${describeValue(value)}.`,
      );
    }
    result[key] = new Date(Date.parse(value)).toISOString();
  }
  if (result.since !== undefined && result.until !== undefined && result.since >= result.until) {
    throw validationError('until', `'until' (${result.until}) must be after 'since' (${result.since}).`);
  }
  const cursor = text('cursor', 64);
  if (cursor !== undefined) {
    const beforeId = callCursorId(cursor);
    if (beforeId === undefined) {
      throw validationError(
        'cursor',
        `'cursor' is not a cursor this server gave out: pass the 'next' of the previous page unchanged, got ${describeValue(cursor)}.`,
      );
    }
    result.beforeId = beforeId;
  }
  const format = text('format', 16);
  if (format !== undefined && format !== 'json' && format !== 'jsonl') {
    throw validationError('format', `'format' must be "json" or "jsonl", got ${describeValue(format)}.`);
  }
  result.format = format ?? (acceptsNdjson(accept) ? 'jsonl' : 'json');
  const limit = query.limit;
  if (limit !== undefined) {
    const count = typeof limit === 'string' && /^\d{1,9}$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(count >= 1 && count <= (result.format === 'jsonl' ? 1_000_000 : STORE_LIMITS.recentCalls))) {
      throw validationError(
        'limit',
        result.format === 'jsonl'
          ? `'limit' must be a whole number from 1 to 1000000 with format=jsonl, got ${describeValue(limit)}.`
          : `'limit' must be a whole number from 1 to ${STORE_LIMITS.recentCalls}, got ${describeValue(limit)}.`,
      );
    }
    result.limit = count;
  }
  return result;
}

/** Whether an Accept header names `application/x-ndjson` (or `application/jsonl`) before any `application/json`. */
function acceptsNdjson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]?.trim().toLowerCase();
    if (type === 'application/x-ndjson' || type === 'application/jsonl') return true;
    if (type === 'application/json') return false;
  }
  return false;
}

/** The `next` cursor after a page ending at call `id`: opaque to clients. */
function callCursorOf(id: number): string {
  return Buffer.from(`calls:${id}`, 'utf8').toString('base64url');
}

function callCursorId(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = /^calls:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match === null ? Number.NaN : Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}
