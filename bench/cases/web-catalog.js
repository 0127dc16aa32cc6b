// The web catalog: how long the page takes to load from a local `toolshed serve` in headless Chromium
// (to the load event, and until the tool list is on screen), and the gzip size of its JavaScript.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CHROMIUM_ARGS } from '../../scripts/ensure-chromium.mjs';
import { check, runCase } from '../lib/case.js';
import { median } from '../lib/timing.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'bin', 'toolshed.js');
const WEB = join(ROOT, 'dist', 'web');
const LOADS = 10;

/**
 * Start `toolshed serve --port 0` on a new SQLite database; resolves with its address and token.
 *
 * @param {string} folder
 * @returns {Promise<{ base: string, token: string, stop: () => Promise<void> }>}
 */
function startServe(folder) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], {
    cwd: folder,
    env: { ...process.env, TOOLSHED_DATABASE_URL: join(folder, 'toolshed.db') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`toolshed serve did not start: ${stderr}`)), 60_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const token = /shown once\): (\S+)/.exec(stderr)?.[1];
      const base = /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(stderr)?.[1];
      if (token !== undefined && base !== undefined) {
        clearTimeout(timer);
        resolve({
          base,
          token,
          async stop() {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`toolshed serve exited ${code}: ${stderr}`)));
  });
}

await runCase('web-catalog', async () => {
  if (!existsSync(join(WEB, 'index.html'))) return { skipped: 'dist/web is not built' };
  const assets = readdirSync(join(WEB, 'assets')).filter((name) => name.endsWith('.js'));
  const bundleGzipBytes = assets.reduce(
    (sum, name) => sum + gzipSync(readFileSync(join(WEB, 'assets', name)), { level: 9 }).length,
    0,
  );
  let executablePath;
  try {
    executablePath = execFileSync(process.execPath, [join(ROOT, 'scripts', 'ensure-chromium.mjs')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    return { skipped: `no chromium: ${error instanceof Error ? error.message : String(error)}`, bundleGzipBytes };
  }
  const { chromium } = await import('playwright-core');
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-bench-web-'));
  const service = await startServe(folder);
  const browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS] });
  try {
    const credentials = JSON.stringify({ workspaceId: 'default', token: service.token });
    const loadMs = [];
    const readyMs = [];
    // One untimed load warms the server (its first request compiles the routes' schemas).
    for (let index = 0; index <= LOADS; index++) {
      // A new context each time: an empty cache, as for a first visit.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript((saved) => localStorage.setItem('toolshed.credentials', saved), credentials);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`${service.base}/`, { waitUntil: 'load' });
      const loaded = performance.now() - started;
      await page.getByRole('list', { name: 'Tools' }).getByRole('listitem').first().waitFor();
      const ready = performance.now() - started;
      check(
        (await page.getByRole('list', { name: 'Tools' }).getByRole('listitem').count()) > 5,
        'the catalog shows the built-in tools',
      );
      await context.close();
      if (index === 0) continue;
      loadMs.push(loaded);
      readyMs.push(ready);
    }
    return {
      loads: LOADS,
      bundleGzipBytes,
      loadP50Ms: median(loadMs),
      loadMaxMs: Math.max(...loadMs),
      readyP50Ms: median(readyMs),
      readyMaxMs: Math.max(...readyMs),
    };
  } finally {
    await browser.close();
    await service.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
