import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type ToolshedStore } from '../store/index.js';
import { createServer } from './create-server.js';
import { DEFAULT_WEB_CATALOG_DIR } from './web-catalog.js';

const INDEX = '<!doctype html><title>catalog</title><script type="module" src="/assets/app-1a2b3c.js"></script>';
const SCRIPT = 'console.log("catalog");';
const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let folder: string;
let store: ToolshedStore;
let app: FastifyInstance;
let unbuilt: FastifyInstance;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-web-'));
  const built = join(folder, 'web');
  mkdirSync(join(built, 'assets'), { recursive: true });
  writeFileSync(join(built, 'index.html'), INDEX);
  writeFileSync(join(built, 'assets', 'app-1a2b3c.js'), SCRIPT);
  writeFileSync(join(built, 'assets', 'app-1a2b3c.css'), 'body{}');
  writeFileSync(join(built, 'robots.txt'), 'User-agent: *\n');
  // A file beside the build that no request may reach.
  writeFileSync(join(folder, 'secret.txt'), 'outside the build');
  store = await createStore(':memory:');
  await store.migrate();
  app = createServer({ store, webCatalog: built, mcp: false });
  unbuilt = createServer({ store, webCatalog: join(folder, 'missing'), mcp: false });
  await Promise.all([app.ready(), unbuilt.ready()]);
});

afterAll(async () => {
  await app?.close();
  await unbuilt?.close();
  await store?.close();
  rmSync(folder, { recursive: true, force: true });
});

function get(url: string, accept?: string, target = app) {
  return target.inject({ method: 'GET', url, ...(accept === undefined ? {} : { headers: { accept } }) });
}

describe('the web catalog', () => {
  it('serves the page at / with no-cache and a same-origin content security policy', async () => {
    const response = await get('/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response.headers['content-security-policy']).toContain("script-src 'self';");
    expect(response.headers['content-security-policy']).not.toContain('unsafe-eval');
    expect(response.body).toBe(INDEX);
    expect((await get('/index.html')).body).toBe(INDEX);
  });

  it('serves hashed assets with their content type and a year of caching', async () => {
    const script = await get('/assets/app-1a2b3c.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe(SCRIPT);
    expect((await get('/assets/app-1a2b3c.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    const robots = await get('/robots.txt');
    expect(robots.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(robots.headers['cache-control']).toBe('no-cache');
    const head = await app.inject({ method: 'HEAD', url: '/assets/app-1a2b3c.js' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it("answers the page for the app's own paths when a browser asks for HTML", async () => {
    for (const url of ['/tools/calculator', '/agents/agt_1', '/calls', '/calls?agent_id=x']) {
      const response = await get(url, HTML_ACCEPT);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(INDEX);
      expect(response.headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('leaves other misses to the JSON 404, and missing assets too', async () => {
    const missing = await get('/nowhere', 'application/json');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /nowhere.' } });
    expect((await get('/nowhere')).statusCode).toBe(404);
    const asset = await get('/assets/gone-123.js', HTML_ACCEPT);
    expect(asset.statusCode).toBe(404);
    expect(asset.headers['content-type']).toContain('application/json');
  });

  it('never answers the page under /api, /mcp, /health or /metrics', async () => {
    // No route: the JSON 404, with or without a token (authentication belongs to the routes).
    const api = await get('/api/nothing', HTML_ACCEPT);
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /api/nothing.' } });
    for (const url of ['/mcp/anything', '/mcp', '/health/x', '/metrics/x', '//api/tools', '/API/tools', '/api;/x']) {
      const response = await get(url, HTML_ACCEPT);
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('<!doctype html>');
    }
    expect((await get('/health', HTML_ACCEPT)).json()).toEqual({ status: 'ok' });
  });

  it('never serves a file outside the build, however the path is spelled', async () => {
    const attempts = [
      '/..%2f..%2fetc/passwd',
      '/..%2fsecret.txt',
      '/assets/../../package.json',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/%2e%2e/secret.txt',
      '/assets/app-1a2b3c.js%00.html',
      '/assets/%E0%A4%A',
      '//etc/passwd',
      '/../secret.txt',
    ];
    for (const url of attempts) {
      for (const accept of [undefined, HTML_ACCEPT]) {
        const response = await get(url, accept);
        const label = `${url} with Accept: ${accept ?? 'none'}`;
        // A refusal (400 for an undecodable path, 404), or at most the page itself.
        if (response.statusCode === 200) expect(response.body, label).toBe(INDEX);
        else expect([400, 404], label).toContain(response.statusCode);
        if (accept === undefined) expect(response.statusCode, label).not.toBe(200);
        expect(response.body, label).not.toContain('outside the build');
      }
    }
  });

  it('answers 503 with a plain message when the catalog was not built', async () => {
    for (const url of ['/', '/index.html']) {
      const response = await get(url, undefined, unbuilt);
      expect(response.statusCode, url).toBe(503);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toContain('The web catalog is not built');
      expect(response.body).toContain('npm run build');
    }
    expect((await get('/tools/calculator', HTML_ACCEPT, unbuilt)).statusCode).toBe(503);
    expect((await get('/health', undefined, unbuilt)).statusCode).toBe(200);
    expect((await get('/assets/app.js', undefined, unbuilt)).statusCode).toBe(404);
  });

  it('is off with webCatalog: false, and defaults to dist/web of the package', async () => {
    const off = createServer({ store, webCatalog: false, mcp: false });
    const response = await off.inject({ method: 'GET', url: '/', headers: { accept: HTML_ACCEPT } });
    expect(response.statusCode).toBe(404);
    await off.close();
    expect(DEFAULT_WEB_CATALOG_DIR.replaceAll('\\', '/')).toMatch(/\/dist\/web$/);
  });
});
