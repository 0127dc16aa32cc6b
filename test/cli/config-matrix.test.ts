import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ToolResult, toModelText } from '../../src/core/tool-result.js';
import { assertBuilt, cliEnv, connectStdioMcp, FIXTURES, type RunningCli, runCli, startCli } from './run-cli.js';

// One configuration (fixtures/config-matrix) through the three ways of running it: `toolshed serve`
// (its REST API and its MCP endpoint), `toolshed mcp` (stdio) and `toolshed call`. Its `defaults:`,
// per-tool settings and credentials must give the same answer, word for word, on every path.

/** What a model reads back from a call, and whether it succeeded. */
interface Outcome {
  ok: boolean;
  text: string;
}

type Path = (tool: string, args: Record<string, unknown>) => Promise<Outcome>;

const ENV = {
  MATRIX_MCP_SERVER: join(FIXTURES, 'config-matrix', 'upstream-server.mjs'),
};
/** Set in the .env beside the configuration, never in the environment of the processes. */
const DOTENV_KEY = 'from-the-dotenv-file';

let folder: string;
let serve: RunningCli;
const clients: Client[] = [];
/** What each `toolshed mcp` has printed on stderr, shown when an outcome differs. */
const stdioStderr: Record<string, () => string> = {};
/** Every tool of the configuration, on each path. */
const paths: Record<string, Path> = {};
/** The tools of agent `narrow`, with its per-tool config, on each path. */
const agentPaths: Record<string, Path> = {};
/** The MCP clients, for calls that need the raw text. */
const mcpClients: Record<string, Client> = {};

/** `POST /api/tools/:id/call` on the served configuration, answering the ToolResult as sent. */
let restCall: (tool: string, args: Record<string, unknown>) => Promise<ToolResult>;

