import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import {
  type RestToolConfig,
  restToolRequirements,
  workspaceSecretReferences,
} from '../builtins/web/rest-tool-config.js';
import { isToolSpec } from '../core/define-tool.js';
import { closestNames } from '../core/did-you-mean.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { fileErrorReason } from '../core/file-error-reason.js';
import { INPUT_LIMITS } from '../core/input-limits.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import { fromToolProtocol, isToolProtocol } from '../core/tool-protocol.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { loadDefinitionDirectory, loadDefinitionFile } from '../definitions/load-yaml.js';
import { parseYamlSource, type YamlSource } from '../definitions/yaml-source.js';
import { formatSchemaFinding, lintInputExamples, lintSchema, schemaCompileFinding } from '../exporters/schema-lint.js';
import type { McpServerConfig } from '../mcp/import-mcp-server.js';
import type { RegistrableTool } from '../registry/registration.js';
import type { SandboxToolOptions } from '../sandbox/sandbox-tool.js';
import { validate as validateToolshedConfig } from '../schema/generated/toolshed-config.js';
import { runStandalone } from '../schema/run-standalone.js';
import type { CallLimitInput, CallLimitScope } from '../store/index.js';
import { checkMcpServer } from './check-mcp-servers.js';
import { buildConfigCatalog, type ConfigCatalog, WORKSPACE_FILES_URI_TEMPLATE } from './config-catalog.js';
import type { ConfigDiagnostic } from './config-diagnostic.js';
import {
  AGENT_KEYS,
  CALL_LIMIT_SCHEMA,
  CONFIG_SCHEMA,
  MCP_SERVER_SCHEMA,
  OAUTH_SCHEMA,
  REST_TOOL_SCHEMA,
  SERVER_SCHEMA,
} from './config-schema.js';
import { durationMs } from './duration.js';
import { expandEnv } from './expand-env.js';
import { findLiteralSecrets } from './secrets.js';

/** An agent (a `nodes:` entry in the seed ADR's form) and the tools it may use. */
export interface AgentConfig {
  id: string;
  name?: string;
  description?: string;
  prompt?: string;
  tools: string[];
  /** Per-tool configuration, handed to handlers as `ctx.config`. */
  config: Record<string, Record<string, unknown>>;
  /** The configuration's prompts the agent's MCP endpoint serves (by name); none when absent. */
  prompts?: string[];
  /** The configuration's resources and templates the agent's MCP endpoint serves (by URI); none when absent. */
  resources?: string[];
}

/** `toolshed.yaml`, checked and with `${VAR}` expanded. */
export interface ToolshedConfig {
  /** The file it was read from. */
  file: string;
  /** The folder relative paths resolve against. */
  baseDir: string;
  tools: string[];
  builtins: string[];
  /** The folder the built-in file tools are confined to (`workspace:`, default the file's folder). */
  workspace: string;
  /** Whether the file names `workspace:` (the service keeps files in its database otherwise). */
  workspaceSet: boolean;
  customTools: RestToolConfig[];
  mcpServers: McpServerConfig[];
  agents: AgentConfig[];
  /** `prompts:`, `resources:` (fixed) and `resources:` with `uri_template`, built. */
  catalog: ConfigCatalog;
  defaults: { timeoutMs?: number; maxOutputChars?: number; extraArgs?: 'drop' | 'reject' };
  /**
   * `server:` — settings of `toolshed serve`: how long the call log keeps a call
   * (`call_log.retention`, absent: for ever) and the served workspace's call limits (`limits`).
   */
  server: { callLogRetentionMs?: number; limits: CallLimitInput[]; oauth?: OAuthConfig };
}

/**
 * `server.oauth:` as `toolshed serve` uses it: the external authorization server whose access tokens
 * (JWTs) the MCP endpoints accept beside API tokens.
 *
 * @example
 * ```ts
 * const oauth: OAuthConfig = {
 *   issuer: 'https://auth.example.com',
 *   workspaceClaim: 'org',
 *   agentClaim: 'toolshed_agent',
 *   workspaces: { 'org-42': 'acme' },
 * };
 * ```
 */
export interface OAuthConfig {
  /** The authorization server's issuer identifier; a token's `iss` must equal it. */
  issuer: string;
  /** Where its signing keys are; absent: the `jwks_uri` of its metadata (RFC 8414, then OpenID discovery). */
  jwksUri?: string;
  /**
   * The audiences a token may name (RFC 8707 resource indicators). Absent: the URL of the MCP endpoint
   * the request reached (`<base>/mcp`, or `<base>/mcp/agents/:agentId` and `<base>/mcp`).
   */
  audience?: string[];
  /** The claim whose value picks the workspace through `workspaces`. */
  workspaceClaim: string;
  /** The claim whose value, when a token has it, is the one agent the token may use. */
  agentClaim?: string;
  /** Workspace claim value → workspace id. A value not listed is refused. */
  workspaces: Record<string, string>;
}

/** A tool the configuration makes available, and where it comes from. */
export interface CatalogEntry {
  name: string;
  source: 'definition' | 'module' | 'builtin' | 'custom_tool' | 'mcp';
  /** The spec, where it is known without running anything (not for MCP tools). */
  spec?: ToolSpec;
  requiredEnv: Array<{ name: string; description?: string; url?: string }>;
}

