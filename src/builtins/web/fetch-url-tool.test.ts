import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createFakeResolver,
  expectFailure,
  expectSuccess,
  type FakeServer,
  installNetworkTripwire,
  startFakeServer,
} from '../../../test/builtins/support.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createFetchUrlTool, type FetchUrlOptions } from './fetch-url-tool.js';

let target: FakeServer;
let other: FakeServer;
let tripwire: ReturnType<typeof installNetworkTripwire>;

function registryWith(options: FetchUrlOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(createFetchUrlTool({ resolveHost: createFakeResolver(), ...options }));
  return registry;
}

beforeAll(async () => {
  tripwire = installNetworkTripwire();
  target = await startFakeServer((request, response) => {
    const path = request.url;
    if (path === '/json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    } else if (path === '/big') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('x'.repeat(5000));
    } else if (path === '/gzip') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-encoding': 'gzip' });
      response.end(gzipSync('hello compressed wörld'));
    } else if (path === '/latin1') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (path === '/binary') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
    } else if (path === '/missing') {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
    } else if (path === '/slow') {
      // never answers: the tool's timeout must fire
    } else if (path?.startsWith('/redirect?to=')) {
      response.writeHead(302, { location: decodeURIComponent(path.slice('/redirect?to='.length)) });
      response.end();
    } else if (path === '/see-other') {
      response.writeHead(303, { location: '/echo' });
      response.end();
    } else if (path === '/loop') {
      response.writeHead(301, { location: '/loop' });
      response.end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json', 'x-fake': 'yes' });
      response.end(JSON.stringify({ method: request.method, url: request.url, body: request.body }));
    }
  });
  other = await startFakeServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ other: true, authorization: request.headers.authorization ?? null }));
  });
});

afterAll(async () => {
  tripwire.restore();
  await target.close();
  await other.close();
});

let connectionsBefore = 0;
beforeEach(() => {
  connectionsBefore = target.connections + other.connections;
});

afterEach(() => {
  expect(tripwire.violations).toEqual([]);
});

