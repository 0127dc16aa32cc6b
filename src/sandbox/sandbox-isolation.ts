import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What a pool asks of the host when it wraps a sandbox process. */
export interface IsolationRequest {
  /** Put the process in a network namespace without interfaces (false only with `allowNetwork`). */
  isolateNetwork: boolean;
  /** The process's data segment limit (RLIMIT_DATA), in bytes; omitted when none is wanted. */
  dataLimitBytes?: number;
}

/** How to wrap a sandbox process on this host, or why it cannot be isolated as asked. */
export type IsolationPlan =
  | {
      ok: true;
      /** Command words run before `node ...`: the wrappers that set up the namespaces and limits. */
      prefix: readonly string[];
      /** True when the process gets a network namespace without interfaces. */
      network: boolean;
      /** What the wrappers do, for logs and `SandboxPool.describe()`. */
      description: string;
    }
  | { ok: false; reason: string };

/**
 * Sets up the operating-system side of a sandbox process. The default,
 * {@link createNamespaceIsolation}, uses util-linux's `unshare`, `setpriv` and `prlimit`; tests inject
 * their own to simulate a host without namespaces.
 */
export interface SandboxIsolation {
  plan(request: IsolationRequest): Promise<IsolationPlan>;
}

/** Options of {@link createNamespaceIsolation}: where the util-linux tools are (default: found on `PATH`). */
export interface NamespaceIsolationOptions {
  unshare?: string;
  setpriv?: string;
  prlimit?: string;
  /** Treat the process as root or not (default: `process.getuid() === 0`). */
  root?: boolean;
}

const SYSTEM_PATHS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/**
 * The absolute path of an executable on `PATH` (or the usual system folders), or undefined.
 *
 * @example
 * ```ts
 * findExecutable('unshare'); // '/usr/bin/unshare' on most Linux hosts
 * ```
 */
export function findExecutable(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SYSTEM_PATHS];
  for (const folder of folders) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next folder.
    }
  }
  return undefined;
}

/**
 * The default isolation: every sandbox process runs under
 * `setpriv --pdeathsig KILL -- unshare [--map-root-user] --net --pid --fork --kill-child -- prlimit --data=N -- node ...`.
 *
 * - `--net`: a network namespace whose only interface (loopback) is down, so no socket reaches
 *   anything, the host's loopback included. Node 20's permission model does not cover the network.
 * - `--pid`: the sandbox cannot signal host processes (it is pid 1 of its own namespace).
 * - `--map-root-user` only when not running as root (unprivileged user namespaces).
 * - `setpriv --pdeathsig KILL`: the sandbox dies with the host process, even if its code never yields.
 * - `prlimit --data`: a hard cap on memory the runtime allocates outside its WebAssembly heap.
 *
 * The probe (`unshare ... true`) runs once per request kind and is cached. When `--net` cannot be set
 * up, the plan says why; without network isolation requested, the wrappers that work are kept.
 *
 * @example
 * ```ts
 * const plan = await createNamespaceIsolation().plan({ isolateNetwork: true });
 * if (!plan.ok) console.error(plan.reason); // e.g. 'unshare: unshare failed: Operation not permitted'
 * ```
 */
export function createNamespaceIsolation(options: NamespaceIsolationOptions = {}): SandboxIsolation {
  const unshare = options.unshare ?? findExecutable('unshare');
  const setpriv = options.setpriv ?? findExecutable('setpriv');
  const prlimit = options.prlimit ?? findExecutable('prlimit');
  const root = options.root ?? process.getuid?.() === 0;
  const probes = new Map<string, Promise<string | undefined>>();

  /** Runs `prefix true`; resolves with the failure text, or undefined when it worked. */
  const probe = (prefix: readonly string[]): Promise<string | undefined> => {
    const key = prefix.join('\0');
    let pending = probes.get(key);
    if (pending === undefined) {
      pending = new Promise((resolve) => {
        const [command, ...args] = [...prefix, findExecutable('true') ?? '/bin/true'];
        execFile(command!, args, { timeout: 10_000, env: {} }, (error, _stdout, stderr) => {
          if (error === null) resolve(undefined);
          else resolve(firstLine(stderr) || error.message);
        });
      });
      probes.set(key, pending);
    }
    return pending;
  };

  return {
    async plan(request) {
      const limits =
        prlimit !== undefined && request.dataLimitBytes !== undefined
          ? [prlimit, `--data=${Math.ceil(request.dataLimitBytes)}`, '--']
          : [];
      const deathSignal = setpriv === undefined ? [] : [setpriv, '--pdeathsig', 'KILL', '--'];
      const limitNote =
        limits.length > 0 ? `, data limit ${Math.round((request.dataLimitBytes ?? 0) / 2 ** 20)} MB` : '';
      if (process.platform !== 'linux' || unshare === undefined) {
        const missing =
          process.platform !== 'linux'
            ? `network namespaces need Linux, and this host runs ${process.platform}`
            : "the 'unshare' command (util-linux) was not found on PATH";
        if (request.isolateNetwork) return { ok: false, reason: missing };
        return {
          ok: true,
          prefix: [...deathSignal, ...limits],
          network: false,
          description: `no namespaces${limitNote}`,
        };
      }
      const userNamespace = root ? [] : ['--map-root-user'];
      const namespaces = [
        ...userNamespace,
        ...(request.isolateNetwork ? ['--net'] : []),
        '--pid',
        '--fork',
        '--kill-child',
      ];
      const wrapped = [...deathSignal, unshare, ...namespaces, '--'];
      const failure = await probe(wrapped);
      if (failure === undefined) {
        return {
          ok: true,
          prefix: [...wrapped, ...limits],
          network: request.isolateNetwork,
          description: `${request.isolateNetwork ? 'network and pid' : 'pid'} namespaces${root ? '' : ' in a user namespace'}${limitNote}`,
        };
      }
      if (request.isolateNetwork) return { ok: false, reason: failure };
      return {
        ok: true,
        prefix: [...deathSignal, ...limits],
        network: false,
        description: `no namespaces (${failure})${limitNote}`,
      };
    },
  };
}

/**
 * The message a pool refuses to start with when network isolation is unavailable: why, and the ways
 * to enable it.
 */
export function networkIsolationMessage(language: string, reason: string): string {
  return (
    `Refusing to start the ${language} sandbox: it needs a network namespace without interfaces and this host cannot create one (${reason}). ` +
    'Run toolshed as root (or with CAP_SYS_ADMIN), or enable unprivileged user namespaces ' +
    '(sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, allow the unshare system call), ' +
    'so that `unshare --net` works; or pass allowNetwork: true (--sandbox-allow-network of toolshed serve, mcp and call) to run sandboxed code with network access.'
  );
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
