import { describe, expect, it } from 'vitest';
import { createWireNameMap, stableHash, toWireName, WIRE_NAME_PATTERN } from './wire-name.js';

describe('toWireName', () => {
  it('passes canonical names through unchanged', () => {
    expect(toWireName('read_file')).toBe('read_file');
    expect(toWireName('a'.repeat(64))).toBe('a'.repeat(64));
  });

  it('replaces runs of invalid characters with one underscore', () => {
    expect(toWireName('github.create-issue')).toBe('github_create-issue');
    expect(toWireName('send mail / now')).toBe('send_mail_now');
  });

  it('puts an underscore before a leading digit or dash', () => {
    expect(toWireName('3d_render')).toBe('_3d_render');
    expect(toWireName('-x')).toBe('_-x');
  });

  it('cuts a long name to 64 characters ending in a hash of the whole name', () => {
    const long = `${'a'.repeat(60)}_first_variant`;
    const other = `${'a'.repeat(60)}_other_variant`;
    expect(toWireName(long)).toHaveLength(64);
    expect(toWireName(long)).toBe(`${'a'.repeat(55)}_${stableHash(long)}`);
    expect(toWireName(long)).not.toBe(toWireName(other));
  });

  it('names a tool whose name has no letters or digits after its hash', () => {
    expect(toWireName('...')).toBe(`tool_${stableHash('...')}`);
    expect(toWireName('')).toBe(`tool_${stableHash('')}`);
  });

  it('always returns a valid wire name', () => {
    for (const name of ['', ' ', 'ä', '😀'.repeat(40), 'a'.repeat(200), '__proto__', 'constructor', '0', '-']) {
      expect(toWireName(name)).toMatch(WIRE_NAME_PATTERN);
    }
  });
});

describe('stableHash', () => {
  it('is FNV-1a: the same 8 hex characters on every run', () => {
    expect(stableHash('')).toBe('811c9dc5');
    expect(stableHash('a')).toBe('e40c292c');
    expect(stableHash('hello')).toBe('4f9f2cab');
  });
});

describe('createWireNameMap', () => {
  it('maps names both ways', () => {
    const names = createWireNameMap(['search', 'web.search']);
    expect(names.toWire.get('web.search')).toBe('web_search');
    expect(names.toCanonical.get('web_search')).toBe('web.search');
    expect(names.toCanonical.get('search')).toBe('search');
    expect(names.collisions).toEqual([]);
  });

  it('keeps valid names and gives a colliding rewritten name a hash suffix, reporting it', () => {
    const names = createWireNameMap(['web.search', 'web_search']);
    expect(names.toWire.get('web_search')).toBe('web_search');
    expect(names.toWire.get('web.search')).toBe(`web_search_${stableHash('web.search')}`);
    expect(names.collisions).toEqual([
      { name: 'web.search', wireName: `web_search_${stableHash('web.search')}`, collidedWith: 'web_search' },
    ]);
  });

  it('gives the same wire names whatever the order of the list', () => {
    const list = ['web search', 'web.search', 'web/search', 'web_search', 'x'.repeat(70)];
    const reversed = createWireNameMap([...list].reverse());
    const forward = createWireNameMap(list);
    expect([...forward.toWire].sort()).toEqual([...reversed.toWire].sort());
  });

  it('maps a repeated name once', () => {
    const names = createWireNameMap(['a.b', 'a.b']);
    expect([...names.toWire]).toEqual([['a.b', 'a_b']]);
    expect(names.collisions).toEqual([]);
  });

  it('never gives two names the same wire name', () => {
    const list = ['a b', 'a.b', 'a/b', 'a:b', 'a_b', 'a__b', 'a b '];
    const names = createWireNameMap(list);
    expect(new Set(names.toWire.values()).size).toBe(list.length);
    for (const wire of names.toWire.values()) expect(wire).toMatch(WIRE_NAME_PATTERN);
  });
});
