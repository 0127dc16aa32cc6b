import { describe, expect, it } from 'vitest';
import { looksLikeJwt } from './oauth-tokens.js';
import { protectedResourceMetadata, wwwAuthenticate } from './protected-resource.js';

describe('wwwAuthenticate', () => {
  const base = 'http://127.0.0.1:4319';
  const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource"`;

  it('names no error without a token, and invalid_token with the reason when one was refused', () => {
    expect(wwwAuthenticate(base, false, 'ignored')).toBe(`Bearer ${metadata}`);
    expect(wwwAuthenticate(base, true)).toBe(`Bearer error="invalid_token", ${metadata}`);
    expect(wwwAuthenticate(base, true, 'The access token expired.')).toBe(
      `Bearer error="invalid_token", error_description="The access token expired.", ${metadata}`,
    );
  });

  it('keeps a hostile description inside its quoted string (RFC 6750 characters only, at most 500)', () => {
    const header = wwwAuthenticate(base, true, `a"b\\c\r\nSet-Cookie: x=1 é ${'z'.repeat(600)}`);
    const description = /error_description="([^"]*)"/.exec(header)?.[1] ?? '';
    expect(description.startsWith('a?b?c??Set-Cookie: x=1 ? z')).toBe(true);
    expect(description).toHaveLength(500);
    expect(description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    expect(header.endsWith(`, ${metadata}`)).toBe(true);
  });
});

describe('protectedResourceMetadata', () => {
  it('lists the authorization servers it is given', () => {
    expect(protectedResourceMetadata('https://tools.example.com', '/mcp', ['https://auth.example.com'])).toMatchObject({
      resource: 'https://tools.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
    });
    expect(protectedResourceMetadata('https://tools.example.com').authorization_servers).toEqual([]);
  });
});

describe('looksLikeJwt', () => {
  it('tells JWTs from toolshed API tokens and junk', () => {
    expect(looksLikeJwt('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.')).toBe(true);
    expect(looksLikeJwt(`tsk_${'0'.repeat(32)}_${'A'.repeat(43)}`)).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
    expect(looksLikeJwt('a b.c.d')).toBe(false);
    expect(looksLikeJwt(`${'a'.repeat(20_000)}.b.c`)).toBe(false);
  });
});
