import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The folder of the CLI fixtures: `tools/` (the default ./tools), `broken/`, `handlers/`. */
export const FIXTURES = join(root, 'test', 'cli', 'fixtures');

/** `bin/toolshed.js`, which runs the built CLI in `dist/cli`. */
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
 * spawn `node bin/toolshed.js`, which runs `dist/cli/main.js`.
 */
export function assertBuilt(): void {
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) {
    throw new Error(
      `${relative(root, main)} is missing: run \`npm run build\` before the CLI tests (they spawn the built CLI).`,
    );
  }
  const sources = join(root, 'src', 'cli');
  for (const entry of readdirSync(sources, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    const built = join(root, 'dist', 'cli', entry.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(sources, entry)).mtimeMs) {
      throw new Error(
        `${relative(root, built)} is missing or older than src/cli/${entry}: run \`npm run build\` before the CLI tests.`,
      );
    }
  }
}

/**
 * Run `node bin/toolshed.js ...args` and collect its output. The environment is the test's minus the
 * fixture credential, with `FORCE_COLOR=1` to prove the CLI never colours piped output anyway.
 */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '1', ...options.env };
  if (options.env?.TOOLSHED_FIXTURE_API_KEY === undefined) delete env.TOOLSHED_FIXTURE_API_KEY;
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
