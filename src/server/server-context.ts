import type { ToolshedStore } from '../store/index.js';
import type { CallLimits } from './call-limits.js';
import type { CallQuotas } from './call-quotas.js';
import type { CodeToolSandboxes } from './code-tool.js';
import type { ServerMetrics } from './server-metrics.js';
import type { WorkspaceRegistries } from './workspace-registries.js';

/** What the routes share. */
export interface ServerContext {
  store: ToolshedStore;
  registries: WorkspaceRegistries;
  metrics: ServerMetrics;
  /** How many calls each API token and workspace may have running at once. */
  calls: CallQuotas;
  /** The workspaces' rate limits and concurrency caps (configuration and `call_limits` rows). */
  limits: CallLimits;
  /** The operator's log of server-side failures (`ServerOptions.onError`). */
  report: (error: unknown) => void;
  /** The environment the tools see (the registries' `env`, default `process.env`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where code tools run and are checked; absent when the server runs no sandbox. */
  codeSandboxes?: CodeToolSandboxes;
}
