import type { CallHook, CallInfo } from '../core/dispatch.js';
import type { ToolResult } from '../core/tool-result.js';

/** The part of a pino logger the hook uses (pino's `Logger` fits; so do most structured loggers). */
export interface StructuredLogger {
  info(object: Record<string, unknown>, message?: string): void;
  warn(object: Record<string, unknown>, message?: string): void;
  debug?(object: Record<string, unknown>, message?: string): void;
}

/** Options of {@link createLoggerHook}. */
export interface LoggerHookOptions {
  /** Also log each call as it starts, at debug level (default false). */
  logStart?: boolean;
  /** Include arguments in the log (default false: arguments may hold personal data). */
  logArguments?: boolean;
}

/**
 * A middleware hook that logs every call's outcome with a pino (or pino-compatible) logger: tool,
 * status, error code and duration; failures at `warn`, successes at `info`. Secrets never reach the
 * log: arguments are left out unless `logArguments` is set.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * registry.use(createLoggerHook(pino()));
 * ```
 */
export function createLoggerHook(logger: StructuredLogger, options: LoggerHookOptions = {}): CallHook {
  const hook: CallHook = {
    name: 'logger',
    after(call: CallInfo, result: ToolResult) {
      const entry: Record<string, unknown> = {
        tool: call.tool,
        status: result.status,
        durationMs: Math.round(result.metadata.durationMs * 1000) / 1000,
      };
      if (call.toolCallId !== undefined) entry.toolCallId = call.toolCallId;
      if (options.logArguments === true) entry.args = call.args;
      if (result.status === 'success' || result.status === 'pending_approval') {
        logger.info(entry, 'tool call');
      } else {
        entry.errorCode = result.error.code;
        entry.error = result.error.message;
        logger.warn(entry, 'tool call failed');
      }
    },
  };
  if (options.logStart === true) {
    hook.before = (call: CallInfo) => {
      const entry: Record<string, unknown> = { tool: call.tool };
      if (options.logArguments === true) entry.args = call.args;
      logger.debug?.(entry, 'tool call started');
    };
  }
  return hook;
}
