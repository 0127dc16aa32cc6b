import { describe, expect, it } from 'vitest';
import { resolveToolAnnotations } from './resolve-annotations.js';

describe('resolveToolAnnotations', () => {
  it("fills in MCP's defaults where a tool sets nothing", () => {
    expect(resolveToolAnnotations(undefined)).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
  });

  it('keeps what the tool sets, and a read-only tool is never destructive', () => {
    expect(resolveToolAnnotations({ readOnly: true, destructive: true, openWorld: false })).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
    expect(resolveToolAnnotations({ destructive: false, idempotent: true })).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: true,
      openWorld: true,
    });
  });

  it('counts a value that is not a boolean as unset', () => {
    const odd = { readOnly: 'yes', destructive: 0, idempotent: 1, openWorld: null } as never;
    expect(resolveToolAnnotations(odd)).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
  });
});
