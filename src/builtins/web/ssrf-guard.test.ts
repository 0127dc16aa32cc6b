import { describe, expect, it } from 'vitest';
import { createFakeResolver } from '../../../test/builtins/support.js';
import { classifyAddress, isPublicAddress, SsrfGuard } from './ssrf-guard.js';
import { UrlBlockedError } from './url-blocked-error.js';

function blocked(action: () => unknown): UrlBlockedError {
  try {
    action();
  } catch (error) {
    if (UrlBlockedError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a UrlBlockedError');
}

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
    ['2002:7f00:1::', '6to4'],
    ['2001:db8::1', 'reserved'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['not an address', 'invalid'],
  ])('classifies %s as %s, not public', (address, range) => {
    expect(classifyAddress(address)).toEqual({ range, isPublic: false });
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'classifies %s as public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('SsrfGuard.checkUrl', () => {
  const guard = new SsrfGuard({ resolve: createFakeResolver() });

  it.each([
    ['http://127.0.0.1/', '127.0.0.1 is a loopback address (this machine)'],
    ['http://[::1]:8080/', '::1 is a loopback address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['http://10.0.0.1/', '10.0.0.1 is a private-network address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is a loopback address'],
    ['http://2130706433/', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/', '127.0.0.1 is a loopback address'],
    ['http://127.1/', '127.0.0.1 is a loopback address'],
    ['http://0/', '0.0.0.0 is the unspecified address'],
    ['http://100.64.1.1/', 'carrier-grade NAT'],
    ['http://[fd00::1]/', 'unique local'],
    ['http://[::127.0.0.1]/', '::7f00:1 is an IPv4-compatible IPv6 address'],
    ['http://[::ffff:a9fe:a9fe]/', 'link-local'],
  ])('refuses %s before any lookup', (url, words) => {
    const error = blocked(() => guard.checkUrl(url));
    expect(error.reason).toBe('private_address');
    expect(error.message).toContain(words);
    expect(error.message).toContain('only public internet addresses can be fetched');
  });

  it.each(['http://localhost/', 'http://LOCALHOST:3000/x', 'http://localhost./', 'http://app.localhost/'])(
    'refuses the local name %s without resolving it',
    (url) => {
      expect(blocked(() => guard.checkUrl(url)).reason).toBe('local_hostname');
    },
  );

  it.each([
    ['file:///etc/passwd', 'not file'],
    ['ftp://example.com/x', 'not ftp'],
    ['gopher://example.com/', 'not gopher'],
    ['data:text/plain,hi', 'not data'],
    ['javascript:alert(1)', 'not javascript'],
  ])('refuses the scheme of %s', (url, words) => {
    const error = blocked(() => guard.checkUrl(url));
    expect(error.reason).toBe('scheme');
    expect(error.message).toContain(words);
  });

  it('refuses credentials in the URL and relative or malformed URLs', () => {
    expect(blocked(() => guard.checkUrl('http://user:pw@example.com/')).reason).toBe('credentials');
    expect(blocked(() => guard.checkUrl('/just/a/path')).reason).toBe('invalid_url');
    expect(blocked(() => guard.checkUrl('http://1.2.3.4.5/')).reason).toBe('invalid_url');
    // A host without a scheme gets the https:// URL it most likely meant; a bare word does not.
    expect(blocked(() => guard.checkUrl('example.com')).message).toBe(
      "The URL 'example.com' is not a valid absolute URL. It has no scheme; did you mean 'https://example.com'?",
    );
    expect(blocked(() => guard.checkUrl(' www.example.org:8443/docs?q=1 ')).message).toBe(
      "The URL ' www.example.org:8443/docs?q=1 ' is not a valid absolute URL. It has no scheme; did you mean 'https://www.example.org:8443/docs?q=1'?",
    );
    expect(blocked(() => guard.checkUrl('just words')).message).toBe(
      "The URL 'just words' is not a valid absolute URL.",
    );
    expect(blocked(() => guard.checkUrl('/just/a/path')).message).toBe(
      "The URL '/just/a/path' is not a valid absolute URL.",
    );
  });

  it('lets public literals and host names through (names are checked when they resolve)', () => {
    expect(guard.checkUrl('https://93.184.215.14/').exempt).toBe(false);
    expect(guard.checkUrl('https://example.com/a?b=c').url.href).toBe('https://example.com/a?b=c');
    expect(guard.checkUrl('http://intranet.test/').hostname).toBe('intranet.test');
  });

  it('allows private targets with allowPrivateNetwork, still refusing bad schemes', () => {
    const open = new SsrfGuard({ allowPrivateNetwork: true });
    for (const url of ['http://127.0.0.1/', 'http://localhost/', 'http://169.254.169.254/', 'http://[::1]/']) {
      expect(open.checkUrl(url).exempt).toBe(true);
    }
    expect(blocked(() => open.checkUrl('file:///etc/passwd')).reason).toBe('scheme');
  });

  it('exempts only the listed hosts, with or without port', () => {
    const listed = new SsrfGuard({ allowHosts: ['127.0.0.1:8080', 'intranet.test', '[::1]:9000'] });
    expect(listed.checkUrl('http://127.0.0.1:8080/').exempt).toBe(true);
    expect(listed.checkUrl('http://intranet.test:1234/').exempt).toBe(true);
    expect(listed.checkUrl('http://[::1]:9000/').exempt).toBe(true);
    expect(blocked(() => listed.checkUrl('http://127.0.0.1:8081/')).reason).toBe('private_address');
    expect(blocked(() => listed.checkUrl('http://127.0.0.1/')).reason).toBe('private_address');
  });

  it('words a refused redirect target', () => {
    const error = blocked(() => guard.checkUrl('http://10.0.0.1/', 'https://example.com/start'));
    expect(error.message).toBe(
      "The redirect from 'https://example.com/start' to 'http://10.0.0.1/' was refused: 10.0.0.1 is a private-network address; only public internet addresses can be fetched.",
    );
  });
});

describe('SsrfGuard host resolution', () => {
  it('refuses a name resolving to a private address, and a name with any private answer', async () => {
    const guard = new SsrfGuard({ resolve: createFakeResolver() });
    await expect(guard.resolveHost('loopback.test')).rejects.toThrow(
      "'loopback.test' resolves to 127.0.0.1, which is a loopback address",
    );
    await expect(guard.resolveHost('metadata.test')).rejects.toThrow('link-local');
    await expect(guard.resolveHost('mapped.test')).rejects.toThrow('::ffff:127.0.0.1');
    await expect(guard.resolveHost('mixed.test')).rejects.toThrow('10.0.0.5');
  });

  it('resolves private names when private networks are allowed', async () => {
    const guard = new SsrfGuard({ allowPrivateNetwork: true, resolve: createFakeResolver() });
    await expect(guard.resolveHost('loopback.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('checks the address in the lookup it hands to node:http, answering both lookup forms', async () => {
    const resolver = createFakeResolver();
    const guard = new SsrfGuard({ resolve: resolver });
    const lookup = guard.checkUrl('http://loopback.test/').lookup;
    const error = await new Promise<unknown>((resolve) => lookup('loopback.test', {}, (failure) => resolve(failure)));
    expect(UrlBlockedError.isInstance(error)).toBe(true);
    expect(resolver.asked).toEqual(['loopback.test']);

    const open = new SsrfGuard({ allowPrivateNetwork: true, resolve: createFakeResolver() }).checkUrl(
      'http://loopback.test/',
    ).lookup;
    const single = await new Promise<unknown[]>((resolve) =>
      open('loopback.test', {}, (_failure, address, family) => resolve([address, family])),
    );
    expect(single).toEqual(['127.0.0.1', 4]);
    const all = await new Promise<unknown>((resolve) =>
      open('loopback.test', { all: true }, (_failure, addresses) => resolve(addresses)),
    );
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const none = await new Promise<unknown>((resolve) =>
      open('loopback.test', { family: 6 }, (failure) => resolve(failure)),
    );
    expect(none).toMatchObject({ code: 'ENOTFOUND' });
  });
});