/** Options of {@link validateConfig} and `loadConfig`. */
export interface ConfigOptions {
  /** Environment for `${VAR}` and credential checks (default `process.env`, plus `.env` beside the file). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Read `.env` beside the config file (default true). */
  dotenv?: boolean;
  /**
   * The built-in tools that `builtins:` may name (default: toolshed's own, with the file tools confined
   * to the configuration's folder).
   */
  builtins?: readonly ToolSpec[];
  /**
   * Built-ins the caller supplies beside toolshed's own (or `builtins`), which `builtins:` and agents
   * may name too: the `toolshed` command supplies the email tools over its database's corpus.
   */
  moreBuiltins?: MoreBuiltins;
  /**
   * How the code built-ins (`execute_python`, `execute_javascript`) run when the configuration names
   * them. `allowNetwork: true` runs their sandboxes without a network namespace, on a host that cannot
   * make one (a container that blocks `unshare`): every other layer still applies, but code that gets
   * out of them reaches what this process reaches. Default: a network namespace, or refuse to run.
   */
  sandbox?: Pick<SandboxToolOptions, 'allowNetwork'>;
}

/**
 * Built-ins a caller supplies to a configuration ({@link ConfigOptions.moreBuiltins}): their names,
 * always known (suggested for a misspelt name), and the tools themselves, made only when the
 * configuration names one of them.
 *
 * @example
 * ```ts
 * const moreBuiltins: MoreBuiltins = {
 *   names: ['email_search', 'email_get', 'email_inboxes'],
 *   create: async () => createEmailTools({ emails: new EmailStore(store) }),
 * };
 * await validateConfig('toolshed.yaml', { moreBuiltins });
 * ```
 */
export interface MoreBuiltins {
  readonly names: readonly string[];
  create(): Promise<readonly ToolSpec[]>;
}

/** What {@link validateConfig} found. */
export interface ConfigCheck {
  config: ToolshedConfig | undefined;
  diagnostics: ConfigDiagnostic[];
  /** Every tool the configuration makes available, by name. */
  catalog: Map<string, CatalogEntry>;
  /** The environment used: the process environment over `.env`. */
  env: Readonly<Record<string, string | undefined>>;
}

/** Configuration files larger than this are refused. */
export const MAX_CONFIG_BYTES = INPUT_LIMITS.configFileBytes;

/**
 * Check `toolshed.yaml` without running any tool (SPEC §5.1): YAML syntax, the schema of every section,
 * literal secrets, unset `${VAR}`s, tool names that do not exist (with suggestions), tool definition
 * files, and credentials the enabled tools need (warnings). Diagnostics are sorted by position.
 *
 * @example
 * ```ts
 * const { diagnostics } = await validateConfig('toolshed.yaml');
 * for (const diagnostic of diagnostics) console.log(formatDiagnostic(diagnostic));
 * ```
 */
