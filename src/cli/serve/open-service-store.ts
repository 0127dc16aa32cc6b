import { isAbsolute, resolve } from 'node:path';
import type { ToolshedStore } from '../../store/index.js';
import type { CliIo } from '../output.js';

/** The database URL of the service: `TOOLSHED_DATABASE_URL`, default `./toolshed.db` (in the cwd). */
export function serviceDatabaseUrl(io: CliIo): string {
  const url = io.env.TOOLSHED_DATABASE_URL ?? './toolshed.db';
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
  // Loaded here, not at the top: every CLI start would otherwise pay for Kysely, the drivers and the
  // built-ins (mathjs), which only the service verbs need.
  const [{ createStore }, { createBuiltins }, { createServiceBuiltins }] = await Promise.all([
    import('../../store/index.js'),
    import('../../builtins/create-builtins.js'),
    import('../../server/service-builtins.js'),
  ]);
  const store = await createStore(serviceDatabaseUrl(io));
  try {
    await store.migrate();
    // The specs only: the sandbox pools of these tools start on a first call, which never comes here.
    const shared = createServiceBuiltins(store);
    await store.tools.upsertBuiltins([...createBuiltins(), ...shared.tools]);
    await shared.close();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
