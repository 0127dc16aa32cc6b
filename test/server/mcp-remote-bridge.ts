import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** mcp-remote, the stdio bridge Claude Desktop users put in front of a Streamable HTTP server. */
const MCP_REMOTE = fileURLToPath(new URL('../../node_modules/mcp-remote/dist/proxy.js', import.meta.url));

/**
 * Start mcp-remote for `url` with `args`, its state kept under `home` (never the user's), and
 * `env` added to its environment. Kill it with `child.kill()` when done.
 */
export function startMcpRemote(
  url: string,
  args: string[],
  home: string,
  env: Record<string, string> = {},
): { child: ChildProcessWithoutNullStreams; stderr: () => string } {
  const child = spawn(process.execPath, [MCP_REMOTE, url, '--transport', 'http-only', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, MCP_REMOTE_CONFIG_DIR: `${home}/.mcp-auth`, ...env },
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { child, stderr: () => stderr };
}

/**
 * Send JSON-RPC lines to mcp-remote and collect its answers until every request among them (and
 * `untilId`) is answered: answers to requests sent together may come in any order.
 */
export function exchange(
  child: ChildProcessWithoutNullStreams,
  lines: object[],
  untilId: number,
): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const answers: Array<Record<string, unknown>> = [];
    const unanswered = new Set<unknown>([untilId]);
    for (const line of lines) if ('id' in line) unanswered.add((line as { id: unknown }).id);
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`no answer ${untilId} from mcp-remote`)), 30_000);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        if (line === '') continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        answers.push(message);
        unanswered.delete(message.id);
        if (unanswered.size === 0) {
          clearTimeout(timer);
          child.stdout.off('data', onData);
          resolve(answers);
        }
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`mcp-remote exited before answering ${untilId}`));
    });
    for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  });
}

/** The `initialize` request a desktop client sends first. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desktop', version: '1' } },
};