export async function validateConfig(path: string, options: ConfigOptions = {}): Promise<ConfigCheck> {
  const file = resolve(path);
  const shown = displayPath(file);
  const baseDir = dirname(file);
  const diagnostics: ConfigDiagnostic[] = [];
  const catalog = new Map<string, CatalogEntry>();
  const env = environment(baseDir, options);
  const at = (source: YamlSource | undefined, pointer: string) => {
    const position = source?.locate(pointer);
    return { file: shown, line: position?.line ?? 1, column: position?.column ?? 1 };
  };
  const error = (source: YamlSource | undefined, pointer: string, message: string) =>
    diagnostics.push({ ...at(source, pointer), severity: 'error', message });
  const warning = (source: YamlSource | undefined, pointer: string, message: string) =>
    diagnostics.push({ ...at(source, pointer), severity: 'warning', message });
  const done = (config: ToolshedConfig | undefined): ConfigCheck => ({
    config,
    diagnostics: sortDiagnostics(diagnostics),
    catalog,
    env,
  });

  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_CONFIG_BYTES) {
      error(undefined, '', `the file is ${size} bytes, more than the ${MAX_CONFIG_BYTES} a configuration may have`);
      return done(undefined);
    }
    text = readFileSync(file, 'utf8');
  } catch (failure) {
    const code = (failure as { code?: string }).code;
    error(
      undefined,
      '',
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'configuration file not found'
        : code === 'EISDIR'
          ? 'the configuration is a folder, not a file; name the toolshed.yaml file itself'
          : `the configuration ${fileErrorReason(failure, 'read') ?? `cannot be read: ${(failure as Error).message}`}`,
    );
    return done(undefined);
  }

  const source = parseYamlSource(text);
  if (source.syntaxError !== undefined) {
    const position = source.syntaxError.position ?? { line: 1, column: 1 };
    diagnostics.push({
      file: shown,
      ...position,
      severity: 'error',
      message: `${source.syntaxError.overLimit === true ? 'over an input limit' : 'YAML syntax error'}: ${source.syntaxError.message}`,
    });
    return done(undefined);
  }
  const raw = source.value ?? {};
  if (!isPlainObject(raw)) {
    error(
      source,
      '',
      'the configuration must be a mapping with keys such as tools, builtins, custom_tools, mcp_servers and agents',
    );
    return done(undefined);
  }

  // `auth.secret` names a workspace secret, which a file has no workspace for; its value is never quoted.
  const secretReferences = workspaceSecretReferences(raw.custom_tools);
  for (const reference of secretReferences) {
    error(
      source,
      reference.pointer,
      `custom tool '${reference.tool}' names a workspace secret (auth.secret), but a configuration file has no workspace: workspace secrets are for tools created through the service API (POST /api/tools); here, read the value from the environment with auth.token_env (auth.value_env for header and query auth)`,
    );
  }
  const withinSecretAuth = (pointer: string) =>
    secretReferences.some(
      (reference) => pointer === reference.authPointer || pointer.startsWith(`${reference.authPointer}/`),
    );
  for (const finding of findLiteralSecrets(raw)) {
    if (withinSecretAuth(finding.pointer)) continue;
    error(
      source,
      finding.pointer,
      `literal secret in '${finding.path}' (${finding.reason}): credentials come from the environment only; reference a variable instead, such as \${MY_API_KEY} or a *_env key`,
    );
  }
  const expanded = expandEnv(raw, env);
  for (const problem of expanded.problems) {
    error(
      source,
      problem.pointer,
      `environment variable ${problem.variable} is not set and has no default; set it (export ${problem.variable}=...) or write \${${problem.variable}:-default}`,
    );
  }
  const value = expanded.value as Record<string, unknown>;
  const unexpanded = new Set(expanded.problems.map((problem) => problem.pointer));
  // What the environment holds may be a credential: a message quotes such a value as written.
  const written = new Map(expanded.expansions.map((expansion) => [expansion.pointer, expansion.written]));
  const asWrittenOr = (pointer: string, expandedValue: unknown): string =>
    written.get(pointer) ?? String(expandedValue);
  const issues = runStandalone(validateToolshedConfig, value);
  for (const issue of issues ?? []) {
    // A value left empty by a missing variable was reported already, and so was an auth with a secret.
    if (unexpanded.has(issue.pointer) || withinSecretAuth(issue.pointer)) continue;
    const field = issue.path;
    const asWritten = written.get(issue.pointer);
    const message =
      issue.keyword === 'additionalProperties'
        ? unknownKeyMessage(field)
        : issue.keyword === 'required'
          ? `missing required field '${field}' (${issue.expected})`
          : asWritten !== undefined
            ? expandedValueMessage(field, issue.expected, asWritten)
            : issue.keyword === 'pattern' && issue.expected.includes('^https?:')
              ? `'${field}' must be an http:// or https:// URL, got ${JSON.stringify(issue.received)}`
              : issue.keyword === 'pattern' && issue.pointer === '/server/call_log/retention'
                ? `'${field}' must be a duration such as 30d, 12h, 90m, 45s or 500ms, got ${JSON.stringify(issue.received)}`
                : issue.message;
    error(source, issue.pointer, message);
  }
  checkCallLimits(value.server, (pointer, message) => error(source, pointer, message));
  checkOAuth(value.server, (pointer, message) => error(source, pointer, message));
  const servers = (value.mcp_servers as Array<Record<string, unknown>> | undefined) ?? [];
  servers.forEach((server, index) => {
    if (!isPlainObject(server)) return;
    const targets = ['command', 'url'].filter((key) => server[key] !== undefined);
    if (targets.length !== 1) {
      const name = asWrittenOr(`/mcp_servers/${index}/name`, server.name);
      error(
        source,
        `/mcp_servers/${index}`,
        targets.length === 0
          ? `MCP server '${name}' needs either a command (stdio) or a url (Streamable HTTP)`
          : `MCP server '${name}' has both a command and a url; keep one`,
      );
    }
    if (isPlainObject(server.oauth)) {
      const name = asWrittenOr(`/mcp_servers/${index}/name`, server.name);
      if (server.url === undefined)
        error(
          source,
          `/mcp_servers/${index}/oauth`,
          `MCP server '${name}' has oauth, which only a server reached by url (Streamable HTTP) can use`,
        );
      const authorization = Object.keys(isPlainObject(server.headers_env) ? server.headers_env : {}).find(
        (header) => header.toLowerCase() === 'authorization',
      );
      if (authorization !== undefined)
        error(
          source,
          `/mcp_servers/${index}/headers_env/${authorization}`,
          `MCP server '${name}' has both oauth and an ${authorization} header in headers_env; keep one`,
        );
    }
  });
  if (
    servers.some((server) => isPlainObject(server) && (server.command === undefined) === (server.url === undefined))
  ) {
    return done(undefined);
  }
  if (issues !== undefined) return done(undefined);

  if (value.agents !== undefined && value.nodes !== undefined) {
    error(source, '/nodes', "use either 'agents' or its alias 'nodes', not both");
  }
  const agentsKey = value.agents !== undefined ? 'agents' : 'nodes';
  const agentShown = (index: number, id: unknown) => asWrittenOr(`/${agentsKey}/${index}/id`, id);
  const rawAgents = ((value[agentsKey] as Array<Record<string, unknown>> | undefined) ?? []).map((agent, index) => {
    for (const key of Object.keys(agent)) {
      if (AGENT_KEYS.includes(key)) continue;
      // Other consumers may keep their own keys on an agent; one close to a key of toolshed's is a typo.
      const meant = closestNames(key, AGENT_KEYS, 1)[0];
      warning(
        source,
        `/${agentsKey}/${index}/${key}`,
        `key '${key}' of agent '${agentShown(index, agent.id)}' is not used by toolshed${meant === undefined ? '' : ` (did you mean '${meant}'?)`}`,
      );
    }
    return agent;
  });
  const seenAgents = new Set<string>();
  rawAgents.forEach((agent, index) => {
    if (seenAgents.has(agent.id as string))
      error(source, `/${agentsKey}/${index}/id`, `agent id '${agentShown(index, agent.id)}' is used twice`);
    seenAgents.add(agent.id as string);
  });

  const config: ToolshedConfig = {
    file,
    baseDir,
    tools: (value.tools as string[] | undefined) ?? [],
    builtins: (value.builtins as string[] | undefined) ?? [],
    workspace: resolve(baseDir, (value.workspace as string | undefined) ?? '.'),
    workspaceSet: typeof value.workspace === 'string',
    customTools: (value.custom_tools as RestToolConfig[] | undefined) ?? [],
    mcpServers: ((value.mcp_servers as Array<Record<string, unknown>> | undefined) ?? []).map(toMcpServerConfig),
    agents: rawAgents.map((agent) => ({
      id: agent.id as string,
      tools: (agent.tools as string[] | undefined) ?? [],
      config: (agent.config as Record<string, Record<string, unknown>> | undefined) ?? {},
      ...(typeof agent.name === 'string' ? { name: agent.name } : {}),
      ...(typeof agent.description === 'string' ? { description: agent.description } : {}),
      ...(typeof agent.prompt === 'string' ? { prompt: agent.prompt } : {}),
      ...(Array.isArray(agent.prompts) ? { prompts: agent.prompts as string[] } : {}),
      ...(Array.isArray(agent.resources) ? { resources: agent.resources as string[] } : {}),
    })),
    catalog: buildConfigCatalog(value, (pointer, message) => error(source, pointer, message)),
    defaults: toDefaults(value.defaults),
    server: toServer(value.server),
  };
  const promptNames = config.catalog.prompts.map((prompt) => prompt.name);
  const resourceUris = [
    ...config.catalog.resources.map((resource) => resource.uri),
    ...config.catalog.resourceTemplates.map((template) => template.uriTemplate),
    WORKSPACE_FILES_URI_TEMPLATE,
  ];
  config.agents.forEach((agent, agentIndex) => {
    agent.prompts?.forEach((name, index) => {
      if (!promptNames.includes(name)) {
        error(
          source,
          `/${agentsKey}/${agentIndex}/prompts/${index}`,
          `agent '${agent.id}' names the prompt '${name}', which the configuration's prompts: does not define${suggestion(name, promptNames)}`,
        );
      }
    });
    agent.resources?.forEach((uri, index) => {
      if (!resourceUris.includes(uri)) {
        error(
          source,
          `/${agentsKey}/${agentIndex}/resources/${index}`,
          `agent '${agent.id}' names the resource '${uri}', which the configuration's resources: does not define${suggestion(uri, resourceUris)}`,
        );
      }
    });
  });

  // Custom tool ids are the only catalog names a configuration can take from the environment.
  const writtenNames = new Map<string, string>();
  config.customTools.forEach((tool, index) => {
    const asWritten = written.get(`/custom_tools/${index}/id`);
    if (asWritten !== undefined) writtenNames.set(tool.id, asWritten);
  });
  const toolShown = (name: string) => writtenNames.get(name) ?? name;
  const lintedAt = new Map<string, string>();
  const add = (entry: CatalogEntry, pointer: string) => {
    if (!lintedAt.has(entry.name)) lintedAt.set(entry.name, pointer);
    const existing = catalog.get(entry.name);
    if (existing !== undefined) {
      error(
        source,
        pointer,
        `tool '${toolShown(entry.name)}' is defined twice (as a ${existing.source.replace('_', ' ')} and as a ${entry.source.replace('_', ' ')})`,
      );
      return;
    }
    catalog.set(entry.name, entry);
  };

  for (const [index, entry] of config.tools.entries()) {
    const pointer = `/tools/${index}`;
    for (const loaded of await loadToolSource(
      resolve(baseDir, entry),
      asWrittenOr(pointer, entry),
      (message) => error(source, pointer, message),
      diagnostics,
    )) {
      add(
        { name: loaded.spec.name, source: loaded.kind, spec: loaded.spec, requiredEnv: loaded.spec.requires.env ?? [] },
        pointer,
      );
    }
  }

  const named = new Set([...config.builtins, ...config.agents.flatMap((agent) => agent.tools)]);
  const more = options.moreBuiltins;
  const builtinSpecs = [
    ...(options.builtins ??
      (named.size > 0
        ? [
            ...(await import('../builtins/create-builtins.js')).createBuiltins({ files: { root: config.workspace } }),
            ...(await codeBuiltins(named, options.sandbox)),
          ]
        : [])),
    ...(more?.names.some((name) => named.has(name)) ? await more.create() : []),
  ];
  const builtins = new Map(builtinSpecs.map((spec) => [spec.name, spec]));
  // The code tools and the caller's are made only when named (their modules cost a start-up), but
  // always suggested.
  const builtinNames = [
    ...new Set([...builtins.keys(), ...(options.builtins === undefined ? CODE_BUILTINS : []), ...(more?.names ?? [])]),
  ];
  const enableBuiltin = (name: string, pointer: string): boolean => {
    const spec = builtins.get(name);
    const existing = catalog.get(name);
    // Enabled already, or a name only the configuration defines. A definition of a built-in's name is
    // added again below, so it is reported as defined twice instead of replacing the built-in unseen.
    if (existing !== undefined && (existing.source === 'builtin' || spec === undefined)) return true;
    if (spec === undefined) return false;
    add({ name, source: 'builtin', spec, requiredEnv: spec.requires.env ?? [] }, pointer);
    return true;
  };
  config.builtins.forEach((name, index) => {
    if (!enableBuiltin(name, `/builtins/${index}`)) {
      error(
        source,
        `/builtins/${index}`,
        unknownToolMessage(
          `unknown built-in '${asWrittenOr(`/builtins/${index}`, name)}'`,
          name,
          [...builtinNames].sort(),
          'Available built-ins',
        ),
      );
    }
  });

  config.customTools.forEach((tool, index) => {
    add({ name: tool.id, source: 'custom_tool', requiredEnv: restToolRequirements(tool) }, `/custom_tools/${index}`);
  });
  const mcpNames = new Set(config.mcpServers.map((server) => server.name));
  const seenServers = new Set<string>();
  config.mcpServers.forEach((server, index) => {
    if (seenServers.has(server.name))
      error(
        source,
        `/mcp_servers/${index}/name`,
        `MCP server name '${asWrittenOr(`/mcp_servers/${index}/name`, server.name)}' is used twice`,
      );
    seenServers.add(server.name);
    // What keeps a server from starting is a warning: the others still serve without it.
    const cwd = server.cwd === undefined ? baseDir : resolve(baseDir, server.cwd);
    const shownName = asWrittenOr(`/mcp_servers/${index}/name`, server.name);
    for (const problem of checkMcpServer({ ...server, name: shownName }, env, cwd)) {
      warning(source, `/mcp_servers/${index}${problem.pointer}`, problem.message);
    }
  });

  config.agents.forEach((agent, agentIndex) => {
    agent.tools.forEach((name, toolIndex) => {
      const pointer = `/${agentsKey}/${agentIndex}/tools/${toolIndex}`;
      if (catalog.has(name) || enableBuiltin(name, pointer)) return;
      const server = name.includes('__') ? name.slice(0, name.indexOf('__')) : undefined;
      if (
        server !== undefined &&
        [...mcpNames].some((known) => known.toLowerCase().replace(/[^a-z0-9]+/g, '_') === server)
      )
        return;
      const available = [...new Set([...catalog.keys(), ...builtinNames])].sort();
      error(
        source,
        pointer,
        unknownToolMessage(
          `unknown tool '${asWrittenOr(pointer, name)}' in agent '${agentShown(agentIndex, agent.id)}'`,
          name,
          available,
          'Available tools',
          toolShown,
        ),
      );
    });
    for (const toolName of Object.keys(agent.config)) {
      if (!agent.tools.includes(toolName)) {
        warning(
          source,
          `/${agentsKey}/${agentIndex}/config/${toolName}`,
          `config for tool '${toolName}' in agent '${agentShown(agentIndex, agent.id)}' is unused: the agent does not list that tool`,
        );
      }
    }
  });

  // Schema lint: mistakes in a tool's input schema that a model would pay for (see lintSchema).
  for (const entry of catalog.values()) {
    if (entry.spec === undefined) continue;
    // A schema that does not compile fails every call: an error, not a lint warning.
    const broken = schemaCompileFinding(entry.spec.inputSchema);
    if (broken !== undefined) {
      error(source, lintedAt.get(entry.name) ?? '/tools', formatSchemaFinding(toolShown(entry.name), broken));
    }
    const findings = [
      ...lintSchema(entry.spec.inputSchema),
      ...lintInputExamples(entry.spec.inputSchema, entry.spec.inputExamples),
    ];
    for (const finding of findings)
      warning(source, lintedAt.get(entry.name) ?? '/tools', formatSchemaFinding(toolShown(entry.name), finding));
  }

  const warned = new Set<string>();
  for (const entry of catalog.values()) {
    for (const variable of entry.requiredEnv) {
      const value = env[variable.name];
      if (value !== undefined && value !== '') continue;
      const key = `${entry.name}:${variable.name}`;
      if (warned.has(key)) continue;
      warned.add(key);
      const where = variable.url === undefined ? ' Set it in the environment:' : ` Get one at ${variable.url}, then:`;
      // A custom tool's credential is described with its id, which may come from the environment.
      const nameWritten = writtenNames.get(entry.name);
      const description =
        nameWritten === undefined
          ? variable.description
          : variable.description?.replace(new RegExp(`\\b${entry.name}\\b`, 'g'), () => nameWritten);
      diagnostics.push({
        ...at(source, pointerOf(config, entry.name, agentsKey)),
        severity: 'warning',
        message: `tool '${toolShown(entry.name)}' needs ${variable.name}${description === undefined ? '' : ` (${description})`}, which is not set; its calls will fail with MISSING_CREDENTIALS.${where} export ${variable.name}=...`,
        tool: entry.name,
      });
    }
  }
  return done(config);
}

