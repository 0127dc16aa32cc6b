#!/usr/bin/env node
// Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (test/web): installs it
// with apt-get when it is missing and this process may (root), or says exactly what to run otherwise.
// Importable (`ensureChromium()`) and runnable (`node scripts/ensure-chromium.mjs`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the browser tests expect Chromium. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The flags of every browser the tests and the bench start: headless, and quiet (no update checks,
 * sync, QUIC, pings...). Any name but 127.0.0.1 resolves to nothing, so no request leaves the machine.
 */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--no-pings',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]);

/**
 * Return the Chromium executable path, installing the `chromium` package with apt-get first when it is
 * missing. Throws an Error naming the command to run when it cannot install it (not root, no apt-get,
 * or the install failed).
 *
 * @example
 * ```js
 * const executablePath = ensureChromium(); // '/usr/bin/chromium'
 * ```
 */
export function ensureChromium({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const hint = `Install it with: sudo apt-get update && sudo apt-get install -y chromium`;
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') {
    throw new Error(`The browser tests need Debian's Chromium at ${CHROMIUM_PATH}, which is missing. ${hint}`);
  }
  if (process.getuid() !== 0) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}, which is missing, and installing it needs root. ${hint}`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => {
    log(`ensure-chromium: apt-get ${args.join(' ')}`);
    return spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  };
  let install = run(['install', '-y', '--no-install-recommends', 'chromium']);
  if (install.status !== 0) {
    // A fresh image often has no package lists yet.
    run(['update']);
    install = run(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (install.error !== undefined || install.status !== 0 || !existsSync(CHROMIUM_PATH)) {
    const reason = install.error?.message ?? install.stderr?.trim().split('\n').slice(-3).join(' ') ?? '';
    throw new Error(`Installing Chromium with apt-get failed (${reason || `exit ${install.status}`}). ${hint}`);
  }
  return CHROMIUM_PATH;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${ensureChromium()}\n`);
  } catch (error) {
    process.stderr.write(`ensure-chromium: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
