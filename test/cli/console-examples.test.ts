import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleCommand, type ConsoleExample, consoleExamplesOf } from '../support/console-examples.js';
import { DOCUMENTS } from '../support/doc-examples.js';
import { freePort } from '../support/free-port.js';
import { assertBuilt, BIN, cliEnv, ROOT } from './run-cli.js';

// The ```console examples of the documentation, run as a reader would run them (see CONTRIBUTING.md):
// each block in a fresh temporary folder, each command in a shell of its own with `toolshed` on the
// PATH, stdout and stderr in one stream as a terminal shows them, compared line by line.

const found = DOCUMENTS.map(consoleExamplesOf);
const examples = found.flatMap((document) => document.examples);
const strays = found.flatMap((document) => document.strays);

/** What a block run from the repository root may use of it: the example project and the configuration corpus. */
const ROOT_FOLDERS = ['examples', 'src/config/__fixtures__'];

/** The port the documents show; a block's commands run with a free port in its place. */
const DOCUMENTED_PORT = '4319';

/** How long a `toolshed serve` may take to print its banner, and any other command to end. */
const COMMAND_TIMEOUT_MS = 20_000;

const WORK = mkdtempSync(join(tmpdir(), 'toolshed-console-examples-'));
const BIN_FOLDER = join(WORK, 'bin');

beforeAll(() => {
  assertBuilt();
  mkdirSync(BIN_FOLDER);
  const shim = join(BIN_FOLDER, 'toolshed');
  writeFileSync(shim, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
});
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The folder a block runs in: a copy of the repository folder it names, or of {@link ROOT_FOLDERS}. */
function workingFolder(example: ConsoleExample, name: string): string {
  const folder = mkdtempSync(join(WORK, `${name.replace(/[^a-z0-9]+/gi, '-')}-`));
  const copied = example.cwd === '.' ? ROOT_FOLDERS : [example.cwd];
  for (const path of copied) {
    cpSync(join(ROOT, path), example.cwd === '.' ? join(folder, path) : folder, { recursive: true });
  }
  return folder;
}

/**
 * What may differ between runs, the same on both sides: the time of a record, how long a call took,
 * an API token (random), the free port in place of the documented one and the temporary folder.
 */
function normalise(text: string, port: string, folder: string): string {
  return text
    .replaceAll(folder, '/home/me/project')
    .replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${DOCUMENTED_PORT}`)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<timestamp>')
    .replace(/"durationMs": [0-9.e-]+/g, '"durationMs": <duration>')
    .replace(/tsk_\S+/g, 'tsk_...');
}

/** Whether `actual` is what `expected` shows, a `...` line standing for any number of lines. */
function matches(expected: string[], actual: string[]): boolean {
  const [first, ...rest] = expected;
  if (first === undefined) return actual.length === 0;
  if (first === '...') return actual.some((_, skip) => matches(rest, actual.slice(skip))) || matches(rest, []);
  return actual[0] === first && matches(rest, actual.slice(1));
}

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<'exited'>;
}

/**
 * The exit code a document gives a command: a `# exit N` comment at the end of its line (the shell
 * ignores it), else 0.
 */
function documentedExitCode(command: string): number {
  const comment = /\s#\s*exit (\d+)\s*$/.exec(command);
  return comment === null ? 0 : Number(comment[1]);
}

function start(command: string, folder: string, env: Record<string, string>): Running {
  // Its own process group, so the shell and the toolshed it started stop together.
  const child = spawn('/bin/sh', ['-c', `exec 2>&1\n${command}`], {
    cwd: folder,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise<'exited'>((resolve) => child.on('close', () => resolve('exited')));
  return { child, output: () => output, exited };
}

function stop(running: Running): Promise<'exited'> {
  if (running.child.exitCode === null && running.child.signalCode === null && running.child.pid !== undefined) {
    process.kill(-running.child.pid, 'SIGTERM');
  }
  return running.exited;
}

/** Lines of output, without the final empty one. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

interface BlockRun {
  folder: string;
  port: string;
  env: Record<string, string>;
  /** The servers the block started, stopped at its end. */
  servers: Running[];
}

/** Run one command of a block; what it printed and what the document shows, both normalised. */
async function runCommand(
  step: ConsoleCommand,
  context: BlockRun,
): Promise<{ printed: string[]; expected: string[]; exitCode: number | null | undefined }> {
  if (/^toolshed serve\b/.test(step.command) && !step.command.includes(`--port ${DOCUMENTED_PORT}`)) {
    throw new Error(`'${step.command}' must name --port ${DOCUMENTED_PORT}, which the test runs on a free port`);
  }
  const command = step.command.replaceAll(DOCUMENTED_PORT, context.port);
  const running = start(command, context.folder, context.env);
  const printed = () => linesOf(normalise(running.output(), context.port, context.folder));
  const expected = step.output.map((line) => normalise(line, context.port, context.folder));
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), COMMAND_TIMEOUT_MS).unref());
  if (/^toolshed serve\b/.test(step.command)) {
    // A server that starts keeps running for the block's next commands once it has printed what the
    // document shows; one that cannot start ends, and its output is compared like any other.
    const banner = new Promise<'banner'>((resolve) => {
      const check = () => {
        if (matches(expected, printed())) resolve('banner');
      };
      running.child.stdout?.on('data', check);
    });
    if ((await Promise.race([banner, running.exited, timeout])) !== 'exited') {
      // Stopped at the end of the block, also when the banner never came.
      context.servers.push(running);
      const token = /its API token \(shown once\): (tsk_\S+)/.exec(running.output());
      if (token?.[1] !== undefined) context.env.TOKEN = token[1];
    }
    // A server left running has no exit code to compare.
    return { printed: printed(), expected, exitCode: running.child.exitCode ?? undefined };
  }
  if ((await Promise.race([running.exited, timeout])) === 'timeout') {
    await stop(running);
    throw new Error(`'${step.command}' did not end within ${COMMAND_TIMEOUT_MS} ms; it printed:\n${running.output()}`);
  }
  return { printed: printed(), expected, exitCode: running.child.exitCode };
}

