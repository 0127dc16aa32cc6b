import { ToolshedError } from '../core/errors/toolshed-error.js';
/** One finding of `toolshed validate`: where, how bad, and what to do. */
export interface ConfigDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
  /**
   * The tool a missing-credential warning is about: a command that never calls that tool (`list`,
   * `describe`, a `call` of another tool) need not print it.
   */
  tool?: string;
}

/**
 * The one-line form editors and CI logs understand: `file:line:col: error|warning: message`.
 *
 * @example
 * ```ts
 * formatDiagnostic({ file: 'toolshed.yaml', line: 7, column: 5, severity: 'error', message: "unknown tool 'x'" });
 * // "toolshed.yaml:7:5: error: unknown tool 'x'"
 * ```
 */
export function formatDiagnostic(diagnostic: ConfigDiagnostic): string {
  return `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.severity}: ${diagnostic.message}`;
}

/** Thrown by `loadConfig` when the configuration has errors; `diagnostics` has every finding. */
export class ConfigError extends ToolshedError<'INVALID_CONFIG'> {
  readonly diagnostics: readonly ConfigDiagnostic[];

  constructor(diagnostics: readonly ConfigDiagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    super(
      'INVALID_CONFIG',
      `Configuration has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map(formatDiagnostic).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.diagnostics = diagnostics;
  }
}
