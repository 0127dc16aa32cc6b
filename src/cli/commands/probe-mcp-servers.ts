import { readFileSync } from 'node:fs';
import type { ConfigDiagnostic } from '../../config/config-diagnostic.js';
import type { ToolshedConfig } from '../../config/validate-config.js';
import { parseYamlSource } from '../../definitions/yaml-source.js';

/** What probing one `mcp_servers` entry found: its tools, or why it did not answer. */
export interface McpServerProbe {
  server: string;
  /** The names its tools register under, when it answered. */
  tools?: string[];
  error?: string;
}

/**
 * Connect to every `mcp_servers` entry of a valid configuration (all at once, each bounded by its
 * timeout), list its tools and disconnect. A server that does not answer becomes an error diagnostic
 * on its entry, shown as `file` in messages.
 *
 * @example
 * ```ts
 * const { probes, diagnostics } = await probeMcpServers(check.config, check.env, 'toolshed.yaml');
 * // probes: [{ server: 'everything', tools: ['everything__echo', ...] }]
 * ```
 */
export async function probeMcpServers(
  config: ToolshedConfig,
  env: Readonly<Record<string, string | undefined>>,
  file: string,
): Promise<{ probes: McpServerProbe[]; diagnostics: ConfigDiagnostic[] }> {
  const [{ importMcpServer }, { ToolRegistry }] = await Promise.all([
    import('../../mcp/import-mcp-server.js'),
    import('../../registry/tool-registry.js'),
  ]);
  const probes = await Promise.all(
    config.mcpServers.map(async (server): Promise<McpServerProbe> => {
      try {
        const connection = await importMcpServer(
          new ToolRegistry(),
          { ...server, cwd: server.cwd ?? config.baseDir },
          { env, reconnect: false },
        );
        const tools = [...connection.tools];
        await connection.close();
        return { server: server.name, tools };
      } catch (error) {
        return { server: server.name, error: (error as Error).message };
      }
    }),
  );
  const source = parseYamlSource(readFileSync(config.file, 'utf8'));
  const diagnostics: ConfigDiagnostic[] = [];
  probes.forEach((probe, index) => {
    if (probe.error === undefined) return;
    const position = source.locate(`/mcp_servers/${index}`) ?? { line: 1, column: 1 };
    diagnostics.push({ file, ...position, severity: 'error', message: `probe failed: ${probe.error}` });
  });
  return { probes, diagnostics };
}
