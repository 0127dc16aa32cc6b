/**
 * Set `target[key]` as an own, enumerable data property, even for keys such as `__proto__` that an
 * assignment would turn into a prototype change. Schemas are untrusted: a property may be named anything.
 *
 * @example
 * ```ts
 * const properties = {};
 * setOwn(properties, '__proto__', { type: 'string' });
 * Object.keys(properties); // ['__proto__']
 * ```
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A deep copy of plain JSON data (own `__proto__` keys kept as data); `undefined` values are left out.
 *
 * @example
 * ```ts
 * cloneJson({ a: [1, { b: 2 }] }); // a fresh { a: [1, { b: 2 }] }
 * ```
 */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
