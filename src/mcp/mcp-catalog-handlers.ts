import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../core/content-block.js';
import type { ResourceContents } from '../core/define-resource.js';
import type { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { pageOf } from './mcp-cursor.js';
import { INTERNAL_ERROR, INVALID_PARAMS, requestError } from './mcp-request-error.js';

/** The URI scheme and path of the resources that hold outputs an output budget cut. */
export const TOOL_OUTPUT_URI_PREFIX = 'toolshed://tool-outputs/';

const MAX_URI_LENGTH = 2048;

/**
 * The `resource_link` a truncated call result carries: a resource that reads the whole output.
 *
 * @example
 * ```ts
 * toolOutputLink('dump_logs', 'out_1_x8k2'); // { type: 'resource_link', uri: 'toolshed://tool-outputs/out_1_x8k2', ... }
 * ```
 */
export function toolOutputLink(tool: string, handle: string): ContentBlock {
  return {
    type: 'resource_link',
    uri: `${TOOL_OUTPUT_URI_PREFIX}${encodeURIComponent(handle)}`,
    name: `${tool} output ${handle}`,
    description: `The whole output of this call to '${tool}', before it was truncated.`,
    mimeType: 'text/plain',
  };
}

/**
 * Serve `catalog` on `server`: `prompts/list` and `prompts/get`, `resources/list`, `resources/read`
 * (also of the tool outputs `registry` kept), `resources/templates/list`, `resources/subscribe` and
 * `resources/unsubscribe`, and `completion/complete` for prompt arguments and template variables.
 * Lists are paged by `pageSize`. A bad request (unknown prompt or URI, missing argument) is a
 * JSON-RPC `-32602` error; a prompt or resource whose own code fails is `-32603`. Returns the
 * function that sends `notifications/resources/updated` to this connection when it subscribed to
 * the URI.
 *
 * @example
 * ```ts
 * const notifyUpdated = serveCatalog(server, registry, catalog, { pageSize: 100, report: console.error });
 * ```
 */
export function serveCatalog(
  server: Server,
  registry: ToolRegistry,
  catalog: ContentCatalog,
  options: { pageSize: number; report: (error: unknown) => void },
): { onUpdated: (uri: string) => void } {
  const { pageSize, report } = options;
  const subscriptions = new Set<string>();

  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const listed = catalog.prompts().map((prompt) => ({
      name: prompt.name,
      ...(prompt.title === undefined ? {} : { title: prompt.title }),
      description: prompt.description,
      arguments: prompt.arguments.map((argument) => ({
        name: argument.name,
        ...(argument.title === undefined ? {} : { title: argument.title }),
        ...(argument.description === undefined ? {} : { description: argument.description }),
        ...(argument.required === undefined ? {} : { required: argument.required }),
      })),
    }));
    const page = pageOf('prompts', listed, request.params?.cursor, pageSize);
    return { prompts: page.items, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = catalog.findPrompt(request.params.name);
    if (prompt === undefined) {
      try {
        catalog.getPrompt(request.params.name);
      } catch (error) {
        throw requestError(INVALID_PARAMS, (error as Error).message);
      }
    }
    let messages: Awaited<ReturnType<NonNullable<typeof prompt>['render']>>;
    try {
      messages = await (prompt as NonNullable<typeof prompt>).render(request.params.arguments ?? {});
    } catch (error) {
      if (error instanceof TypeError) throw requestError(INVALID_PARAMS, error.message);
      report(error);
      throw requestError(INTERNAL_ERROR, `Prompt '${request.params.name}' failed to render: ${messageOf(error)}`);
    }
    const { description } = prompt as NonNullable<typeof prompt>;
    return { description, messages };
  });

  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const listed = catalog.resources().map((resource) => ({
      uri: resource.uri,
      name: resource.name,
      ...(resource.title === undefined ? {} : { title: resource.title }),
      ...(resource.description === undefined ? {} : { description: resource.description }),
      ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
    }));
    const page = pageOf('resources', listed, request.params?.cursor, pageSize);
    return { resources: page.items, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => {
    const listed = catalog.resourceTemplates().map((template) => ({
      uriTemplate: template.uriTemplate,
      name: template.name,
      ...(template.title === undefined ? {} : { title: template.title }),
      ...(template.description === undefined ? {} : { description: template.description }),
      ...(template.mimeType === undefined ? {} : { mimeType: template.mimeType }),
    }));
    const page = pageOf('templates', listed, request.params?.cursor, pageSize);
    return {
      resourceTemplates: page.items,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = checkedUri(request.params.uri);
    if (uri.startsWith(TOOL_OUTPUT_URI_PREFIX)) {
      const handle = safeDecode(uri.slice(TOOL_OUTPUT_URI_PREFIX.length));
      const text = handle === undefined ? undefined : registry.readOutput(handle);
      if (text === undefined) {
        throw requestError(
          INVALID_PARAMS,
          `No stored tool output at '${shorten(uri)}'; it may have expired. Call the tool again for a fresh link.`,
        );
      }
      return { contents: [{ uri, mimeType: 'text/plain', text }] };
    }
    if (catalog.findResource(uri) === undefined) {
      throw requestError(
        INVALID_PARAMS,
        `No resource '${shorten(uri)}'. List them with resources/list and resources/templates/list.`,
      );
    }
    let contents: ResourceContents[];
    try {
      contents = await catalog.read(uri);
    } catch (error) {
      // A resource may refuse a request itself (a template's file that does not exist) with -32602.
      if ((error as { code?: unknown }).code === INVALID_PARAMS) throw error;
      report(error);
      throw requestError(INTERNAL_ERROR, `Reading the resource '${shorten(uri)}' failed: ${messageOf(error)}`);
    }
    return { contents };
  });

  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const uri = checkedUri(request.params.uri);
    const found = catalog.findResource(uri);
    if (found === undefined) {
      throw requestError(
        INVALID_PARAMS,
        `No resource '${shorten(uri)}' to subscribe to. List them with resources/list.`,
      );
    }
    if (!('subscribable' in found) || !found.subscribable) {
      throw requestError(
        INVALID_PARAMS,
        `The resource '${shorten(uri)}' never changes; there is nothing to subscribe to. Read it with resources/read.`,
      );
    }
    subscriptions.add(uri);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(checkedUri(request.params.uri));
    return {};
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    let values: string[];
    if (ref.type === 'ref/prompt') {
      const prompt = catalog.findPrompt(ref.name);
      if (prompt === undefined) throw requestError(INVALID_PARAMS, `No prompt '${shorten(ref.name)}' to complete.`);
      if (!prompt.arguments.some((item) => item.name === argument.name)) {
        throw requestError(
          INVALID_PARAMS,
          `Prompt '${prompt.name}' has no argument '${shorten(argument.name)}'; its arguments: ${prompt.arguments.map((item) => item.name).join(', ') || 'none'}.`,
        );
      }
      values = await completeSafely(() => prompt.complete(argument.name, argument.value), report);
    } else {
      const template = catalog.findResourceTemplate(ref.uri);
      if (template === undefined) {
        throw requestError(INVALID_PARAMS, `No resource template '${shorten(ref.uri)}' to complete.`);
      }
      if (!template.variables.includes(argument.name)) {
        throw requestError(
          INVALID_PARAMS,
          `Resource template '${template.uriTemplate}' has no variable '${shorten(argument.name)}'; its variables: ${template.variables.join(', ')}.`,
        );
      }
      values = await completeSafely(() => template.complete(argument.name, argument.value), report);
    }
    return { completion: { values, total: values.length, hasMore: false } };
  });

  return {
    onUpdated: (uri) => {
      if (!subscriptions.has(uri) || server.transport === undefined) return;
      server.sendResourceUpdated({ uri }).catch(report);
    },
  };
}

async function completeSafely(complete: () => Promise<string[]>, report: (error: unknown) => void): Promise<string[]> {
  try {
    return await complete();
  } catch (error) {
    // A completion is a hint to the user: a failing source offers nothing rather than an error.
    report(error);
    return [];
  }
}

function checkedUri(uri: string): string {
  if (uri.length > MAX_URI_LENGTH) {
    throw requestError(
      INVALID_PARAMS,
      `The URI is ${uri.length} characters long; at most ${MAX_URI_LENGTH} are accepted.`,
    );
  }
  return uri;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
