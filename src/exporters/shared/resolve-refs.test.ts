import { describe, expect, it } from 'vitest';
import { resolveRefs } from './resolve-refs.js';

const address = { type: 'object', properties: { city: { type: 'string' } } };

describe('resolveRefs', () => {
  it('inlines $defs references and removes the $defs', () => {
    const result = resolveRefs(
      {
        type: 'object',
        properties: { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/definitions/Address' } },
        $defs: { Address: address },
        definitions: { Address: address },
      },
      'inline',
    );
    expect(result).toEqual({
      ok: true,
      schema: { type: 'object', properties: { home: address, work: address } },
      defs: {},
      inlined: ['#/$defs/Address', '#/definitions/Address'],
    });
  });

  it('keeps keywords beside a $ref, overriding the target', () => {
    const result = resolveRefs(
      {
        type: 'object',
        properties: { home: { $ref: '#/$defs/Address', description: 'Home' } },
        $defs: { Address: { ...address, description: 'Any' } },
      },
      'inline',
    );
    expect(result.ok && result.schema).toEqual({
      type: 'object',
      properties: { home: { ...address, description: 'Home' } },
    });
  });

  it('follows any local JSON pointer, with escaped segments', () => {
    const result = resolveRefs(
      { type: 'object', properties: { 'a/b': { type: 'integer' }, c: { $ref: '#/properties/a~1b' } } },
      'inline',
    );
    expect(result.ok && result.schema).toEqual({
      type: 'object',
      properties: { 'a/b': { type: 'integer' }, c: { type: 'integer' } },
    });
  });

  it('refuses recursion when inlining', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    expect(resolveRefs(tree, 'inline')).toEqual({ ok: false, reason: 'recursive', ref: '#' });
  });

  it('hoists recursive definitions into the root $defs and inlines the rest', () => {
    const result = resolveRefs(
      {
        type: 'object',
        properties: { root: { $ref: '#/$defs/Node' }, where: { $ref: '#/$defs/Address' } },
        $defs: {
          Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node', description: 'The next node' } } },
          Address: address,
        },
      },
      'hoist',
    );
    expect(result).toEqual({
      ok: true,
      schema: { type: 'object', properties: { root: { $ref: '#/$defs/Node' }, where: address } },
      defs: {
        Node: {
          type: 'object',
          properties: { next: { description: 'The next node', anyOf: [{ $ref: '#/$defs/Node' }] } },
        },
      },
      inlined: ['#/$defs/Address'],
    });
  });

  it('keeps # as root recursion when hoisting', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    expect(resolveRefs(tree, 'hoist')).toEqual({ ok: true, schema: tree, defs: {}, inlined: [] });
  });

  it('reports references it cannot resolve', () => {
    expect(resolveRefs({ properties: { a: { $ref: 'https://example.com/a.json' } } }, 'inline')).toEqual({
      ok: false,
      reason: 'unresolvable',
      ref: 'https://example.com/a.json',
    });
    expect(resolveRefs({ properties: { a: { $ref: '#/$defs/Missing' } } }, 'hoist')).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
  });

  it('refuses to grow a schema past its node budget', () => {
    // Each level references the previous one twice: inlining doubles the size per level.
    const $defs: Record<string, unknown> = { L0: { type: 'string' } };
    for (let level = 1; level <= 20; level++) {
      $defs[`L${level}`] = {
        type: 'object',
        properties: { a: { $ref: `#/$defs/L${level - 1}` }, b: { $ref: `#/$defs/L${level - 1}` } },
      };
    }
    expect(
      resolveRefs({ type: 'object', properties: { top: { $ref: '#/$defs/L20' } }, $defs }, 'inline'),
    ).toMatchObject({
      ok: false,
      reason: 'too-large',
    });
  });

  it('treats $ref inside enum values and defaults as data', () => {
    const schema = { type: 'object', properties: { a: { enum: [{ $ref: '#/nowhere' }], default: { $ref: '#' } } } };
    expect(resolveRefs(schema, 'inline')).toEqual({ ok: true, schema, defs: {}, inlined: [] });
  });
});
