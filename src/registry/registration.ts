import { createToolSpec, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import type { PreparedTool } from '../core/dispatch.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { fromToolProtocol, isToolProtocol, type ToolProtocol } from '../core/tool-protocol.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolDefinition } from './load-definitions.js';

/** Anything `register` accepts: a spec from `defineTool`, spec-shaped options, or a protocol object. */
export type RegistrableTool = ToolSpec<never> | ToolSpec | ToolProtocol | Record<string, unknown>;

/** Options of `register` and the declarative loaders. */
export interface RegisterOptions {
  /** Replace a tool of the same name instead of throwing `DUPLICATE_TOOL`. */
  allowOverride?: boolean;
}

/** Options of `loadYamlFile` and `registerDefinition`. */
export interface DefinitionOptions extends RegisterOptions {
  /** The folder relative handler paths resolve against (the YAML file's folder when loading a file). */
  baseDir?: string;
}

/** Options of `loadYamlDirectory`. */
export interface DirectoryOptions extends RegisterOptions {
  /** Which files to load: a glob matched against paths relative to the folder (default `*.yaml`). */
  pattern?: string;
  /** Called as files are processed, for progress output. */
  onProgress?: (done: number, total: number) => void;
}

/** What happened to the registry's tool set. */
export interface RegistryChange {
  type: 'register' | 'unregister' | 'clear';
  names: string[];
}

/**
 * What a registry keeps under a tool's name: the prepared tool with the definition it came from, or
 * a factory that makes the tool on first use (its prepared tool cached once made).
 */
export type Entry =
  | { kind: 'tool'; prepared: PreparedTool; definition: ToolDefinition | undefined }
  | { kind: 'factory'; factory: () => RegistrableTool; prepared: PreparedTool | undefined };

/** An entry about to be registered under `name`, with the file it was read from when there was one. */
export interface RegistrationItem {
  name: string;
  entry: Entry;
  file?: string;
}

/**
 * The spec of anything `register` accepts: a protocol object is adapted, anything else goes through
 * `createToolSpec`, which throws `INVALID_DEFINITION` naming the field at fault.
 *
 * @example
 * ```ts
 * toSpec({ name: 'add', description: 'Add two numbers.', handler: ({ a, b }) => a + b }).name; // 'add'
 * toSpec({ name: 'Add' }); // throws ToolRegistrationError INVALID_DEFINITION
 * ```
 */
export function toSpec(tool: RegistrableTool): ToolSpec {
  if (isToolProtocol(tool)) return fromToolProtocol(tool);
  return createToolSpec(tool);
}

/**
 * Refuse a factory registration that could never make a tool: a factory that is not a function, or a
 * name a tool cannot have. Throws `INVALID_DEFINITION`.
 *
 * @example
 * ```ts
 * checkFactory('search', () => searchTool); // fine
 * checkFactory('Search', () => searchTool); // throws: the name is invalid
 * ```
 */
export function checkFactory(name: string, factory: unknown): void {
  if (typeof factory !== 'function') {
    throw new ToolRegistrationError('INVALID_DEFINITION', `The factory for '${name}' must be a function.`, {
      toolName: name,
    });
  }
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolRegistrationError(
      'INVALID_DEFINITION',
      `Tool name '${String(name)}' is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (${TOOL_NAME_PATTERN.source}).`,
      { field: 'name' },
    );
  }
}

/**
 * Run the factory registered as `name` and check that its tool has that name; throws
 * `INVALID_DEFINITION` when it has another, and whatever the factory or `toSpec` throws.
 *
 * @example
 * ```ts
 * specFromFactory('search', () => searchTool).name; // 'search'
 * specFromFactory('find', () => searchTool); // throws: the factory registered as 'find' made 'search'
 * ```
 */
export function specFromFactory(name: string, factory: () => RegistrableTool): ToolSpec {
  const spec = toSpec(factory());
  if (spec.name !== name) {
    throw new ToolRegistrationError(
      'INVALID_DEFINITION',
      `The factory registered as '${name}' made a tool named '${spec.name}'.`,
      {
        toolName: name,
      },
    );
  }
  return spec;
}

/**
 * Refuse a registration, all of it, when a name comes twice in `items` or (without `allowOverride`)
 * is taken already (`isTaken`): one `DUPLICATE_TOOL` error, or `LOAD_FAILED` listing several. Each
 * error names the file of the item (or `file`, the one all the items came from) when there is one.
 *
 * @example
 * ```ts
 * checkNames([{ name: 'search', entry }], {}, (name) => name === 'search');
 * // throws DUPLICATE_TOOL: "Tool 'search' is already registered; pass allowOverride: true to replace it."
 * ```
 */
export function checkNames(
  items: readonly RegistrationItem[],
  options: RegisterOptions,
  isTaken: (name: string) => boolean,
  file?: string,
): void {
  const errors: ToolRegistrationError[] = [];
  const seen = new Map<string, string | undefined>();
  for (const item of items) {
    const where = item.file ?? file;
    if (seen.has(item.name)) {
      const first = seen.get(item.name);
      errors.push(
        new ToolRegistrationError(
          'DUPLICATE_TOOL',
          `Tool '${item.name}' is defined twice${first === undefined ? '' : ` (also in ${first})`}.`,
          {
            toolName: item.name,
            ...(where === undefined ? {} : { file: where }),
          },
        ),
      );
    }
    seen.set(item.name, where);
    if (!options.allowOverride && isTaken(item.name)) {
      errors.push(
        new ToolRegistrationError(
          'DUPLICATE_TOOL',
          `Tool '${item.name}' is already registered; pass allowOverride: true to replace it.`,
          { toolName: item.name, ...(where === undefined ? {} : { file: where }) },
        ),
      );
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new ToolRegistrationError(
      'LOAD_FAILED',
      `${errors.length} tools could not be registered:\n${errors.map((error) => `  ${error.message}`).join('\n')}`,
      {
        errors,
      },
    );
  }
}