/** Environment for a configuration: `.env` beside it, overridden by the real environment. */
function environment(baseDir: string, options: ConfigOptions): Readonly<Record<string, string | undefined>> {
  const base = options.env ?? process.env;
  if (options.dotenv === false) return base;
  const dotenvFile = resolve(baseDir, '.env');
  if (!existsSync(dotenvFile)) return base;
  try {
    return { ...parseEnv(readFileSync(dotenvFile, 'utf8')), ...base };
  } catch {
    return base;
  }
}

interface LoadedTool {
  spec: ToolSpec;
  kind: 'definition' | 'module';
}

async function loadToolSource(
  target: string,
  written: string,
  fail: (message: string) => void,
  diagnostics: ConfigDiagnostic[],
): Promise<LoadedTool[]> {
  if (!existsSync(target)) {
    fail(`tools path '${written}' does not exist`);
    return [];
  }
  const report = (caught: unknown) => {
    if (!ToolRegistrationError.isInstance(caught)) {
      fail(`cannot load '${written}': ${(caught as Error).message}`);
      return;
    }
    for (const item of caught.errors.length > 1 || caught.code === 'LOAD_FAILED' ? caught.errors : [caught]) {
      const message = item.message.replace(/^[^:]+:\d+:\d+: /, '').replace(/^[^:\s]+: /, '');
      diagnostics.push({
        file: item.file ?? written,
        line: item.line ?? 1,
        column: item.column ?? 1,
        severity: 'error',
        message,
      });
    }
  };
  try {
    if (statSync(target).isDirectory()) {
      const loaded = await loadDefinitionDirectory(target, { pattern: '**/*.{yaml,yml}' });
      return loaded.map((item) => ({ spec: item.spec, kind: 'definition' }));
    }
    const extension = extname(target);
    if (extension === '.yaml' || extension === '.yml') {
      return [{ spec: (await loadDefinitionFile(target)).spec, kind: 'definition' }];
    }
    if (['.js', '.mjs', '.cjs', '.ts', '.mts'].includes(extension)) {
      const module = (await import(pathToFileURL(target).href)) as Record<string, unknown>;
      const tools = Object.values(module).filter((exported) => isToolSpec(exported) || isToolProtocol(exported));
      if (tools.length === 0) fail(`module '${written}' exports no tools (export specs made with defineTool)`);
      return tools.map((tool) => ({ spec: toSpec(tool as RegistrableTool), kind: 'module' }));
    }
    fail(`tools path '${written}' must be a YAML definition, a folder of them, or a JavaScript module exporting tools`);
    return [];
  } catch (caught) {
    report(caught);
    return [];
  }
}

