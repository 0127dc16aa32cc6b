import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../scripts/ensure-chromium.mjs';
import { assertBuilt, ROOT, type RunningCli, startCli } from '../cli/run-cli.js';

/**
 * Where the browser tests write the screenshots docs/web.md shows: a temporary folder, so a test run
 * leaves the repository as it was, or `TOOLSHED_SCREENSHOTS` (`npm run screenshots` points it at
 * docs/screenshots to refresh the pictures).
 */
export const SCREENSHOTS = process.env.TOOLSHED_SCREENSHOTS ?? join(tmpdir(), `toolshed-screenshots-${process.pid}`);

/** A `toolshed serve` on a fresh temporary database, with the token it printed. */
export interface RunningService {
  base: string;
  token: string;
  /** The folder it runs in, which holds its database (`toolshed.db`). */
  folder: string;
  cli: RunningCli;
  stop(): Promise<void>;
}

/** How {@link startService} starts the server. */
export interface ServiceOptions {
  /** Put files in the service's temp folder before it starts (a configuration to serve). */
  prepare?: (folder: string) => void;
  /** More arguments of `toolshed serve`, such as `['--config', file]` (relative to the folder). */
  args?: readonly string[];
  /** The folder to run in, with its database; a new temporary folder (removed by `stop()`) when omitted. */
  folder?: string;
  /** The port (default 0: a free one). */
  port?: number;
  /** The token of a database that already has one: a restart prints none. */
  token?: string;
}

/**
 * Start `node bin/toolshed.js serve --port 0` (the built CLI) in an empty temp folder on a new SQLite
 * database, and wait for the token and address it prints. `options` add arguments (a configuration),
 * or restart on a folder and port of an earlier run with its token.
 *
 * @example
 * ```ts
 * const service = await startService();
 * await fetch(`${service.base}/api/tools`, { headers: { authorization: `Bearer ${service.token}` } });
 * await service.stop();
 * ```
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  assertBuilt();
  if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) {
    throw new Error('dist/web/index.html is missing: run `npm run build` before the browser tests.');
  }
  const folder = options.folder ?? mkdtempSync(join(tmpdir(), 'toolshed-web-e2e-'));
  options.prepare?.(folder);
  const cli = startCli(['serve', '--port', String(options.port ?? 0), ...(options.args ?? [])], {
    cwd: folder,
    env: { TOOLSHED_DATABASE_URL: join(folder, 'toolshed.db') },
  });
  const token = options.token ?? (await cli.waitForStderr(/shown once\): (\S+)/))[1] ?? '';
  const base = (await cli.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/))[1] ?? '';
  return {
    base,
    token,
    folder,
    cli,
    async stop() {
      if (cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
      if (options.folder === undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Call the REST API of a running service as its workspace's token, and return the status and the
 * parsed body.
 *
 * @example
 * ```ts
 * const { status, body } = await apiCall(service, 'GET', '/api/tools');
 * ```
 */
export async function apiCall<T = unknown>(
  service: Pick<RunningService, 'base' | 'token'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      'x-workspace-id': 'default',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/**
 * Type the workspace id and token into the token screen and wait for the catalog.
 *
 * @example
 * ```ts
 * await page.goto(`${service.base}/`);
 * await signIn(page, service.token);
 * ```
 */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Workspace id').fill('default');
  await page.getByLabel('API token').fill(token);
  await page.getByLabel('API token').press('Enter');
  await page.getByRole('heading', { name: 'Tool catalog' }).waitFor();
}

/** A headless Chromium with a fresh profile, and every request it made to a host other than 127.0.0.1. */
export interface RunningBrowser {
  context: BrowserContext;
  offHostRequests: string[];
  close(): Promise<void>;
}

/**
 * Start Debian's Chromium (installing it first when missing, see scripts/ensure-chromium.mjs) with a
 * fresh temporary profile. Requests to any host but 127.0.0.1 are refused and recorded.
 *
 * @example
 * ```ts
 * const browser = await startBrowser();
 * const page = await browser.context.newPage();
 * await browser.close();
 * ```
 */
export async function startBrowser(): Promise<RunningBrowser> {
  const executablePath = execFileSync(process.execPath, [join(ROOT, 'scripts', 'ensure-chromium.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const profile = mkdtempSync(join(tmpdir(), 'toolshed-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const offHostRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    offHostRequests.push(url.href);
    return route.abort('blockedbyclient');
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    offHostRequests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
