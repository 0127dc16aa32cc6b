import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cliEnv, FIXTURES } from './run-cli.js';

beforeAll(assertBuilt);

/** The MCP Inspector's command line (`inspector --cli`), starting `toolshed mcp` as its stdio server. */
const INSPECTOR = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

const MCP_CONFIG = `${FIXTURES}/mcp-config`;
const home = mkdtempSync(join(tmpdir(), 'toolshed-inspector-stdio-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** `inspector --cli --format json <args> -- node bin/toolshed.js mcp --config toolshed.yaml`: its JSON answer. */
function inspector(args: string[]): Promise<{ code: number | null; output: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        '--format',
        'json',
        '--cwd',
        MCP_CONFIG,
        ...args,
        // After `--`, the server's own command line (its --config is not the Inspector's).
        '--',
        process.execPath,
        BIN,
        'mcp',
        '--config',
        'toolshed.yaml',
      ],
      { env: cliEnv({ HOME: home }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve({ code, output: JSON.parse(stdout.trim()) as Record<string, unknown> });
      } catch {
        reject(new Error(`inspector printed no JSON (exit ${String(code)}): ${stdout}${stderr}`));
      }
    });
  });
}

describe('MCP Inspector CLI against toolshed mcp (stdio)', () => {
  it('--protocol-era modern probes with server/discover and lists and calls the tools on 2026-07-28', async () => {
    const opened = await inspector(['--protocol-era', 'modern', '--method', 'initialize']);
    expect(opened.output.result).toMatchObject({ protocolVersion: '2026-07-28', serverInfo: { name: 'toolshed' } });
    const listed = await inspector(['--protocol-era', 'modern', '--method', 'tools/list']);
    expect(listed.code).toBe(0);
    expect((listed.output.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'always_fails',
      'dyn__add_tool',
      'progress_steps',
    ]);
    const called = await inspector([
      '--protocol-era',
      'modern',
      '--method',
      'tools/call',
      '--tool-name',
      'always_fails',
    ]);
    expect(called.output.result).toMatchObject({ isError: true });
  }, 120_000);

  it('--protocol-era auto picks 2026-07-28; legacy still gets 2025-11-25', async () => {
    const auto = await inspector(['--protocol-era', 'auto', '--method', 'initialize']);
    expect(auto.output.result).toMatchObject({ protocolVersion: '2026-07-28' });
    const legacy = await inspector(['--protocol-era', 'legacy', '--method', 'initialize']);
    expect(legacy.output.result).toMatchObject({ protocolVersion: '2025-11-25' });
  }, 120_000);
});
