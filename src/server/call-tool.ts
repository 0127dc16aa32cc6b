import { ToolResult } from '../core/tool-result.js';
import { READ_TOOL_OUTPUT } from '../registry/read-tool-output.js';
import type { ApprovalRecord, TokenIdentity } from '../store/index.js';
import { toolNotFound } from './api-error.js';
import type { CallAdmitted, CallRefused } from './call-quotas.js';
import type { ServerContext } from './server-context.js';
import { unavailableReason } from './tool-availability.js';
import { toolScopeOf } from './tool-scope.js';

/**
 * A tool call through the service, REST's `POST /api/tools/:id/call` for the request's token: find the
 * tools `agentId` may use (or with no agent the workspace's), call `name` there, log the call in
 * `tool_calls` and count it in the metrics. A name outside those tools is a 404 naming the closest of
 * them; a tool without a handler on this server is an `EXECUTION_FAILED` result saying why
 * (`unavailableReason`); a call past the token's or workspace's concurrent-call quota is a `RATE_LIMITED` result, counted but neither run nor logged. An agent the
 * workspace does not have is the store's not-found error.
 *
 * @example
 * ```ts
 * const result = await callTool(context, request.tokenIdentity, 'calculator', { expression: '2 + 3' }, undefined);
 * result.status; // 'success'
 * ```
 */
export async function callTool(
  context: ServerContext,
  identity: TokenIdentity,
  name: string,
  args: unknown,
  agentId: string | undefined,
): Promise<ToolResult> {
  const scope = await toolScopeOf(context, identity.workspaceId, agentId);
  // The output reader is no row: every view whose tools truncate output has it, as over MCP.
  const reader = name === READ_TOOL_OUTPUT && scope.registry.has(name);
  if (!scope.names.has(name) && !reader) {
    throw toolNotFound(
      agentId === undefined
        ? `Tool '${name}' does not exist in this workspace.`
        : `Tool '${name}' is not available to agent '${agentId}'.`,
      name,
      scope.names,
    );
  }
  if (!scope.registry.has(name)) {
    const record = scope.records.get(name);
    const reason = record === undefined ? undefined : unavailableReason(record, scope.registry);
    const result = ToolResult.error('EXECUTION_FAILED', reason ?? `Tool '${name}' has no handler on this server.`, {
      metadata: { tool: name },
    });
    await recordCall(context, identity.workspaceId, name, result, agentId);
    return result;
  }
  const admission = admitCall(context, identity, name);
  if (!admission.admitted) return admission.result;
  let result: ToolResult;
  try {
    result = await scope.registry.call(name, args, {
      context: {
        ...(Object.hasOwn(scope.config, name) ? { config: scope.config[name] } : {}),
        // Stored with an approval the call may need, so the approved call runs with the same tools.
        ...(agentId === undefined ? {} : { agentId }),
      },
    });
  } finally {
    admission.release();
  }
  await recordCall(context, identity.workspaceId, name, result, agentId);
  return result;
}

/**
 * Run a call a person just approved (`record`, already decided `approve`) with the tools of the agent
 * that asked for it, then log and count it as {@link callTool} does. `release` (the call's quota
 * admission, taken before the decision was stored) is called once the call has finished, before it
 * is logged.
 *
 * @example
 * ```ts
 * const record = await context.store.approvals('acme').getRecord('apr_1');
 * const result = await callApprovedTool(context, 'acme', record, admission.release);
 * ```
 */
export async function callApprovedTool(
  context: ServerContext,
  workspaceId: string,
  record: ApprovalRecord,
  release?: () => void,
): Promise<ToolResult> {
  const scope = await toolScopeOf(context, workspaceId, record.agentId ?? undefined);
  const result = await scope.registry.resolveApproval(record.id, 'approve', {
    ...(Object.hasOwn(scope.config, record.toolId) ? { context: { config: scope.config[record.toolId] } } : {}),
  });
  release?.();
  await recordCall(context, workspaceId, record.toolId, result, record.agentId);
  return result;
}

/**
 * Log a finished call in `tool_calls` and count it in the metrics (the MCP endpoint calls through its
 * own session and logs here).
 *
 * @example
 * ```ts
 * await recordCall(context, 'acme', 'calculator', result, 'agt_1');
 * ```
 */
export async function recordCall(
  context: ServerContext,
  workspaceId: string,
  name: string,
  result: ToolResult,
  agentId: string | undefined | null,
): Promise<void> {
  context.metrics.observe(name, result);
  await context.store.toolCalls.record(workspaceId, {
    agentId: agentId ?? null,
    toolId: name,
    status: result.status,
    errorCode: result.status === 'success' || result.status === 'pending_approval' ? null : result.error.code,
    durationMs: Math.max(0, result.metadata.durationMs),
  });
}

/**
 * Let a call of `tool` for `identity` in under the concurrent-call quotas; a refused call is counted in
 * the metrics (it is never run, so never logged).
 *
 * @example
 * ```ts
 * const admission = admitCall(context, request.tokenIdentity, 'search');
 * if (!admission.admitted) return admission.result;
 * ```
 */
export function admitCall(context: ServerContext, identity: TokenIdentity, tool: string): CallAdmitted | CallRefused {
  const admission = context.calls.admit(identity, tool);
  if (!admission.admitted) context.metrics.observe(tool, admission.result);
  return admission;
}
