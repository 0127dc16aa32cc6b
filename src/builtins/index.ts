/**
 * toolshed/builtins — the built-in tools: filesystem (confined to a root), web (behind an SSRF guard),
 * search and calculator. Node-only: import it from this subpath, never from the root entry.
 */

export type { BuiltinName, BuiltinsOptions } from './create-builtins.js';
export { BUILTIN_NAMES, createBuiltins } from './create-builtins.js';
export type { FileToolsOptions } from './filesystem/create-file-tools.js';
export { createFileTools } from './filesystem/create-file-tools.js';
export type { FileAccessErrorCode } from './filesystem/file-access-error.js';
export { FileAccessError } from './filesystem/file-access-error.js';
export type {
  FileBackend,
  FileEntry,
  FileReadOptions,
  FileWalkOptions,
  FileWriteOptions,
} from './filesystem/file-backend.js';
export type { FileToolLimits } from './filesystem/file-tool-limits.js';
export { DEFAULT_FILE_TOOL_LIMITS } from './filesystem/file-tool-limits.js';
export type { ListFilesArgs } from './filesystem/list-files-tool.js';
export { createListFilesTool, formatListing } from './filesystem/list-files-tool.js';
export type { LocalFolderBackendOptions } from './filesystem/local-folder-backend.js';
export { DEFAULT_IGNORED_DIRECTORIES, LocalFolderBackend } from './filesystem/local-folder-backend.js';
export { MAX_PATH_LENGTH, normalizeVirtualPath } from './filesystem/normalize-virtual-path.js';
export type { ReadFileArgs } from './filesystem/read-file-tool.js';
export { createReadFileTool } from './filesystem/read-file-tool.js';
export type { CodeMatch, SearchCodeArgs } from './filesystem/search-code-tool.js';
export { createSearchCodeTool } from './filesystem/search-code-tool.js';
export type { WriteFileArgs } from './filesystem/write-file-tool.js';
export { createWriteFileTool } from './filesystem/write-file-tool.js';
export type { CalculatorArgs, CalculatorOptions } from './math/calculator-tool.js';
export { createCalculatorTool } from './math/calculator-tool.js';
export type { CalculatorValue, RestrictedMath } from './math/restricted-math.js';
export {
  CALCULATOR_CONSTANTS,
  CALCULATOR_FUNCTIONS,
  createRestrictedMath,
  ExpressionError,
} from './math/restricted-math.js';
export type { WebToolsOptions } from './web/create-web-tools.js';
export { createWebTools } from './web/create-web-tools.js';
export type { DuckDuckGoSearchArgs, DuckDuckGoSearchOptions } from './web/duckduckgo-search-tool.js';
export { createDuckDuckGoSearchTool } from './web/duckduckgo-search-tool.js';
export type { FetchUrlArgs, FetchUrlOptions } from './web/fetch-url-tool.js';
export { createFetchUrlTool } from './web/fetch-url-tool.js';
export type { GuardedRequestOptions, GuardedResponse } from './web/guarded-request.js';
export { guardedRequest, HttpRequestError } from './web/guarded-request.js';
export { isDuckDuckGoChallenge, parseDuckDuckGoHtml } from './web/parse-duckduckgo-html.js';
export type { SerperSearchArgs } from './web/serper-search-tool.js';
export { createSerperSearchTool, SERPER_API_KEY } from './web/serper-search-tool.js';
export type { AddressClass, CheckedUrl, HostResolver, ResolvedAddress, SsrfGuardOptions } from './web/ssrf-guard.js';
export { classifyAddress, isPublicAddress, SsrfGuard } from './web/ssrf-guard.js';
export type { UrlBlockedReason } from './web/url-blocked-error.js';
export { UrlBlockedError } from './web/url-blocked-error.js';
export type { WebSearchResult, WebSearchToolOptions } from './web/web-search-result.js';
