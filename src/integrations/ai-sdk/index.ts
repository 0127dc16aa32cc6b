/**
 * toolshed/ai-sdk — a registry's tools for the Vercel AI SDK, executing through `registry.call`.
 * Needs `ai` (an optional peer dependency).
 */

export type { AiSdkToolsOptions } from './to-ai-sdk-tools.js';
export { toAiSdkTools } from './to-ai-sdk-tools.js';
