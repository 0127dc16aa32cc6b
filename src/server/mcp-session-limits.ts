/**
 * The default of `maxSessionsPerToken`: most MCP sessions one API token may hold open.
 *
 * @example
 * ```ts
 * createServer({ store, mcp: { maxSessionsPerToken: DEFAULT_MAX_SESSIONS_PER_TOKEN * 2 } });
 * ```
 */
export const DEFAULT_MAX_SESSIONS_PER_TOKEN = 100;

/**
 * The default of `maxSessionsPerWorkspace`: most MCP sessions one workspace may hold open, all its
 * tokens together — a fifth of {@link DEFAULT_MAX_SESSIONS}, so at least four other workspaces' worth
 * of sessions always remain.
 *
 * @example
 * ```ts
 * createServer({ store, mcp: { maxSessionsPerWorkspace: DEFAULT_MAX_SESSIONS_PER_WORKSPACE / 2 } });
 * ```
 */
export const DEFAULT_MAX_SESSIONS_PER_WORKSPACE = 200;

/**
 * The default of `maxSessions`: most MCP sessions the server holds open, all workspaces together.
 *
 * @example
 * ```ts
 * createServer({ store, mcp: { maxSessions: DEFAULT_MAX_SESSIONS * 4, maxSessionsPerWorkspace: 800 } });
 * ```
 */
export const DEFAULT_MAX_SESSIONS = 1000;
