/**
 * toolshed/server — the REST API of the service on Fastify (SPEC §9.2). Node-only. Route modules and
 * the per-workspace registry cache are internal.
 */

export { answerClientError } from './answer-client-error.js';
export type { ApiErrorBody, ApiErrorCode } from './api-error.js';
export { ApiError } from './api-error.js';
export type {
  AgentView,
  AttachedToolView,
  DefaultToolSetView,
  RequiredEnvVarStatus,
  ToolCallView,
  ToolDetailView,
  ToolView,
} from './api-shapes.js';
export type {
  ActiveCallLimit,
  CallLimitsOptions,
  LimitedCall,
  LimitsPassed,
  LimitsRefused,
} from './call-limits.js';
export {
  CallLimits,
  CONCURRENCY_RETRY_MS,
  DEFAULT_SLOT_LEASE_MS,
  isLimitRefusal,
  LIMITS_CACHE_MS,
  retryAfterMsOf,
} from './call-limits.js';
export type { CallAdmitted, CallQuotaOptions, CallRefused } from './call-quotas.js';
export {
  CallQuotas,
  DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN,
  DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE,
} from './call-quotas.js';
export type { ServerLogOptions, ServerOptions, ServerRoute } from './create-server.js';
export {
  createServer,
  DEFAULT_BODY_LIMIT,
  DEFAULT_PRUNE_INTERVAL_MS,
  reloadServedConfig,
  serverRoutes,
} from './create-server.js';
export type { ServerMcpOptions } from './mcp-routes.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TOKEN,
  DEFAULT_MAX_SESSIONS_PER_WORKSPACE,
} from './mcp-session-limits.js';
export type { OAuthIdentity, OAuthVerifier } from './oauth-tokens.js';
export {
  createOAuthVerifier,
  looksLikeJwt,
  OAUTH_ALGORITHMS,
  OAUTH_CLOCK_TOLERANCE_SECONDS,
  OAuthTokenError,
} from './oauth-tokens.js';
export type { ServedConfig, ServedConfigSync, ServedToolSource } from './served-config.js';
export { syncServedConfig } from './served-config.js';
export type { ServiceBuiltins, ServiceBuiltinsOptions } from './service-builtins.js';
export { createServiceBuiltins } from './service-builtins.js';
