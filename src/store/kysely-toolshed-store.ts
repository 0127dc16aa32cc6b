import { type Kysely, Migrator, sql } from 'kysely';
import type { FileBackend } from '../builtins/filesystem/file-backend.js';
import { AgentQueries } from './agent-queries.js';
import { AttachmentQueries } from './attachment-queries.js';
import { CallLimitQueries } from './call-limit-queries.js';
import type { ChangeFeed } from './change-feed.js';
import type { Database } from './database.js';
import { DatabaseApprovalStore } from './database-approval-store.js';
import { DatabaseFileBackend } from './database-file-backend.js';
import { McpCatalogQueries } from './mcp-catalog-queries.js';
import { McpSessionQueries } from './mcp-session-queries.js';
import { McpStreamEventQueries } from './mcp-stream-event-queries.js';
import { McpTaskQueries } from './mcp-task-queries.js';
import { MIGRATION_TABLES, ToolshedMigrationProvider } from './migrations/toolshed-migration-provider.js';
import { dropForChange, readCachesOf } from './read-cache.js';
import type { SecretKeyring } from './secret-key.js';
import { SecretQueries } from './secret-queries.js';
import type { SqliteDriver } from './sqlite/sqlite-driver.js';
import { sqliteDriverOf } from './sqlite/sqlite-store-dialect.js';
import type { StoreContext } from './store-context.js';
import type { StoreDialect } from './store-dialect.js';
import { StoreError } from './store-error.js';
import type { ResolvedStoreOptions } from './store-options.js';
import type { MigrationReport, StoreChange, StoreChangeListener, StoreDialectName } from './store-records.js';
import { TokenQueries } from './token-queries.js';
import { ToolCallQueries } from './tool-call-queries.js';
import { ToolQueries } from './tool-queries.js';
import type {
  StoreAgents,
  StoreAttachments,
  StoreCallLimits,
  StoreMcpCatalog,
  StoreMcpSessions,
  StoreMcpStreamEvents,
  StoreMcpTasks,
  StoreSecrets,
  StoreTokens,
  StoreToolCalls,
  StoreTools,
  StoreUpstreamPins,
  StoreWorkspaces,
  ToolshedStore,
  WorkspaceApprovalStore,
} from './toolshed-store.js';
import { UpstreamPinQueries } from './upstream-pin-queries.js';
import { WorkspaceQueries } from './workspace-queries.js';

/**
 * The {@link ToolshedStore} both dialects share: all queries live here and in the query classes it
 * composes; a {@link StoreDialect} and a {@link ChangeFeed} supply what differs, and a
 * {@link SecretKeyring} the key of workspace secrets. Made by `createSqliteStore` and
 * `createPostgresStore` (or {@link createStore}).
 *
 * @example
 * ```ts
 * const keys = new SecretKeyring({ kind: 'ephemeral' });
 * const store = new KyselyToolshedStore(new SqliteStoreDialect(driver), new SqliteChangeFeed(onError), resolveStoreOptions(), keys);
 * await store.migrate();
 * ```
 */
export class KyselyToolshedStore implements ToolshedStore {
  readonly workspaces: StoreWorkspaces;
  readonly tokens: StoreTokens;
  readonly tools: StoreTools;
  readonly agents: StoreAgents;
  readonly attachments: StoreAttachments;
  readonly toolCalls: StoreToolCalls;
  readonly secrets: StoreSecrets;
  readonly upstreamPins: StoreUpstreamPins;
  readonly callLimits: StoreCallLimits;
  readonly mcpCatalog: StoreMcpCatalog;
  readonly mcpSessions: StoreMcpSessions;
  readonly mcpStreamEvents: StoreMcpStreamEvents;
  readonly mcpTasks: StoreMcpTasks;
  readonly #dialect: StoreDialect;
  readonly #feed: ChangeFeed;
  readonly #toolCalls: ToolCallQueries;
  readonly #context: StoreContext;
  #closing: Promise<void> | undefined;