function toSpec(tool: RegistrableTool): ToolSpec {
  if (isToolSpec(tool)) return tool;
  // A plain `{name, description, parameters, execute}` object, as the registry takes it.
  return isToolProtocol(tool) ? fromToolProtocol(tool) : (tool as unknown as ToolSpec);
}

function toMcpServerConfig(entry: Record<string, unknown>): McpServerConfig {
  const config: McpServerConfig = { name: entry.name as string };
  if (typeof entry.command === 'string') config.command = entry.command;
  if (Array.isArray(entry.args)) config.args = entry.args as string[];
  if (isPlainObject(entry.env)) config.env = entry.env as Record<string, string>;
  if (typeof entry.cwd === 'string') config.cwd = entry.cwd;
  if (typeof entry.url === 'string') config.url = entry.url;
  if (isPlainObject(entry.headers_env)) config.headersEnv = entry.headers_env as Record<string, string>;
  if (isPlainObject(entry.oauth)) {
    const oauth = entry.oauth;
    config.oauth = {
      issuer: oauth.issuer as string,
      clientIdEnv: oauth.client_id_env as string,
      clientSecretEnv: oauth.client_secret_env as string,
      ...(typeof oauth.scope === 'string' ? { scope: oauth.scope } : {}),
    };
  }
  if (typeof entry.timeout === 'number') config.timeoutMs = entry.timeout * 1000;
  return config;
}

