import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { runServe, SANDBOX_NETWORK_WARNING } from '../../src/cli/commands/serve.js';
import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import { CLIENTS, startAuthorizationServer } from './fake-authorization-server.js';
import { memoryCliIo } from './server-harness.js';

/** `body` run with a fresh temporary folder, which is removed afterwards. */
async function inFolder<T>(body: (folder: string) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-serve-'));
  try {
    return await body(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** An in-process CLI io on the service database in `folder`, collecting what it prints. */
function memoryIo(folder: string): { io: CliIo; stderr: () => string } {
  return memoryCliIo({ TOOLSHED_DATABASE_URL: join(folder, 'service.db') }, folder);
}

/** Once a starting `toolshed serve` says where its REST API is: the token it printed ('' for none) and its address. */
async function listening(stderr: () => string): Promise<{ token: string; base: string }> {
  for (let attempt = 0; attempt < 100 && !stderr().includes('REST API at'); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const token = /shown once\): (\S+)/.exec(stderr())?.[1] ?? '';
  const base = /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(stderr())?.[1] ?? '';
  return { token, base };
}

/** A listening `toolshed serve`: its io, what it wrote to stderr, the token it printed ('' for none) and its address. */
interface Serving {
  io: CliIo;
  stderr: () => string;
  token: string;
  base: string;
}

/**
 * `toolshed serve --port 0 ...args` run in-process on `folder` (its working folder and the folder of
 * its database): `use` gets it once it listens, then it is stopped with SIGINT and must exit 0.
 */
async function whileServing(folder: string, args: string[], use: (serving: Serving) => Promise<void>): Promise<void> {
  const { io, stderr } = memoryIo(folder);
  const running = runCli(['serve', '--port', '0', ...args], io);
  let exitCode: number | undefined;
  try {
    await use({ io, stderr, ...(await listening(stderr)) });
  } finally {
    process.emit('SIGINT');
    exitCode = await running;
  }
  expect(exitCode).toBe(0);
}

/**
 * `toolshed serve --port 0 ...args` run in-process in a fresh folder, which is removed afterwards: how
 * it exited, what it wrote to stderr, and whether it made the database.
 */
function serveToExit(args: string[]): Promise<{ exitCode: number; stderr: string; madeDatabase: boolean }> {
  return inFolder(async (folder) => {
    const { io, stderr } = memoryIo(folder);
    const exitCode = await runCli(['serve', '--port', '0', ...args], io);
    return { exitCode, stderr: stderr(), madeDatabase: existsSync(join(folder, 'service.db')) };
  });
}

/** What `POST /api/tools/:id/call` answers. */
interface CallAnswer {
  status: string;
  data?: { result?: unknown; content?: string };
  error?: { code: string; message: string };
}

/** `POST /api/tools/:tool/call` with `args`, in workspace default with the token `serving` printed. */
async function callTool(serving: Serving, tool: string, args: object): Promise<CallAnswer> {
  const response = await fetch(`${serving.base}/api/tools/${tool}/call`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${serving.token}`,
      'x-workspace-id': 'default',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ arguments: args }),
  });
  return (await response.json()) as CallAnswer;
}

it(
  'serves the REST API from the store and prints the default token once',
  () =>
    inFolder(async (folder) => {
      const { io, stderr } = memoryIo(folder);
      const running = runServe({ host: '127.0.0.1', port: 0 } as never, { io, setExitCode: () => undefined });
      const { token, base } = await listening(stderr);
      expect(token).not.toBe('');
      const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' };
      const tools = await fetch(`${base}/api/tools`, { headers });
      expect(tools.status).toBe(200);
      expect(JSON.stringify(await tools.json())).toContain('read_file');
      expect((await fetch(`${base}/api/tools`)).status).toBe(401);
      expect((await fetch(`${base}/health`)).status).toBe(200);
      process.emit('SIGINT');
      expect(await running).toBe(0);
    }),
  30_000,
);

describe('toolshed serve: sandbox processes', () => {
  it.each(['0', '-1', 'many', '2.5'])(
    'refuses --sandbox-runs-per-process %j as a usage error (exit 2)',
    async (value) => {
      const refused = await serveToExit(['--sandbox-runs-per-process', value]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toBe(
        `error: option '--sandbox-runs-per-process <n>' argument '${value}' is invalid. Use a whole number of at least 1.\nRun 'toolshed serve --help' for usage.\n`,
      );
    },
  );

  it.each([
    [[], [null, null]],
    [
      ['--sandbox-runs-per-process', '5'],
      [null, 'left by the first call'],
    ],
  ])(
    'with %j, a Python call sees what an earlier call of its workspace left: %j',
    (flags, expected) =>
      inFolder((folder) =>
        whileServing(folder, ['--tools', folder, ...flags], async (serving) => {
          const code =
            "imp = __import__('json').dumps.__globals__['__builtins__']['__import__']\nj = imp('sys')\nseen = getattr(j, 'left', None)\nj.left = 'left by the first call'\nseen";
          const seen: unknown[] = [];
          for (let call = 0; call < 2; call += 1) {
            const body = await callTool(serving, 'execute_python', { code });
            expect(body.status, JSON.stringify(body)).toBe('success');
            seen.push(body.data?.result ?? null);
          }
          expect(seen).toEqual(expected);
        }),
      ),
    60_000,
  );
});

/** The network namespaces of this process's descendants (the sandbox processes among them), as `/proc` links. */
function descendantNetworkNamespaces(): Set<string> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name, which may hold spaces: state, then the parent's pid.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // A process that ended meanwhile.
    }
  }
  const found = new Set<string>();
  const pending = [...(children.get(process.pid) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    try {
      found.add(readlinkSync(`/proc/${pid}/ns/net`));
    } catch {
      // Ended meanwhile.
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

describe('toolshed serve: the sandboxes and the network', () => {
  it('takes --sandbox-allow-network without a value: one given is a usage error (exit 2) before the database is made', async () => {
    const refused = await serveToExit(['--sandbox-allow-network', 'yes']);
    expect(refused).toEqual({
      exitCode: 2,
      stderr:
        "error: too many arguments for 'serve'. Expected 0 arguments but got 1.\nRun 'toolshed serve --help' for usage.\n",
      madeDatabase: false,
    });
  });

  it.each([
    [[], false],
    [['--sandbox-allow-network'], true],
  ])(
    'with %j, the sandbox processes share the network of the host: %j, and the warning says so',
    (flags, shared) =>
      inFolder((folder) =>
        whileServing(folder, ['--tools', folder, '--sandbox-runs-per-process', '5', ...flags], async (serving) => {
          const body = await callTool(serving, 'execute_python', { code: '6 * 7' });
          expect(body.status, JSON.stringify(body)).toBe('success');
          const own = readlinkSync('/proc/self/ns/net');
          const namespaces = descendantNetworkNamespaces();
          // The pool keeps its processes (5 runs each): they are there to look at.
          expect(namespaces.size).toBeGreaterThan(0);
          expect([...namespaces].every((namespace) => namespace === own)).toBe(shared);
          expect(serving.stderr().includes(`${SANDBOX_NETWORK_WARNING}\n`)).toBe(shared);
        }),
      ),
    60_000,
  );
});

describe('toolshed serve: concurrent-call limits', () => {
  it.each([
    ['--max-concurrent-calls-per-token', '0'],
    ['--max-concurrent-calls-per-workspace', 'some'],
  ])('refuses %s %j as a usage error (exit 2)', async (flag, value) => {
    const refused = await serveToExit([flag, value]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: option '${flag} <n>' argument '${value}' is invalid. Use a whole number of at least 1.\nRun 'toolshed serve --help' for usage.\n`,
    );
    expect(refused.madeDatabase).toBe(false);
  });

  it(
    'hands --max-concurrent-calls-per-token to the calls: a second call while one runs is RATE_LIMITED',
    () =>
      inFolder((folder) =>
        whileServing(folder, ['--tools', folder, '--max-concurrent-calls-per-token', '1'], async (serving) => {
          const call = (code: string) => callTool(serving, 'execute_python', { code });
          // Busy for two seconds after its interpreter is up: the second call arrives while it runs.
          const slow = call(
            'from datetime import datetime\nstart = datetime.now()\nwhile (datetime.now() - start).total_seconds() < 2: pass\n1',
          );
          await new Promise((resolve) => setTimeout(resolve, 200));
          const refused = await call('2');
          expect(refused.error).toEqual(
            expect.objectContaining({
              code: 'RATE_LIMITED',
              message:
                "Too many tool calls running at once for this API token (limit 1); 'execute_python' was not run.",
            }),
          );
          const slowResult = await slow;
          expect(slowResult.status, JSON.stringify(slowResult)).toBe('success');
          expect((await call('3')).status).toBe('success');
        }),
      ),
    60_000,
  );
});

