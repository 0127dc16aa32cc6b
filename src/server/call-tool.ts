import { hash } from 'node:crypto';
import { canonicalJson } from '../core/approvals.js';
import { ToolResult } from '../core/tool-result.js';
import { READ_TOOL_OUTPUT } from '../registry/read-tool-output.js';
import { type ApprovalRecord, STORE_LIMITS, StoreNotFoundError, type TokenIdentity } from '../store/index.js';
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
 * (`unavailableReason`); a call past the token's or workspace's concurrent-call quota, or past a
 * call limit of the workspace, is a `RATE_LIMITED` result, never run but counted, logged and traced
 * like any call (the admission runs inside the call's span, after the hooks' `before`). An agent the
 * workspace does not have is the store's not-found error.
 *
 * The answer carries the result's JSON text as the call log measured it, so the REST route sends it
 * without serializing the result a second time.
 *
 * @example
 * ```ts
 * const { result, json } = await callTool(context, request.tokenIdentity, 'calculator', { expression: '2 + 3' }, undefined);
 * result.status; // 'success'
 * json; // '{"status":"success","data":5,"metadata":{...}}'
 * ```
 */
export async function callTool(
  context: ServerContext,
  identity: TokenIdentity,
  name: string,
  args: unknown,
  agentId: string | undefined,
): Promise<LoggedCall> {
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
    const json = await recordCall(context, identity.workspaceId, name, result, agentId, {
      tokenId: identity.tokenId,
      args,
    });
    return { result, json };
  }
  // Admitted inside the call's door: a refused call passes the hooks and its span, and is logged.
  let admission: CallAdmitted | CallRefused | undefined;
  let result: ToolResult;
  try {
    result = await scope.registry.call(name, args, {
      context: {
        ...(Object.hasOwn(scope.config, name) ? { config: scope.config[name] } : {}),
        // Stored with an approval the call may need, so the approved call runs with the same tools.
        ...(agentId === undefined ? {} : { agentId }),
      },
      // Answered without a wait when nothing limits the call (the usual case).
      admit: () => {
        const verdict = admitCallNow(context, identity, name, agentId);
        if (verdict instanceof Promise) {
          return verdict.then((settled) => {
            admission = settled;
            return settled.admitted ? undefined : settled.result;
          });
        }
        admission = verdict;
        return verdict.admitted ? undefined : verdict.result;
      },
    });
  } finally {
    if (admission?.admitted) admission.release();
  }
  const json = await recordCall(context, identity.workspaceId, name, result, agentId, {
    tokenId: identity.tokenId,
    args,
  });
  return { result, json };
}

