import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import type { CliIo } from '../../src/cli/output.js';

it('serves the REST API from the store and prints the default token once', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-serve-'));
  let stderr = '';
  const io = {
    stdout: { write: () => true },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    stdin: (async function* () {})(),
    env: { TOOLSHED_DATABASE_URL: join(folder, 'service.db') },
    cwd: folder,
  } as unknown as CliIo;
  try {
    const running = runServe({ host: '127.0.0.1', port: 0 } as never, { io, setExitCode: () => undefined });
    for (let attempt = 0; attempt < 100 && !stderr.includes('REST API at'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const token = /shown once\): (\S+)/.exec(stderr)?.[1];
    const base = /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(stderr)?.[1];
    expect(token).toBeDefined();
    const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' };
    const tools = await fetch(`${base}/api/tools`, { headers });
    expect(tools.status).toBe(200);
    expect(JSON.stringify(await tools.json())).toContain('read_file');
    expect((await fetch(`${base}/api/tools`)).status).toBe(401);
    expect((await fetch(`${base}/health`)).status).toBe(200);
    process.emit('SIGINT');
    expect(await running).toBe(0);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 30_000);