describe('toolshed serve: call limits and the call log retention', () => {
  it.each(['0d', 'forever', '30', '-1h', '1.5d', '9999999999d'])(
    'refuses --call-log-retention %j as a usage error (exit 2)',
    async (value) => {
      const refused = await serveToExit(['--call-log-retention', value]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toBe(
        `error: option '--call-log-retention <duration>' argument '${value}' is invalid. Use a whole number and a unit: ms, s, m, h or d (such as 30d).\nRun 'toolshed serve --help' for usage.\n`,
      );
      expect(refused.madeDatabase).toBe(false);
    },
  );

  it(
    "serves the configuration's server.limits and prunes the call log by its server.call_log.retention",
    () =>
      inFolder(async (folder) => {
        writeFileSync(
          join(folder, 'toolshed.yaml'),
          [
            'builtins: [calculator]',
            'server:',
            '  call_log:',
            '    retention: 1d',
            '  limits:',
            '    - scope: tool',
            '      target: calculator',
            '      calls_per_minute: 60',
            '      burst: 2',
            '',
          ].join('\n'),
        );
        const { createStore } = await import('../../src/store/index.js');
        const before = await createStore(join(folder, 'service.db'));
        await before.migrate();
        await before.workspaces.create({ id: 'default', name: 'Default' });
        const { token } = await before.tokens.create('default', { name: 'test' });
        const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
        await before.toolCalls.record('default', {
          toolId: 'ancient',
          status: 'success',
          durationMs: 1,
          createdAt: old,
        });
        await before.close();
        await whileServing(folder, ['--config', join(folder, 'toolshed.yaml')], async ({ base }) => {
          const headers = {
            authorization: `Bearer ${token}`,
            'x-workspace-id': 'default',
            'content-type': 'application/json',
          };
          const call = () =>
            fetch(`${base}/api/tools/calculator/call`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ arguments: { expression: '2 + 3' } }),
            });
          const statuses = [];
          for (let index = 0; index < 3; index += 1) statuses.push((await call()).status);
          expect(statuses).toEqual([200, 200, 429]);
          const limits = await (await fetch(`${base}/api/limits`, { headers })).json();
          expect(limits).toEqual({
            limits: [
              {
                scope: 'tool',
                target: 'calculator',
                calls_per_minute: 60,
                burst: 2,
                max_concurrent: null,
                source: 'config',
              },
            ],
          });
          const calls = (await (await fetch(`${base}/api/calls`, { headers })).json()) as {
            calls: Array<{ tool_id: string; error_code: string | null }>;
          };
          // The refused call is logged too, newest first.
          expect(calls.calls.map((logged) => [logged.tool_id, logged.error_code])).toEqual([
            ['calculator', 'RATE_LIMITED'],
            ['calculator', null],
            ['calculator', null],
          ]);
        });
      }),
    60_000,
  );
});

