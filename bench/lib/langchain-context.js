/**
 * Put LangChain's AsyncLocalStorage-based context into the process, as an app that also uses
 * LangChain would have it, to measure what that does to every `await` on toolshed's path.
 */

// `@langchain/core/tools` alone keeps a no-op context; this entry point installs the real
// AsyncLocalStorage (as LangGraph and custom-event dispatch do).
import '@langchain/core/context';
import { tool } from '@langchain/core/tools';
import { ADD_ARGS, ADD_DESCRIPTION, add, addZodSchema } from './add-tool.js';
import { check } from './case.js';

/**
 * Invoke a LangChain tool once with LangChain's AsyncLocalStorage installed, so the process runs
 * with async context tracking on from here.
 *
 * @returns {Promise<void>}
 */
export async function enableLangChainContext() {
  const addTool = tool(add, { name: 'add', description: ADD_DESCRIPTION, schema: addZodSchema() });
  check((await addTool.invoke(ADD_ARGS)) === 3, 'the LangChain tool did not return 3');
}
