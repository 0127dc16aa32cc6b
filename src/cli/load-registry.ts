import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { CliError } from './cli-error.js';
import { visible } from './output.js';

/** A `--tools` path that exists, and whether it is one definition file or a folder of them. */
export interface ToolSource {
  /** The path as the user gave it (shown in messages). */
  path: string;
  /** The path resolved against the working folder. */
  absolutePath: string;
  kind: 'file' | 'directory';
}

/**
 * Check the `--tools` paths without loading anything. With no paths, `./tools` is used when that
 * folder exists, and otherwise there are no sources (an empty registry). The same path given twice
 * is loaded once.
 *
 * Throws {@link CliError} (exit 1) for a path that does not exist or is neither a file nor a folder.
 *
 * @example
 * ```ts
 * await resolveToolSources(['tools/search.yaml', 'more-tools'], process.cwd());
 * // [{ path: 'tools/search.yaml', kind: 'file', ... }, { path: 'more-tools', kind: 'directory', ... }]
 * ```
 */
export async function resolveToolSources(paths: readonly string[], cwd: string): Promise<ToolSource[]> {
  if (paths.length === 0) {
    const absolutePath = resolve(cwd, 'tools');
    const info = await stat(absolutePath).catch(() => undefined);
    return info?.isDirectory() === true ? [{ path: 'tools', absolutePath, kind: 'directory' }] : [];
  }
  const sources: ToolSource[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const absolutePath = resolve(cwd, path);
    if (seen.has(absolutePath)) continue;
    seen.add(absolutePath);
    let kind: ToolSource['kind'];
    try {
      const info = await stat(absolutePath);
      if (info.isDirectory()) kind = 'directory';
      else if (info.isFile()) kind = 'file';
      else throw new CliError(`error: --tools path '${visible(path)}' is neither a file nor a folder.`);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new CliError(
          `error: --tools path '${visible(path)}' does not exist; pass a YAML definition file or a folder of *.yaml files.`,
        );
      }
      throw new CliError(`error: --tools path '${visible(path)}' cannot be read: ${(error as Error).message}`);
    }
    sources.push({ path, absolutePath, kind });
  }
  return sources;
}

/**
 * A fresh registry holding the tools of `sources`, loaded in order: a folder with
 * `loadYamlDirectory` (its `*.yaml` files, all or nothing), a file with `loadYamlFile`.
 *
 * The registry module (and with it Ajv) is imported here, on first use, so verbs that never load
 * tools, and `--help`, start without it. Load errors propagate as the registry's
 * `ToolRegistrationError`, whose message starts with `file:line:col:`.
 *
 * @example
 * ```ts
 * const registry = await loadRegistry(await resolveToolSources(['./tools'], process.cwd()));
 * registry.list(); // ['add_numbers', 'echo']
 * ```
 */
export async function loadRegistry(sources: readonly ToolSource[]): Promise<ToolRegistry> {
  const { ToolRegistry } = await import('../registry/tool-registry.js');
  const registry = new ToolRegistry();
  for (const source of sources) {
    if (source.kind === 'directory') await registry.loadYamlDirectory(source.absolutePath);
    else await registry.loadYamlFile(source.absolutePath);
  }
  return registry;
}
