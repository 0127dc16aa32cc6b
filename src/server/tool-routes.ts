import type { FastifyInstance } from 'fastify';
import { describeValue } from '../core/define-tool.js';
import { isPlainObject } from '../core/json-schema.js';
import { inTraceContext } from '../core/tracing.js';
import { StoreReadOnlyError, type ToolRecord } from '../store/index.js';
import {
  ApiError,
  notFound,
  refuseUnknownQuery,
  toolNotFound,
  validationError,
  workspaceToolNotFound,
} from './api-error.js';
import { listedToolView, toolDetailView, toolView, workspaceToolSecret } from './api-views.js';
import { requireObjectBody } from './body-validation.js';
import { isLimitRefusal, retryAfterMsOf } from './call-limits.js';
import { callTool } from './call-tool.js';
import { checkCodeTool } from './code-tool-check.js';
import { codeToolInputOf, MAX_CODE_BYTES, refuseUnknownToolType } from './code-tool-input.js';
import { exportFormatOf, exportTools } from './export-tools.js';
import { checkRestToolDefinition, restToolColumns } from './rest-tool-definition.js';
import type { ServerContext } from './server-context.js';
import { isQuarantined, unavailableReason } from './tool-availability.js';
import { toolPatchOf } from './tool-patch.js';
import { toolScopeOf } from './tool-scope.js';
import { searchRows } from './tool-search.js';
import { HTTP_HANDLER_KEY } from './workspace-registries.js';

/** The longest search query `GET /api/tools?q=` accepts, in characters. */
export const MAX_SEARCH_QUERY_CHARS = 200;

/** The route of a call, whose body holds a tool's arguments, handed to the tool as they were sent. */
export const CALL_ROUTE = '/api/tools/:id/call';

/**
 * `GET /api/tools` (with `q`, ranked by the registry's BM25 search), `GET /api/tools/:id` (with the
 * set/unset status of a global tool's environment variables, or of a workspace tool's secret),
 * `GET /api/tools/:id/export?format=`, `POST /api/tools` (workspace REST tools in the `custom_tools`
 * shape, authenticating with a workspace secret: the server's environment and `allow_private_network`
 * are refused; or code tools, `type: python|javascript` with `code`, checked in the sandbox before they
 * are stored), `PATCH /api/tools/:id` and `DELETE /api/tools/:id` (tools the workspace made through
 * the API; built-ins and a configuration's tools are 409 `READ_ONLY`) and `POST /api/tools/:id/call`.
 */
