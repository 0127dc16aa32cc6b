/**
 * toolshed/config — `toolshed.yaml`: check it (`validateConfig`) and build a registry from it
 * (`loadConfig`). Node-only: it reads files, `.env` and starts MCP servers.
 */

export type { RestToolConfig } from '../builtins/web/rest-tool-config.js';
export type { ConfigCatalog } from './config-catalog.js';
export { buildConfigCatalog, contentCatalogOf, WORKSPACE_FILES_URI_TEMPLATE } from './config-catalog.js';
export type { ConfigDiagnostic } from './config-diagnostic.js';
export { ConfigError, formatDiagnostic } from './config-diagnostic.js';
export type { Expansion, ExpansionProblem } from './expand-env.js';
export { expandEnv } from './expand-env.js';
export type { LoadConfigOptions, LoadedConfig } from './load-config.js';
export { loadConfig } from './load-config.js';
export type { SecretFinding } from './secrets.js';
export { findLiteralSecrets } from './secrets.js';
export type {
  AgentConfig,
  CatalogEntry,
  ConfigCheck,
  ConfigOptions,
  MoreBuiltins,
  OAuthConfig,
  ToolshedConfig,
} from './validate-config.js';
export { validateConfig } from './validate-config.js';
