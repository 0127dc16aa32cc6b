import { StoreError } from './store-error.js';
import type { StoreResource } from './store-not-found-error.js';

/**
 * The row belongs to the service or to a configuration file, not to the API: a built-in tool, a
 * tool synced from a configuration (`config`, `module`, `mcp:<server>`), or a `config` agent. It
 * cannot be edited, deleted, or (an agent) have tools attached or detached through the store's API;
 * the message names the file to edit instead (REST: 409 `READ_ONLY`).
 *
 * @example
 * ```ts
 * try {
 *   await store.agents.update('default', 'assistant', { name: 'Helper' });
 * } catch (error) {
 *   if (StoreReadOnlyError.isInstance(error)) console.log(error.message, error.origin);
 *   // Agent 'assistant' is defined in examples/toolshed.yaml; edit it there.
 * }
 * ```
 */
export class StoreReadOnlyError extends StoreError {
  /** What kind of row was refused. */
  readonly resource: StoreResource;
  /** The row's id as the workspace sees it. */
  readonly id: string;
  /** Where the row comes from: the tool's or agent's `source`. */
  readonly source: string;
  /** The configuration file that defines the row; `null` for built-ins. */
  readonly origin: string | null;

  constructor(
    resource: StoreResource,
    id: string,
    source: string,
    origin: string | null,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('READ_ONLY', message, options);
    this.name = 'StoreReadOnlyError';
    this.resource = resource;
    this.id = id;
    this.source = source;
    this.origin = origin;
  }

  /**
   * The refusal to change a tool the API does not own, naming where to change it instead.
   *
   * @example
   * ```ts
   * StoreReadOnlyError.forTool('read_file', 'builtin', null).message;
   * // "Tool 'read_file' is a built-in; it cannot be changed."
   * ```
   */
  static forTool(id: string, source: string, origin: string | null): StoreReadOnlyError {
    const file = origin ?? 'the configuration';
    let message: string;
    if (source === 'builtin') message = `Tool '${id}' is a built-in; it cannot be changed.`;
    else if (source.startsWith('mcp:')) {
      message = `Tool '${id}' is imported from the MCP server '${source.slice(4)}' named in ${file}; change it on that server or in ${file}.`;
    } else message = `Tool '${id}' is defined in ${file}; edit it there.`;
    return new StoreReadOnlyError('tool', id, source, origin, message);
  }

  /**
   * The refusal to change an agent a configuration file defines.
   *
   * @example
   * ```ts
   * StoreReadOnlyError.forAgent('assistant', 'examples/toolshed.yaml').message;
   * // "Agent 'assistant' is defined in examples/toolshed.yaml; edit it there."
   * ```
   */
  static forAgent(id: string, origin: string | null): StoreReadOnlyError {
    return new StoreReadOnlyError(
      'agent',
      id,
      'config',
      origin,
      `Agent '${id}' is defined in ${origin ?? 'the configuration'}; edit it there.`,
    );
  }

  /** True when `value` is a store read-only error, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is StoreReadOnlyError {
    return StoreError.isInstance(value) && value.code === 'READ_ONLY';
  }
}
