import { ToolshedError } from '../../core/errors/toolshed-error.js';
import { isPlainObject } from '../../core/json-schema.js';
import { resolveLocalRef } from './json-pointer.js';
import { mapSubschemas } from './schema-walk.js';
import { setOwn } from './set-own.js';

/**
 * How {@link resolveRefs} treats `$ref`s: `inline` replaces every one by its target and fails on
 * recursion; `hoist` inlines the non-recursive ones and keeps recursive ones as references into one
 * root `$defs` (`#` stays `#`).
 *
 * @example
 * ```ts
 * resolveRefs(schema, 'hoist'); // for OpenAI strict mode
 * resolveRefs(schema, 'inline'); // for Gemini
 * ```
 */
export type RefMode = 'inline' | 'hoist';

/**
 * The outcome of {@link resolveRefs}.
 *
 * @example
 * ```ts
 * const resolution = resolveRefs(schema, 'inline');
 * if (!resolution.ok) console.warn(`${resolution.reason}: ${resolution.ref}`);
 * ```
 */
export type RefResolution =
  | {
      readonly ok: true;
      /** The schema with its `$ref`s resolved and every `$defs`/`definitions` removed. */
      readonly schema: unknown;
      /** The definitions recursive references point at (`#/$defs/<name>`), empty in `inline` mode. */
      readonly defs: Record<string, unknown>;
      /** Every `$ref` that was replaced by its target. */
      readonly inlined: readonly string[];
    }
  | {
      readonly ok: false;
      /** `recursive` (inline mode), `unresolvable` (not a local pointer, or points nowhere), `too-large`. */
      readonly reason: 'recursive' | 'unresolvable' | 'too-large';
      readonly ref: string;
    };

/** Default bound on the nodes an inlined schema may grow to (inlining a shared `$ref` copies it). */
const DEFAULT_MAX_NODES = 20_000;

class RefFailure extends ToolshedError<'UNRESOLVABLE_REF'> {
  constructor(
    readonly reason: 'recursive' | 'unresolvable' | 'too-large',
    readonly ref: string,
  ) {
    super('UNRESOLVABLE_REF', `${reason}: ${ref}`);
  }
}

/**
 * Resolve the local `$ref`s of a schema (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...` pointer)
 * for targets that do not follow references (Gemini) or only follow them into a root `$defs` (OpenAI
 * strict mode).
 *
 * Keywords beside a `$ref` are kept: inlined, they override the target's (`{ $ref, description }`
 * keeps its own description); hoisted, the reference moves into `anyOf: [{ $ref }]` next to them,
 * because OpenAI rejects keywords beside a `$ref`. Data keywords (`enum`, `default`, …) are never
 * searched for references. Never throws: a failure is returned.
 *
 * @example
 * ```ts
 * resolveRefs(
 *   { type: 'object', properties: { home: { $ref: '#/$defs/Address' } }, $defs: { Address: { type: 'string' } } },
 *   'inline',
 * );
 * // { ok: true, schema: { type: 'object', properties: { home: { type: 'string' } } }, defs: {}, inlined: ['#/$defs/Address'] }
 * ```
 */
export function resolveRefs(root: unknown, mode: RefMode, maxNodes = DEFAULT_MAX_NODES): RefResolution {
  try {
    const recursive = new Set<string>();
    // A first pass finds every ref that closes a cycle, so the real pass keeps all of them as references
    // instead of inlining one copy before meeting the cycle.
    if (mode === 'hoist') new RefExpander(root, mode, recursive, maxNodes).run();
    return new RefExpander(root, mode, recursive, maxNodes).run();
  } catch (error) {
    if (error instanceof RefFailure) return { ok: false, reason: error.reason, ref: error.ref };
    if (error instanceof RangeError) return { ok: false, reason: 'too-large', ref: '#' };
    throw error;
  }
}

class RefExpander {
  private nodes = 0;
  private readonly defNames = new Map<string, string>();
  private readonly queue: string[] = [];
  private readonly inlined = new Set<string>();

  constructor(
    private readonly root: unknown,
    private readonly mode: RefMode,
    private readonly recursive: Set<string>,
    private readonly maxNodes: number,
  ) {}

  run(): RefResolution & { ok: true } {
    const schema = this.visit(this.root, []);
    const defs: Record<string, unknown> = {};
    for (let index = 0; index < this.queue.length; index++) {
      const ref = this.queue[index]!;
      setOwn(defs, this.defNames.get(ref)!, this.visit(resolveLocalRef(this.root, ref), [ref]));
    }
    return { ok: true, schema, defs, inlined: [...this.inlined] };
  }

  private visit(node: unknown, stack: readonly string[]): unknown {
    if (++this.nodes > this.maxNodes) throw new RefFailure('too-large', stack.at(-1) ?? '#');
    if (!isPlainObject(node)) return node;
    if (typeof node.$ref === 'string') return this.visitRef(node, node.$ref, stack);
    return mapSubschemas(withoutDefs(node), '', (child) => this.visit(child, stack));
  }

  private visitRef(node: Record<string, unknown>, ref: string, stack: readonly string[]): unknown {
    const { $ref: _ref, ...rest } = withoutDefs(node);
    const siblings = Object.keys(rest).length === 0 ? undefined : (this.visit(rest, stack) as Record<string, unknown>);
    const target = resolveLocalRef(this.root, ref);
    if (target === undefined) throw new RefFailure('unresolvable', ref);
    const cyclic = ref === '#' || stack.includes(ref) || this.recursive.has(ref);
    if (cyclic) {
      if (this.mode === 'inline') throw new RefFailure('recursive', ref);
      this.recursive.add(ref);
      const reference = { $ref: ref === '#' ? '#' : `#/$defs/${this.defName(ref)}` };
      if (siblings === undefined) return reference;
      if (siblings.anyOf === undefined) return { ...siblings, anyOf: [reference] };
      return { allOf: [reference, siblings] };
    }
    this.inlined.add(ref);
    const expanded = this.visit(target, [...stack, ref]);
    if (siblings === undefined) return expanded;
    if (expanded === true || !isPlainObject(expanded)) return expanded === false ? false : siblings;
    const merged: Record<string, unknown> = {};
    for (const key of Object.keys(expanded)) setOwn(merged, key, expanded[key]);
    for (const key of Object.keys(siblings)) setOwn(merged, key, siblings[key]);
    return merged;
  }

  private defName(ref: string): string {
    const known = this.defNames.get(ref);
    if (known !== undefined) return known;
    const last = ref.split('/').pop() ?? '';
    const base =
      last
        .replaceAll('~1', '/')
        .replaceAll('~0', '~')
        .replace(/[^a-zA-Z0-9_.-]+/g, '_') || 'def';
    const taken = new Set(this.defNames.values());
    let name = base;
    for (let counter = 2; taken.has(name); counter++) name = `${base}_${counter}`;
    this.defNames.set(ref, name);
    this.queue.push(ref);
    return name;
  }
}

function withoutDefs(node: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(node, '$defs') && !Object.hasOwn(node, 'definitions')) return node;
  const { $defs: _defs, definitions: _definitions, ...rest } = node;
  return rest;
}
