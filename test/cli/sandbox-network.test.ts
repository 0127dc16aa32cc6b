import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cliEnv, runCli } from './run-cli.js';

// `toolshed call` and `toolshed mcp` on a host that cannot create network namespaces (a container whose
// seccomp profile blocks unshare), played by an `unshare` first on PATH that fails as the real one
// does there. The code tools a configuration names refuse to run, saying why and what to pass;
// --sandbox-allow-network runs them without a network namespace, and says so.

beforeAll(assertBuilt);

const REFUSAL =
  'Error [EXECUTION_FAILED]: Refusing to start the Python sandbox: it needs a network namespace without interfaces and this host cannot create one (unshare: unshare failed: Operation not permitted). Run toolshed as root (or with CAP_SYS_ADMIN), or enable unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, allow the unshare system call), so that `unshare --net` works; or pass allowNetwork: true (--sandbox-allow-network of toolshed serve, mcp and call) to run sandboxed code with network access.\nHint: Python code cannot run on this host until the sandbox can start; tell the user.\n';

const warning = (verb: string) =>
  `toolshed ${verb}: warning: --sandbox-allow-network: sandboxed code runs without a network namespace and can reach the network, this host's loopback and database included\n`;

const NOTE = (cwd: string) =>
  `note: no configuration or --tools: using the built-in tools; the file tools work in ${cwd}.\n`;

let folder: string;
let env: Record<string, string>;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-sandbox-network-'));
  const bin = join(folder, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'unshare'),
    '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n',
  );
  chmodSync(join(bin, 'unshare'), 0o755);
  writeFileSync(join(folder, 'toolshed.yaml'), 'builtins: [execute_python, execute_javascript]\n');
  env = { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, TOOLSHED_DATABASE_URL: join(folder, 'toolshed.db') };
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SIX_TIMES_SEVEN = '{"code": "6 * 7"}';

describe('toolshed call on a host without network namespaces', () => {
  it('refuses to run the code tools, naming the flag (exit 1)', async () => {
    const run = await runCli(['call', 'execute_python', '--args', SIX_TIMES_SEVEN], { cwd: folder, env });
    expect(run).toMatchObject({ exitCode: 1, stdout: '', stderr: REFUSAL });
  });

  it('runs them with --sandbox-allow-network, warning first', async () => {
    for (const tool of ['execute_python', 'execute_javascript']) {
      const run = await runCli(['call', tool, '--sandbox-allow-network', '--args', SIX_TIMES_SEVEN], {
        cwd: folder,
        env,
      });
      expect(run, tool).toMatchObject({
        exitCode: 0,
        stdout: '{"stdout":"","stderr":"","result":42}\n',
        stderr: warning('call'),
      });
    }
  });

  it('does the same with no configuration, whose built-ins include the code tools', async () => {
    const bare = join(folder, 'no-config');
    mkdirSync(bare);
    const refused = await runCli(['call', 'execute_python', '--args', SIX_TIMES_SEVEN], { cwd: bare, env });
    expect(refused).toMatchObject({ exitCode: 1, stdout: '', stderr: `${NOTE(bare)}${REFUSAL}` });
    const run = await runCli(['call', 'execute_javascript', '--sandbox-allow-network', '--args', SIX_TIMES_SEVEN], {
      cwd: bare,
      env,
    });
    expect(run).toMatchObject({
      exitCode: 0,
      stdout: '{"stdout":"","stderr":"","result":42}\n',
      stderr: `${warning('call')}${NOTE(bare)}`,
    });
  });

  it('takes the flag without a value: one given is a usage error (exit 2)', async () => {
    const run = await runCli(['call', 'execute_python', '--sandbox-allow-network=yes'], { cwd: folder, env });
    expect(run).toMatchObject({
      exitCode: 2,
      stdout: '',
      stderr:
        "error: option '--sandbox-allow-network' takes no value: give '--sandbox-allow-network' alone, without '=yes'.\nRun 'toolshed call --help' for usage.\n",
    });
  });
});

describe('toolshed mcp on a host without network namespaces', () => {
  async function callOverMcp(flags: string[]): Promise<{ texts: string[]; errors: boolean[]; stderr: string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...flags],
      cwd: folder,
      env: cliEnv(env),
      stderr: 'pipe',
    });
    let stderr = '';
    (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'toolshed-sandbox-network-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const texts: string[] = [];
      const errors: boolean[] = [];
      for (const name of ['execute_python', 'execute_javascript']) {
        const result = await client.callTool({ name, arguments: { code: '6 * 7' } });
        const [first] = result.content as Array<{ type: string; text: string }>;
        texts.push(first?.text ?? '');
        errors.push(result.isError === true);
      }
      return { texts, errors, stderr };
    } finally {
      await client.close();
    }
  }

  it('answers the code tools with the refusal, as error results', async () => {
    const { texts, errors, stderr } = await callOverMcp([]);
    expect(errors).toEqual([true, true]);
    expect(`${texts[0]}\n`).toBe(REFUSAL);
    expect(texts[1]).toContain('Refusing to start the JavaScript sandbox');
    expect(stderr).toBe('');
  });

  it('runs them with --sandbox-allow-network, warning on stderr at start', async () => {
    const { texts, errors, stderr } = await callOverMcp(['--sandbox-allow-network']);
    expect(errors).toEqual([false, false]);
    expect(texts.map((text) => JSON.parse(text))).toEqual([
      { stdout: '', stderr: '', result: 42 },
      { stdout: '', stderr: '', result: 42 },
    ]);
    expect(stderr).toBe(warning('mcp'));
  });
});
