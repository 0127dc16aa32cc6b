/**
 * The API shapes the catalog reads (see docs/server.md): the server's own types
 * (`src/server/api-shapes.ts`), so the catalog does not build against shapes the server no longer sends.
 */

export type {
  AgentView as Agent,
  AttachedToolView as AttachedTool,
  DefaultToolSetView as DefaultToolSet,
  RequiredEnvVarStatus,
  ToolAnnotationsView as ToolAnnotations,
  ToolCallView as ToolCall,
  ToolDetailView as ToolDetail,
  ToolView as Tool,
  UpstreamChangeView as UpstreamChange,
  UpstreamServerView as UpstreamServer,
} from '../../src/server/api-shapes.js';

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
