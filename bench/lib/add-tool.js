/**
 * The trivial tool every dispatch case calls, `add({a, b})`, and the hand-written dispatcher that is
 * the floor for `registry.call`.
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { runCase } from './case.js';
import { measureCall } from './timing.js';

/** JSON Schema of `add`'s arguments. */
export const ADD_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};

/** The same arguments as a zod v4 object, for the paths whose tools take zod. */
export const addZodSchema = () => z.object({ a: z.number(), b: z.number() });

/** The arguments every call sends (one object, reused, as a caller that already parsed them would). */
export const ADD_ARGS = { a: 1, b: 2 };

/** The same arguments as the JSON text a model sends. */
export const ADD_ARGS_JSON = '{"a":1,"b":2}';

/** Arguments every path must reject, to prove validation is on before it is timed. */
export const BAD_ARGS = { a: 'x', b: 2 };

export const ADD_DESCRIPTION = 'Add two numbers.';

/**
 * The tool's sync handler.
 *
 * @param {{ a: number, b: number }} args
 * @returns {number}
 */
export function add({ a, b }) {
  return a + b;
}

/**
 * The tool's async handler.
 *
 * @param {{ a: number, b: number }} args
 * @returns {Promise<number>}
 */
export async function addAsync({ a, b }) {
  return a + b;
}

/**
 * A fresh Ajv (draft 2020-12, default options) validator of {@link ADD_SCHEMA}.
 *
 * @returns {import('ajv').ValidateFunction}
 */
export function compileAddValidator() {
  return new Ajv2020().compile(ADD_SCHEMA);
}

/**
 * The floor for `registry.call`: the least a defensive async dispatcher does. Map lookup, Ajv
 * validate, try/catch around an awaited handler, and the result wrapped in a success envelope.
 *
 * @param {(args: { a: number, b: number }) => unknown} handler
 * @returns {(name: string, args: unknown) => Promise<Record<string, unknown>>}
 */
export function createFloorDispatcher(handler) {
  const tools = new Map([['add', { validate: compileAddValidator(), handler }]]);
  return async function dispatch(name, args) {
    const tool = tools.get(name);
    if (tool === undefined) return { status: 'error', error: { code: 'TOOL_NOT_FOUND' }, metadata: { tool: name } };
    if (!tool.validate(args)) {
      return {
        status: 'error',
        error: { code: 'INVALID_ARGUMENTS', details: tool.validate.errors },
        metadata: { tool: name },
      };
    }
    try {
      const data = await tool.handler(args);
      return { status: 'success', data, metadata: { tool: name } };
    } catch (error) {
      return { status: 'error', error: { code: 'EXECUTION_FAILED', message: String(error) }, metadata: { tool: name } };
    }
  };
}

/**
 * Run one dispatch case: `setup` builds the path, `verify` proves it returns 3 for {@link ADD_ARGS}
 * and rejects {@link BAD_ARGS}, then `call` is timed.
 *
 * @param {string} name the case's id
 * @param {() => Promise<{ call: () => unknown, async: boolean, verify: () => Promise<void> }>} setup
 * @returns {Promise<void>}
 */
export function runDispatchCase(name, setup) {
  return runCase(name, async () => {
    const path = await setup();
    await path.verify();
    return measureCall(path.call, { async: path.async });
  });
}
