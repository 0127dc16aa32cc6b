import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createBuiltins } from '../../src/builtins/index.js';
import { type LoadedTools, loadTools, resolveToolSetup } from '../../src/cli/load-registry.js';
import type { CliIo } from '../../src/cli/output.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

/** Opens a fresh store of one dialect for a test file, and removes it afterwards. */
export interface ServerStoreHarness {
  dialect: 'sqlite' | 'postgres';
  open(): Promise<ToolshedStore>;
  /** Another store instance on the database the last `open` created (as a second server process would open it). */
  reopen(): Promise<ToolshedStore>;
  teardown(): Promise<void>;
}

/** A SQLite store on a temp file. */
export function sqliteHarness(): ServerStoreHarness {
  let folder: string | undefined;
  return {
    dialect: 'sqlite',
    async open() {
      folder = mkdtempSync(join(tmpdir(), 'toolshed-server-'));
      return createStore(join(folder, 'toolshed.db'));
    },
    async reopen() {
      if (folder === undefined) throw new Error('open() first');
      return createStore(join(folder, 'toolshed.db'));
    },
    async teardown() {
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL store on a fresh `toolshed_test_<random>` database on 127.0.0.1:5432 (required). */
export function postgresHarness(): ServerStoreHarness {
  let database: PostgresTestDatabase | undefined;
  return {
    dialect: 'postgres',
    async open() {
      database = await createPostgresTestDatabase('toolshed_test', 'The server tests');
      return createStore(database.url);
    },
    async reopen() {
      if (database === undefined) throw new Error('open() first');
      return createStore(database.url);
    },
    async teardown() {
      await database?.drop();
    },
  };
}

/**
 * The tools of a configuration file as `toolshed serve` loads them (no CLI built-ins: the service's
 * own are rows), its warnings dropped. Close the result when done (MCP servers).
 */
export async function loadServeTools(file: string, folder: string): Promise<LoadedTools> {
  const sink = { write: () => true, flush: async () => {} };
  const io = { stdout: sink, stderr: sink, stdin: (async function* () {})(), env: {}, cwd: folder } as unknown as CliIo;
  return loadTools(await resolveToolSetup({ config: file }, folder), io, 'all', { builtins: false });
}

/** A workspace of the service's tests with an API token, and the headers a JSON request of it sends. */
export interface TestWorkspace {
  id: string;
  token: string;
  tokenId: string;
  headers: Record<string, string>;
}

/**
 * Create the workspace `id` (name `name`) in `store` with one API token, as the service's tests call
 * it: the headers carry the token, the workspace and a JSON content type.
 */
export async function createTestWorkspace(store: ToolshedStore, id: string, name = id): Promise<TestWorkspace> {
  await store.workspaces.create({ id, name });
  const created = await store.tokens.create(id, { name: 'caller' });
  return {
    id,
    token: created.token,
    tokenId: created.id,
    headers: { authorization: `Bearer ${created.token}`, 'x-workspace-id': id, 'content-type': 'application/json' },
  };
}

/**
 * A reply of {@link injectJson}: the status, the headers, the body as text, and read as JSON (`body`,
 * `{}` when empty; `json()` throws for a body that is not JSON, JSON Lines say).
 */
export interface JsonReply {
  status: number;
  headers: Record<string, unknown>;
  text: string;
  body: Record<string, unknown>;
  json(): unknown;
}

/** One request to `app` without a socket, its body sent as JSON when given. */
export async function injectJson(
  app: FastifyInstance,
  method: 'GET' | 'PUT' | 'DELETE' | 'POST',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<JsonReply> {
  const response = await app.inject({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const text = response.body;
  const json = () => JSON.parse(text) as unknown;
  let parsed: Record<string, unknown> = {};
  if (text !== '' && String(response.headers['content-type'] ?? '').startsWith('application/json')) {
    parsed = json() as Record<string, unknown>;
  }
  return { status: response.statusCode, headers: response.headers, text, body: parsed, json };
}

/** The server the hostile-input tests send to: its store, the app, and a workspace with an agent. */
export interface HostileServer {
  store: ToolshedStore;
  app: FastifyInstance;
  token: string;
  headers: Record<string, string>;
}

/**
 * A server over a fresh store of `harness` with the built-in tools as rows, logging into `logLines`,
 * and the workspace `workspaceId` with an API token and the agent `research`.
 */
export async function openHostileServer(
  harness: ServerStoreHarness,
  workspaceId: string,
  logLines: string[],
): Promise<HostileServer> {
  const store = await harness.open();
  await store.migrate();
  await store.tools.upsertBuiltins(createBuiltins());
  const app = createServer({
    store,
    builtins: false,
    webCatalog: false,
    logger: { stream: { write: (line: string) => logLines.push(line) } },
  });
  await app.ready();
  const { token } = await createTestWorkspace(store, workspaceId, workspaceId);
  await store.agents.create(workspaceId, { id: 'research', name: 'Research' });
  return {
    store,
    app,
    token,
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' },
  };
}

/** A CLI io in memory for a verb run in this process (`stdin` default: empty): what it writes is collected. */
export function memoryCliIo(
  env: Record<string, string>,
  cwd: string,
  stdin: AsyncIterable<Uint8Array | string> = (async function* () {})(),
): { io: CliIo; stdout: () => string; stderr: () => string } {
  const text = { stdout: '', stderr: '' };
  const output = (stream: 'stdout' | 'stderr') => ({
    write: (chunk: string) => {
      text[stream] += chunk;
      return true;
    },
    flush: async () => {},
  });
  const io = {
    stdout: output('stdout'),
    stderr: output('stderr'),
    stdin,
    env,
    cwd,
  } as unknown as CliIo;
  return { io, stdout: () => text.stdout, stderr: () => text.stderr };
}

/**
 * Wait until `toolshed serve` (its stderr read by `stderr`) says where its REST API listens, checking
 * every 10 ms for at most 10 s; answers the base URL and the admin token it printed ('' when none).
 */
export async function servedAt(stderr: () => string): Promise<{ base: string; token: string }> {
  for (let attempt = 0; attempt < 1000 && !stderr().includes('REST API at'); attempt += 1) {
    await new Promise((done) => setTimeout(done, 10));
  }
  return {
    base: /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(stderr())?.[1] ?? '',
    token: /shown once\): (\S+)/.exec(stderr())?.[1] ?? '',
  };
}
