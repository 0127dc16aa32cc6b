import type { FastifyInstance } from 'fastify';
import { describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import {
  type AgentPatch,
  type AttachedTool,
  STORE_LIMITS,
  StoreNotFoundError,
  StoreReadOnlyError,
} from '../store/index.js';
import { notFound, refuseUnknownQuery, toolNotFound, validationError, workspaceToolNotFound } from './api-error.js';
import { agentView, attachedToolView } from './api-views.js';
import { optionalObject, optionalString, requireObjectBody, requireString } from './body-validation.js';
import { exportFormatOf, exportTools } from './export-tools.js';
import type { ServerContext } from './server-context.js';
import { scopeRegistry, toolScopeOf } from './tool-scope.js';

type AgentParams = { Params: { agentId: string } };

/**
 * Agents (the server generates their ids; `PATCH` renames one or changes its description), their
 * tool attachments, their provider exports and prompt docs. A `config` agent is its configuration
 * file's: changing, deleting it or its attachments is 409 `READ_ONLY`, naming the file.
 */
export function registerAgentRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get('/api/agents', async (request) => ({
    agents: (await store.agents.list(request.workspaceId)).map(agentView),
  }));

  app.post('/api/agents', async (request, reply) => {
    const body = requireObjectBody(request.body, ['name', 'description']);
    const name = requireString(body, 'name', STORE_LIMITS.nameChars);
    const description = optionalString(body, 'description', STORE_LIMITS.textChars);
    const agent = await store.agents.create(request.workspaceId, {
      name,
      ...(description === undefined ? {} : { description }),
    });
    return reply.code(201).send(agentView(agent));
  });

  app.get<AgentParams>('/api/agents/:agentId', async (request) => {
    const agent = await store.agents.get(request.workspaceId, request.params.agentId);
    if (agent === undefined) throw agentNotFound(request.params.agentId);
    return agentView(agent);
  });

  app.patch<AgentParams>('/api/agents/:agentId', async (request) => {
    const { agentId } = request.params;
    const agent = await store.agents.get(request.workspaceId, agentId);
    if (agent === undefined) throw agentNotFound(agentId);
    // Whatever the body says, a config agent is its configuration file's to change.
    if (agent.source === 'config') throw StoreReadOnlyError.forAgent(agentId, agent.origin);
    const body = requireObjectBody(request.body, ['name', 'description']);
    const patch: AgentPatch = {};
    if (body.name !== undefined) patch.name = requireString(body, 'name', STORE_LIMITS.nameChars);
    if (body.description === null) patch.description = null;
    else if (body.description !== undefined) {
      if (typeof body.description !== 'string' || body.description.trim() === '') {
        throw validationError(
          'description',
          `'description' must be a non-empty string, or null to clear it, got ${describeValue(body.description)}.`,
        );
      }
      patch.description = requireString(body, 'description', STORE_LIMITS.textChars);
    }
    if (Object.keys(patch).length === 0) {
      throw validationError('body', "The request body changes nothing; send 'name', 'description' or both.");
    }
    return agentView(await store.agents.update(request.workspaceId, agentId, patch));
  });

  app.delete<AgentParams>('/api/agents/:agentId', async (request, reply) => {
    if (!(await store.agents.delete(request.workspaceId, request.params.agentId))) {
      throw agentNotFound(request.params.agentId);
    }
    return reply.code(204).send();
  });

  app.get<AgentParams>('/api/agents/:agentId/tools', async (request, reply) => {
    const list = await store.attachments.listAttachments(request.workspaceId, request.params.agentId);
    // The hottest read of the API: each attached tool's JSON is made once per record the store hands
    // out (the same records while the store's read cache holds them), not on every request.
    const tools = list.tools.map(attachedToolJson).join(',');
    return reply.type('application/json; charset=utf-8').send(`{"tools":[${tools}],"fallback":${list.fallback}}`);
  });

  app.post<AgentParams>('/api/agents/:agentId/tools', async (request, reply) => {
    const body = requireObjectBody(request.body, ['tool_id', 'config']);
    const toolId = requireString(body, 'tool_id', 64);
    if (!TOOL_NAME_PATTERN.test(toolId)) {
      throw validationError('tool_id', `'tool_id' must be a tool name like 'read_file', got '${toolId}'.`);
    }
    const config = optionalObject(body, 'config', STORE_LIMITS.configBytes);
    const attached = await store.attachments
      .attach(request.workspaceId, request.params.agentId, toolId, config ?? null)
      .catch(async (error: unknown) => {
        if (!StoreNotFoundError.isInstance(error) || error.resource !== 'tool') throw error;
        throw await workspaceToolNotFound(store, request.workspaceId, error.message, toolId);
      });
    return reply.code(201).send(attachedToolView(attached));
  });

  app.delete<{ Params: { agentId: string; toolId: string } }>(
    '/api/agents/:agentId/tools/:toolId',
    async (request, reply) => {
      const { agentId, toolId } = request.params;
      if (!(await store.attachments.detach(request.workspaceId, agentId, toolId))) {
        throw toolNotFound(
          `Tool '${toolId}' is not attached to agent '${agentId}'.`,
          toolId,
          await attachedIds(context, request.workspaceId, agentId),
        );
      }
      return reply.code(204).send();
    },
  );

  app.get<AgentParams & { Querystring: Record<string, unknown> }>('/api/agents/:agentId/export', async (request) => {
    refuseUnknownQuery(request.query, ['format']);
    const format = exportFormatOf(request.query.format);
    const registry = scopeRegistry(await toolScopeOf(context, request.workspaceId, request.params.agentId));
    return exportTools(format, registry.tools());
  });

  app.get<AgentParams>('/api/agents/:agentId/prompt', async (request, reply) => {
    const registry = scopeRegistry(await toolScopeOf(context, request.workspaceId, request.params.agentId));
    return reply.type('text/markdown; charset=utf-8').send(registry.renderPromptDocs());
  });
}

/** The ids of the tools attached to an agent; none for an agent that has none or does not exist. */
async function attachedIds(context: ServerContext, workspaceId: string, agentId: string): Promise<string[]> {
  try {
    const list = await context.store.attachments.listAttachments(workspaceId, agentId);
    return list.fallback ? [] : list.tools.map((attached) => attached.tool.id);
  } catch (error) {
    if (StoreNotFoundError.isInstance(error)) return [];
    throw error;
  }
}

function agentNotFound(agentId: string) {
  return notFound(`Agent '${agentId}' does not exist in this workspace.`);
}

const attachedJson = new WeakMap<AttachedTool, string>();

/** `attachedToolView(attached)` as JSON text, remembered per record. */
function attachedToolJson(attached: AttachedTool): string {
  let json = attachedJson.get(attached);
  if (json === undefined) {
    json = JSON.stringify(attachedToolView(attached));
    attachedJson.set(attached, json);
  }
  return json;
}
