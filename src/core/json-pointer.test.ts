import { describe, expect, it } from 'vitest';
import { escapePointerSegment, pointerSegments } from './json-pointer.js';

describe('JSON Pointer segments', () => {
  it('escapes ~ and / in a segment, and reads them back', () => {
    expect(escapePointerSegment('a/b~c')).toBe('a~1b~0c');
    expect(pointerSegments('/properties/a~1b~0c/0')).toEqual(['properties', 'a/b~c', '0']);
    // ~01 is an escaped ~ followed by 1, not a slash.
    expect(pointerSegments('/~01')).toEqual(['~1']);
    expect(pointerSegments('')).toEqual([]);
    expect(pointerSegments('/')).toEqual(['']);
  });
});