  constructor(dialect: StoreDialect, feed: ChangeFeed, options: ResolvedStoreOptions, keys: SecretKeyring) {
    this.#dialect = dialect;
    this.#feed = feed;
    this.#context = {
      dialect,
      options,
      write: (work) => this.#write(work),
    };
    // First of all listeners: whoever hears of a change (an MCP view refreshing) reads fresh rows.
    const readCaches = readCachesOf(this.#context);
    feed.subscribe((change) => dropForChange(readCaches, change));
    this.workspaces = new WorkspaceQueries(this.#context);
    this.tokens = new TokenQueries(this.#context);
    this.tools = new ToolQueries(this.#context);
    this.agents = new AgentQueries(this.#context);
    this.attachments = new AttachmentQueries(this.#context);
    this.mcpCatalog = new McpCatalogQueries(this.#context);
    this.#toolCalls = new ToolCallQueries(this.#context);
    this.toolCalls = this.#toolCalls;
    this.secrets = new SecretQueries(this.#context, keys);
    this.upstreamPins = new UpstreamPinQueries(this.#context);
    this.callLimits = new CallLimitQueries(this.#context);
    this.mcpSessions = new McpSessionQueries(this.#context, feed);
    this.mcpStreamEvents = new McpStreamEventQueries(this.#context);
    this.mcpTasks = new McpTaskQueries(this.#context);
  }

  get dialect(): StoreDialectName {
    return this.#dialect.name;
  }

  get sharedAcrossInstances(): boolean {
    return this.#dialect.sharedAcrossInstances;
  }

  get db(): Kysely<Database> {
    return this.#dialect.db;
  }

  sqliteDriver(): SqliteDriver | undefined {
    return sqliteDriverOf(this.#dialect.db);
  }

  files(workspaceId: string): FileBackend {
    return new DatabaseFileBackend(this.#context, workspaceId);
  }

  approvals(workspaceId: string): WorkspaceApprovalStore {
    return new DatabaseApprovalStore(this.#context, workspaceId);
  }

  onChange(listener: StoreChangeListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('onChange needs a listener function.');
    return this.#feed.subscribe(listener);
  }

  async migrate(): Promise<MigrationReport> {
    const migrator = new Migrator({
      db: this.#dialect.db,
      provider: new ToolshedMigrationProvider(this.#dialect.schema),
      ...MIGRATION_TABLES,
    });
    // An up-to-date database is the common case: it is answered without the migration lock, which
    // on SQLite is the database's write lock (see SqliteStoreDialect). One that ran migrations this
    // build does not know goes on to the Migrator, which refuses it.
    let upToDate: boolean;
    try {
      const known = await migrator.getMigrations();
      // (A database with nothing applied may not have the table yet.)
      upToDate =
        known.every((migration) => migration.executedAt !== undefined) &&
        (await sql`select name from ${sql.table(MIGRATION_TABLES.migrationTableName)}`.execute(this.#dialect.db)).rows
          .length === known.length;
    } catch (error) {
      throw migrationFailed('the migration bookkeeping', error);
    }
    if (upToDate) return { applied: [] };
    const { error, results = [] } = await migrator.migrateToLatest();
    if (error !== undefined) {
      const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'the migration bookkeeping';
      throw migrationFailed(failed, error);
    }
    return {
      applied: results.filter((result) => result.status === 'Success').map((result) => result.migrationName),
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#toolCalls.close();
      } finally {
        try {
          await this.#feed.close();
        } finally {
          await this.#dialect.close();
        }
      }
    })();
    return this.#closing;
  }

  async #write<T>(work: (trx: Kysely<Database>, changes: StoreChange[]) => Promise<T>): Promise<T> {
    let changes: StoreChange[] = [];
    const result = await this.#dialect.transaction(async (trx) => {
      // A retried transaction starts over with no changes.
      changes = [];
      const value = await work(trx, changes);
      if (changes.length > 0) await this.#feed.publish(trx, changes);
      return value;
    });
    if (changes.length > 0) this.#feed.committed(changes);
    return result;
  }
}

/** `MIGRATION_FAILED` naming what failed (a migration, or the bookkeeping around them) and why. */
function migrationFailed(what: string, error: unknown): StoreError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError('MIGRATION_FAILED', `Migration ${what} failed: ${reason}`, { cause: error });
}