describe('toolshed serve: OAuth access tokens of server.oauth', () => {
  it('names the issuer in the metadata and serves the workspace a token maps to over /mcp', async () => {
    const auth = await startAuthorizationServer();
    try {
      await inFolder(async (folder) => {
        writeFileSync(
          join(folder, 'toolshed.yaml'),
          [
            'builtins: [calculator]',
            'server:',
            '  oauth:',
            `    issuer: ${auth.issuer}`,
            '    workspace_claim: org',
            '    workspaces:',
            '      org-acme: default',
            '',
          ].join('\n'),
        );
        await whileServing(folder, ['--config', join(folder, 'toolshed.yaml')], async ({ base }) => {
          const metadata = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as {
            authorization_servers: string[];
          };
          expect(metadata.authorization_servers).toEqual([auth.issuer]);
          const client = new Client({ name: 'oauth', version: '1.0.0' });
          const authProvider = new ClientCredentialsProvider({
            clientId: 'acme-bot',
            clientSecret: CLIENTS['acme-bot']?.secret ?? '',
            expectedIssuer: auth.issuer,
          });
          await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider }));
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('calculator');
          const result = await client.callTool({ name: 'calculator', arguments: { expression: '6 * 7' } });
          expect(JSON.stringify(result.content)).toContain('42');
          await client.close();
        });
      });
    } finally {
      await auth.close();
    }
  }, 60_000);
});

