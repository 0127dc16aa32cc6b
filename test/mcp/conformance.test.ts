import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from '../../src/mcp/index.js';
import { createConformanceCatalog, createConformanceRegistry } from './conformance-tools.js';
import { listen } from './listen.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const suite = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
const register = fileURLToPath(new URL('./conformance/register.mjs', import.meta.url));

interface SuiteRun {
  exitCode: number | null;
  output: string;
  scenarios: Map<string, { passed: number; failed: number }>;
  total: string | undefined;
}

/** Run the official MCP conformance suite (server mode) against `url` in a child process. */
function runSuite(url: string, extra: string[]): Promise<SuiteRun> {
  return new Promise((resolve, reject) => {
    // The suite is ESM that imports `globSync` from fs (Node ≥ 22); register.mjs supplies it on Node 20.
    const child = spawn(process.execPath, ['--import', register, suite, 'server', '--url', url, ...extra], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill(), 120_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes
      const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
      const scenarios = new Map<string, { passed: number; failed: number }>();
      for (const match of plain.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)) {
        scenarios.set(match[1] as string, { passed: Number(match[2]), failed: Number(match[3]) });
      }
      const total = /^Total: \d+ passed, \d+ failed.*$/m.exec(plain)?.[0];
      resolve({ exitCode, output: plain, scenarios, total });
    });
  });
}

describe('MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server mode)', () => {
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    server = await listen(createMcpHttpHandler(createConformanceRegistry(), { catalog: createConformanceCatalog() }));
  });

  afterAll(async () => {
    await server.close();
  });

  it('passes every scenario of the active suite: tools, prompts, resources and completion', async () => {
    const run = await runSuite(server.url, []);
    if (run.exitCode !== 0) console.error(run.output);
    expect(run.exitCode).toBe(0);
    expect(run.total).toBeDefined();
    for (const family of ['tools-call-', 'prompts-', 'resources-']) {
      expect([...run.scenarios.keys()].some((name) => name.startsWith(family))).toBe(true);
    }
    expect(run.scenarios.has('completion-complete')).toBe(true);
    const failing = [...run.scenarios].filter(([, counts]) => counts.failed > 0).map(([name]) => name);
    expect(failing).toEqual([]);
    console.log(run.total);
  });

  it('passes the pending JSON Schema 2020-12 scenario ($schema, $defs, additionalProperties kept)', async () => {
    const run = await runSuite(server.url, ['--scenario', 'json-schema-2020-12']);
    if (run.exitCode !== 0) console.error(run.output);
    expect(run.exitCode).toBe(0);
    expect(run.output).toMatch(/Passed: 4\/4, 0 failed, 0 warnings/);
  });

  it('passes the pending SSE polling scenario: priming event, retry field, the stream closed mid-call and resumed', async () => {
    const polling = await listen(
      createMcpHttpHandler(createConformanceRegistry(), { resumableStreams: { retryMs: 200, pollAfterMs: 300 } }),
    );
    try {
      const run = await runSuite(polling.url, ['--scenario', 'server-sse-polling', '--verbose']);
      if (run.exitCode !== 0) console.error(run.output);
      expect(run.exitCode).toBe(0);
      expect(run.output).toMatch(/Passed: 3\/3, 0 failed, 0 warnings/);
      // Resumed after the close, not answered on the first stream.
      expect(run.output).toContain('Successfully received tool response after reconnection');
    } finally {
      await polling.close();
    }
  });
});
