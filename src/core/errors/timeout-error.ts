import { ToolshedError } from './toolshed-error.js';

/**
 * The error a handler's `ctx.signal` is aborted with when its deadline passes.
 *
 * @example
 * ```ts
 * handler: async (args, ctx) => {
 *   ctx.signal.addEventListener('abort', () => {
 *     if (ctx.signal.reason instanceof TimeoutError) console.log('out of time');
 *   });
 * }
 * ```
 */
export class TimeoutError extends ToolshedError<'TIMEOUT'> {
  constructor(message: string) {
    super('TIMEOUT', message);
    this.name = 'TimeoutError';
  }
}
