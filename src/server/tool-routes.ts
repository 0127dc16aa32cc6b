import type { FastifyInstance } from 'fastify';
import { REST_TOOL_SCHEMA } from '../config/config-schema.js';
import { describeValue } from '../core/define-tool.js';
import { isPlainObject, type JsonObjectSchema } from '../core/json-schema.js';
import { compileValidator } from '../schema/compile-validator.js';
import { SECRET_NAME_PATTERN, STORE_LIMITS, type ToolRecord } from '../store/index.js';
import { ApiError, notFound, toolNotFound, validationError } from './api-error.js';
import { listedToolView, toolDetailView, toolView, workspaceToolSecret } from './api-views.js';
import { requireObjectBody } from './body-validation.js';
import { callTool } from './call-tool.js';
import { exportFormatOf, exportTools } from './export-tools.js';
import type { ServerContext } from './server-context.js';
import { unavailableReason } from './tool-availability.js';
import { toolScopeOf } from './tool-scope.js';
import { searchRows } from './tool-search.js';
import { HTTP_HANDLER_KEY } from './workspace-registries.js';

const validateRestTool = compileValidator(REST_TOOL_SCHEMA);

/** The longest search query `GET /api/tools?q=` accepts, in characters. */
export const MAX_SEARCH_QUERY_CHARS = 200;

/**
 * `GET /api/tools` (with `q`, ranked by the registry's BM25 search), `GET /api/tools/:id` (with the
 * set/unset status of a global tool's environment variables, or of a workspace tool's secret),
 * `GET /api/tools/:id/export?format=`, `POST /api/tools` (workspace REST tools in the `custom_tools`
 * shape, authenticating with a workspace secret: the server's environment and `allow_private_network`
 * are refused) and `POST /api/tools/:id/call`.
 */
export function registerToolRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get<{ Querystring: Record<string, unknown> }>('/api/tools', async (request) => {
    const { category, q } = request.query;
    if (category !== undefined && typeof category !== 'string') {
      throw validationError('category', `'category' must be given once, got ${describeValue(category)}.`);
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
    const listed = (tool: ToolRecord) => listedToolView(tool, unavailableReason(tool, registry));
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
    if (tool === undefined) {
      const known = (await store.tools.list(request.workspaceId)).map((record) => record.id);
      throw toolNotFound(`Tool '${request.params.id}' does not exist in this workspace.`, request.params.id, known);
    }
    const secretNames =
      workspaceToolSecret(tool) === undefined
        ? []
        : (await store.secrets.list(request.workspaceId)).map((secret) => secret.name);
    const registry = context.registries.forTools(request.workspaceId, [tool]);
    const unavailable = unavailableReason(tool, registry);
    return {
      ...toolDetailView(tool, context.env, secretNames),
      ...(unavailable === undefined ? { available: true } : { available: false, unavailable_reason: unavailable }),
    };
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/api/tools/:id/export',
    async (request) => {
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
    refuseOperatorFields(body);
    const issues = validateRestTool(structuredClone(body));
    const issue = issues?.[0];
    if (issue !== undefined) {
      const field = fieldOf(issue.path, issue.keyword, issue.message);
      throw validationError(field, `Invalid REST tool: ${issue.message}.`);
    }
    if (Buffer.byteLength(JSON.stringify(body)) > STORE_LIMITS.configBytes) {
      throw validationError(
        'body',
        `A REST tool definition must be at most ${STORE_LIMITS.configBytes} bytes as JSON.`,
      );
    }
    const id = body.id as string;
    const record = await store.tools.createWorkspaceTool(request.workspaceId, {
      id,
      name: typeof body.title === 'string' ? body.title : id,
      description: body.description as string,
      parametersSchema: body.parameters as JsonObjectSchema,
      handlerKey: HTTP_HANDLER_KEY,
      category: typeof body.category === 'string' ? body.category : 'api',
      ...(typeof body.when_to_use === 'string' ? { whenToUse: body.when_to_use } : {}),
      annotations: restAnnotations(body),
      config: body,
    });
    return reply.code(201).send(toolView(record));
  });

  app.post<{ Params: { id: string } }>('/api/tools/:id/call', async (request) => {
    const body = requireObjectBody(request.body ?? {}, ['arguments', 'agent_id']);
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
    return callTool(context, request.tokenIdentity, request.params.id, args ?? {}, agent);
  });
}

/**
 * What only the operator may grant, refused in a tool a workspace creates: reading the server's
 * environment (`auth.token_env`, `auth.value_env`) and reaching private networks
 * (`allow_private_network`). Also names `auth.secret` when an auth lacks it, which the schema would
 * report as a missing variable.
 */
function refuseOperatorFields(body: Record<string, unknown>): void {
  const auth = body.auth;
  if (isPlainObject(auth)) {
    for (const key of ['token_env', 'value_env']) {
      if (!Object.hasOwn(auth, key)) continue;
      const variable = auth[key];
      const name = typeof variable === 'string' && SECRET_NAME_PATTERN.test(variable) ? variable : 'NAME';
      throw validationError(
        'auth',
        `Environment variables are for operator config files, so 'auth.${key}' (${describeValue(variable)}) is refused; store a workspace secret with PUT /api/secrets/${name} and reference it as "secret": "${name}".`,
      );
    }
    if (['bearer', 'header', 'query'].includes(auth.type as string) && !Object.hasOwn(auth, 'secret')) {
      throw validationError(
        'auth',
        `'auth.secret' is required: the name of the workspace secret that holds the value (store one with PUT /api/secrets/NAME).`,
      );
    }
  }
  if (Object.hasOwn(body, 'allow_private_network')) {
    throw validationError(
      'allow_private_network',
      `'allow_private_network' (${describeValue(body.allow_private_network)}) is for operator config files only; a tool created through the API reaches public addresses only, so leave the field out.`,
    );
  }
}

function restAnnotations(body: Record<string, unknown>): Record<string, unknown> {
  const annotations = isPlainObject(body.annotations) ? body.annotations : {};
  const result: Record<string, unknown> = {};
  if (typeof annotations.read_only === 'boolean') result.readOnly = annotations.read_only;
  if (typeof annotations.destructive === 'boolean') result.destructive = annotations.destructive;
  if (typeof annotations.idempotent === 'boolean') result.idempotent = annotations.idempotent;
  if (typeof annotations.open_world === 'boolean') result.openWorld = annotations.open_world;
  if (body.requires_approval === true) result.requiresApproval = true;
  return result;
}

/** The top-level field an issue is about (a missing or unknown property is named in the message). */
function fieldOf(path: string, keyword: string, message: string): string {
  if (path !== '') return path.split(/[.[]/)[0] ?? path;
  if (keyword === 'required' || keyword === 'additionalProperties') {
    const quoted = /'([^']+)'/.exec(message)?.[1];
    if (quoted !== undefined) return quoted.split(/[.[]/)[0] ?? quoted;
  }
  return 'body';
}
