import { isAbsolute, resolve } from 'node:path';
import { createBuiltins } from '../../builtins/index.js';
import { createStore, DEFAULT_STORE_PATH, type ToolshedStore } from '../../store/index.js';
import type { CliIo } from '../output.js';

/** The database URL of the service: `TOOLSHED_DATABASE_URL`, default `./toolshed.db` (in the cwd). */
export function serviceDatabaseUrl(io: CliIo): string {
  const url = io.env.TOOLSHED_DATABASE_URL ?? DEFAULT_STORE_PATH;
  if (/^postgres(ql)?:\/\//.test(url) || url === ':memory:') return url;
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/**
 * Open the service's store, bring its schema up to date and upsert the built-in tools: what
 * `toolshed serve` and the admin verbs do first.
 *
 * @example
 * ```ts
 * const store = await openServiceStore(io);
 * ```
 */
export async function openServiceStore(io: CliIo): Promise<ToolshedStore> {
  const store = await createStore(serviceDatabaseUrl(io));
  try {
    await store.migrate();
    await store.tools.upsertBuiltins(createBuiltins());
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
