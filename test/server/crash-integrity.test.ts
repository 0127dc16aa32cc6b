import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { assertBuilt, type RunningCli, startCli } from '../cli/run-cli.js';

// kill -9 of `toolshed serve` (SQLite) in the middle of a burst of writes, 10 times on one database
// file: after each, the file opens, `PRAGMA integrity_check` is ok, every write the server answered
// with a 2xx is there, and the server starts again on it. Answered calls may still be in the call
// journal (`service.db-calls`) when the server dies: whoever opens the store next with the journal
// (the next server, or here a store like it) logs them before anything reads the log.

beforeAll(assertBuilt);

const ROUNDS = 10;
const WORKERS = 12;
const WORKSPACE = 'default';
/** Each round's SIGKILL comes once this many writes of the round were acknowledged (then a short delay). */
const KILL_AFTER_ACKS = [1, 8, 20, 35, 50, 70, 90, 110, 130, 150];

const folder = mkdtempSync(join(tmpdir(), 'toolshed-crash-'));
const databaseFile = join(folder, 'service.db');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What a server run is reached at. */
interface Served {
  cli: RunningCli;
  base: string;
}

async function startServer(): Promise<Served> {
  const cli = startCli(['serve', '--port', '0'], { cwd: folder, env: { TOOLSHED_DATABASE_URL: databaseFile } });
  const match = await cli.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api\n/);
  return { cli, base: match[1] ?? '' };
}

/** An attachment change: what the pair looks like once it commits, and whether the server said so. */
interface AttachmentOp {
  attached: boolean;
  acknowledged: boolean;
}

/** Every write sent so far, and which the server acknowledged; the database must hold the latter. */
class Ledger {
  readonly agents = new Set<string>();
  readonly restTools = new Set<string>();
  /** Acknowledged write_file calls: path → content. */
  readonly files = new Map<string, string>();
  /** `agentId\u0000toolId` → the changes sent to that pair, in order. */
  readonly attachments = new Map<string, AttachmentOp[]>();
  /** Calls sent and acknowledged per `agent_id` (`''` for calls without one). */
  readonly calls = new Map<string, { sent: number; acknowledged: number }>();
  acknowledgedThisRound = 0;

  attachment(agentId: string, toolId: string, attached: boolean): AttachmentOp {
    const op = { attached, acknowledged: false };
    const key = `${agentId}\u0000${toolId}`;
    this.attachments.set(key, [...(this.attachments.get(key) ?? []), op]);
    return op;
  }

  call(agentId: string): { sent: number; acknowledged: number } {
    const entry = this.calls.get(agentId) ?? { sent: 0, acknowledged: 0 };
    this.calls.set(agentId, entry);
    return entry;
  }
}

/**
 * One client's loop until the server dies: create an agent, attach write_file and calculator, detach
 * calculator, write a file through the agent, call calculator without an agent, create a REST tool.
 * Each step waits for the one before, so the order of one agent's attachment changes is known.
 */
async function writeUntilKilled(
  base: string,
  token: string,
  ledger: Ledger,
  label: string,
  onAcknowledged: () => void,
): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': WORKSPACE };
  const send = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const response = await fetch(
      `${base}${path}`,
      body === undefined
        ? { method, headers }
        : { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    ledger.acknowledgedThisRound += 1;
    onAcknowledged();
    return response;
  };
  const attach = async (agentId: string, toolId: string) => {
    const op = ledger.attachment(agentId, toolId, true);
    await send('POST', `/api/agents/${agentId}/tools`, { tool_id: toolId });
    op.acknowledged = true;
  };
  try {
    for (let step = 0; ; step += 1) {
      const agent = (await (await send('POST', '/api/agents', { name: `${label}-${step}` })).json()) as { id: string };
      ledger.agents.add(agent.id);
      await attach(agent.id, 'write_file');
      await attach(agent.id, 'calculator');
      const detach = ledger.attachment(agent.id, 'calculator', false);
      await send('DELETE', `/api/agents/${agent.id}/tools/calculator`);
      detach.acknowledged = true;

      const path = `/${label}/${step}.txt`;
      const content = `${label} step ${step}\n`.repeat(1 + (step % 5));
      const written = ledger.call(agent.id);
      written.sent += 1;
      const result = (await (
        await send('POST', '/api/tools/write_file/call', { agent_id: agent.id, arguments: { path, content } })
      ).json()) as { status: string };
      expect(result.status).toBe('success');
      written.acknowledged += 1;
      ledger.files.set(path, content);

      const computed = ledger.call('');
      computed.sent += 1;
      await send('POST', '/api/tools/calculator/call', { arguments: { expression: `${step} + 1` } });
      computed.acknowledged += 1;

      const toolId = `t_${label}_${step}`;
      await send('POST', '/api/tools', {
        id: toolId,
        type: 'rest_api',
        description: 'A tool that is created, never called.',
        endpoint: 'http://127.0.0.1:9/never-called',
        method: 'GET',
        parameters: { type: 'object', properties: {} },
      });
      ledger.restTools.add(toolId);
    }
  } catch (error) {
    // The server was killed: the request in flight may or may not have committed. Anything else is a bug.
    if (!(error instanceof TypeError)) throw error;
  }
}

/** The states an attachment may be in: after the last acknowledged change, or after any later one. */
function allowedStates(ops: readonly AttachmentOp[]): Set<boolean> {
  const lastAcknowledged = ops.findLastIndex((op) => op.acknowledged);
  const allowed = new Set<boolean>(lastAcknowledged === -1 ? [false] : [ops[lastAcknowledged]?.attached ?? false]);
  for (const op of ops.slice(lastAcknowledged + 1)) allowed.add(op.attached);
  return allowed;
}

