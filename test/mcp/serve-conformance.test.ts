import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('../../scripts/conformance.mjs', import.meta.url));

interface ConformanceRun {
  passed: number;
  failed: number;
  endpoints: Array<{ name: string; url: string; passed: string[]; failed: string[] }>;
}

/** `npm run conformance -- --json`, bounded: `toolshed serve` and the whole suite on both endpoints. */
function runConformance(): Promise<{ code: number | null; run: ConformanceRun | undefined; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), 400_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').at(-1) ?? '';
      resolve({ code, run: line.startsWith('{') ? (JSON.parse(line) as ConformanceRun) : undefined, stderr });
    });
  });
}

describe('npm run conformance (toolshed serve, @modelcontextprotocol/conformance 0.1.16 --suite all)', () => {
  it('passes every active scenario on /mcp and on /mcp/agents/conformance', async () => {
    const { run, stderr } = await runConformance();
    if (run === undefined) console.error(stderr);
    expect(run).toBeDefined();
    const endpoints = (run as ConformanceRun).endpoints;
    expect(endpoints.map((endpoint) => endpoint.name)).toEqual(['/mcp', '/mcp/agents/conformance']);
    for (const endpoint of endpoints) {
      for (const scenario of [
        'server-initialize',
        'tools-list',
        'tools-call-simple-text',
        'completion-complete',
        'resources-list',
        'resources-read-text',
        'resources-read-binary',
        'resources-templates-read',
        'resources-subscribe',
        'resources-unsubscribe',
        'prompts-list',
        'prompts-get-simple',
        'prompts-get-with-args',
        'prompts-get-embedded-resource',
        'prompts-get-with-image',
        'dns-rebinding-protection',
        'server-sse-polling',
      ]) {
        expect({ endpoint: endpoint.name, scenario, passed: endpoint.passed.includes(scenario) }).toEqual({
          endpoint: endpoint.name,
          scenario,
          passed: true,
        });
      }
      expect(endpoint.failed).toEqual([]);
      expect(endpoint.passed).toHaveLength(32);
    }
    expect(run).toMatchObject({ passed: 64, failed: 0 });
  }, 420_000);
});