describe('toolshed serve: MCP session limits', () => {
  it.each([
    ['--mcp-max-sessions-per-token', '0'],
    ['--mcp-max-sessions-per-workspace', '-3'],
    ['--mcp-max-sessions', 'lots'],
    ['--mcp-max-sessions-per-token', '1.5'],
  ])('refuses %s %j as a usage error (exit 2)', async (flag, value) => {
    const refused = await serveToExit([flag, value]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: option '${flag} <n>' argument '${value}' is invalid. Use a whole number of at least 1.\nRun 'toolshed serve --help' for usage.\n`,
    );
  });

  it.each([['soon'], ['0s'], ['-5ms'], ['1.5s']])(
    'refuses --mcp-poll-after %j as a usage error (exit 2)',
    async (value) => {
      const refused = await serveToExit(['--mcp-poll-after', value]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toBe(
        `error: option '--mcp-poll-after <duration>' argument '${value}' is invalid. Use a whole number and a unit: ms, s, m, h or d (such as 30s).\nRun 'toolshed serve --help' for usage.\n`,
      );
    },
  );

  it('refuses a workspace limit above the total before opening the database (exit 2)', async () => {
    const refused = await serveToExit(['--mcp-max-sessions', '50', '--mcp-max-sessions-per-workspace', '80']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      'error: --mcp-max-sessions-per-workspace (80) is above --mcp-max-sessions (50); lower it or raise --mcp-max-sessions.\n',
    );
    expect(refused.madeDatabase).toBe(false);
  });

  it(
    'hands --mcp-max-sessions-per-token to the MCP endpoint: a second session closes the idle first',
    () =>
      inFolder((folder) =>
        whileServing(folder, ['--tools', folder, '--mcp-max-sessions-per-token', '1'], async ({ token, base }) => {
          const headers = {
            authorization: `Bearer ${token}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
          };
          const initialize = JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          });
          const open = async () => {
            const response = await fetch(`${base}/mcp`, { method: 'POST', headers, body: initialize });
            expect(response.status).toBe(200);
            await response.text();
            return response.headers.get('mcp-session-id') ?? '';
          };
          const first = await open();
          await open();
          const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
          const evicted = await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { ...headers, 'mcp-session-id': first },
            body: list,
          });
          expect(evicted.status).toBe(404);
        }),
      ),
    30_000,
  );
});

