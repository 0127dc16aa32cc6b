export type { BedrockTool, BedrockToolsOptions } from './bedrock-tool.js';
export { toBedrockTools } from './to-bedrock-tools.js';