// Blocks run side by side: most of their time is spent waiting on the processes they start.
describe.concurrent('console examples in the documentation', () => {
  it('finds console examples to run', () => {
    expect(examples.filter((example) => example.notRun === undefined).length).toBeGreaterThan(0);
  });

  it('shows commands only in console blocks, so each one is run or says why not', () => {
    expect(strays.map((stray) => `${relative(ROOT, stray.file)}:${stray.line} (\`\`\`${stray.language})`)).toEqual([]);
  });

  it('leaves out only the blocks that say why, each run by a test of its own', () => {
    // A new exemption is a choice made here, in review, never by a comment alone.
    const exempt = examples
      .filter((example) => example.notRun !== undefined)
      .map((example) => `${relative(ROOT, example.file)}: ${example.notRun?.split(';')[1]?.trim()}`)
      .sort();
    expect(exempt).toEqual([
      'docs/cli.md: test/cli/upstream-pins-cli.test.ts runs these verbs against a fixture server',
      'docs/extract.md: test/cli/extract.test.ts checks the report on drift',
      'docs/mcp.md: test/cli/upstream-pins-cli.test.ts runs these verbs against a fixture server',
    ]);
  });

  for (const example of examples) {
    const name = `${relative(ROOT, example.file)}:${example.line}`;
    const title = `${name} prints what the document shows (${example.commands.map((step) => step.command.split(/\s+/).slice(0, 2).join(' ')).join(', ')})`;
    if (example.notRun !== undefined) continue;
    it(title, { timeout: 60_000 }, async ({ expect }) => {
      const folder = workingFolder(example, name);
      const env = cliEnv({ ...example.env, PATH: `${BIN_FOLDER}:${process.env.PATH ?? ''}` });
      for (const variable of Object.keys(env)) {
        if (/^(TOOLSHED_|OTEL_)/.test(variable) && example.env[variable] === undefined) delete env[variable];
      }
      const context: BlockRun = { folder, port: String(await freePort()), env, servers: [] };
      try {
        for (const step of example.commands) {
          const { printed, expected, exitCode } = await runCommand(step, context);
          const where = `$ ${step.command} (${relative(ROOT, example.file)}:${step.line})`;
          if (!matches(expected, printed)) expect(printed.join('\n'), where).toBe(expected.join('\n'));
          // A server still running when the block goes on has none yet.
          if (exitCode !== undefined)
            expect(`exit ${exitCode}`, where).toBe(`exit ${documentedExitCode(step.command)}`);
        }
      } finally {
        await Promise.all(context.servers.map(stop));
      }
    });
  }
});
