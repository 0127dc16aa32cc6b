import type { FastifyInstance } from 'fastify';
import { describeValue } from '../core/define-tool.js';
import {
  CALL_LIMIT_SCOPES,
  type CallLimitInput,
  type CallLimitScope,
  MAX_CALL_LIMIT,
  MIN_CALLS_PER_MINUTE,
  STORE_LIMITS,
} from '../store/index.js';
import { notFound, validationError, workspaceToolNotFound } from './api-error.js';
import type { CallLimitView } from './api-shapes.js';
import { requireObjectBody } from './body-validation.js';
import { type ActiveCallLimit, burstOf } from './call-limits.js';
import type { ServerContext } from './server-context.js';

/** Fields of the body of `PUT /api/limits/...`. */
const LIMIT_FIELDS = ['calls_per_minute', 'burst', 'max_concurrent'];

/**
 * The workspace's call limits: `GET /api/limits` (every limit in force, stored and configured),
 * `PUT /api/limits/workspace` and `PUT /api/limits/:scope/:target` (`token`, `agent` or `tool`) with
 * `{calls_per_minute?, burst?, max_concurrent?}` to set one as a row, `DELETE` on the same paths to
 * remove it. A stored limit takes the place of a configured one of the same scope and target.
 */
export function registerLimitRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store, limits } = context;

  app.get('/api/limits', async (request) => {
    limits.invalidate(request.workspaceId);
    return { limits: (await limits.list(request.workspaceId)).map(callLimitView) };
  });

  const put = async (workspaceId: string, scope: string, target: string | undefined, body: unknown) => {
    const input = limitInputOf(scope, target, body);
    if (typeof input.target === 'string') await requireTarget(workspaceId, input.scope, input.target);
    const record = await store.callLimits.set(workspaceId, input);
    limits.invalidate(workspaceId);
    return {
      limit: callLimitView({ ...record, source: 'api' }),
    };
  };
  // A limit on a tool, agent or token the workspace does not have would hold nothing: a typo, named.
  const requireTarget = async (workspaceId: string, scope: CallLimitScope, target: string) => {
    if (scope === 'tool') {
      if ((await store.tools.get(workspaceId, target)) !== undefined) return;
      const message = `Tool ${describeValue(target)} does not exist in this workspace.`;
      throw await workspaceToolNotFound(store, workspaceId, message, target);
    }
    if (scope === 'agent' && (await store.agents.get(workspaceId, target)) === undefined) {
      throw notFound(`Agent ${describeValue(target)} does not exist in this workspace.`);
    }
    if (scope === 'token' && !(await store.tokens.list(workspaceId)).some((token) => token.id === target)) {
      throw notFound(
        `Token ${describeValue(target)} does not exist in this workspace (name a token by its id, tok_…).`,
      );
    }
  };
  const remove = async (workspaceId: string, scope: string, target: string | undefined) => {
    const checked = scopeOf(scope, target);
    if (!(await store.callLimits.delete(workspaceId, checked, target))) {
      throw notFound(
        target === undefined
          ? `This workspace has no stored ${scope} limit.`
          : `This workspace has no stored limit for ${scope} '${target}'.`,
      );
    }
    limits.invalidate(workspaceId);
  };

  app.put<{ Params: { scope: string } }>('/api/limits/:scope', async (request) =>
    put(request.workspaceId, request.params.scope, undefined, request.body),
  );
  app.put<{ Params: { scope: string; target: string } }>('/api/limits/:scope/:target', async (request) =>
    put(request.workspaceId, request.params.scope, request.params.target, request.body),
  );
  app.delete<{ Params: { scope: string } }>('/api/limits/:scope', async (request, reply) => {
    await remove(request.workspaceId, request.params.scope, undefined);
    return reply.code(204).send();
  });
  app.delete<{ Params: { scope: string; target: string } }>('/api/limits/:scope/:target', async (request, reply) => {
    await remove(request.workspaceId, request.params.scope, request.params.target);
    return reply.code(204).send();
  });
}

/**
 * A limit as the API shows it.
 *
 * @example
 * ```ts
 * callLimitView({ scope: 'tool', target: 'fetch_url', callsPerMinute: 60, burst: null, maxConcurrent: null, source: 'api' });
 * // { scope: 'tool', target: 'fetch_url', calls_per_minute: 60, burst: 1, max_concurrent: null, source: 'api' }
 * ```
 */
export function callLimitView(limit: ActiveCallLimit): CallLimitView {
  return {
    scope: limit.scope,
    target: limit.target,
    calls_per_minute: limit.callsPerMinute,
    burst: limit.callsPerMinute === null ? null : burstOf(limit),
    max_concurrent: limit.maxConcurrent,
    source: limit.source,
  };
}

function scopeOf(scope: string, target: string | undefined): CallLimitScope {
  if (!CALL_LIMIT_SCOPES.includes(scope as CallLimitScope)) {
    throw validationError(
      'scope',
      `The scope must be one of ${CALL_LIMIT_SCOPES.join(', ')}, got ${describeValue(scope)}.`,
    );
  }
  if (scope === 'workspace' && target !== undefined) {
    throw validationError('target', 'A workspace limit has no target: use /api/limits/workspace.');
  }
  if (scope !== 'workspace' && target === undefined) {
    throw validationError(
      'target',
      `${scope === 'agent' ? 'An' : 'A'} ${scope} limit names its ${scope}: use /api/limits/${scope}/<${scope} id>.`,
    );
  }
  if (target !== undefined && (target.trim() === '' || target.length > STORE_LIMITS.nameChars)) {
    throw validationError(
      'target',
      `The target must be a non-empty name of at most ${STORE_LIMITS.nameChars} characters, got ${describeValue(target)}.`,
    );
  }
  return scope as CallLimitScope;
}

/**
 * The body of `PUT /api/limits/...` as a limit: known fields only, numbers in range, at least one of
 * the rate and the cap, `burst` only with a rate. Field names in messages are the API's.
 */
function limitInputOf(scope: string, target: string | undefined, body: unknown): CallLimitInput {
  const checkedScope = scopeOf(scope, target);
  const fields = requireObjectBody(body, LIMIT_FIELDS);
  const number = (field: string, whole: boolean): number | null => {
    const value = fields[field];
    if (value === undefined || value === null) return null;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < (whole ? 1 : MIN_CALLS_PER_MINUTE) ||
      value > MAX_CALL_LIMIT ||
      (whole && !Number.isInteger(value))
    ) {
      throw validationError(
        field,
        whole
          ? `'${field}' must be a whole number from 1 to ${MAX_CALL_LIMIT}, got ${describeValue(value)}.`
          : `'${field}' must be a number from ${MIN_CALLS_PER_MINUTE} (one call in 1000 minutes) to ${MAX_CALL_LIMIT}, got ${describeValue(value)}.`,
      );
    }
    return value;
  };
  const callsPerMinute = number('calls_per_minute', false);
  const burst = number('burst', true);
  const maxConcurrent = number('max_concurrent', true);
  if (burst !== null && callsPerMinute === null) {
    throw validationError('burst', "'burst' is the size of a rate limit: give 'calls_per_minute' with it.");
  }
  if (callsPerMinute === null && maxConcurrent === null) {
    throw validationError('body', "A limit needs 'calls_per_minute', 'max_concurrent' or both.");
  }
  return { scope: checkedScope, target: target ?? null, callsPerMinute, burst, maxConcurrent };
}