describe('toolshed serve: --mcp-allowed-host', () => {
  it.each(['https://tools.example.com', 'tools.example.com/mcp', 'tools example.com', '', 'user@tools.example.com'])(
    'refuses --mcp-allowed-host %j as a usage error (exit 2)',
    async (value) => {
      const refused = await serveToExit(['--mcp-allowed-host', value]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toBe(
        `error: option '--mcp-allowed-host <host>' argument '${value}' is invalid. Use a host as a Host header names it, such as tools.example.com or tools.example.com:8443 (no scheme or path), or '*'.\nRun 'toolshed serve --help' for usage.\n`,
      );
      expect(refused.madeDatabase).toBe(false);
    },
  );

  it(
    'answers MCP requests naming an allowed host, and still refuses other hosts with 403',
    () =>
      inFolder((folder) =>
        whileServing(
          folder,
          [
            '--tools',
            folder,
            '--mcp-allowed-host',
            'tools.example.com',
            '--mcp-allowed-host',
            'Other.Example.com:8443',
          ],
          async ({ token, base }) => {
            const port = Number(new URL(base).port);
            const initialize = (host: string) =>
              rawPost(port, host, token, {
                jsonrpc: '2.0',
                id: 1,
                method: 'initialize',
                params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
              });
            expect((await initialize('tools.example.com')).status).toBe(200);
            expect((await initialize('tools.example.com:443')).status).toBe(200);
            expect((await initialize('other.example.com:8443')).status).toBe(200);
            const other = await initialize('other.example.com:9000');
            expect(other.status).toBe(403);
            expect(other.body).toContain("Host 'other.example.com:9000' is not allowed");
            const stranger = await initialize('evil.example.com');
            expect(stranger.status).toBe(403);
          },
        ),
      ),
    30_000,
  );
});

/** A POST to /mcp through node:http, which (unlike fetch) may set any Host header. */
function rawPost(port: number, host: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('toolshed serve: the files beside the database', () => {
  const repository = join(import.meta.dirname, '..', '..');
  const cloned = existsSync(join(repository, '.git'));

  it.skipIf(!cloned)(
    'writes only files that .gitignore keeps out of a commit (checked in a git clone)',
    () =>
      inFolder(async (folder) => {
        await whileServing(folder, ['--tools', folder], async ({ token, base }) => {
          const headers = {
            authorization: `Bearer ${token}`,
            'x-workspace-id': 'default',
            'content-type': 'application/json',
          };
          // A call (the call log and its lock), a secret (the key file) and a search (the search index).
          const called = await fetch(`${base}/api/tools/calculator/call`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ arguments: { expression: '1 + 1' } }),
          });
          expect(called.status).toBe(200);
          const secret = await fetch(`${base}/api/secrets/CRM_TOKEN`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ value: 'hunter2' }),
          });
          expect(secret.status).toBe(201);
          expect((await fetch(`${base}/api/tools?q=calculate`, { headers })).status).toBe(200);
        });

        const written = readdirSync(folder);
        expect(written).toContain('service.db');
        expect(written).toContain('service.db-secret.key');
        const { execFileSync } = await import('node:child_process');
        const kept = written.filter((name) => {
          try {
            execFileSync('git', ['check-ignore', '--quiet', '--no-index', name], { cwd: repository });
            return false;
          } catch {
            return true;
          }
        });
        expect(kept).toEqual([]);
      }),
    60_000,
  );
});

describe('toolshed serve: built-ins', () => {
  it(
    "serves the store's built-ins, not the CLI's: write_file writes to the database, never the working folder",
    () =>
      inFolder(async (folder) => {
        await whileServing(folder, [], async (serving) => {
          const written = await callTool(serving, 'write_file', {
            path: '/notes.txt',
            content: 'kept in the database\n',
          });
          expect(written.status).toBe('success');
          expect((await callTool(serving, 'read_file', { path: '/notes.txt' })).data?.content).toBe(
            'kept in the database\n',
          );
          expect(serving.stderr()).not.toContain('using the built-in tools');
        });
        expect(existsSync(join(folder, 'notes.txt'))).toBe(false);
      }),
    60_000,
  );
});