beforeAll(async () => {
  assertBuilt();
  folder = mkdtempSync(join(tmpdir(), 'toolshed-config-matrix-'));
  cpSync(join(FIXTURES, 'config-matrix'), folder, { recursive: true });
  writeFileSync(join(folder, '.env'), `MATRIX_DOTENV_KEY=${DOTENV_KEY}\n`);
  // Every process works on one database, whose email corpus the email tools search.
  const env = { ...ENV, TOOLSHED_DATABASE_URL: join(folder, 'service.db') };
  const generated = await runCli(
    ['emails', 'generate', '--count', '60', '--inboxes', '3', '--db', env.TOOLSHED_DATABASE_URL],
    {
      cwd: folder,
      env,
    },
  );
  expect(generated.exitCode, generated.stderr).toBe(0);

  serve = startCli(['serve', '--config', 'toolshed.yaml', '--port', '0'], { cwd: folder, env });
  const token = (await serve.waitForStderr(/\(shown once\): (\S+)/))[1] ?? '';
  const base = (await serve.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/))[1] ?? '';
  const overHttp = async (path: string) => {
    const client = new Client({ name: 'config-matrix', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(path, base), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const overStdio = async (args: string[]) => {
    const { client, stderr } = await connectStdioMcp(['--config', 'toolshed.yaml', ...args], {
      cwd: folder,
      env: cliEnv(env),
      client: new Client({ name: 'config-matrix', version: '1.0.0' }),
    });
    stdioStderr[['toolshed mcp', ...args].join(' ')] = stderr;
    clients.push(client);
    return client;
  };
  const cliCall =
    (args: string[]): Path =>
    async (tool, toolArgs) => {
      const run = await runCli(
        ['call', tool, '--config', 'toolshed.yaml', ...args, '--json', '--args', JSON.stringify(toolArgs)],
        { cwd: folder, env },
      );
      return outcomeOf(JSON.parse(run.stdout) as ToolResult);
    };
  const [serveMcp, stdio, serveAgent, stdioAgent] = await Promise.all([
    overHttp('/mcp'),
    overStdio([]),
    overHttp('/mcp/agents/narrow'),
    overStdio(['--agent', 'narrow']),
  ]);
  mcpClients['serve: MCP at /mcp'] = serveMcp;
  mcpClients['toolshed mcp (stdio)'] = stdio;

  restCall = async (tool, args) => {
    const response = await fetch(`${base}/api/tools/${tool}/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-workspace-id': 'default', 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: args }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as ToolResult;
  };
  paths['serve: POST /api/tools/:id/call'] = async (tool, args) => outcomeOf(await restCall(tool, args));
  paths['serve: MCP at /mcp'] = (tool, args) => mcpOutcome(serveMcp, tool, args);
  paths['toolshed mcp (stdio)'] = (tool, args) => mcpOutcome(stdio, tool, args);
  paths['toolshed call'] = cliCall([]);
  agentPaths['serve: MCP at /mcp/agents/narrow'] = (tool, args) => mcpOutcome(serveAgent, tool, args);
  agentPaths['toolshed mcp --agent narrow'] = (tool, args) => mcpOutcome(stdioAgent, tool, args);
  agentPaths['toolshed call --agent narrow'] = cliCall(['--agent', 'narrow']);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  if (serve !== undefined && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  rmSync(folder, { recursive: true, force: true });
});

/** The outcome of `tool` on every path of `on`, keyed by path. */
async function everywhere(on: Record<string, Path>, tool: string, args: Record<string, unknown>) {
  const names = Object.keys(on);
  const outcomes = await Promise.all(names.map((name) => on[name]?.(tool, args)));
  return Object.fromEntries(names.map((name, index) => [name, outcomes[index]]));
}

/** The stderr of each `toolshed mcp`, for a failure's message (a server it went on without, say). */
function stderrOfStdio(): string {
  return Object.entries(stdioStderr)
    .map(([label, text]) => `stderr of ${label}:\n${text()}`)
    .join('\n');
}

/** `expected` on every path of `on`. */
function sameEverywhere(on: Record<string, Path>, expected: Outcome) {
  return Object.fromEntries(Object.keys(on).map((name) => [name, expected]));
}

function outcomeOf(result: ToolResult): Outcome {
  return { ok: result.status === 'success', text: normalized(toModelText(result)) };
}

async function mcpOutcome(client: Client, tool: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = await client.callTool({ name: tool, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  // The text a model reads; a cut output's resource_link (MCP only) is checked on its own below.
  const texts = content.filter((block) => block.type === 'text');
  return { ok: result.isError !== true, text: normalized(texts.map((block) => block.text ?? '').join('\n')) };
}

/** The handle of a truncated output differs from run to run; the rest of the text must not. */
function normalized(text: string): string {
  return text.replace(/out_[0-9a-z]+_[0-9a-z]+/g, 'out_HANDLE');
}

const numbers = Array.from({ length: 1000 }, (_, index) => String(index)).join(' ');

describe('one configuration, three ways to run it', () => {
  it.each<[string, string, Record<string, unknown>, Outcome]>([
    [
      'a tool slower than defaults.timeout is stopped at that limit',
      'slow',
      { ms: 4000 },
      {
        ok: false,
        text: "Error [TIMEOUT]: Tool 'slow' timed out after 1000 ms.\nHint: Try again, or ask for less work in one call.",
      },
    ],
    [
      'an imported MCP tool slower than defaults.timeout is stopped at that limit',
      'upstream__wait',
      { ms: 4000 },
      {
        ok: false,
        text: "Error [TIMEOUT]: Tool 'upstream__wait' timed out after 1000 ms.\nHint: Try again, or ask for less work in one call.",
      },
    ],
    ["a tool's own timeout wins over defaults.timeout", 'patient', { ms: 1500 }, { ok: true, text: 'waited 1500 ms' }],
    [
      'output over defaults.max_output_chars is cut the same way',
      'numbers',
      { count: 1000 },
      {
        ok: true,
        text: `${numbers.slice(0, 210)}\n\n[... ${numbers.length - 300} characters truncated; call read_tool_output with {"handle": "out_HANDLE", "offset": 210} to read them ...]\n\n${numbers.slice(-90)}`,
      },
    ],
    [
      'defaults.extra_args: reject refuses an undeclared argument',
      'echo',
      { text: 'hi', loud: true },
      {
        ok: false,
        text: "Error [INVALID_ARGUMENTS]: Invalid arguments for 'echo': unexpected argument 'loud'; accepted arguments are text.\nHint: Expected arguments: text (string, required).",
      },
    ],
    [
      "a tool's own extra_args: drop wins over the default",
      'lenient_echo',
      { text: 'hi', loud: true },
      { ok: true, text: "echo: hi\n\nNote: the argument 'loud' was ignored: 'lenient_echo' does not take it." },
    ],
    [
      'a credential that is not set fails the call with MISSING_CREDENTIALS',
      'keyed',
      {},
      {
        ok: false,
        text: "Error [MISSING_CREDENTIALS]: Tool 'keyed' needs the environment variable MATRIX_API_KEY (the matrix key), which is not set.\nHint: Get one at https://example.com/keys, then set it in the environment where toolshed runs: export MATRIX_API_KEY=...",
      },
    ],
    [
      'an email tool it names searches the corpus of the database',
      'email_inboxes',
      { limit: 1 },
      {
        ok: true,
        text: '{"inboxes":[{"inbox":"john.arnold@enron.example","count":26}],"total":3}',
      },
    ],
    [
      'a credential from the .env beside the configuration is set',
      'dotenv_keyed',
      {},
      { ok: true, text: `a key of ${DOTENV_KEY.length} characters` },
    ],
  ])(
    '%s',
    async (_behaviour, tool, args, expected) => {
      expect(await everywhere(paths, tool, args), stderrOfStdio()).toEqual(sameEverywhere(paths, expected));
    },
    60_000,
  );

  it('reads the rest of a cut output with read_tool_output on every path that keeps it', async () => {
    // `toolshed call` is one call per process: nothing is kept for a second call.
    for (const [name, client] of Object.entries(mcpClients)) {
      const cut = await client.callTool({ name: 'numbers', arguments: { count: 1000 } });
      const text = (cut.content as Array<{ text: string }>)[0]?.text ?? '';
      const handle = /"handle": "(out_[^"]+)"/.exec(text)?.[1] ?? '';
      const rest = await mcpOutcome(client, 'read_tool_output', { handle, offset: 210, limit: 100 });
      expect(rest, name).toEqual({ ok: true, text: expect.stringContaining(numbers.slice(210, 310)) });
      // Over MCP the cut result also links the whole output as a resource.
      const link = (cut.content as Array<{ type: string; uri?: string }>)[1];
      expect(link, name).toMatchObject({ type: 'resource_link', uri: `toolshed://tool-outputs/${handle}` });
      const whole = await client.readResource({ uri: link?.uri ?? '' });
      expect(whole.contents, name).toEqual([{ uri: link?.uri, mimeType: 'text/plain', text: numbers }]);
    }
    // Over REST, as the truncation note says: the reader is callable although it is no row.
    const cut = await restCall('numbers', { count: 1000 });
    const handle = /"handle": "(out_[^"]+)"/.exec(toModelText(cut))?.[1] ?? '';
    expect(handle).not.toBe('');
    const rest = paths['serve: POST /api/tools/:id/call'];
    expect(await rest?.('read_tool_output', { handle, offset: 210, limit: 100 })).toEqual({
      ok: true,
      text: expect.stringContaining(numbers.slice(210, 310)),
    });
  }, 30_000);
});

describe("one configuration's agent, three ways to run it", () => {
  it("hands the agent's per-tool config to the handler", async () => {
    expect(await everywhere(agentPaths, 'greet', { name: 'Ada' }), stderrOfStdio()).toEqual(
      sameEverywhere(agentPaths, { ok: true, text: 'Ahoy, Ada' }),
    );
  }, 60_000);

  it("stops the agent's tools at defaults.timeout", async () => {
    expect(await everywhere(agentPaths, 'slow', { ms: 4000 }), stderrOfStdio()).toEqual(
      sameEverywhere(agentPaths, {
        ok: false,
        text: "Error [TIMEOUT]: Tool 'slow' timed out after 1000 ms.\nHint: Try again, or ask for less work in one call.",
      }),
    );
  }, 60_000);
});