function toDefaults(value: unknown): ToolshedConfig['defaults'] {
  if (!isPlainObject(value)) return {};
  const defaults: ToolshedConfig['defaults'] = {};
  if (typeof value.timeout === 'number') defaults.timeoutMs = value.timeout * 1000;
  if (typeof value.max_output_chars === 'number') defaults.maxOutputChars = value.max_output_chars;
  if (value.extra_args === 'drop' || value.extra_args === 'reject') defaults.extraArgs = value.extra_args;
  return defaults;
}

/**
 * `server.limits` entries past their schema: a target for every scope but `workspace` (and none for
 * it), a rate or a cap, `burst` only with a rate, and each scope and target once.
 */
function checkCallLimits(server: unknown, report: (pointer: string, message: string) => void): void {
  if (!isPlainObject(server) || !Array.isArray(server.limits)) return;
  const seen = new Set<string>();
  server.limits.forEach((limit: unknown, index: number) => {
    if (!isPlainObject(limit) || !['workspace', 'token', 'agent', 'tool'].includes(limit.scope as string)) return;
    const at = `/server/limits/${index}`;
    const name = `server.limits[${index}]`;
    if (limit.scope === 'workspace' && limit.target !== undefined) {
      report(`${at}/target`, `${name}: a workspace limit has no target; remove 'target'`);
    } else if (limit.scope !== 'workspace' && limit.target === undefined) {
      report(
        at,
        `${name}: ${limit.scope === 'agent' ? 'an' : 'a'} ${limit.scope} limit needs a 'target' naming the ${limit.scope === 'token' ? 'API token (its id)' : limit.scope}`,
      );
    }
    if (limit.burst !== undefined && limit.calls_per_minute === undefined) {
      report(`${at}/burst`, `${name}: 'burst' is the size of a rate limit; give 'calls_per_minute' with it`);
    } else if (limit.calls_per_minute === undefined && limit.max_concurrent === undefined) {
      report(at, `${name}: a limit needs 'calls_per_minute', 'max_concurrent' or both`);
    }
    const key = `${limit.scope}\n${typeof limit.target === 'string' ? limit.target : ''}`;
    if (seen.has(key)) {
      report(
        at,
        `${name}: the ${limit.scope} limit${typeof limit.target === 'string' ? ` of '${limit.target}'` : ''} is given twice; keep one`,
      );
    }
    seen.add(key);
  });
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `server.oauth` past its schema: URLs that parse, `https://` except on a loopback host (tokens and
 * keys must not travel in the clear), no query or fragment in the issuer, and no claim used twice.
 */
function checkOAuth(server: unknown, report: (pointer: string, message: string) => void): void {
  if (!isPlainObject(server) || !isPlainObject(server.oauth)) return;
  const oauth = server.oauth;
  const checkUrl = (pointer: string, field: string, value: unknown, issuer = false) => {
    if (typeof value !== 'string' || !/^https?:\/\//.test(value)) return;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      report(pointer, `'${field}' is not a valid URL: ${JSON.stringify(value)}`);
      return;
    }
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      report(
        pointer,
        `'${field}' must be an https:// URL (http:// only on localhost, 127.0.0.1 or [::1]), got ${JSON.stringify(value)}`,
      );
    }
    if (issuer && (url.search !== '' || url.hash !== '')) {
      report(pointer, `'${field}' is an issuer identifier: no query or fragment, got ${JSON.stringify(value)}`);
    }
  };
  checkUrl('/server/oauth/issuer', 'server.oauth.issuer', oauth.issuer, true);
  checkUrl('/server/oauth/jwks_uri', 'server.oauth.jwks_uri', oauth.jwks_uri);
  if (Array.isArray(oauth.audience)) {
    oauth.audience.forEach((audience: unknown, index: number) => {
      checkUrl(`/server/oauth/audience/${index}`, `server.oauth.audience[${index}]`, audience);
    });
  } else {
    checkUrl('/server/oauth/audience', 'server.oauth.audience', oauth.audience);
  }
  if (isPlainObject(oauth.workspaces) && Object.keys(oauth.workspaces).length === 0) {
    report(
      '/server/oauth/workspaces',
      "'server.oauth.workspaces' is empty: map each value of the workspace claim to a workspace id, such as 'org-42: acme'",
    );
  }
  if (typeof oauth.agent_claim === 'string' && oauth.agent_claim === oauth.workspace_claim) {
    report(
      '/server/oauth/agent_claim',
      `'server.oauth.agent_claim' is the workspace claim '${oauth.agent_claim}' too; name the claim that holds the agent id`,
    );
  }
}