/** A call {@link callTool} made and logged: its result, and that result's JSON text (`undefined` when JSON cannot write it). */
export interface LoggedCall {
  result: ToolResult;
  json: string | undefined;
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
 * const result = await callApprovedTool(context, 'acme', record, admission.release, request.tokenIdentity.tokenId);
 * ```
 */
export async function callApprovedTool(
  context: ServerContext,
  workspaceId: string,
  record: ApprovalRecord,
  release?: () => void,
  tokenId?: string,
): Promise<ToolResult> {
  // The workspace registry still holds a tool deleted or detached since the call was asked (or whose
  // agent was deleted): the scope's names say whether the caller may still call it.
  const scope = await toolScopeOf(context, workspaceId, record.agentId ?? undefined).catch(async (error: unknown) => {
    if (record.agentId === null || !StoreNotFoundError.isInstance(error) || error.resource !== 'agent') throw error;
    const { registry, records, config } = await toolScopeOf(context, workspaceId);
    return { registry, names: new Set<string>(), records, config };
  });
  const unavailable = scope.names.has(record.toolId)
    ? undefined
    : record.agentId === null
      ? `Tool '${record.toolId}' was removed before its approved call could run.`
      : `Tool '${record.toolId}' is no longer available to agent '${record.agentId}' (removed or detached since the call was asked); the approved call did not run.`;
  const result = await scope.registry.resolveApproval(record.id, 'approve', {
    ...(Object.hasOwn(scope.config, record.toolId) ? { context: { config: scope.config[record.toolId] } } : {}),
    ...(unavailable === undefined ? {} : { unavailable }),
  });
  release?.();
  await recordCall(context, workspaceId, record.toolId, result, record.agentId, {
    ...(tokenId === undefined ? {} : { tokenId }),
    approvalId: record.id,
    argumentsJson: record.arguments,
  });
  return result;
}

/**
 * Answer a stored approval's call with `failure` instead of running it: a denial (`CANCELLED`) or a
 * refusal by a limit (`RATE_LIMITED`, the approval staying pending). The failure passes the hooks and
 * the `execute_tool` span of the agent's tools, then is logged with the approval's id and counted, as
 * {@link callApprovedTool} does for a run, so each refused call shows once wherever calls are seen.
 *
 * @example
 * ```ts
 * const denied = ToolResult.error('CANCELLED', "The call to 'delete_file' was denied by the approver; do not retry it.");
 * await refuseApprovedTool(context, 'acme', record, denied, request.tokenIdentity.tokenId);
 * ```
 */
export async function refuseApprovedTool(
  context: ServerContext,
  workspaceId: string,
  record: ApprovalRecord,
  failure: ToolResult,
  tokenId?: string,
): Promise<ToolResult> {
  const scope = await toolScopeOf(context, workspaceId, record.agentId ?? undefined);
  const stamped = { ...failure, metadata: { ...failure.metadata, approvalId: record.id } } as ToolResult;
  const result = scope.registry.has(record.toolId)
    ? await scope.registry.call(record.toolId, JSON.parse(record.arguments), {
        ...(record.agentId === null ? {} : { context: { agentId: record.agentId } }),
        admit: () => stamped,
      })
    : stamped;
  await recordCall(context, workspaceId, record.toolId, result, record.agentId, {
    ...(tokenId === undefined ? {} : { tokenId }),
    approvalId: record.id,
    argumentsJson: record.arguments,
  });
  return result;
}

/** Who made a logged call and with what: the audit columns of its `tool_calls` row. */
export interface CallAudit {
  /** The API token's id (never the token). */
  tokenId?: string;
  /** The approval an approved call ran under. */
  approvalId?: string;
  /** The arguments as the caller sent them (an object, or JSON text). */
  args?: unknown;
  /** The arguments as canonical JSON already (an approval's), digested as they are. */
  argumentsJson?: string;
}

/**
 * Log a finished call in `tool_calls` and count it in the metrics (the MCP endpoint calls through its
 * own session and logs here). The row names the token, the agent and the approval, and keeps the
 * SHA-256 of the arguments' canonical JSON ({@link argumentsDigest}) and the byte size of the result's
 * JSON — never the arguments or the result themselves. Answers that JSON text, made once to count its
 * bytes, so a caller that sends the result can send it as it is; `undefined` for a result JSON cannot
 * write (a BigInt, a cycle).
 *
 * @example
 * ```ts
 * const json = await recordCall(context, 'acme', 'calculator', result, 'agt_1', { tokenId: 'tok_1', args: { expression: '2 + 3' } });
 * ```
 */
export async function recordCall(
  context: ServerContext,
  workspaceId: string,
  name: string,
  result: ToolResult,
  agentId: string | undefined | null,
  audit: CallAudit = {},
): Promise<string | undefined> {
  context.metrics.observe(name, result);
  // `null` bytes for a result JSON cannot write (a BigInt, a cycle).
  let json: string | undefined;
  let resultBytes: number | null;
  try {
    json = JSON.stringify(result);
    resultBytes = json === undefined ? 0 : Buffer.byteLength(json);
  } catch {
    resultBytes = null;
  }
  await context.store.toolCalls.record(workspaceId, {
    agentId: agentId ?? null,
    toolId: loggedToolId(name),
    status: result.status,
    errorCode: result.status === 'success' || result.status === 'pending_approval' ? null : result.error.code,
    durationMs: Math.max(0, result.metadata.durationMs),
    tokenId: audit.tokenId ?? null,
    approvalId: audit.approvalId ?? (result.status === 'pending_approval' ? result.approval.id : null),
    argumentsDigest:
      audit.argumentsJson !== undefined
        ? sha256(audit.argumentsJson)
        : audit.args === undefined
          ? null
          : argumentsDigest(audit.args),
    resultBytes,
  });
  return json;
}

/**
 * The name a call is logged under: the name it asked for, or, for one no tool can have, a stand-in
 * the log can hold — `(no name)` for an empty one, the first 199 characters and `…` for a longer one
 * than a tool id may be — so every call is in the log, a refused one too.
 */
function loggedToolId(name: string): string {
  if (name.trim() === '') return '(no name)';
  return name.length > STORE_LIMITS.nameChars ? `${name.slice(0, STORE_LIMITS.nameChars - 1)}…` : name;
}

/**
 * The SHA-256 (hex) of a call's arguments as canonical JSON (keys sorted, as approvals store them), so
 * the same arguments give the same digest however they were sent. JSON text is parsed first; text
 * that is not JSON, or nested too deep to put in canonical form, is digested as it is. Arguments
 * given as an object too deep to serialize (refused by validation anyway) have no digest: `null`.
 *
 * @example
 * ```ts
 * argumentsDigest({ b: 1, a: 2 }) === argumentsDigest('{"a":2,"b":1}'); // true
 * ```
 */
export function argumentsDigest(args: unknown): string | null {
  try {
    if (typeof args === 'string') {
      try {
        return sha256(canonicalJson(JSON.parse(args)));
      } catch {
        return sha256(args);
      }
    }
    return sha256(canonicalJson(args ?? {}));
  } catch {
    return null;
  }
}

function sha256(text: string): string {
  // The one-shot form: a fraction of the time of createHash().update().digest() for a short text.
  return hash('sha256', text, 'hex');
}

/**
 * Let a call of `tool` for `identity` (and `agentId`) in: first under the server's concurrent-call
 * quotas (in this process), then under the workspace's call limits (shared through the store). A
 * refusal is only answered here: the caller delivers it as the call's result, which is then logged
 * and counted like any other ({@link recordCall}, {@link refuseApprovedTool}).
 *
 * @example
 * ```ts
 * const admission = await admitCall(context, request.tokenIdentity, 'search', 'research');
 * if (!admission.admitted) return admission.result;
 * ```
 */
export async function admitCall(
  context: ServerContext,
  identity: TokenIdentity,
  tool: string,
  agentId?: string | null,
): Promise<CallAdmitted | CallRefused> {
  return admitCallNow(context, identity, tool, agentId);
}

type LimitsVerdict = Awaited<ReturnType<ServerContext['limits']['admit']>>;

/** {@link admitCall}, answered without a promise when neither a quota nor a limit has to wait. */
function admitCallNow(
  context: ServerContext,
  identity: TokenIdentity,
  tool: string,
  agentId?: string | null,
): CallAdmitted | CallRefused | Promise<CallAdmitted | CallRefused> {
  const quota = context.calls.admit(identity, tool);
  if (!quota.admitted) return quota;
  let limits: LimitsVerdict | Promise<LimitsVerdict>;
  try {
    // Written out, not spread from `identity`: on Node 20 a spread followed by keys the spread object
    // does not have takes V8's slow path, about half a microsecond on every call (decision 019).
    limits = context.limits.admitNow({
      workspaceId: identity.workspaceId,
      tokenId: identity.tokenId,
      tool,
      agentId: agentId ?? null,
    });
  } catch (error) {
    quota.release();
    throw error;
  }
  if (limits instanceof Promise) {
    return limits.then(
      (settled) => combinedAdmission(quota, settled),
      (error: unknown) => {
        quota.release();
        throw error;
      },
    );
  }
  return combinedAdmission(quota, limits);
}

/** One admission of a call let in under the quotas (`quota`) and judged by the limits (`limits`). */
function combinedAdmission(quota: CallAdmitted, limits: LimitsVerdict): CallAdmitted | CallRefused {
  if (!limits.admitted) {
    quota.release();
    return { admitted: false, result: limits.result };
  }
  return {
    admitted: true,
    release: () => {
      limits.release();
      quota.release();
    },
  };
}
