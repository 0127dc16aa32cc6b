import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';

/** Keys that make an object a tool rather than register options. */
const TOOL_KEYS = ['handler', 'execute', 'executeAsync', 'inputSchema', 'input', 'parameters', 'description'];

/**
 * Refuse what `register(tool, options)` would otherwise ignore: a tool where its options go (as
 * `register(...tools)` passes) and arguments after the options. Registering several tools is
 * `registerAll`'s job.
 *
 * @example
 * ```ts
 * checkRegisterArguments('register', {}, 0); // fine
 * checkRegisterArguments('register', { name: 'email_get', description: 'Get an email.' }, 0); // throws INVALID_DEFINITION
 * ```
 */
export function checkRegisterArguments(method: string, options: unknown, extra: number): void {
  if (typeof options === 'object' && options !== null) {
    const { name } = options as { name?: unknown };
    if (typeof name === 'string' && TOOL_KEYS.some((key) => Object.hasOwn(options, key))) {
      throw new ToolRegistrationError(
        'INVALID_DEFINITION',
        `${method}() got a tool ('${name}') where its options go: it registers one tool; register several with registerAll([...tools]).`,
        { toolName: name },
      );
    }
  }
  if (extra > 0) {
    throw new ToolRegistrationError(
      'INVALID_DEFINITION',
      `${method}() takes a tool and its options, got ${extra + 2} arguments: register several tools with registerAll([...tools]).`,
    );
  }
}
