import { describe, expect, it } from 'vitest';
import { inspectConnect } from './support.js';

// The arguments node:http hands to Socket.prototype.connect (a normalized [options, callback] array).
const httpArgs = (options: Record<string, unknown>) => [[{ path: null, port: 80, ...options }, () => undefined]];

describe('the network tripwire (checked without opening any socket)', () => {
  it.each(['169.254.169.254', '10.0.0.1', '93.184.215.14', '2001:db8::1'])('refuses the literal %s', (host) => {
    const violations: string[] = [];
    expect(() => inspectConnect(httpArgs({ host }), violations)).toThrow('Network tripwire');
    expect(violations).toEqual([host]);
  });

  it.each(['127.0.0.1', '::1', 'localhost'])('lets %s through', (host) => {
    const violations: string[] = [];
    inspectConnect(httpArgs({ host }), violations);
    inspectConnect([8080, host], violations);
    expect(violations).toEqual([]);
  });

  it('refuses a name resolved by the system and lets a Unix socket through', () => {
    const violations: string[] = [];
    expect(() => inspectConnect(httpArgs({ host: 'example.com' }), violations)).toThrow('Network tripwire');
    inspectConnect([[{ path: '/tmp/x.sock' }]], violations);
    expect(violations).toEqual(['example.com']);
  });

  it('fails a lookup answering a non-loopback address before the socket can use it', async () => {
    const violations: string[] = [];
    const options: { host: string; port: number; path: null; lookup: Function } = {
      host: 'metadata.test',
      port: 80,
      path: null,
      lookup: (_name: string, _options: unknown, callback: (error: null, address: string, family: number) => void) =>
        callback(null, '169.254.169.254', 4),
    };
    inspectConnect([[options, () => undefined]], violations);
    const outcome = await new Promise<unknown>((resolve) =>
      options.lookup('metadata.test', {}, (error: unknown) => resolve(error)),
    );
    expect(String(outcome)).toContain('Network tripwire');
    expect(violations).toEqual(['metadata.test -> 169.254.169.254']);
  });
});
