/**
 * One segment of a JSON Pointer (RFC 6901), `~` and `/` escaped.
 *
 * @example
 * ```ts
 * escapePointerSegment('a/b~c'); // 'a~1b~0c'
 * ```
 */
export function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The segments of a JSON Pointer (`''` for the whole document, else `/a/b`), unescaped.
 *
 * @example
 * ```ts
 * pointerSegments('/properties/a~1b'); // ['properties', 'a/b']
 * pointerSegments(''); // []
 * ```
 */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
