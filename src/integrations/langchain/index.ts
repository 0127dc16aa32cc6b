/**
 * toolshed/langchain — a registry's tools as LangChain.js tools, executing through `registry.call`.
 * Needs `@langchain/core` (an optional peer dependency).
 */

export type { LangChainToolsOptions } from './to-langchain-tools.js';
export { toLangChainTools } from './to-langchain-tools.js';
