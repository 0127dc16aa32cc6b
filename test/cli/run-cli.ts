import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The folder of the CLI fixtures: `tools/` (the default ./tools), `broken/`, `handlers/`, `mcp-config/`. */
export const FIXTURES = join(root, 'test', 'cli', 'fixtures');

/** The repository root. */
export const ROOT = root;

/** The example configuration `npm start` serves. */
export const EXAMPLES_CONFIG = join(root, 'examples', 'toolshed.yaml');

/** The warning every run over the example configuration prints (from the repository root) while SERPER_API_KEY is unset. */
export const SERPER_WARNING =
  "examples/toolshed.yaml:10:83: warning: tool 'serper_search' needs SERPER_API_KEY (API key for Serper, the Google Search API), which is not set; its calls will fail with MISSING_CREDENTIALS. Get one at https://serper.dev, then: export SERPER_API_KEY=...";

/** `bin/toolshed.js`, which runs the built CLI in `dist/cli-bundle`. */
export const BIN = join(root, 'bin', 'toolshed.js');

/** What a CLI run printed and how it ended. */
export interface CliRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunOptions {
  /** Working folder (default: the fixtures folder, whose `tools/` is then the default tool set). */
  cwd?: string;
  /** Written to stdin, which is then closed (stdin is always closed, so `--args -` never waits). */
  input?: string | Buffer;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Called with each stderr chunk and the child, to signal it mid-run. */
  onStderr?: (chunk: string, child: ReturnType<typeof spawn>) => void;
}

/**
 * Fail with a clear message when the CLI was not built, or was built from older sources: these tests
 * spawn `node bin/toolshed.js`, which runs `dist/cli-bundle/main.js`, bundled from every module of
 * `src/` the CLI imports.
 */
export function assertBuilt(): void {
  const main = join(root, 'dist', 'cli-bundle', 'main.js');
  if (!existsSync(main)) {
    throw new Error(
      `${relative(root, main)} is missing: run \`npm run build\` before the CLI tests (they spawn the built CLI).`,
    );
  }
  const built = statSync(main).mtimeMs;
  const sources = join(root, 'src');
  for (const entry of readdirSync(sources, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(ts|js|mjs)$/.test(entry) || /\.(test|cases)\.ts$/.test(entry)) continue;
    if (statSync(join(sources, entry)).mtimeMs > built) {
      throw new Error(
        `${relative(root, main)} is older than src/${entry}: run \`npm run build\` before the CLI tests.`,
      );
    }
  }
}

/** A folder of this test file's own, for databases and outputs (never the repository). */
export const SCRATCH = mkdtempSync(join(tmpdir(), 'toolshed-cli-'));

/** Credentials the fixtures and examples need; removed from a run's environment unless a test sets them. */
const CREDENTIALS = ['TOOLSHED_FIXTURE_API_KEY', 'SERPER_API_KEY'];

/**
 * The environment of a CLI run: the test's, minus the credentials the fixtures check for (unless
 * `extra` sets them), with `FORCE_COLOR=1` to prove the CLI never colours piped output anyway, and
 * `TOOLSHED_TEST_NODE` (this Node) for fixture configurations that start MCP servers.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    FORCE_COLOR: '1',
    TOOLSHED_TEST_NODE: process.execPath,
    // `serve` opens a database: keep it out of the working tree.
    TOOLSHED_DATABASE_URL: join(SCRATCH, 'toolshed.db'),
    ...extra,
  };
  for (const name of CREDENTIALS) if (extra[name] === undefined) delete env[name];
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * Run `node bin/toolshed.js ...args` and collect its output. The environment is {@link cliEnv}: the
 * test's minus the fixture credentials.
 */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const env = cliEnv(options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? FIXTURES, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(chunk, child);
    });
    child.on('error', reject);
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
    // A CLI that stops reading early (an oversized stdin) closes the pipe; that is not a test failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  });
}

/** The lines of some output, without the final empty one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => !(index === all.length - 1 && line === ''));
}

/** A CLI process left running (`serve`), with its output so far. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the first stderr match of `pattern` (waiting for it), or rejects when the process ends first. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves when the process has ended. */
  exited: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Start `node bin/toolshed.js ...args` and leave it running; end it with `child.kill(signal)` and
 * await `exited`.
 */
export function startCli(args: readonly string[], options: Omit<RunOptions, 'input' | 'onStderr'> = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? FIXTURES,
    env: cliEnv(options.env),
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (exitCode, signal) => {
      resolve({ exitCode, signal });
      for (const waiter of waiters) waiter();
    });
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForStderr(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (match !== null) {
            waiters.delete(check);
            resolve(match);
          } else if (ended || child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`the CLI ended before printing ${pattern}; stderr:\n${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Start `toolshed mcp ...args` over stdio and connect `client` (default: a plain SDK client) to it;
 * answers the client and what the process has printed on stderr so far. The environment is
 * {@link cliEnv}'s unless `env` is given whole.
 */
export async function connectStdioMcp(
  args: readonly string[],
  {
    cwd,
    env = cliEnv(),
    client = new Client({ name: 'toolshed-test', version: '1.0.0' }),
  }: {
    cwd: string;
    env?: Record<string, string>;
    client?: Client;
  },
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