export function registerToolRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;
  /** A 404 for a tool id the workspace does not see, naming the closest of its tools. */
  const unknownTool = (id: string, workspaceId: string) =>
    workspaceToolNotFound(store, workspaceId, `Tool '${id}' does not exist in this workspace.`, id);

  app.get<{ Querystring: Record<string, unknown> }>('/api/tools', async (request) => {
    refuseUnknownQuery(request.query, ['category', 'q']);
    const { category, q } = request.query;
    if (category !== undefined && typeof category !== 'string') {
      throw validationError('category', `'category' must be given once, got ${describeValue(category)}.`);
    }
    if (category === '') {
      throw validationError('category', "'category' must name a category; leave it out to list every tool.");
    }
    if (q !== undefined && typeof q !== 'string') {
      throw validationError('q', `'q' must be given once, got ${describeValue(q)}.`);
    }
    if (q !== undefined && q.length > MAX_SEARCH_QUERY_CHARS) {
      throw validationError(
        'q',
        `'q' must be at most ${MAX_SEARCH_QUERY_CHARS} characters, got ${q.length}; search with fewer words.`,
      );
    }
    const tools = await store.tools.list(request.workspaceId, category === undefined ? {} : { category });
    const registry = context.registries.forTools(request.workspaceId, tools);
    const listed = (tool: ToolRecord) =>
      listedToolView(tool, unavailableReason(tool, registry), isQuarantined(tool, registry));
    if (q === undefined || q.trim() === '') return { tools: tools.map(listed) };
    // Rank every row (a tool without a handler here by its row), then keep the hits this listing may show.
    const byId = new Map(tools.map((tool) => [tool.id, tool]));
    const hits = searchRows(registry, tools, q);
    return {
      tools: hits.flatMap((hit) => {
        const tool = byId.get(hit.name);
        return tool === undefined ? [] : [{ ...listed(tool), score: hit.score }];
      }),
    };
  });

  app.get<{ Params: { id: string } }>('/api/tools/:id', async (request) => {
    const tool = await store.tools.get(request.workspaceId, request.params.id);
    if (tool === undefined) throw await unknownTool(request.params.id, request.workspaceId);
    const secretNames =
      workspaceToolSecret(tool) === undefined
        ? []
        : (await store.secrets.list(request.workspaceId)).map((secret) => secret.name);
    const registry = context.registries.forTools(request.workspaceId, [tool]);
    const unavailable = unavailableReason(tool, registry);
    return {
      ...toolDetailView(tool, context.env, secretNames),
      ...(unavailable === undefined ? { available: true } : { available: false, unavailable_reason: unavailable }),
      ...(isQuarantined(tool, registry) ? { quarantined: true as const } : {}),
    };
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/api/tools/:id/export',
    async (request) => {
      refuseUnknownQuery(request.query, ['format']);
      const format = exportFormatOf(request.query.format);
      const id = request.params.id;
      const scope = await toolScopeOf(context, request.workspaceId);
      if (!scope.names.has(id)) throw toolNotFound(`Tool '${id}' does not exist in this workspace.`, id, scope.names);
      if (!scope.registry.has(id)) {
        const record = scope.records.get(id);
        const reason = record === undefined ? undefined : unavailableReason(record, scope.registry);
        throw notFound(`${reason ?? `Tool '${id}' has no handler on this server.`} Nothing exports it until then.`);
      }
      return exportTools(format, [scope.registry.get(id)]);
    },
  );

  app.post('/api/tools', async (request, reply) => {
    const body = request.body;
    if (!isPlainObject(body)) {
      throw validationError('body', `The request body must be a JSON object, got ${describeValue(body)}.`);
    }
    refuseUnknownToolType(body);
    if (body.type !== 'rest_api')
      return reply.code(201).send(toolView(await createCodeTool(context, request.workspaceId, body)));
    checkRestToolDefinition(body);
    const id = body.id as string;
    const record = await store.tools.createWorkspaceTool(request.workspaceId, {
      id,
      handlerKey: HTTP_HANDLER_KEY,
      ...restToolColumns(body),
    });
    return reply.code(201).send(toolView(record));
  });

  app.patch<{ Params: { id: string } }>('/api/tools/:id', async (request) => {
    const { id } = request.params;
    const tool = await store.tools.get(request.workspaceId, id);
    if (tool === undefined) throw await unknownTool(id, request.workspaceId);
    // Whatever the body says, a tool the service or a configuration owns is not the API's to change.
    if (tool.source !== 'api' && tool.source !== 'code') throw StoreReadOnlyError.forTool(id, tool.source, tool.origin);
    const body = request.body;
    if (tool.source === 'code' && isPlainObject(body) && Object.hasOwn(body, 'code')) {
      // New code is checked in the workspace's sandbox as at creation; nothing changes unless it passes.
      const { code, ...rest } = body;
      const others = Object.keys(rest).filter((key) => key !== 'id' || rest.id !== id);
      const patch = others.length === 0 ? {} : toolPatchOf(tool, rest);
      const config = await checkedCodeConfig(context, request.workspaceId, tool, code);
      return toolView(await store.tools.update(request.workspaceId, id, { ...patch, config }));
    }
    const updated = await store.tools.update(request.workspaceId, id, toolPatchOf(tool, body));
    return toolView(updated);
  });

  app.delete<{ Params: { id: string } }>('/api/tools/:id', async (request, reply) => {
    const { id } = request.params;
    // Its attachments go with it; MCP sessions of the agents that had it are told (a tool change).
    if (!(await store.tools.delete(request.workspaceId, id))) throw await unknownTool(id, request.workspaceId);
    return reply.code(204).send();
  });

  app.post<{ Params: { id: string } }>(CALL_ROUTE, async (request, reply) => {
    // No body is a call without arguments; a JSON `null` body is refused, as on every other route.
    const body = requireObjectBody(request.body === undefined ? {} : request.body, ['arguments', 'agent_id']);
    const args = body.arguments;
    if (args !== undefined && args !== null && typeof args !== 'string' && !isPlainObject(args)) {
      throw validationError(
        'arguments',
        `'arguments' must be a JSON object (or JSON text), got ${describeValue(args)}.`,
      );
    }
    const agentId = body.agent_id;
    if (agentId !== undefined && agentId !== null && typeof agentId !== 'string') {
      throw validationError('agent_id', `'agent_id' must be a string, got ${describeValue(agentId)}.`);
    }
    const agent = typeof agentId === 'string' ? agentId : undefined;
    // A `traceparent` header makes the call's span a child of the caller's.
    const { result, json } = await inTraceContext(request.headers, () =>
      callTool(context, request.tokenIdentity, request.params.id, args ?? {}, agent),
    );
    // Refused by a call limit: the HTTP status says so too, with when to come back.
    if (isLimitRefusal(result)) {
      reply.code(429).header('retry-after', String(Math.ceil(retryAfterMsOf(result) / 1000)));
    }
    // The JSON the call log measured, sent as it is rather than serialized a second time.
    if (json === undefined) return result;
    reply.type('application/json; charset=utf-8');
    return json;
  });
}

