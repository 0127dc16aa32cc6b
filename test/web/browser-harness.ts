import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
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
  cli: RunningCli;
  stop(): Promise<void>;
}

/** Options of {@link startService}. */
export interface ServiceOptions {
  /** Put files in the service's temp folder before it starts (a configuration to serve). */
  prepare?: (folder: string) => void;
  /** More arguments of `serve` (`--config toolshed.yaml`, relative to the temp folder). */
  args?: readonly string[];
}

/**
 * Start `node bin/toolshed.js serve --port 0` (the built CLI) in an empty temp folder on a new SQLite
 * database, and wait for the token and address it prints.
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
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-web-e2e-'));
  options.prepare?.(folder);
  const cli = startCli(['serve', '--port', '0', ...(options.args ?? [])], {
    cwd: folder,
    env: { TOOLSHED_DATABASE_URL: join(folder, 'toolshed.db') },
  });
  const token = (await cli.waitForStderr(/shown once\): (\S+)/))[1] ?? '';
  const base = (await cli.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/))[1] ?? '';
  return {
    base,
    token,
    cli,
    async stop() {
      if (cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
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