function toServer(value: unknown): ToolshedConfig['server'] {
  const server: ToolshedConfig['server'] = { limits: [] };
  if (!isPlainObject(value)) return server;
  const retention = isPlainObject(value.call_log) ? durationMs(value.call_log.retention) : undefined;
  if (retention !== undefined) server.callLogRetentionMs = retention;
  if (isPlainObject(value.oauth)) {
    const oauth = value.oauth;
    server.oauth = {
      issuer: oauth.issuer as string,
      workspaceClaim: oauth.workspace_claim as string,
      workspaces: { ...(oauth.workspaces as Record<string, string>) },
      ...(typeof oauth.jwks_uri === 'string' ? { jwksUri: oauth.jwks_uri } : {}),
      ...(oauth.audience === undefined ? {} : { audience: [oauth.audience as string | string[]].flat() }),
      ...(typeof oauth.agent_claim === 'string' ? { agentClaim: oauth.agent_claim } : {}),
    };
  }
  if (Array.isArray(value.limits)) {
    for (const limit of value.limits) {
      if (!isPlainObject(limit) || typeof limit.scope !== 'string') continue;
      const number = (field: string) => (typeof limit[field] === 'number' ? (limit[field] as number) : null);
      server.limits.push({
        scope: limit.scope as CallLimitScope,
        target: typeof limit.target === 'string' ? limit.target : null,
        callsPerMinute: number('calls_per_minute'),
        burst: number('burst'),
        maxConcurrent: number('max_concurrent'),
      });
    }
  }
  return server;
}