describe('toolshed serve: a restart on an existing database', () => {
  it(
    'says how to make an API token, and the command it names gives one the API accepts',
    () =>
      inFolder(async (folder) => {
        await whileServing(folder, ['--tools', folder], async (started) => {
          expect(started.token).not.toBe('');
        });

        await whileServing(folder, ['--tools', folder], async (again) => {
          expect(again.stderr()).not.toContain('shown once');
          expect(again.stderr()).toContain(
            "toolshed serve: an API token is shown only when it is made; make one with 'toolshed token create --workspace default' (with the same TOOLSHED_DATABASE_URL)\n",
          );
          expect(again.stderr()).toContain(`toolshed serve: web catalog at ${again.base}/\n`);

          let printed = '';
          const tokenIo = {
            ...again.io,
            stdout: {
              write: (text: string) => {
                printed += text;
                return true;
              },
              flush: async () => {},
            },
          } as unknown as CliIo;
          expect(await runCli(['token', 'create', '--workspace', 'default'], tokenIo)).toBe(0);
          const response = await fetch(`${again.base}/api/agents`, {
            headers: { authorization: `Bearer ${printed.trim()}`, 'x-workspace-id': 'default' },
          });
          expect(response.status).toBe(200);
        });
      }),
    60_000,
  );

  it(
    'names the workspace the database has when it has no workspace default',
    () =>
      inFolder(async (folder) => {
        const setup = memoryIo(folder);
        expect(await runCli(['workspace', 'create', 'Acme', '--id', 'acme'], setup.io)).toBe(0);
        await whileServing(folder, ['--tools', folder], async ({ stderr }) => {
          expect(stderr()).toContain("make one with 'toolshed token create --workspace acme'");
        });
      }),
    60_000,
  );
});

describe('toolshed serve: reloading the configuration on SIGHUP', () => {
  /** A YAML tool that echoes its text, named `name`, in `folder/tools`. */
  function writeTool(folder: string, name: string): void {
    writeFileSync(
      join(folder, 'tools', `${name}.yaml`),
      `name: ${name}\ndescription: The ${name} tool echoes a text.\nparameters:\n  type: object\n  properties:\n    text: { type: string }\nhandler: ./handlers.js#echo\n`,
    );
  }

  it(
    'syncs the changed file into the running server, tells MCP sessions, and keeps serving a broken one',
    () =>
      inFolder(async (folder) => {
        mkdirSync(join(folder, 'tools'));
        writeFileSync(join(folder, 'tools', 'handlers.js'), 'export const echo = ({ text }) => `echo ${text}`;\n');
        writeTool(folder, 'first_tool');
        writeTool(folder, 'second_tool');
        const file = join(folder, 'toolshed.yaml');
        writeFileSync(file, 'tools: [./tools]\nbuiltins: [calculator]\n');
        await whileServing(folder, ['--config', file], async ({ stderr, token, base }) => {
          const headers = {
            authorization: `Bearer ${token}`,
            'x-workspace-id': 'default',
            'content-type': 'application/json',
          };
          const ids = async () =>
            (
              (await (await fetch(`${base}/api/tools`, { headers })).json()) as { tools: Array<{ id: string }> }
            ).tools.map((tool) => tool.id);
          const client = new Client({ name: 'toolshed-reload', version: '1.0.0' });
          await client.connect(
            new StreamableHTTPClientTransport(new URL('/mcp', base), {
              requestInit: { headers: { authorization: `Bearer ${token}` } },
            }),
          );
          try {
            expect(await ids()).toEqual(['calculator', 'first_tool', 'second_tool']);
            rmSync(join(folder, 'tools', 'second_tool.yaml'));
            writeTool(folder, 'third_tool');
            const told = new Promise<void>((resolve) => {
              client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
            });
            process.emit('SIGHUP');
            await told;
            for (let attempt = 0; attempt < 100 && !stderr().includes('reloaded'); attempt += 1) {
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            expect(stderr()).toContain('toolshed serve: reloaded toolshed.yaml: 1 added, 0 updated, 1 removed\n');
            expect(await ids()).toEqual(['calculator', 'first_tool', 'third_tool']);
            expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
              'calculator',
              'first_tool',
              'third_tool',
            ]);
            const called = await client.callTool({ name: 'third_tool', arguments: { text: 'hi' } });
            expect(called.content).toEqual([{ type: 'text', text: 'echo hi' }]);

            // A file that no longer loads leaves what is served as it was.
            writeFileSync(file, 'tools: [./tools]\nbuiltins: [no_such_builtin]\n');
            process.emit('SIGHUP');
            for (let attempt = 0; attempt < 100 && !stderr().includes('keeping what is served now'); attempt += 1) {
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            expect(stderr()).toMatch(/toolshed serve: SIGHUP: keeping what is served now: .*no_such_builtin/);
            expect(await ids()).toEqual(['calculator', 'first_tool', 'third_tool']);
          } finally {
            await client.close();
          }
        });
      }),
    60_000,
  );
});

