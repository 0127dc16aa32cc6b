import type { LogLevel } from '../core/tool-spec.js';
import { toolshedVersion } from '../registry/toolshed-version.js';

/**
 * What the servers of both protocol eras ({@link createMcpServer} for 2025-11-25 sessions,
 * `createModernMcpServer` for 2026-07-28 requests) say about themselves and serve alike, kept in one
 * place so the two never drift apart.
 */

/** The levels of `logging/setLevel`, least severe first (RFC 5424's, as MCP names them). */
export const LOG_LEVELS: readonly LogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** How many tools, prompts or resources a list page holds when the options name no `pageSize`. */
export const DEFAULT_PAGE_SIZE = 200;

/**
 * The server's name and version in `initialize` and `server/discover`: the options' own, else
 * `toolshed` and its package version.
 *
 * @example
 * ```ts
 * serverInfoOf({}); // { name: 'toolshed', version: '0.1.0' }
 * serverInfoOf({ name: 'acme-tools', version: '2.0.0' }); // { name: 'acme-tools', version: '2.0.0' }
 * ```
 */
export function serverInfoOf(options: { name?: string; version?: string }): { name: string; version: string } {
  return { name: options.name ?? 'toolshed', version: options.version ?? toolshedVersion() };
}

/**
 * The capabilities both eras declare: tools, prompts and resources (with `list_changed`, and
 * subscriptions to resources), logging and completions. A fresh object each time, since the SDK's
 * server keeps and extends the one it is given; the 2025-11-25 server adds `tasks` to it.
 *
 * @example
 * ```ts
 * servedCapabilities().tools; // { listChanged: true }
 * ```
 */
export function servedCapabilities() {
  return {
    tools: { listChanged: true },
    logging: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
  };
}
