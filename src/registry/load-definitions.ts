import type { ToolSpec } from '../core/tool-spec.js';

/** A declarative tool definition (the YAML form, snake_case keys), for `registerDefinition`. */
export type ToolDefinition = Record<string, unknown> & { name: string; description: string; handler: string };

/** A tool read from a declarative definition, with the file it came from when there was one. */
export interface LoadedDefinition {
  spec: ToolSpec;
  definition: ToolDefinition;
  file?: string;
}

/** How `builtin:NAME` handler references resolve. */
export type BuiltinResolver = ((name: string) => ToolSpec['handler'] | undefined) | undefined;

// The definition loaders (and the YAML parser behind them) are imported on first use: a registry
// built in code never pays for them.

/**
 * Validate a declarative definition and resolve its handler. Throws `ToolRegistrationError` naming
 * the field and the cause.
 *
 * @example
 * ```ts
 * const { spec } = await loadDefinition({ name: 'hello', description: 'Say hello.', handler: 'builtin:echo' }, {}, resolve);
 * ```
 */
export async function loadDefinition(
  definition: unknown,
  options: { baseDir?: string },
  resolveBuiltin: BuiltinResolver,
): Promise<LoadedDefinition> {
  const { definitionToSpec } = await import('../definitions/definition-to-spec.js');
  const spec = await definitionToSpec(definition, { baseDir: options.baseDir, resolveBuiltin });
  return { spec, definition: definition as ToolDefinition };
}

/**
 * Read one YAML definition file (SPEC §4.1); errors name `file:line:col`, the field and what was
 * expected.
 *
 * @example
 * ```ts
 * const { spec, file } = await loadYamlDefinitionFile('tools/weather.yaml', {}, undefined);
 * ```
 */
export async function loadYamlDefinitionFile(
  path: string,
  options: { baseDir?: string },
  resolveBuiltin: BuiltinResolver,
): Promise<LoadedDefinition> {
  const { loadDefinitionFile } = await import('../definitions/load-yaml.js');
  const loaded = await loadDefinitionFile(path, { baseDir: options.baseDir, resolveBuiltin });
  return { spec: loaded.spec, definition: loaded.definition, file: loaded.file };
}

/**
 * Read every YAML definition in a folder matching `pattern`; all or nothing (a `LOAD_FAILED` error
 * lists every failing file).
 *
 * @example
 * ```ts
 * const loaded = await loadYamlDefinitionDirectory('tools', { pattern: '**\/*.yaml' }, undefined);
 * ```
 */
export async function loadYamlDefinitionDirectory(
  directory: string,
  options: { pattern?: string; onProgress?: (done: number, total: number) => void },
  resolveBuiltin: BuiltinResolver,
): Promise<LoadedDefinition[]> {
  const { loadDefinitionDirectory } = await import('../definitions/load-yaml.js');
  return loadDefinitionDirectory(directory, {
    pattern: options.pattern,
    onProgress: options.onProgress,
    resolveBuiltin,
  });
}
