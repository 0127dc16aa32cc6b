/**
 * A module loader hook for row e₀: it hands the process a `dist/core/tracing.js` whose
 * `activeTracer()` answers `undefined` without looking for a registered SDK, as if toolshed had no
 * tracing at all. Nothing is written to disk; only the process that registers the hook sees the change.
 */

const TRACING_MODULE = /\/dist\/core\/tracing\.js$/;
const ACTIVE_TRACER = 'export function activeTracer() {';

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<{ format: string, source?: string | ArrayBuffer | Uint8Array }>} nextLoad
 */
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!TRACING_MODULE.test(url)) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  if (!source.includes(ACTIVE_TRACER)) {
    throw new Error(`bench: '${ACTIVE_TRACER}' is not in ${url}; row e₀ needs the hook brought up to date`);
  }
  return { ...loaded, source: source.replace(ACTIVE_TRACER, `${ACTIVE_TRACER}\n    return undefined;`) };
}
