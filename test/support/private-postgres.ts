import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Where Debian and most Linux packages put the server's programs, newest version first. */
function binDirectory(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((entry) => existsSync(join(root, entry, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions[0];
  if (found === undefined) {
    throw new Error(
      `The PostgreSQL restart tests start a server of their own and need its programs (initdb, pg_ctl) in ${root}/<version>/bin; install the postgresql package.`,
    );
  }
  return join(root, found, 'bin');
}

/** A PostgreSQL server of one test file's own, which the test may stop, start and restart. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A fast restart (`pg_ctl restart -m fast`): every connection is ended, as in a real restart. */
  restart(): Promise<void>;
  /** Stop it and delete its files. */
  destroy(): Promise<void>;
}

/**
 * Make and start a throwaway PostgreSQL cluster in a temporary folder, listening on 127.0.0.1 on a
 * free port (fsync off: nothing here needs to survive the machine). Run as root, the server runs as
 * the `postgres` user, which PostgreSQL requires.
 *
 * @example
 * ```ts
 * const server = await startPrivatePostgres();
 * await server.restart();
 * await server.destroy();
 * ```
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDirectory();
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(folder, ...postgresIds());
  const data = join(folder, 'data');
  const port = await freePort();
  const pg = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const ctl = (action: string, extra: string[] = []) =>
    pg('pg_ctl', ['-D', data, '-l', join(folder, 'server.log'), '-w', '-t', '30', ...extra, action]);
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  await ctl('start', ['-o', options]);
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await ctl('stop', ['-m', 'fast']);
      running = false;
    },
    async start() {
      await ctl('start', ['-o', options]);
      running = true;
    },
    async restart() {
      await ctl('restart', ['-m', 'fast', '-o', options]);
      running = true;
    },
    async destroy() {
      try {
        if (running) await ctl('stop', ['-m', 'immediate']);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

function postgresIds(): [number, number] {
  // `id -u postgres` without a child process: the passwd file is small and always there.
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error('Running as root, the PostgreSQL restart tests need a postgres user to run the server as.');
  }
  return [Number(uid), Number(gid)];
}
