import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/cli/main.js';
import { memoryCliIo } from '../server/server-harness.js';
import { assertBuilt, lines, runCli } from './run-cli.js';

// Every TOOLSHED_* variable the CLI and the service read, set to an empty (or blank) value, means
// "not set": TOOLSHED_DATABASE_URL falls back to ./toolshed.db, TOOLSHED_DEBUG prints no stack, and
// TOOLSHED_SECRET_KEY (test/cli/secret.test.ts) falls back to the key file beside a SQLite database.

beforeAll(assertBuilt);

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-env-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('TOOLSHED_DATABASE_URL', () => {
  it.each(['', '   '])('set to %j, is unset: db migrate opens ./toolshed.db in the working folder', async (value) => {
    const cwd = mkdtempSync(join(scratch, 'migrate-'));
    const run = await runCli(['db', 'migrate'], { cwd, env: { TOOLSHED_DATABASE_URL: value } });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(lines(run.stdout)[0]).toMatch(/^database is up to date \(applied 0001_/);
    expect(existsSync(join(cwd, 'toolshed.db'))).toBe(true);
  });

  it('set to "", is unset: emails import writes into ./toolshed.db in the working folder', async () => {
    const cwd = mkdtempSync(join(scratch, 'emails-'));
    const generated = await runCli(['emails', 'generate', '--count', '5', '--inboxes', '2', '--out', 'mail.jsonl'], {
      cwd,
    });
    expect(generated.exitCode).toBe(0);
    const run = await runCli(['emails', 'import', 'mail.jsonl'], { cwd, env: { TOOLSHED_DATABASE_URL: '' } });
    expect(run.stdout).toBe('Imported 5 emails (0 already present, 0 skipped) from 5 messages.\n');
    expect(existsSync(join(cwd, 'toolshed.db'))).toBe(true);
  });
});

describe('TOOLSHED_DEBUG', () => {
  /** `toolshed call calculator --args -` over a stdin that breaks: an unexpected failure. */
  async function brokenStdin(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
    const stdin = (async function* () {
      yield* [];
      throw new Error('the pipe broke');
    })();
    const { io, stderr } = memoryCliIo(env, scratch, stdin);
    const code = await runInProcess(['call', 'calculator', '--args', '-'], io);
    return { code, stderr: stderr() };
  }

  it.each(['', '  '])('set to %j, is unset: an unexpected failure is one line, without the stack', async (value) => {
    const { code, stderr } = await brokenStdin({ TOOLSHED_DEBUG: value });
    expect(code).toBe(1);
    expect(lines(stderr).at(-1)).toBe(
      'error: unexpected failure: the pipe broke (set TOOLSHED_DEBUG=1 for the stack trace)',
    );
  });

  it('set to 1, prints the stack of an unexpected failure', async () => {
    const { code, stderr } = await brokenStdin({ TOOLSHED_DEBUG: '1' });
    expect(code).toBe(1);
    expect(stderr).toContain('Error: the pipe broke\n    at ');
  });
});
