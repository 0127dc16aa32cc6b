import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../core/content-block.js';
import { defineTool } from '../core/define-tool.js';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolContext, ToolSpec } from '../core/tool-spec.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { mcpToolName } from './mcp-tool-name.js';

/** An MCP server to import tools from: a command to spawn (stdio) or a Streamable HTTP URL. */
export interface McpServerConfig {
  /** Short name; tools register as `NAME__tool`. */
  name: string;
  command?: string;
  args?: string[];
  /** Extra environment for a spawned server (added to a minimal safe default environment). */
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  /** HTTP headers whose values come from environment variables: `{ Authorization: 'GITHUB_TOKEN' }`. */
  headersEnv?: Record<string, string>;
  /** Timeout of each imported tool's calls in milliseconds (default: the registry's). */
  timeoutMs?: number;
}

/** A live import: the registered names, and ways to refresh or end it. */
export interface McpServerConnection {
  readonly name: string;
  /** Canonical names of the imported tools, sorted. */
  readonly tools: readonly string[];
  /** Re-read the server's tool list and update the registry (also done on `list_changed`). */
  refresh(): Promise<void>;
  /** Unregister the tools and disconnect. */
  close(): Promise<void>;
}

/** Options of {@link importMcpServer}. */
export interface ImportMcpServerOptions {
  /** Environment for `headersEnv` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where a spawned server's stderr goes (default `'ignore'`). */
  stderr?: 'inherit' | 'ignore';
  /** A transport to use instead of the one the config describes (tests, custom transports). */
  transport?: Transport;
}

/**
 * Connect to an MCP server and register its tools in `registry` as `NAME__tool`, with the same
 * dispatch guarantees as local tools: arguments validated against the server's schema, timeouts that
 * cancel the remote request, errors (including a server that dies mid-call) returned as results. The
 * tools stay in sync when the server sends `notifications/tools/list_changed`.
 *
 * @example
 * ```ts
 * const everything = await importMcpServer(registry, {
 *   name: 'everything',
 *   command: 'npx',
 *   args: ['@modelcontextprotocol/server-everything'],
 * });
 * await registry.call('everything__echo', { message: 'hi' });
 * ```
 */
