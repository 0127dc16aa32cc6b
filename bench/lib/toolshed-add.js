/**
 * The `add` tool registered in a toolshed registry, and the checks every `registry.call` case runs
 * before it is timed.
 */

import { defineTool, ToolRegistry } from '../../dist/index.js';
import { ADD_DESCRIPTION, ADD_SCHEMA, BAD_ARGS } from './add-tool.js';
import { check } from './case.js';

/**
 * A fresh registry holding `add`, described by `ADD_SCHEMA` or, when `input` is given, by that zod schema.
 *
 * @param {{ handler: (args: { a: number, b: number }) => unknown, input?: import('zod').ZodType }} options
 * @returns {ToolRegistry}
 */
export function createAddRegistry({ handler, input }) {
  const registry = new ToolRegistry();
  const schema = input === undefined ? { inputSchema: ADD_SCHEMA } : { input };
  registry.register(defineTool({ name: 'add', description: ADD_DESCRIPTION, ...schema, handler }));
  return registry;
}

/**
 * Prove `registry.call('add', args)` succeeds with 3 and turns bad arguments into `INVALID_ARGUMENTS`.
 *
 * @param {ToolRegistry} registry
 * @param {unknown} args what the timed call sends (object or JSON text)
 * @returns {Promise<void>}
 */
export async function verifyAddRegistry(registry, args) {
  const result = await registry.call('add', args);
  check(result.status === 'success' && result.data === 3, `registry.call returned ${JSON.stringify(result)}`);
  const rejected = await registry.call('add', typeof args === 'string' ? JSON.stringify(BAD_ARGS) : BAD_ARGS);
  check(
    rejected.status === 'error' && rejected.error.code === 'INVALID_ARGUMENTS',
    `registry.call accepted bad arguments: ${JSON.stringify(rejected)}`,
  );
}
