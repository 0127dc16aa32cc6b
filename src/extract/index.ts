/**
 * `toolshed extract`: tool definitions from TypeScript signatures (SPEC §4.3). Node-only (it reads
 * files and loads the TypeScript compiler on first use), so it is not part of the root entry.
 * Internal helpers (type conversion, diffing, file scanning) are not exported.
 */

export type { DefinitionDrift } from './check-definitions.js';
export { checkDefinitions, formatDrift } from './check-definitions.js';
export type { ExtractErrorDetails, ExtractErrorReason } from './extract-error.js';
export { ExtractError } from './extract-error.js';
export type { ExtractedAnnotations, ExtractedDefinition, ExtractedTool, ExtractOptions } from './extract-tools.js';
export { defaultModulePath, extractTools } from './extract-tools.js';
export {
  definitionFileName,
  generatedFiles,
  handlerModuleFileName,
  renderDefinition,
  toDefinition,
} from './render-definitions.js';
export type { RunExtractOptions, RunExtractResult } from './run-extract.js';
export { DEFAULT_EXTRACT_OUT_DIR, runExtract } from './run-extract.js';
export type { WriteDefinitionsResult } from './write-definitions.js';
export { writeDefinitions } from './write-definitions.js';
