import type { FastifyInstance } from 'fastify';
import { describeValue } from '../core/define-tool.js';
import type { McpCatalogRecord } from '../store/index.js';
import { notFound, refuseUnknownQuery, validationError } from './api-error.js';
import type { ServerContext } from './server-context.js';

/**
 * A prompt as `GET /api/prompts` lists it.
 *
 * @example
 * ```ts
 * const view: PromptView = { name: 'summarize', description: 'Summarize a text.', arguments: [], source: 'config', origin: 'toolshed.yaml', agents: ['writer'], updated_at: '2026-01-01T00:00:00.000Z' };
 * ```
 */
export interface PromptView {
  name: string;
  description: string | null;
  arguments: unknown[];
  source: string;
  origin: string | null;
  agents: string[];
  updated_at: string;
}

/**
 * A resource or resource template as `GET /api/resources` lists it (`uri` for a resource,
 * `uri_template` for a template).
 *
 * @example
 * ```ts
 * const view: ResourceView = { kind: 'resource', uri: 'docs://status', name: 'status', description: null, mime_type: 'text/plain', subscribable: true, source: 'config', origin: 'toolshed.yaml', agents: [], updated_at: '2026-01-01T00:00:00.000Z' };
 * ```
 */
export interface ResourceView {
  kind: 'resource' | 'resource_template';
  uri?: string;
  uri_template?: string;
  name: string;
  description: string | null;
  mime_type: string | null;
  subscribable: boolean;
  source: string;
  origin: string | null;
  agents: string[];
  updated_at: string;
}

/**
 * `GET /api/prompts` and `GET /api/resources`: the prompts, resources and resource templates the
 * workspace serves over MCP (its `mcp_catalog` rows), or with `?agent_id=` those that agent's endpoint
 * serves. Every endpoint also offers the generated `system_prompt`, which is not a row.
 */
export function registerCatalogRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  const entriesFor = async (workspaceId: string, query: Record<string, unknown>, kinds: string[]) => {
    const agentId = query.agent_id;
    if (agentId !== undefined && typeof agentId !== 'string') {
      throw validationError('agent_id', `'agent_id' must be given once, got ${describeValue(agentId)}.`);
    }
    refuseUnknownQuery(query, ['agent_id']);
    if (agentId !== undefined) {
      const agent = await store.agents.get(workspaceId, agentId).catch(() => undefined);
      if (agent === undefined) throw notFound(`No agent '${agentId.slice(0, 80)}' in this workspace.`);
    }
    const rows = (await store.mcpCatalog.list(workspaceId)).filter((row) => kinds.includes(row.kind));
    return agentId === undefined ? rows : rows.filter((row) => row.agents.includes(agentId));
  };

  app.get<{ Querystring: Record<string, unknown> }>('/api/prompts', async (request) => ({
    prompts: (await entriesFor(request.workspaceId, request.query, ['prompt'])).map(promptView),
  }));

  app.get<{ Querystring: Record<string, unknown> }>('/api/resources', async (request) => ({
    resources: (await entriesFor(request.workspaceId, request.query, ['resource', 'resource_template'])).map(
      resourceView,
    ),
  }));
}

function promptView(row: McpCatalogRecord): PromptView {
  return {
    name: row.key,
    description: row.description,
    arguments: Array.isArray(row.definition.arguments) ? row.definition.arguments : [],
    source: row.source,
    origin: row.origin,
    agents: row.agents,
    updated_at: row.updatedAt,
  };
}

function resourceView(row: McpCatalogRecord): ResourceView {
  const mimeType = row.definition.mime_type;
  return {
    kind: row.kind === 'resource_template' ? 'resource_template' : 'resource',
    ...(row.kind === 'resource_template' ? { uri_template: row.key } : { uri: row.key }),
    name: row.name,
    description: row.description,
    mime_type: typeof mimeType === 'string' ? mimeType : null,
    subscribable: row.definition.subscribable === true,
    source: row.source,
    origin: row.origin,
    agents: row.agents,
    updated_at: row.updatedAt,
  };
}
