/** The API shapes the catalog reads (see docs/server.md). */

/** An environment variable a tool needs; `set` only on `GET /api/tools/:id`. */
export interface RequiredEnvVar {
  name: string;
  description?: string;
  url?: string;
  set?: boolean;
}

/** A tool of `GET /api/tools`. */
export interface Tool {
  id: string;
  name: string;
  description: string;
  parameters_schema: Record<string, unknown>;
  handler_key: string;
  category: string;
  scope: 'global' | 'workspace';
  when_to_use: string | null;
  annotations: Record<string, unknown>;
  requires?: { env?: RequiredEnvVar[] };
  created_at: string;
}

/** A tool attached to an agent (or in its fallback set). */
export interface AttachedTool extends Tool {
  config: Record<string, unknown> | null;
  attached_at: string | null;
}

/** An agent of the workspace. */
export interface Agent {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
}

/** One logged call. */
export interface ToolCall {
  id: string;
  agent_id: string | null;
  tool_id: string;
  status: string;
  error_code: string | null;
  duration_ms: number;
  created_at: string;
}

/** What `POST /api/tools/:id/call` answers: a ToolResult. */
export interface ToolResultBody {
  status: 'success' | 'error' | 'pending_approval' | string;
  data?: unknown;
  error?: { code: string; message: string; hint?: string; retryable?: boolean; details?: unknown };
  approval?: { id: string };
  warnings?: unknown[];
  metadata?: { tool?: string; durationMs?: number; [key: string]: unknown };
}

/** The provider formats of the export routes. */
export const EXPORT_FORMATS = [
  { id: 'openai', label: 'OpenAI' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'gemini', label: 'Gemini' },
  { id: 'mcp', label: 'MCP' },
] as const;
