import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { McpServerConfig } from '../mcp/import-mcp-server.js';

/** Something that keeps an `mcp_servers` entry from starting, and the key it is about. */
export interface McpServerProblem {
  /** JSON Pointer of the value at fault, from the entry: `/command`, `/url`, `/headers_env/Authorization`. */
  pointer: string;
  message: string;
}

/**
 * What can be checked of an `mcp_servers` entry without starting it: the command exists (on the
 * `PATH` it is spawned with, or as a path relative to `cwd`) and is executable, the URL (and the OAuth
 * issuer) is well formed, and every variable `headersEnv` and `oauth` name is set. Values of variables are never quoted.
 *
 * `env` is where `headersEnv` variables are read, as when connecting.
 *
 * @example
 * ```ts
 * checkMcpServer({ name: 'gh', url: 'https://example.com/mcp', headersEnv: { Authorization: 'GH_AUTH' } }, {}, '.');
 * // [{ pointer: '/headers_env/Authorization', message: "MCP server 'gh' needs the environment variable GH_AUTH for its Authorization header, which is not set" }]
 * ```
 */
export function checkMcpServer(
  server: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): McpServerProblem[] {
  const problems: McpServerProblem[] = [];
  if (
    server.command !== undefined &&
    findCommand(server.command, server.env?.PATH ?? process.env.PATH ?? '', cwd) === undefined
  ) {
    const where = /[/\\]/.test(server.command)
      ? isAbsolute(server.command)
        ? ''
        : ' relative to its cwd'
      : ' on PATH';
    problems.push({
      pointer: '/command',
      message: `MCP server '${server.name}' cannot start: command '${server.command}' is not an executable file${where}`,
    });
  }
  if (server.url !== undefined && !URL.canParse(server.url)) {
    problems.push({ pointer: '/url', message: `MCP server '${server.name}' has a url that is not a well-formed URL` });
  }
  for (const [header, variable] of Object.entries(server.headersEnv ?? {})) {
    if ((env[variable] ?? '') !== '') continue;
    problems.push({
      pointer: `/headers_env/${header.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      message: `MCP server '${server.name}' needs the environment variable ${variable} for its ${header} header, which is not set`,
    });
  }
  const oauth = server.oauth;
  if (oauth !== undefined) {
    if (!URL.canParse(oauth.issuer))
      problems.push({
        pointer: '/oauth/issuer',
        message: `MCP server '${server.name}' has an oauth issuer that is not a well-formed URL`,
      });
    for (const [key, variable, what] of [
      ['client_id_env', oauth.clientIdEnv, 'client id'],
      ['client_secret_env', oauth.clientSecretEnv, 'client secret'],
    ] as const) {
      if ((env[variable] ?? '') !== '') continue;
      problems.push({
        pointer: `/oauth/${key}`,
        message: `MCP server '${server.name}' needs the environment variable ${variable} for its OAuth ${what}, which is not set`,
      });
    }
  }
  return problems;
}

/** The executable `command` resolves to: a path (relative to `cwd`), or the first match on `path`. */
function findCommand(command: string, path: string, cwd: string): string | undefined {
  if (/[/\\]/.test(command) || isAbsolute(command)) {
    const file = resolve(cwd, command);
    return isExecutable(file) ? file : undefined;
  }
  for (const folder of path.split(delimiter)) {
    if (folder === '') continue;
    const file = join(resolve(cwd, folder), command);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
