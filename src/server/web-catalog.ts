import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The built web catalog of this package: `dist/web` at the package root (from `src/` or `dist/`). */
export const DEFAULT_WEB_CATALOG_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Path prefixes that belong to the API, MCP and operations routes, never to the web catalog. */
const RESERVED_PREFIXES = ['/api', '/mcp', '/health', '/metrics'] as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// This origin only, so the page can reach nothing but this server; no 'unsafe-eval' (the try-it form
// validates with an interpreter, web/src/schema-validator.ts).
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface StaticFile {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

/** Options of {@link registerWebCatalog}. */
export interface WebCatalogOptions {
  /** The folder of the built catalog (default {@link DEFAULT_WEB_CATALOG_DIR}). */
  dir?: string;
}

/**
 * Serve the web catalog (the single-page app built into `dist/web` by `npm run build`) on `app`.
 *
 * The files are read into memory once, here; requests are answered from that map only, so no request
 * path ever reaches the filesystem (`..`, encoded or not, finds nothing). `GET /` and `/index.html`
 * answer the page with `Cache-Control: no-cache`; `/assets/*` (content-hashed names) are cached for a
 * year. Any other GET of a page (its `Accept` names `text/html`) outside `/api`, `/mcp`, `/health` and
 * `/metrics` also answers the page, so the app's own paths (`/tools/calculator`) survive a reload; other
 * misses fall through to the app's 404. When `dir` has no `index.html`, those pages answer 503 with a
 * plain-text message saying the catalog is not built.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * registerWebCatalog(app, { dir: 'dist/web' });
 * const page = await app.inject({ method: 'GET', url: '/' });
 * ```
 */
export function registerWebCatalog(app: FastifyInstance, options: WebCatalogOptions = {}): void {
  const dir = options.dir ?? DEFAULT_WEB_CATALOG_DIR;
  const files = readBuiltFiles(dir);
  const index = files.get('/index.html');

  const answerPage = (reply: FastifyReply) => {
    if (index === undefined) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          `The web catalog is not built: ${dir} has no index.html. Run \`npm run build\` (it builds the catalog with Vite) and restart the server.\n`,
        );
    }
    return sendFile(reply, index, true);
  };

  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    const path = requestPath(request.url);
    if (path === undefined || isReserved(path)) return reply.callNotFound();
    if (path === '/' || path === '/index.html') return answerPage(reply);
    const file = files.get(path);
    if (file !== undefined) return sendFile(reply, file, false);
    if (path.startsWith('/assets/') || !wantsPage(request)) return reply.callNotFound();
    return answerPage(reply);
  };
  // Public: the catalog's files hold no workspace data (the page reads the API with the user's token).
  app.get('/', { config: { auth: 'none' } }, handler);
  app.get('/*', { config: { auth: 'none' } }, handler);
}

function readBuiltFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const absolute = join(dir, entry);
    if (!statSync(absolute).isFile()) continue;
    const urlPath = `/${relative(dir, absolute).split(sep).join('/')}`;
    const contentType = CONTENT_TYPES[extname(urlPath).toLowerCase()] ?? 'application/octet-stream';
    files.set(urlPath, {
      body: readFileSync(absolute),
      contentType,
      cacheControl: urlPath.startsWith('/assets/') ? IMMUTABLE : 'no-cache',
    });
  }
  return files;
}

function sendFile(reply: FastifyReply, file: StaticFile, page: boolean): FastifyReply {
  reply.header('content-type', file.contentType).header('cache-control', file.cacheControl);
  reply.header('x-content-type-options', 'nosniff');
  if (page) {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('referrer-policy', 'no-referrer');
  }
  return reply.send(file.body);
}

/** The decoded path of a request URL, or `undefined` for one that cannot name a catalog file. */
function requestPath(url: string): string | undefined {
  // An absolute-form target (`GET http://host/tools/x`, as proxies send) names the same path.
  const raw = (url.split('?')[0] ?? '').replace(/^https?:\/\/[^/]*/i, '') || '/';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (!path.startsWith('/') || path.includes('\\') || path.includes('\0')) return undefined;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
  return path;
}

/**
 * Whether the path is one of the API's or one that spells it differently (`//api/x`, `/API/x`,
 * `/api;/x`, `/api%2Fx` once decoded): those never answer the page.
 */
function isReserved(path: string): boolean {
  const first = (path.split('/').find((segment) => segment !== '') ?? '').toLowerCase().split(';')[0] ?? '';
  return RESERVED_PREFIXES.some((prefix) => first === prefix.slice(1));
}

function wantsPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}