export async function importMcpServer(
  registry: ToolRegistry,
  config: McpServerConfig,
  options: ImportMcpServerOptions = {},
): Promise<McpServerConnection> {
  const transport = options.transport ?? createTransport(config, options);
  const client = new Client({ name: 'toolshed', version: '0.1.0' }, { capabilities: {} });
  let connected = false;
  let closedReason: string | undefined;
  client.onclose = () => {
    connected = false;
    closedReason ??= `MCP server '${config.name}' closed the connection`;
  };
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`Could not connect to MCP server '${config.name}': ${(error as Error).message}`, {
      cause: error,
    });
  }
  connected = true;
  let names: string[] = [];

  const callRemote = async (toolName: string, args: Record<string, unknown>, context: ToolContext) => {
    if (!connected)
      throw new McpServerUnavailableError(
        `${closedReason ?? `MCP server '${config.name}' is not connected`}; '${context.tool}' cannot run.`,
      );
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: context.signal,
        // The registry's deadline governs; the SDK's own 60 s default must not cut in first.
        timeout: 2_147_483_647,
        onprogress: (progress) => context.progress(progress.progress, progress.total, progress.message),
      })) as CallToolResult;
    } catch (error) {
      if (!connected)
        throw new McpServerUnavailableError(
          `${closedReason ?? `MCP server '${config.name}' disconnected`} during the call to '${context.tool}'.`,
        );
      throw error;
    }
    return toToolResult(config.name, result);
  };

  const toSpec = (tool: Tool): ToolSpec => {
    const schema = { ...(tool.inputSchema as JsonSchema) };
    delete schema.$schema;
    const annotations = tool.annotations ?? {};
    return defineTool({
      name: mcpToolName(config.name, tool.name),
      title: tool.title ?? annotations.title ?? tool.name,
      description: tool.description?.trim() || `${tool.name} (from MCP server ${config.name})`,
      category: 'mcp',
      tags: ['mcp', config.name],
      inputSchema: {
        ...schema,
        type: 'object',
        properties: (schema.properties as Record<string, JsonSchema>) ?? {},
      },
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      annotations: {
        ...(annotations.readOnlyHint === undefined ? {} : { readOnly: annotations.readOnlyHint }),
        ...(annotations.destructiveHint === undefined ? {} : { destructive: annotations.destructiveHint }),
        ...(annotations.idempotentHint === undefined ? {} : { idempotent: annotations.idempotentHint }),
        ...(annotations.openWorldHint === undefined ? {} : { openWorld: annotations.openWorldHint }),
      },
      metadata: { mcpServer: config.name, mcpTool: tool.name },
      handler: (args, context) => callRemote(tool.name, args, context),
    });
  };

  const refresh = async () => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < 10_000);
    const specs: ToolSpec[] = [];
    const taken = new Set<string>();
    for (const tool of tools) {
      const spec = toSpec(tool);
      if (taken.has(spec.name)) continue; // two remote names that map to one canonical name: first wins
      taken.add(spec.name);
      specs.push(spec);
    }
    for (const name of names) if (!taken.has(name)) registry.unregister(name);
    const fresh = specs.filter((spec) => !names.includes(spec.name));
    const known = specs.filter((spec) => names.includes(spec.name));
    if (fresh.length > 0) registry.registerAll(fresh);
    for (const spec of known) registry.register(spec, { allowOverride: true });
    names = specs.map((spec) => spec.name).sort();
  };

  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    try {
      await refresh();
    } catch {
      // A failed refresh keeps the previous tool list; the next notification tries again.
    }
  });
  try {
    await refresh();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`Could not list the tools of MCP server '${config.name}': ${(error as Error).message}`, {
      cause: error,
    });
  }

  return {
    name: config.name,
    get tools() {
      return names;
    },
    refresh,
    async close() {
      for (const name of names) registry.unregister(name);
      names = [];
      closedReason = `MCP server '${config.name}' was closed`;
      await client.close();
    },
  };
}

/** Thrown inside an imported tool when its MCP server is gone (becomes `EXECUTION_FAILED`). */
export class McpServerUnavailableError extends ToolshedError<'MCP_SERVER_UNAVAILABLE'> {
  constructor(message: string) {
    super('MCP_SERVER_UNAVAILABLE', message);
    this.name = 'McpServerUnavailableError';
  }
}

function createTransport(config: McpServerConfig, options: ImportMcpServerOptions): Transport {
  if (config.command !== undefined) {
    return new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: options.stderr ?? 'ignore',
    });
  }
  if (config.url !== undefined) {
    const env = options.env ?? process.env;
    const headers: Record<string, string> = {};
    for (const [header, variable] of Object.entries(config.headersEnv ?? {})) {
      const value = env[variable];
      if (value === undefined || value === '') {
        throw new Error(
          `MCP server '${config.name}' needs the environment variable ${variable} for its ${header} header, which is not set.`,
        );
      }
      headers[header] = value;
    }
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
  }
  throw new Error(`MCP server '${config.name}' needs either a command (stdio) or a url (Streamable HTTP).`);
}

function toToolResult(server: string, result: CallToolResult): ToolResult {
  const content = (result.content ?? []) as ContentBlock[];
  const text = content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  if (result.isError === true) {
    const message = text.length > 2000 ? `${text.slice(0, 1997)}...` : text;
    return ToolResult.error(
      'EXECUTION_FAILED',
      message === '' ? `MCP server '${server}' reported an error without a message.` : message,
      {
        details: { mcpServer: server },
      },
    );
  }
  const structured = result.structuredContent;
  const data = isPlainObject(structured)
    ? structured
    : content.length === 1 && content[0]!.type === 'text'
      ? text
      : undefined;
  if (content.length === 0) return ToolResult.success(data ?? null);
  return ToolResult.content(content, data);
}
