/**
 * The tool-list formats toolshed exports to; a warning names the one it concerns.
 *
 * @example
 * ```ts
 * const target: ExportTarget = 'gemini';
 * ```
 */
export type ExportTarget = 'openai' | 'anthropic' | 'gemini' | 'bedrock' | 'mcp';

/**
 * What happened to a tool that did not export as is.
 *
 * - `rewritten`: the tool is in the list, changed to fit the target (a keyword removed, an optional
 *   property made nullable, a `$ref` inlined, a name sanitized); the call-time validator still checks
 *   the tool's real schema.
 * - `dropped`: the tool is not in the list because it is malformed or its name is taken.
 * - `unsupported`: the tool is not in the list because the target cannot express its schema.
 *
 * @example
 * ```ts
 * const leftOut = warnings.filter((warning) => warning.kind !== 'rewritten');
 * ```
 */
export type ExportWarningKind = 'rewritten' | 'dropped' | 'unsupported';

/**
 * One thing an exporter had to change or leave out, for one tool and one target.
 *
 * @example
 * ```ts
 * const warning: ExportWarning = {
 *   tool: 'build_tree',
 *   target: 'gemini',
 *   kind: 'unsupported',
 *   message: "Gemini cannot express a recursive schema ($ref '#/$defs/Node'); the tool is left out.",
 * };
 * ```
 */
export interface ExportWarning {
  /** The tool's canonical name. */
  readonly tool: string;
  readonly target: ExportTarget;
  readonly kind: ExportWarningKind;
  /** One sentence saying what changed (or why the tool was left out), with the schema paths concerned. */
  readonly message: string;
}

/**
 * What every exporter returns: the tools the target accepts, and a warning for everything it had to
 * rewrite or leave out. A tool that is not in `tools` has exactly one `dropped` or `unsupported` warning.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toAnthropicTools(registry.tools());
 * for (const warning of warnings) console.warn(`${warning.tool} (${warning.target}): ${warning.message}`);
 * ```
 */
export interface ExportResult<Tool> {
  readonly tools: Tool[];
  readonly warnings: ExportWarning[];
}

/**
 * True for a warning that means the tool was left out of the list (`dropped` or `unsupported`).
 *
 * @example
 * ```ts
 * const excluded = result.warnings.filter(isExclusion).map((warning) => warning.tool);
 * ```
 */
export function isExclusion(warning: ExportWarning): boolean {
  return warning.kind !== 'rewritten';
}
