import type { FastifyInstance } from 'fastify';
import { canonicalJson } from '../core/approvals.js';
import { describeValue } from '../core/define-tool.js';
import { inTraceContext } from '../core/tracing.js';
import { ApiError, notFound, validationError } from './api-error.js';
import { toolCallView } from './api-views.js';
import { requireObjectBody } from './body-validation.js';
import { admitCall, callApprovedTool } from './call-tool.js';
import type { ServerContext } from './server-context.js';

/** `GET /api/calls` (the call log) and `POST /api/approvals/:id` (decide a pending call). */
export function registerActivityRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get<{ Querystring: Record<string, unknown> }>('/api/calls', async (request) => {
    const { agent_id: agentId, tool_id: toolId, limit } = request.query;
    if (agentId !== undefined && typeof agentId !== 'string') {
      throw validationError('agent_id', `'agent_id' must be given once, got ${describeValue(agentId)}.`);
    }
    if (toolId !== undefined && typeof toolId !== 'string') {
      throw validationError('tool_id', `'tool_id' must be given once, got ${describeValue(toolId)}.`);
    }
    let count: number | undefined;
    if (limit !== undefined) {
      count = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Number(limit) : Number.NaN;
      if (!(count >= 1 && count <= 500)) {
        throw validationError('limit', `'limit' must be a whole number from 1 to 500, got ${describeValue(limit)}.`);
      }
    }
    const calls = await store.toolCalls.listRecent(request.workspaceId, {
      ...(agentId === undefined ? {} : { agentId }),
      ...(toolId === undefined ? {} : { toolId }),
      ...(count === undefined ? {} : { limit: count }),
    });
    return { calls: calls.map(toolCallView) };
  });

  app.post<{ Params: { id: string } }>('/api/approvals/:id', async (request) => {
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
    const admission = decision === 'approve' ? admitCall(context, request.tokenIdentity, record.toolId) : undefined;
    if (admission !== undefined && !admission.admitted) {
      const { message, hint } = admission.result.error;
      throw new ApiError(429, 'RATE_LIMITED', `${message} The approval is still pending.`, { hint });
    }
    try {
      try {
        await approvals.decide(id, decision);
      } catch (error) {
        if (ApiError.isInstance(error)) throw error;
        throw new ApiError(409, 'APPROVAL_INVALID', `Approval '${id}' was already decided.`);
      }
      if (decision === 'deny') {
        return { approval: { id, status: 'denied' } };
      }
      const result = await inTraceContext(request.headers, () =>
        callApprovedTool(context, workspaceId, record, admission?.release),
      );
      return { approval: { id, status: 'used' }, result };
    } finally {
      admission?.release();
    }
  });
}
