import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.js';

// A real restart and a real outage of PostgreSQL under a running service: this file starts a server
// of its own (the machine's shared one serves the other tests), stops and restarts it, and checks
// that toolshed keeps its promises without being restarted itself.

let postgres: PrivatePostgres;
let store: ToolshedStore;
/** A second instance's store, listening for changes, as another `toolshed serve` on the database. */
let other: ToolshedStore;
let app: FastifyInstance;
let base: string;
const UNAVAILABLE = { error: { code: 'UNAVAILABLE', message: 'The database is unavailable; try again shortly.' } };

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  store = await createStore(postgres.url);
  await store.migrate();
  await store.tools.upsertBuiltins(createBuiltins());
  other = await createStore(postgres.url);
  app = createServer({ store });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await store?.close();
  await other?.close();
  await postgres?.destroy();
}, 30_000);

let counter = 0;
async function tenant(): Promise<Record<string, string>> {
  const workspace = await store.workspaces.create({ id: `ws_restart_${counter++}`, name: 'Restart' });
  const { token } = await store.tokens.create(workspace.id, { name: 'restart' });
  return { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id };
}

async function rest(headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** Agent creations, tool listings and calculator calls from `workers` loops, bounded by count and time. */
async function load(
  headers: Record<string, string>,
  options: { workers: number; total: number; ms: number; onAck?: (count: number) => void },
) {
  const statuses: Array<{ status: number; body: Record<string, unknown> }> = [];
  const acknowledged: string[] = [];
  const deadline = Date.now() + options.ms;
  let sent = 0;
  const worker = async (index: number) => {
    for (let step = 0; sent < options.total && Date.now() < deadline; step++) {
      sent += 1;
      const kind = (index + step) % 3;
      const answer =
        kind === 0
          ? await rest(headers, 'POST', '/api/agents', { name: `load ${index}.${step}` })
          : kind === 1
            ? await rest(headers, 'GET', '/api/tools')
            : await rest(headers, 'POST', '/api/tools/calculator/call', { arguments: { expression: `${step} * 2` } });
      statuses.push(answer);
      if (kind === 0 && answer.status === 201) {
        acknowledged.push(answer.body.id as string);
        options.onAck?.(acknowledged.length);
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_value, index) => worker(index)));
  return { statuses, acknowledged };
}

/** The first change of `kind` in `workspaceId` that `listener` hears, within `ms`. */
function heard(listener: ToolshedStore, workspaceId: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(false);
    }, ms);
    const stop = listener.onChange((change) => {
      if (change.workspaceId === workspaceId && change.kind === 'agent') {
        clearTimeout(timer);
        stop();
        resolve(true);
      }
    });
  });
}

/** Whether `listener` announces a resync within `ms`. */
function heardResync(listener: ToolshedStore, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(false);
    }, ms);
    const stop = listener.onChange((change) => {
      if (change.kind === 'resync') {
        clearTimeout(timer);
        stop();
        resolve(true);
      }
    });
  });
}

describe('toolshed on PostgreSQL through a real PostgreSQL restart and outage', () => {
  it('keeps serving through a restart mid-load: nothing but 503 fails, no acknowledged write is lost, changes are heard again', async () => {
    const headers = await tenant();
    const workspaceId = headers['x-workspace-id'] as string;
    let restarting: Promise<void> | undefined;
    const during = await load(headers, {
      workers: 4,
      total: 150,
      ms: 15_000,
      onAck: (count) => {
        if (count === 8) restarting = postgres.restart();
      },
    });
    await restarting;
    expect(restarting).toBeDefined();
    // A request cut by the restart is run again on a new connection; only a write whose COMMIT was
    // under way cannot know whether it took, and says so with 503 — never a 500.
    const failed = during.statuses.filter((answer) => answer.status >= 300);
    for (const answer of failed) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    }
    expect(during.acknowledged.length).toBeGreaterThan(8);

    const after = await load(headers, { workers: 4, total: 30, ms: 10_000 });
    expect(after.statuses.filter((answer) => answer.status >= 300)).toEqual([]);
    const stored = new Set((await store.agents.list(workspaceId)).map((agent) => agent.id));
    expect([...during.acknowledged, ...after.acknowledged].filter((id) => !stored.has(id))).toEqual([]);

    // The other instance's listening connection came back by itself.
    const news = heard(other, workspaceId, 10_000);
    expect((await rest(headers, 'POST', '/api/agents', { name: 'after the restart' })).status).toBe(201);
    expect(await news).toBe(true);
  }, 60_000);

  it('answers 503 while PostgreSQL is down, writes nothing, and serves again once it is back', async () => {
    const headers = await tenant();
    const workspaceId = headers['x-workspace-id'] as string;
    expect((await rest(headers, 'GET', '/api/tools')).status).toBe(200);
    let resynced: Promise<boolean> | undefined;
    await postgres.stop();
    try {
      const write = await rest(headers, 'POST', '/api/agents', { name: 'during the outage' });
      expect(write).toMatchObject({ status: 503, body: UNAVAILABLE });
      // Seconds later: past the read cache's quarter second, so this read goes to the database too.
      const listing = await rest(headers, 'GET', '/api/tools');
      expect(listing).toMatchObject({ status: 503, body: UNAVAILABLE });
    } finally {
      // Subscribed before the server is back: the listener's return is announced as a resync.
      resynced = heardResync(other, 15_000);
      await postgres.start();
    }
    // Back without restarting toolshed: the pool opens new connections on the next request.
    let listing = await rest(headers, 'GET', '/api/tools');
    for (let tries = 0; listing.status !== 200 && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      listing = await rest(headers, 'GET', '/api/tools');
    }
    expect(listing.status).toBe(200);
    expect((await store.agents.list(workspaceId)).map((agent) => agent.name)).toEqual([]);
    // Changes made while an instance could not listen are lost to it; it says so (resync, every cache
    // dropped) once it listens again, within the 5 s between its attempts.
    expect(await resynced).toBe(true);
    const news = heard(other, workspaceId, 10_000);
    expect((await rest(headers, 'POST', '/api/agents', { name: 'after the outage' })).status).toBe(201);
    expect(await news).toBe(true);
  }, 60_000);
});
