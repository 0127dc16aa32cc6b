import { existsSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isToolSpec } from '../core/define-tool.js';
import { closestNames } from '../core/did-you-mean.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import type { ToolHandler } from '../core/tool-spec.js';

/** Where a handler reference points. */
export interface HandlerReference {
  /** The module as written (`./handlers/fs.js`, `my-package/tools`). */
  module: string;
  /** The export to use. */
  exportName: string;
}

/** What handler resolution needs beside the reference. */
export interface ResolveHandlerOptions {
  toolName: string;
  /** Folder that relative module paths resolve against. */
  baseDir: string;
  /** The definition's file, for error messages. */
  file?: string;
  line?: number;
  column?: number;
  resolveBuiltin?: ((name: string) => ToolHandler | undefined) | undefined;
}

/**
 * Split a handler reference: `MODULE#EXPORT`, or the dotted `MODULE.EXPORT` (split at the last dot,
 * accepted when the module part has no `/`, as in the Python form `tools.custom.my_handler`).
 *
 * @example
 * ```ts
 * parseHandlerReference('./handlers/fs.js#readFile'); // { module: './handlers/fs.js', exportName: 'readFile' }
 * parseHandlerReference('tools.custom.my_handler'); // { module: 'tools.custom', exportName: 'my_handler' }
 * ```
 */
export function parseHandlerReference(reference: string): HandlerReference | undefined {
  const hash = reference.lastIndexOf('#');
  if (hash > 0 && hash < reference.length - 1) {
    return { module: reference.slice(0, hash), exportName: reference.slice(hash + 1) };
  }
  if (hash >= 0) return undefined;
  const dot = reference.lastIndexOf('.');
  if (dot <= 0 || dot === reference.length - 1) return undefined;
  const module = reference.slice(0, dot);
  if (module.includes('/')) return undefined;
  return { module, exportName: reference.slice(dot + 1) };
}

/**
 * Load the function a handler reference names (SPEC §4.2): a relative path resolves against
 * `baseDir`, an absolute path as is, anything else as a package; `builtin:NAME` asks
 * `resolveBuiltin`. An export that is a tool spec (from `defineTool`) gives its handler.
 *
 * Throws `HANDLER_RESOLUTION_FAILED` naming the tool, the file and the cause: module not found, module
 * failed to load, export not found (listing the module's exports), not callable.
 */
export async function resolveHandler(reference: string, options: ResolveHandlerOptions): Promise<ToolHandler> {
  const fail = (message: string, cause?: unknown) =>
    new ToolRegistrationError('HANDLER_RESOLUTION_FAILED', message, {
      toolName: options.toolName,
      field: 'handler',
      ...(options.file === undefined ? {} : { file: options.file }),
      ...(options.line === undefined ? {} : { line: options.line }),
      ...(options.column === undefined ? {} : { column: options.column }),
      ...(cause === undefined ? {} : { cause }),
    });

  if (reference.startsWith('builtin:')) {
    const name = reference.slice('builtin:'.length);
    const handler = options.resolveBuiltin?.(name);
    if (handler === undefined)
      throw fail(
        `handler '${reference}' names no built-in handler${options.resolveBuiltin === undefined ? ' (this registry has no built-ins enabled)' : ''}.`,
      );
    return handler;
  }
  if (reference.startsWith('http:') || reference.startsWith('https:')) {
    throw fail(
      `handler '${reference}': REST tools are defined under custom_tools in toolshed.yaml, not as a handler reference.`,
    );
  }
  const parsed = parseHandlerReference(reference);
  if (parsed === undefined) {
    throw fail(`handler '${reference}' must be MODULE#EXPORT (such as ./handlers/fs.js#readFile) or MODULE.EXPORT.`);
  }

  const isPath = parsed.module.startsWith('./') || parsed.module.startsWith('../') || isAbsolute(parsed.module);
  let target: string;
  if (isPath) {
    const file = resolve(options.baseDir, parsed.module);
    if (!loadedModules.has(pathToFileURL(file).href) && !existsSync(file)) {
      throw fail(`handler module '${parsed.module}' not found (looked for ${file}).`);
    }
    target = pathToFileURL(file).href;
  } else {
    target = resolvePackage(parsed.module, options.baseDir) ?? parsed.module;
  }

  let module: Record<string, unknown>;
  try {
    module = await importOnce(target);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      !isPath &&
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(parsed.module)
    ) {
      throw fail(
        `handler module '${parsed.module}' not found: no such package is installed, and relative paths must start with './'.`,
        error,
      );
    }
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw fail(
        `handler module '${parsed.module}' cannot be loaded by Node directly; compile it to .js (or run under a TypeScript loader such as tsx).`,
        error,
      );
    }
    throw fail(
      `handler module '${parsed.module}' failed to load: ${(error as Error).name}: ${(error as Error).message}`,
      error,
    );
  }

  if (!Object.hasOwn(module, parsed.exportName)) {
    const exports = Object.keys(module).filter((key) => key !== 'default' || module.default !== undefined);
    const suggestions = closestNames(parsed.exportName, exports);
    const didYouMean =
      suggestions.length > 0 ? ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?` : '';
    throw fail(
      `module '${parsed.module}' has no export '${parsed.exportName}'.${didYouMean} Its exports: ${exports.length > 0 ? exports.sort().join(', ') : 'none'}.`,
    );
  }
  const value = module[parsed.exportName];
  if (isToolSpec(value)) return value.handler as ToolHandler;
  if (typeof value !== 'function') {
    throw fail(
      `export '${parsed.exportName}' of '${parsed.module}' is not callable (it is ${value === null ? 'null' : typeof value}).`,
    );
  }
  return value as ToolHandler;
}

// A folder of 1 000 definitions usually shares a handful of handler modules; import() of a loaded
// module still costs a trip through the loader, so settled imports are kept by URL.
const loadedModules = new Map<string, Record<string, unknown>>();

async function importOnce(target: string): Promise<Record<string, unknown>> {
  const known = loadedModules.get(target);
  if (known !== undefined) return known;
  const module = (await import(target)) as Record<string, unknown>;
  loadedModules.set(target, module);
  return module;
}

function resolvePackage(specifier: string, baseDir: string): string | undefined {
  if (specifier.startsWith('node:') || isBuiltin(specifier)) return specifier;
  try {
    return pathToFileURL(createRequire(resolve(baseDir, 'noop.js')).resolve(specifier)).href;
  } catch {
    // ESM-only packages have no `require` condition; let import() resolve them from here.
    return undefined;
  }
}
