import type { FastifyInstance } from 'fastify';
import { describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import { STORE_LIMITS, type WorkspaceToolSet } from '../store/index.js';
import { notFound, validationError } from './api-error.js';
import type { DefaultToolSetView } from './api-shapes.js';
import { toolView } from './api-views.js';
import { requireObjectBody } from './body-validation.js';
import type { ServerContext } from './server-context.js';

/**
 * The workspace's default tool set: what `/mcp` serves and what an agent that never had an attachment
 * uses. `GET /api/workspace/default-tools` answers `{custom, tools}` (`custom: false`: every tool the
 * workspace sees), `PUT` with `{tool_ids: [...]}` chooses the set (an unknown id is a 404 and changes
 * nothing), `DELETE` goes back to every tool. MCP sessions of the default view are told of a change.
 */
export function registerWorkspaceRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get('/api/workspace/default-tools', async (request) => {
    const set = await store.workspaces.defaultTools(request.workspaceId);
    if (set === undefined) throw notFound(`Workspace '${request.workspaceId}' does not exist.`);
    return toolSetView(set);
  });

  app.put('/api/workspace/default-tools', async (request) => {
    const body = requireObjectBody(request.body, ['tool_ids']);
    const ids = body.tool_ids;
    if (!Array.isArray(ids)) {
      throw validationError('tool_ids', `'tool_ids' must be an array of tool ids, got ${describeValue(ids)}.`);
    }
    if (ids.length > STORE_LIMITS.toolSetItems) {
      throw validationError(
        'tool_ids',
        `'tool_ids' may list at most ${STORE_LIMITS.toolSetItems} tools, got ${ids.length}.`,
      );
    }
    ids.forEach((id, index) => {
      if (typeof id !== 'string' || !TOOL_NAME_PATTERN.test(id)) {
        throw validationError(
          'tool_ids',
          `'tool_ids[${index}]' must be a tool id like 'read_file', got ${describeValue(id)}.`,
        );
      }
    });
    return toolSetView(await store.workspaces.setDefaultTools(request.workspaceId, ids as string[]));
  });

  app.delete('/api/workspace/default-tools', async (request) =>
    toolSetView(await store.workspaces.setDefaultTools(request.workspaceId, null)),
  );
}

function toolSetView(set: WorkspaceToolSet): DefaultToolSetView {
  return { custom: set.custom, tools: set.tools.map(toolView) };
}
