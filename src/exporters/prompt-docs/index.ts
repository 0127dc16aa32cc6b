export { cliDecisionGaps } from './cli-decision-gaps.js';
export type { PromptDocsOptions } from './render-prompt-docs.js';
export { renderPromptDocs } from './render-prompt-docs.js';