/**
 * A code tool from its body: shape, id and size checked, then its code in the workspace's sandbox,
 * then stored. Nothing is written unless every check passed.
 */
async function createCodeTool(context: ServerContext, workspaceId: string, body: Record<string, unknown>) {
  const input = codeToolInputOf(body);
  // A name the server's own tools hold (a built-in the store may not list) is taken too.
  if (context.registries.serverToolNames.has(input.id) || (await context.store.tools.get(workspaceId, input.id))) {
    throw new ApiError(409, 'ALREADY_EXISTS', `Tool id '${input.id}' is already taken; choose another id.`);
  }
  const sandbox = context.codeSandboxes?.sandboxFor(input.type, workspaceId);
  if (sandbox === undefined) {
    throw validationError(
      'type',
      `This server runs no sandbox, so it cannot run '${input.type}' code tools; the operator turns the sandbox on (it is on unless the service's built-ins leave it out).`,
    );
  }
  await checkCodeTool(sandbox, input);
  return context.store.tools.createWorkspaceTool(workspaceId, input.record);
}

/**
 * The config of a code tool with new `code`, once the code passed the checks of a new tool (its
 * syntax, its function) in the workspace's sandbox.
 */
async function checkedCodeConfig(
  context: ServerContext,
  workspaceId: string,
  tool: ToolRecord,
  code: unknown,
): Promise<Record<string, unknown>> {
  const type = tool.config?.type;
  if (type !== 'python' && type !== 'javascript') {
    throw validationError('code', `Tool '${tool.id}' is not a Python or JavaScript code tool.`);
  }
  if (typeof code !== 'string' || code.trim() === '') {
    throw validationError('code', `'code' must be the tool's ${type} source text, got ${describeValue(code)}.`);
  }
  const bytes = Buffer.byteLength(code);
  if (bytes > MAX_CODE_BYTES) {
    throw validationError('code', `'code' must be at most ${MAX_CODE_BYTES} bytes, got ${bytes}.`);
  }
  const sandbox = context.codeSandboxes?.sandboxFor(type, workspaceId);
  if (sandbox === undefined) {
    throw validationError('code', `This server runs no sandbox, so it cannot check or run '${type}' code.`);
  }
  await checkCodeTool(sandbox, { type, id: tool.id, code }, 'changed');
  return { ...tool.config, type, code };
}
