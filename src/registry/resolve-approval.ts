import { takeApproval } from '../core/approvals.js';
import type { CallContextOptions } from '../core/call-context.js';
import {
  type CallOptions,
  type DispatchRuntime,
  deliverFailure,
  type PreparedTool,
  runApproved,
  stampResult,
} from '../core/dispatch.js';
import { type ResultMetadata, ToolResult } from '../core/tool-result.js';
import { loadValidatorCompiler } from './prepare-tool.js';

/** Options of `registry.resolveApproval`. */
export interface ResolveApprovalOptions {
  /** The arguments the approver saw; refused when they differ from the stored call (tampering). */
  expectedArguments?: unknown;
  signal?: AbortSignal;
  context?: CallContextOptions;
  /**
   * Set when the tool can no longer be called where the call was asked (removed from the workspace,
   * detached from the agent since): an approval is then used up without running the call, which
   * answers `TOOL_NOT_FOUND` with this message.
   */
  unavailable?: string;
}

/**
 * Decide the pending approval `id` kept in `runtime.approvals`: `approve` runs the stored call exactly
 * once (the tool found by `find`, by then maybe removed, or no longer available as
 * `options.unavailable` says: then it answers `TOOL_NOT_FOUND`, unrun) and answers its result; `deny` answers
 * `CANCELLED`. Throws `APPROVAL_INVALID` for an unknown or already decided id, or for other arguments.
 *
 * @example
 * ```ts
 * const result = await resolveApproval(runtime, (name) => prepared.get(name), 'appr_1', 'approve');
 * ```
 */
export async function resolveApproval(
  runtime: DispatchRuntime,
  find: (name: string) => PreparedTool | undefined,
  id: string,
  decision: 'approve' | 'deny',
  options: ResolveApprovalOptions = {},
): Promise<ToolResult> {
  const taken = await takeApproval(runtime.approvals, id, options.expectedArguments);
  const started = performance.now();
  if (decision === 'deny') {
    // Never run, but a call all the same: the hooks and the span see it, as any refused call.
    return deliverFailure(
      taken.tool,
      JSON.parse(taken.arguments),
      denialOptions(options, taken.toolCallId),
      runtime,
      ToolResult.error('CANCELLED', `The call to '${taken.tool}' was denied by the approver; do not retry it.`, {
        metadata: { approvalId: id },
      }),
      id,
    );
  }
  const prepared = options.unavailable === undefined ? find(taken.tool) : undefined;
  if (prepared === undefined) {
    return stampResult(
      ToolResult.error(
        'TOOL_NOT_FOUND',
        options.unavailable ?? `Tool '${taken.tool}' was removed before its approved call could run.`,
      ),
      taken.tool,
      started,
    );
  }
  // The approved call skips input validation, which is what loads the output validator's compiler.
  await loadValidatorCompiler();
  const metadata: ResultMetadata = { tool: taken.tool, durationMs: 0, approvalId: id };
  if (taken.toolCallId !== undefined) metadata.toolCallId = taken.toolCallId;
  const callOptions: CallOptions = {};
  if (options.signal !== undefined) callOptions.signal = options.signal;
  if (options.context !== undefined) callOptions.context = options.context;
  if (taken.toolCallId !== undefined) callOptions.toolCallId = taken.toolCallId;
  return runApproved(
    prepared,
    JSON.parse(taken.arguments) as Record<string, unknown>,
    callOptions,
    runtime,
    metadata,
    started,
  );
}

function denialOptions(options: ResolveApprovalOptions, toolCallId: string | undefined): CallOptions {
  const callOptions: CallOptions = {};
  if (options.context !== undefined) callOptions.context = options.context;
  if (toolCallId !== undefined) callOptions.toolCallId = toolCallId;
  return callOptions;
}