function unknownKeyMessage(field: string): string {
  const key = field.split('.').pop() ?? field;
  const parent = field.includes('.') ? field.slice(0, field.lastIndexOf('.')) : '';
  if (parent === '') {
    const known = Object.keys(CONFIG_SCHEMA.properties ?? {});
    const suggestion = closestNames(key, known, 1)[0];
    return `unknown key '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; allowed keys: ${known.join(', ')}`;
  }
  const section = parent.replace(/\[\d+\]$/, '');
  const schemas: Record<string, JsonSchema | undefined> = {
    custom_tools: REST_TOOL_SCHEMA,
    mcp_servers: MCP_SERVER_SCHEMA,
    defaults: CONFIG_SCHEMA.properties?.defaults,
    server: SERVER_SCHEMA,
    'server.call_log': SERVER_SCHEMA.properties?.call_log,
    'server.limits': CALL_LIMIT_SCHEMA,
    'server.oauth': OAUTH_SCHEMA,
  };
  const known = Object.keys(schemas[section]?.properties ?? {});
  if (known.length === 0) return `unknown key '${key}' in '${parent}'`;
  const suggestion = closestNames(key, known, 1)[0];
  return `unknown key '${key}' in '${parent}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; allowed keys: ${known.join(', ')}`;
}

/**
 * The email tools, which need an email corpus in a database: the `toolshed` command supplies them
 * ({@link ConfigOptions.moreBuiltins}); a caller that does not is told so when a file names one.
 */
const EMAIL_TOOLS: readonly string[] = ['email_get', 'email_inboxes', 'email_search'];

function unknownToolMessage(
  problem: string,
  name: string,
  available: string[],
  label: string,
  nameShown: (name: string) => string = (known) => known,
): string {
  if (EMAIL_TOOLS.includes(name)) {
    return `${problem}: it is one of the email tools, which search an email corpus in a database, and this program does not supply them (the toolshed command does; in code, pass createEmailTools' tools as the moreBuiltins option).`;
  }
  const suggestions = closestNames(name, available, 3).map(nameShown);
  const didYouMean =
    suggestions.length > 0 ? ` Did you mean ${suggestions.map((entry) => `'${entry}'`).join(' or ')}?` : '';
  const list =
    available.length === 0
      ? 'none'
      : available.map(nameShown).sort().slice(0, 30).join(', ') +
        (available.length > 30 ? `, and ${available.length - 30} more` : '');
  return `${problem}.${didYouMean} ${label}: ${list}.`;
}

/**
 * The message for a value that failed its schema after taking something from the environment: it
 * quotes the value as written, never what the environment holds. A `*_env` field given a `${VAR}`
 * reference gets the fix, since it takes the variable's name.
 */
function expandedValueMessage(field: string, expected: string, written: string): string {
  const reference = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written);
  if (reference !== null && /_env\.|_env$/.test(field)) {
    return `'${field}' takes the name of an environment variable; write ${reference[1]}, not ${written}`;
  }
  const wanted = expected.includes('^https?:') ? 'an http:// or https:// URL' : expected;
  return `'${field}' must be ${wanted}, got a string from ${JSON.stringify(written)} (values from the environment are not shown)`;
}

function pointerOf(config: ToolshedConfig, name: string, agentsKey: string): string {
  const builtin = config.builtins.indexOf(name);
  if (builtin >= 0) return `/builtins/${builtin}`;
  const custom = config.customTools.findIndex((tool) => tool.id === name);
  if (custom >= 0) return `/custom_tools/${custom}`;
  for (const [index, agent] of config.agents.entries()) {
    const position = agent.tools.indexOf(name);
    if (position >= 0) return `/${agentsKey}/${index}/tools/${position}`;
  }
  return '/tools';
}

function sortDiagnostics(diagnostics: ConfigDiagnostic[]): ConfigDiagnostic[] {
  return [...diagnostics].sort(
    (left, right) => left.file.localeCompare(right.file) || left.line - right.line || left.column - right.column,
  );
}

function displayPath(file: string): string {
  const shown = relative(process.cwd(), file);
  return shown === '' || shown.startsWith('..') ? file : shown;
}

/** The code-execution built-ins (SPEC §10), which run in sandbox pools started on their first call. */
const CODE_BUILTINS: readonly string[] = ['execute_javascript', 'execute_python'];

/** `execute_python` / `execute_javascript` when the configuration names them, else nothing. */
async function codeBuiltins(named: ReadonlySet<string>, sandbox: ConfigOptions['sandbox'] = {}) {
  if (!CODE_BUILTINS.some((name) => named.has(name))) return [];
  const { createExecuteJavascriptTool, createExecutePythonTool } = await import('../sandbox/index.js');
  return [createExecuteJavascriptTool(sandbox) as ToolSpec, createExecutePythonTool(sandbox) as ToolSpec];
}

function suggestion(name: string, known: readonly string[]): string {
  const close = closestNames(name, [...known], 1)[0];
  return close === undefined ? '' : `; did you mean '${close}'?`;
}
