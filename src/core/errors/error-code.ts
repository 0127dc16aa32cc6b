/**
 * Why a tool call did not succeed. Every failed {@link ToolResult} carries exactly one of these.
 *
 * - `TOOL_NOT_FOUND` — no tool has that name; the message lists the closest names and the available ones.
 * - `NOT_ATTACHED` — the tool exists but is not attached to the agent that called it.
 * - `DISABLED` — the tool exists but is switched off.
 * - `INVALID_ARGUMENTS` — the arguments are not valid JSON or do not match the tool's input schema (or a
 *   `callMany` entry is not a call).
 * - `MISSING_CREDENTIALS` — an environment variable the tool requires is not set.
 * - `EXECUTION_FAILED` — the handler threw or rejected.
 * - `TIMEOUT` — the handler did not finish before its deadline.
 * - `CANCELLED` — the caller aborted the call.
 * - `OUTPUT_INVALID` — the handler's output does not match the tool's output schema.
 * - `OUTPUT_TOO_LARGE` — the output exceeds what may be returned, even truncated.
 * - `RATE_LIMITED` — too many calls; retry later.
 * - `UPSTREAM_UNAVAILABLE` — the tool's MCP server is down (being reconnected); retry later.
 */
export type ErrorCode =
  | 'TOOL_NOT_FOUND'
  | 'NOT_ATTACHED'
  | 'DISABLED'
  | 'INVALID_ARGUMENTS'
  | 'MISSING_CREDENTIALS'
  | 'EXECUTION_FAILED'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'OUTPUT_INVALID'
  | 'OUTPUT_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE';

/** Every {@link ErrorCode}, in documentation order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  'TOOL_NOT_FOUND',
  'NOT_ATTACHED',
  'DISABLED',
  'INVALID_ARGUMENTS',
  'MISSING_CREDENTIALS',
  'EXECUTION_FAILED',
  'TIMEOUT',
  'CANCELLED',
  'OUTPUT_INVALID',
  'OUTPUT_TOO_LARGE',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
]);

/**
 * Whether the same call may succeed when simply tried again (`TIMEOUT`, `RATE_LIMITED`,
 * `UPSTREAM_UNAVAILABLE`), as opposed to
 * needing different arguments, configuration or a different tool.
 *
 * @example
 * ```ts
 * isRetryable('TIMEOUT'); // true
 * ```
 */
export function isRetryable(code: ErrorCode): boolean {
  switch (code) {
    case 'TIMEOUT':
    case 'RATE_LIMITED':
    case 'UPSTREAM_UNAVAILABLE':
      return true;
    case 'TOOL_NOT_FOUND':
    case 'NOT_ATTACHED':
    case 'DISABLED':
    case 'INVALID_ARGUMENTS':
    case 'MISSING_CREDENTIALS':
    case 'EXECUTION_FAILED':
    case 'CANCELLED':
    case 'OUTPUT_INVALID':
    case 'OUTPUT_TOO_LARGE':
      return false;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}