describe('toolshed serve --workspace', () => {
  it.each(['bad id!', '', '-leading', 'x'.repeat(65), 'a/b'])(
    'refuses %j as a usage error (exit 2), creating nothing',
    async (value) => {
      const refused = await serveToExit(['--workspace', value]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toBe(
        `error: option '--workspace <id>' argument '${value}' is invalid. Use a workspace id: a letter or digit, then letters, digits, '_', '.' or '-', at most 64 characters.\nRun 'toolshed serve --help' for usage.\n`,
      );
      expect(refused.madeDatabase).toBe(false);
    },
  );

  it(
    'serves the configuration to the workspace it names, created with the first token, and no other',
    () =>
      inFolder(async (folder) => {
        writeFileSync(join(folder, 'handlers.js'), 'export const echo = ({ text }) => text;\n');
        writeFileSync(
          join(folder, 'echo.yaml'),
          'name: echo_back\ndescription: Echo a text back.\nparameters:\n  type: object\n  properties:\n    text: { type: string }\nhandler: ./handlers.js#echo\n',
        );
        writeFileSync(join(folder, 'toolshed.yaml'), 'tools: [./echo.yaml]\nbuiltins: [calculator]\n');
        await whileServing(
          folder,
          ['--config', 'toolshed.yaml', '--workspace', 'team-a'],
          async ({ stderr, token, base }) => {
            expect(stderr()).toContain("toolshed serve: created workspace 'team-a'; its API token (shown once):");
            expect(stderr()).toMatch(
              /toolshed serving 2 tools in workspace 'team-a': MCP at http:\/\/127\.0\.0\.1:\d+\/mcp\n/,
            );
            const listed = await fetch(`${base}/api/tools`, {
              headers: { authorization: `Bearer ${token}`, 'x-workspace-id': 'team-a' },
            });
            const tools = ((await listed.json()) as { tools: Array<{ id: string; source: string }> }).tools;
            expect(tools.map((tool) => `${tool.id}:${tool.source}`)).toEqual([
              'calculator:builtin',
              'echo_back:config',
            ]);
          },
        );
      }),
    60_000,
  );
});

describe('toolshed serve: following the MCP servers of the configuration', () => {
  it(
    'adds a row for a tool an MCP server lists while serving, callable at once',
    () =>
      inFolder(async (folder) => {
        const server = join(import.meta.dirname, '..', 'cli', 'fixtures', 'mcp-config', 'dynamic-server.mjs');
        writeFileSync(
          join(folder, 'toolshed.yaml'),
          `mcp_servers:\n  - name: dyn\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(server)}]\n`,
        );
        await whileServing(folder, ['--config', 'toolshed.yaml'], async ({ token, base }) => {
          const headers = {
            authorization: `Bearer ${token}`,
            'x-workspace-id': 'default',
            'content-type': 'application/json',
          };
          const rows = async () =>
            (
              (await (await fetch(`${base}/api/tools`, { headers })).json()) as {
                tools: Array<{ id: string; source: string }>;
              }
            ).tools;
          const call = async (tool: string) => {
            const response = await fetch(`${base}/api/tools/${tool}/call`, { method: 'POST', headers, body: '{}' });
            return (await response.json()) as { status: string; data?: unknown };
          };
          expect((await rows()).map((tool) => `${tool.id}:${tool.source}`)).toEqual(['dyn__add_tool:mcp:dyn']);
          expect(await call('dyn__add_tool')).toMatchObject({ status: 'success' });
          let listed: Array<{ id: string; source: string }> = [];
          for (let attempt = 0; attempt < 100; attempt += 1) {
            listed = await rows();
            if (listed.some((tool) => tool.id === 'dyn__extra_tool')) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          expect(listed.map((tool) => `${tool.id}:${tool.source}`)).toEqual([
            'dyn__add_tool:mcp:dyn',
            'dyn__extra_tool:mcp:dyn',
          ]);
          expect(await call('dyn__extra_tool')).toMatchObject({ status: 'success', data: 'extra tool ran' });
        });
      }),
    60_000,
  );
});
