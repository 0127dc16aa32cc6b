/**
 * The names every target accepts: OpenAI and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`, Gemini also wants
 * a letter or underscore first, and MCP clients forward names to those APIs. Canonical toolshed names
 * (`^[a-z][a-z0-9_]{0,63}$`) always match.
 *
 * @example
 * ```ts
 * WIRE_NAME_PATTERN.test('read_file'); // true
 * WIRE_NAME_PATTERN.test('github.create_issue'); // false
 * ```
 */
export const WIRE_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * The name a tool is exported under: the name itself when it is valid everywhere
 * ({@link WIRE_NAME_PATTERN}); otherwise runs of other characters become `_`, a leading digit or dash
 * gets a `_` in front, and a name longer than 64 characters is cut to 55 and given `_` plus an
 * 8-character hash of the whole name, so two long names sharing a prefix stay apart. The result
 * depends on the name alone; {@link createWireNameMap} also resolves collisions within a list.
 *
 * @example
 * ```ts
 * toWireName('read_file'); // 'read_file'
 * toWireName('github.create-issue'); // 'github_create-issue'
 * toWireName('a'.repeat(70)); // 'a'.repeat(55) + '_5904740b' (64 characters)
 * ```
 */
export function toWireName(name: string): string {
  if (WIRE_NAME_PATTERN.test(name)) return name;
  const base = sanitize(name);
  if (base === undefined) return `tool_${stableHash(name)}`;
  return base.length <= MAX_LENGTH ? base : withSuffix(base, stableHash(name));
}

/**
 * Two names that wanted the same wire name, and what the later one got instead.
 *
 * @example
 * ```ts
 * createWireNameMap(['web.search', 'web_search']).collisions;
 * // [{ name: 'web.search', wireName: 'web_search_ed536441', collidedWith: 'web_search' }]
 * ```
 */
export interface WireNameCollision {
  /** The canonical name that was given a suffixed wire name. */
  readonly name: string;
  readonly wireName: string;
  /** The canonical name that already held the wanted wire name. */
  readonly collidedWith: string;
}

/**
 * The two-way mapping between canonical and wire names for one exported list.
 *
 * @example
 * ```ts
 * const names: WireNameMap = createWireNameMap(specs.map((spec) => spec.name));
 * const canonical = names.toCanonical.get(call.name) ?? call.name;
 * ```
 */
export interface WireNameMap {
  /** Canonical name → wire name, for every distinct name given. */
  readonly toWire: ReadonlyMap<string, string>;
  /** Wire name → canonical name: look up the name a model called before dispatching. */
  readonly toCanonical: ReadonlyMap<string, string>;
  readonly collisions: readonly WireNameCollision[];
}

/**
 * Wire names for a list of canonical names, and the reverse map used at dispatch.
 *
 * Valid names keep their name. The others get {@link toWireName}'s result, processed in sorted order so
 * the outcome does not depend on the list's order; when that is taken, the name gets a hash suffix
 * (and, in the astronomically unlikely case that is taken too, a hash of the name and a counter).
 * Every such collision is reported. Repeated names map once.
 *
 * Exporters use this same function, so `createWireNameMap(specs.map((spec) => spec.name))` reproduces
 * the names of any export of `specs`.
 *
 * @example
 * ```ts
 * const names = createWireNameMap(['search', 'web.search', 'web search']);
 * names.toWire.get('web search'); // 'web_search' (sorted first)
 * names.toWire.get('web.search'); // 'web_search_ed536441' (collided with 'web search')
 * names.toCanonical.get('web_search_ed536441'); // 'web.search'
 * ```
 */
export function createWireNameMap(names: readonly string[]): WireNameMap {
  const toWire = new Map<string, string>();
  const toCanonical = new Map<string, string>();
  const collisions: WireNameCollision[] = [];
  const unique = [...new Set(names)];
  for (const name of unique) {
    if (!WIRE_NAME_PATTERN.test(name)) continue;
    toWire.set(name, name);
    toCanonical.set(name, name);
  }
  const rewritten = unique.filter((name) => !WIRE_NAME_PATTERN.test(name)).sort();
  for (const name of rewritten) {
    let wireName = toWireName(name);
    const holder = toCanonical.get(wireName);
    if (holder !== undefined) {
      const base = sanitize(name) ?? 'tool';
      wireName = withSuffix(base, stableHash(name));
      for (let attempt = 2; toCanonical.has(wireName); attempt++) {
        wireName = withSuffix(base, stableHash(`${name}#${attempt}`));
      }
      collisions.push({ name, wireName, collidedWith: holder });
    }
    toWire.set(name, wireName);
    toCanonical.set(wireName, name);
  }
  return { toWire, toCanonical, collisions };
}

/**
 * An 8-character hex hash (FNV-1a, 32 bits) of a string: stable across runs, platforms and versions,
 * and computed without `node:crypto` so exporters load in edge runtimes.
 *
 * @example
 * ```ts
 * stableHash('hello'); // '4f9f2cab'
 * ```
 */
export function stableHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(HASH_LENGTH, '0');
}

/** The name with invalid characters replaced, or `undefined` when nothing of it survives. */
function sanitize(name: string): string | undefined {
  const replaced = name.replace(/[^a-zA-Z0-9_-]+/g, '_');
  if (!/[a-zA-Z0-9]/.test(replaced)) return undefined;
  return /^[a-zA-Z_]/.test(replaced) ? replaced : `_${replaced}`;
}

function withSuffix(base: string, hash: string): string {
  return `${base.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