describe('fetch_url SSRF catalogue', () => {
  const catalogue = (port: () => number): Array<[string, () => string, string]> => [
    ['loopback IPv4', () => `http://127.0.0.1:${port()}/`, 'private_address'],
    ['localhost', () => `http://localhost:${port()}/`, 'local_hostname'],
    ['loopback IPv6', () => `http://[::1]:${port()}/`, 'private_address'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data', 'private_address'],
    ['a private network', () => 'http://10.0.0.1/', 'private_address'],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/`, 'private_address'],
    ['decimal loopback', () => `http://2130706433:${port()}/`, 'private_address'],
    ['octal loopback', () => `http://0177.0.0.1:${port()}/`, 'private_address'],
    ['hex loopback', () => `http://0x7f000001:${port()}/`, 'private_address'],
    ['short hex loopback', () => `http://0x7f.1:${port()}/`, 'private_address'],
    ['a name resolving to loopback', () => `http://loopback.test:${port()}/`, 'private_address'],
    ['a name resolving to cloud metadata', () => 'http://metadata.test/latest/meta-data', 'private_address'],
    ['a name resolving to IPv4-mapped loopback', () => `http://mapped.test:${port()}/`, 'private_address'],
    ['a name with one private answer among public ones', () => 'http://mixed.test/', 'private_address'],
    ['a file URL', () => 'file:///etc/passwd', 'scheme'],
    ['an FTP URL', () => 'ftp://example.com/file.txt', 'scheme'],
    ['credentials in the URL', () => 'http://admin:secret@example.com/', 'credentials'],
  ];

  it.each(catalogue(() => target.port))('refuses %s before connecting', async (_label, url, reason) => {
    const failure = expectFailure(await registryWith().call('fetch_url', { url: url() }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.details).toMatchObject({ reason });
    expect(failure.error.message).toMatch(/was refused/);
    expect(failure.error.hint).toBe('fetch_url only reaches public http(s) addresses on the internet.');
    expect(target.connections + other.connections).toBe(connectionsBefore);
  });

  it.each([
    ['loopback IPv4', () => `http://127.0.0.1:${target.port}/json`],
    ['localhost', () => `http://localhost:${target.port}/json`],
    ['decimal loopback', () => `http://2130706433:${target.port}/json`],
    ['octal loopback', () => `http://0177.0.0.1:${target.port}/json`],
    ['hex loopback', () => `http://0x7f000001:${target.port}/json`],
    ['a name resolving to loopback', () => `http://loopback.test:${target.port}/json`],
  ])('reaches %s when allowPrivateNetwork is set', async (_label, url) => {
    const success = expectSuccess(await registryWith({ allowPrivateNetwork: true }).call('fetch_url', { url: url() }));
    expect(success.data).toMatchObject({ status: 200, content: '{"ok":true}' });
  });

  it('still refuses other schemes when allowPrivateNetwork is set', async () => {
    const registry = registryWith({ allowPrivateNetwork: true });
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/']) {
      const failure = expectFailure(await registry.call('fetch_url', { url }));
      expect(failure.error.details).toMatchObject({ reason: 'scheme' });
    }
  });

  describe('redirects from an allowed host', () => {
    const allowed = () => registryWith({ allowHosts: [target.host] });
    const via = (to: string) => `${target.url}/redirect?to=${encodeURIComponent(to)}`;

    it.each([
      ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data'],
      ['a private network', () => 'http://10.0.0.1/admin'],
      ['another loopback port', () => `http://127.0.0.1:${other.port}/`],
      ['localhost', () => `http://localhost:${other.port}/`],
      ['a name resolving to loopback', () => `http://loopback.test:${other.port}/`],
      ['a file URL', () => 'file:///etc/passwd'],
    ])('refuses a redirect to %s', async (_label, to) => {
      const failure = expectFailure(await allowed().call('fetch_url', { url: via(to()) }));
      expect(failure.error.code).toBe('INVALID_ARGUMENTS');
      expect(failure.error.message).toContain(`The redirect from '${target.url}/redirect`);
      expect(other.connections).toBe(0);
    });

    it('fetches the allowed host itself', async () => {
      const success = expectSuccess(await allowed().call('fetch_url', { url: `${target.url}/json` }));
      expect(success.data).toMatchObject({ status: 200 });
    });
  });
});

describe('fetch_url requests', () => {
  const open = () => registryWith({ allowPrivateNetwork: true });

  it('sends the method, headers and body it was given and returns status, headers and text', async () => {
    const before = target.requests.length;
    const success = expectSuccess(
      await open().call('fetch_url', {
        url: `${target.url}/echo?x=1`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Custom': 'abc' },
        body: '{"q":1}',
      }),
    );
    const sent = target.requests[before]!;
    expect(sent).toMatchObject({ method: 'POST', url: '/echo?x=1', body: '{"q":1}' });
    expect(sent.headers).toMatchObject({
      'content-type': 'application/json',
      'x-custom': 'abc',
      'user-agent': 'toolshed-fetch/0.1 (+https://github.com/toolshed)',
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(success.data).toMatchObject({
      url: `${target.url}/echo?x=1`,
      status: 200,
      status_text: 'OK',
      ok: true,
      content_type: 'application/json',
      content: '{"method":"POST","url":"/echo?x=1","body":"{\\"q\\":1}"}',
      truncated: false,
    });
    expect((success.data as { headers: Record<string, string> }).headers['x-fake']).toBe('yes');
  });

  it('returns an HTTP error status as data', async () => {
    const success = expectSuccess(await open().call('fetch_url', { url: `${target.url}/missing` }));
    expect(success.data).toMatchObject({ status: 404, ok: false, content: 'not here' });
  });

  it('cuts the body at max_bytes and says so', async () => {
    const success = expectSuccess(await open().call('fetch_url', { url: `${target.url}/big`, max_bytes: 1000 }));
    expect(success.data).toMatchObject({ bytes: 1000, truncated: true });
    expect((success.data as { content: string }).content).toBe('x'.repeat(1000));
  });

  it('refuses a max_bytes over the limit through the schema', async () => {
    const failure = expectFailure(
      await registryWith({ allowPrivateNetwork: true, maxBytesLimit: 2000 }).call('fetch_url', {
        url: `${target.url}/big`,
        max_bytes: 5000,
      }),
    );
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
  });

  it('decompresses gzip and decodes the charset', async () => {
    const registry = open();
    const gzip = expectSuccess(await registry.call('fetch_url', { url: `${target.url}/gzip` }));
    expect(gzip.data).toMatchObject({ content: 'hello compressed wörld' });
    const latin1 = expectSuccess(await registry.call('fetch_url', { url: `${target.url}/latin1` }));
    expect(latin1.data).toMatchObject({ content: 'café' });
  });

  it('returns binary bodies as base64', async () => {
    const success = expectSuccess(await open().call('fetch_url', { url: `${target.url}/binary` }));
    expect(success.data).toMatchObject({ encoding: 'base64', content: 'iVBORwAB', bytes: 6 });
  });

  it('times out with TIMEOUT after the timeout argument', async () => {
    const started = Date.now();
    const result = await open().call('fetch_url', { url: `${target.url}/slow`, timeout: 0.3 });
    const failure = expectFailure(result);
    expect(failure.status).toBe('timeout');
    expect(failure.error.message).toBe(`Fetching '${target.url}/slow' did not finish within 0.3 s.`);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses a timeout over 60 seconds through the schema', async () => {
    const failure = expectFailure(await open().call('fetch_url', { url: `${target.url}/json`, timeout: 61 }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
  });

  it.each([
    [{ Host: 'evil.example' }, "The header 'Host' cannot be set"],
    [{ 'Transfer-Encoding': 'chunked' }, "The header 'Transfer-Encoding' cannot be set"],
    [{ 'X-Bad': 'a\r\nX-Injected: 1' }, "The value of header 'X-Bad' contains characters"],
    [{ 'Bad Name': 'x' }, "The header name 'Bad Name' is not a valid"],
  ])('refuses unsafe headers %j', async (headers, message) => {
    const failure = expectFailure(await open().call('fetch_url', { url: `${target.url}/json`, headers }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain(message);
  });

  it('refuses a body on GET', async () => {
    const failure = expectFailure(await open().call('fetch_url', { url: `${target.url}/json`, body: 'x' }));
    expect(failure.error.message).toBe('A GET request cannot have a body.');
  });

  it('follows redirects, reporting them, and turns a 303 after POST into a GET', async () => {
    const registry = open();
    const success = expectSuccess(
      await registry.call('fetch_url', { url: `${target.url}/redirect?to=${encodeURIComponent(`${other.url}/x`)}` }),
    );
    expect(success.data).toMatchObject({ url: `${other.url}/x`, redirects: [`${other.url}/x`] });
    const seeOther = expectSuccess(
      await registry.call('fetch_url', { url: `${target.url}/see-other`, method: 'POST', body: 'data' }),
    );
    expect(JSON.parse((seeOther.data as { content: string }).content)).toEqual({
      method: 'GET',
      url: '/echo',
      body: '',
    });
  });

  it('drops the Authorization header on a redirect to another origin', async () => {
    const success = expectSuccess(
      await open().call('fetch_url', {
        url: `${target.url}/redirect?to=${encodeURIComponent(`${other.url}/x`)}`,
        headers: { Authorization: 'Bearer secret' },
      }),
    );
    expect(JSON.parse((success.data as { content: string }).content)).toEqual({ other: true, authorization: null });
  });

  it('stops after 5 redirects', async () => {
    const failure = expectFailure(await open().call('fetch_url', { url: `${target.url}/loop` }));
    expect(failure.error.code).toBe('EXECUTION_FAILED');
    expect(failure.error.message).toContain('Stopped after 5 redirects');
  });

  it('explains a refused connection and an unknown host', async () => {
    const closed = await startFakeServer(() => undefined);
    const port = closed.port;
    await closed.close();
    const registry = open();
    const refused = expectFailure(await registry.call('fetch_url', { url: `http://127.0.0.1:${port}/` }));
    expect(refused.error.message).toBe(
      `Could not fetch 'http://127.0.0.1:${port}/': the server refused the connection.`,
    );
    const unknown = expectFailure(await registry.call('fetch_url', { url: 'http://no-such-host.test/' }));
    expect(unknown.error.message).toBe("Could not fetch 'http://no-such-host.test/': the host name was not found.");
  });
});
