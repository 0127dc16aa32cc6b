import type { ToolAnnotations } from './tool-spec.js';

/** Every hint of {@link ToolAnnotations} decided: what a client is told about a tool. */
export interface ResolvedToolAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

/**
 * A tool's hints with the defaults filled in where it sets none, as MCP defines them: not read-only,
 * destructive unless read-only, not idempotent, open-world. Every surface that shows hints (MCP's
 * `annotations`, the REST API's views) shows these, so a tool reads the same wherever it is listed.
 * Values that are not booleans count as unset.
 *
 * @example
 * ```ts
 * resolveToolAnnotations({ readOnly: true });
 * // { readOnly: true, destructive: false, idempotent: false, openWorld: true }
 * ```
 */
export function resolveToolAnnotations(annotations: Readonly<ToolAnnotations> | undefined): ResolvedToolAnnotations {
  const readOnly = annotations?.readOnly === true;
  return {
    readOnly,
    destructive: readOnly ? false : annotations?.destructive !== false,
    idempotent: annotations?.idempotent === true,
    openWorld: annotations?.openWorld !== false,
  };
}