/** Open the file the way a fresh process would and hold it to the ledger. */
function checkDatabase(ledger: Ledger, round: number): void {
  const db = new Database(databaseFile, { fileMustExist: true });
  try {
    expect(db.pragma('integrity_check', { simple: true }), `round ${round}`).toBe('ok');
    expect(db.pragma('foreign_key_check'), `round ${round}`).toEqual([]);

    const agents = new Set(
      (db.prepare('select id from agents where workspace_id = ?').all(WORKSPACE) as Array<{ id: string }>).map(
        (row) => row.id,
      ),
    );
    for (const agent of ledger.agents) expect(agents.has(agent), `round ${round}: agent ${agent}`).toBe(true);

    const attached = new Set(
      (
        db.prepare('select agent_id, tool_id from agent_tools').all() as Array<{ agent_id: string; tool_id: string }>
      ).map((row) => `${row.agent_id}\u0000${row.tool_id}`),
    );
    for (const [key, ops] of ledger.attachments) {
      expect(
        allowedStates(ops).has(attached.has(key)),
        `round ${round}: attachment ${key.replace('\u0000', ' → ')}`,
      ).toBe(true);
    }

    const readFile = db.prepare('select content from files where workspace_id = ? and path = ?');
    for (const [path, content] of ledger.files) {
      const row = readFile.get(WORKSPACE, path) as { content: Buffer } | undefined;
      expect(row?.content.toString('utf8'), `round ${round}: file ${path}`).toBe(content);
    }

    const tools = db.prepare('select id from tools where workspace_id = ?').all(WORKSPACE) as Array<{ id: string }>;
    const toolIds = new Set(tools.map((row) => row.id));
    for (const id of ledger.restTools)
      expect(toolIds.has(`${WORKSPACE}/${id}`), `round ${round}: tool ${id}`).toBe(true);

    const logged = new Map(
      (
        db
          .prepare("select coalesce(agent_id, '') as agent, count(*) as count from tool_calls group by agent")
          .all() as Array<{ agent: string; count: number }>
      ).map((row) => [row.agent, row.count]),
    );
    for (const [agent, { sent, acknowledged }] of ledger.calls) {
      const count = logged.get(agent) ?? 0;
      expect(count, `round ${round}: calls of '${agent}'`).toBeGreaterThanOrEqual(acknowledged);
      expect(count, `round ${round}: calls of '${agent}'`).toBeLessThanOrEqual(sent);
    }
  } finally {
    db.close();
  }
}

it('keeps every acknowledged write and an intact database through 10 kill -9s mid-burst', async () => {
  const ledger = new Ledger();
  let served = await startServer();
  const token = /shown once\): (\S+)/.exec(served.cli.stderr)?.[1] ?? '';
  expect(token).toMatch(/^tsk_/);
  const acknowledgedPerRound: number[] = [];

  for (let round = 0; round < ROUNDS; round += 1) {
    const { cli, base } = served;
    const threshold = KILL_AFTER_ACKS[round] ?? 1;
    let killing = false;
    ledger.acknowledgedThisRound = 0;
    const onAcknowledged = () => {
      if (killing || ledger.acknowledgedThisRound < threshold) return;
      killing = true;
      // A varied few milliseconds more, so the kill does not always land right after a response.
      setTimeout(() => cli.child.kill('SIGKILL'), round % 4);
    };
    const workers = await Promise.allSettled(
      Array.from({ length: WORKERS }, (_, worker) =>
        writeUntilKilled(base, token, ledger, `r${round}w${worker}`, onAcknowledged).catch((error: unknown) => {
          // A worker that failed for another reason than the kill ends the round for the others too.
          cli.child.kill('SIGKILL');
          throw error;
        }),
      ),
    );
    for (const worker of workers) if (worker.status === 'rejected') throw worker.reason;
    expect(await cli.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    acknowledgedPerRound.push(ledger.acknowledgedThisRound);

    if (round % 2 === 0) {
      // Check the crashed file first (this store recovers the WAL and logs the journal), then restart on it.
      const store = await createStore(databaseFile, { callJournal: true });
      await store.toolCalls.flush();
      await store.close();
      checkDatabase(ledger, round);
      served = await startServer();
    } else {
      // Restart on the crashed file first (the server recovers the WAL), then check it beside the server.
      served = await startServer();
      checkDatabase(ledger, round);
    }
    expect(served.cli.stderr).not.toContain('shown once');
    expect((await fetch(`${served.base}/health`)).status).toBe(200);
  }

  for (const [round, count] of acknowledgedPerRound.entries()) {
    expect(count, `round ${round}`).toBeGreaterThanOrEqual(KILL_AFTER_ACKS[round] ?? 1);
  }
  const agents = (await (
    await fetch(`${served.base}/api/agents`, {
      headers: { authorization: `Bearer ${token}`, 'x-workspace-id': WORKSPACE },
    })
  ).json()) as { agents: Array<{ id: string }> };
  const listed = new Set(agents.agents.map((agent) => agent.id));
  for (const agent of ledger.agents) expect(listed.has(agent)).toBe(true);
  served.cli.child.kill('SIGTERM');
  expect(await served.cli.exited).toEqual({ exitCode: 0, signal: null });
}, 120_000);
