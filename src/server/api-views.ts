import { restToolAnnotations } from '../builtins/web/rest-tool.js';
import type { RestToolConfig } from '../builtins/web/rest-tool-config.js';
import { resolveToolAnnotations } from '../core/resolve-annotations.js';
import type { ToolAnnotations } from '../core/tool-spec.js';
import type { AgentRecord, AttachedTool, ToolCallRecord, ToolRecord } from '../store/index.js';
import type {
  AgentView,
  AttachedToolView,
  ToolAnnotationsView,
  ToolCallView,
  ToolDetailView,
  ToolView,
} from './api-shapes.js';
import { codeToolAnnotations } from './code-tool.js';
import { HTTP_HANDLER_KEY } from './workspace-registries.js';

/**
 * The API view of a tool record. A workspace tool's own config (its endpoint and such) is not shown
 * in listings; `config` in attachment views is the attachment's.
 *
 * @example
 * ```ts
 * toolView(await store.tools.get('acme', 'read_file'));
 * ```
 */
export function toolView(tool: ToolRecord): ToolView {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    parameters_schema: tool.parametersSchema as Record<string, unknown>,
    handler_key: tool.handlerKey,
    category: tool.category,
    scope: tool.workspaceId === null ? 'global' : 'workspace',
    when_to_use: tool.whenToUse,
    annotations: annotationsView(tool),
    ...(tool.source === 'api' || tool.source === 'code'
      ? { requires_approval: (tool.annotations as { requiresApproval?: unknown }).requiresApproval === true }
      : {}),
    requires: { ...tool.requires },
    tags: [...tool.tags],
    input_examples: tool.inputExamples.map((example) => ({ ...example })),
    ...(tool.execution.taskSupport === undefined ? {} : { execution: { taskSupport: tool.execution.taskSupport } }),
    source: tool.source,
    origin: tool.origin,
    created_at: tool.createdAt,
    updated_at: tool.updatedAt,
  };
}

/**
 * A tool's hints as every consumer is told them (MCP's `annotations`, the exports): the row's, with
 * the defaults of the tool's kind (a code tool is read-only and closed-world, a REST tool read-only for
 * a `GET`) and then MCP's, in the API's snake_case, the spelling `POST` and `PATCH` take.
 */
function annotationsView(tool: ToolRecord): ToolAnnotationsView {
  let hints: ToolAnnotations = tool.annotations;
  if (tool.source === 'code') hints = codeToolAnnotations(tool);
  else if (tool.source === 'api' && tool.handlerKey === HTTP_HANDLER_KEY && tool.config !== null) {
    hints = restToolAnnotations(tool.config as unknown as RestToolConfig);
  }
  const resolved = resolveToolAnnotations(hints);
  return {
    read_only: resolved.readOnly,
    destructive: resolved.destructive,
    idempotent: resolved.idempotent,
    open_world: resolved.openWorld,
  };
}

/**
 * {@link toolView} with whether this server can run the tool now: `unavailable` is the reason it
 * cannot (see `unavailableReason`), `undefined` when it can; `quarantined` marks an MCP server's tool
 * whose changed definition waits for approval.
 *
 * @example
 * ```ts
 * listedToolView(record, unavailableReason(record, registry));
 * ```
 */
export function listedToolView(tool: ToolRecord, unavailable: string | undefined, quarantined = false): ToolView {
  return unavailable === undefined
    ? { ...toolView(tool), available: true }
    : {
        ...toolView(tool),
        available: false,
        unavailable_reason: unavailable,
        ...(quarantined ? { quarantined: true } : {}),
      };
}

/**
 * The API view of one tool with what it needs and whether that is there. A global tool lists each
 * environment variable it requires with whether the server has it set (`env`, the server's
 * environment; an empty value counts as unset, as when calling). A workspace tool never looks at the
 * server's environment: its `env` is empty, and a REST tool with `auth.secret` lists that secret with
 * whether the workspace has it (`secretNames`, the names of the workspace's secrets). Values are never
 * shown. A code tool shows its `type` and `code`.
 *
 * @example
 * ```ts
 * toolDetailView(await store.tools.get('acme', 'serper_search'), process.env, []).requires;
 * // { env: [{ name: 'SERPER_API_KEY', description: '...', url: 'https://serper.dev', set: false }] }
 * ```
 */
export function toolDetailView(
  tool: ToolRecord,
  env: Readonly<Record<string, string | undefined>>,
  secretNames: readonly string[],
): ToolDetailView {
  // Tools created through the API never read the server's environment; the configuration's do.
  if (tool.source === 'api' || tool.source === 'code') {
    const secret = workspaceToolSecret(tool);
    const { type, code } = tool.config ?? {};
    return {
      ...toolView(tool),
      requires: {
        env: [],
        ...(secret === undefined ? {} : { secrets: [{ name: secret, set: secretNames.includes(secret) }] }),
      },
      // A code tool's own workspace may read its code (another workspace never gets the row).
      ...(tool.source === 'code' && (type === 'python' || type === 'javascript') && typeof code === 'string'
        ? { type, code }
        : {}),
    };
  }
  const variables = tool.requires.env ?? [];
  return {
    ...toolView(tool),
    requires: {
      ...tool.requires,
      env: variables.map((variable) => {
        const value = Object.hasOwn(env, variable.name) ? env[variable.name] : undefined;
        return { ...variable, set: value !== undefined && value !== '' };
      }),
    },
  };
}

/**
 * The workspace secret a workspace REST tool's `auth.secret` names, if any.
 *
 * @example
 * ```ts
 * workspaceToolSecret(await store.tools.get('acme', 'company_search')); // 'COMPANY_API_TOKEN'
 * ```
 */
export function workspaceToolSecret(tool: ToolRecord): string | undefined {
  const auth = tool.config?.auth;
  if (typeof auth !== 'object' || auth === null || !Object.hasOwn(auth, 'secret')) return undefined;
  const secret = (auth as Record<string, unknown>).secret;
  return typeof secret === 'string' ? secret : undefined;
}

/** A tool attached to an agent: the tool with the attachment's config. */
export function attachedToolView(attached: AttachedTool): AttachedToolView {
  return { ...toolView(attached.tool), config: attached.config, attached_at: attached.attachedAt };
}

/** An agent as the API shows it. */
export function agentView(agent: AgentRecord): AgentView {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    source: agent.source,
    origin: agent.origin,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

/** A logged call as the API shows it. */
export function toolCallView(call: ToolCallRecord): ToolCallView {
  return {
    id: call.id,
    agent_id: call.agentId,
    tool_id: call.toolId,
    status: call.status,
    error_code: call.errorCode,
    duration_ms: call.durationMs,
    created_at: call.createdAt,
    token_id: call.tokenId,
    approval_id: call.approvalId,
    arguments_digest: call.argumentsDigest,
    result_bytes: call.resultBytes,
  };
}
