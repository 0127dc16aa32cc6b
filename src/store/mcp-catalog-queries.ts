import type { Selectable } from 'kysely';
import type { McpCatalogTable } from './database.js';
import { nowIso, toIsoTimestamp } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import type { McpCatalogKind, McpCatalogRecord, McpCatalogSyncInput, McpCatalogSyncResult } from './store-records.js';
import { requireId } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreMcpCatalog } from './toolshed-store.js';

const KINDS: readonly McpCatalogKind[] = ['prompt', 'resource', 'resource_template'];
/** Bytes of UTF-8 JSON of one entry's definition. */
const MAX_DEFINITION_BYTES = 256 * 1024;
const MAX_ENTRIES = 5000;

/**
 * The `mcpCatalog` part of a store: the prompts, resources and resource templates each workspace
 * serves over MCP, synced from a served configuration like its tools (one origin's rows at a time).
 *
 * @example
 * ```ts
 * const catalog = new McpCatalogQueries(context);
 * await catalog.sync('default', { origin: 'toolshed.yaml', entries: [] });
 * await catalog.list('default', 'prompt');
 * ```
 */
export class McpCatalogQueries implements StoreMcpCatalog {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async list(workspaceId: string, kind?: McpCatalogKind): Promise<McpCatalogRecord[]> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (kind !== undefined && !KINDS.includes(kind)) {
      throw new StoreValidationError('kind', `kind must be one of ${KINDS.join(', ')}, got '${String(kind)}'.`);
    }
    let query = this.#context.dialect.db
      .selectFrom('mcp_catalog')
      .selectAll()
      .where('workspace_id', '=', workspace)
      .orderBy('kind')
      .orderBy('key');
    if (kind !== undefined) query = query.where('kind', '=', kind);
    return (await query.execute()).map(recordOf);
  }

  async sync(workspaceId: string, input: McpCatalogSyncInput): Promise<McpCatalogSyncResult> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const entries = checkEntries(input);
    const now = nowIso();
    try {
      return await this.#context.write(async (trx, changes) => {
        await this.#context.dialect.lock(trx, `mcp_catalog:${workspace}`);
        const existing = await trx
          .selectFrom('mcp_catalog')
          .selectAll()
          .where('workspace_id', '=', workspace)
          .execute();
        const rows = new Map(existing.map((row) => [`${row.kind}:${row.key}`, row]));
        const result: McpCatalogSyncResult = { added: [], updated: [], removed: [] };
        const wanted = new Set<string>();
        for (const entry of entries) {
          const id = `${entry.kind}:${entry.key}`;
          wanted.add(id);
          const row = rows.get(id);
          const values = {
            name: entry.name,
            description: entry.description ?? null,
            definition: entry.definitionJson,
            agents: JSON.stringify([...entry.agents].sort()),
            origin: input.origin,
          };
          if (row === undefined) {
            await trx
              .insertInto('mcp_catalog')
              .values({
                workspace_id: workspace,
                kind: entry.kind,
                key: entry.key,
                source: 'config',
                created_at: now,
                updated_at: now,
                ...values,
              })
              .execute();
            result.added.push(id);
            continue;
          }
          if (row.origin !== input.origin) {
            throw new StoreValidationError(
              'entries',
              `The ${entry.kind.replace('_', ' ')} '${entry.key}' is defined by ${row.origin ?? 'another source'}; remove it there first.`,
            );
          }
          if (
            row.name === values.name &&
            row.description === values.description &&
            row.definition === values.definition &&
            row.agents === values.agents
          ) {
            continue;
          }
          await trx
            .updateTable('mcp_catalog')
            .set({ ...values, updated_at: now })
            .where('workspace_id', '=', workspace)
            .where('kind', '=', entry.kind)
            .where('key', '=', entry.key)
            .execute();
          result.updated.push(id);
        }
        for (const [id, row] of rows) {
          if (wanted.has(id) || row.origin !== input.origin) continue;
          await trx
            .deleteFrom('mcp_catalog')
            .where('workspace_id', '=', workspace)
            .where('kind', '=', row.kind)
            .where('key', '=', row.key)
            .execute();
          result.removed.push(id);
        }
        // The MCP views refresh on tool changes of the workspace; a catalog change is one for them.
        if (result.added.length + result.updated.length + result.removed.length > 0) {
          changes.push({ workspaceId: workspace, kind: 'tool' });
        }
        return result;
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }
}

function checkEntries(
  input: McpCatalogSyncInput,
): Array<McpCatalogSyncInput['entries'][number] & { definitionJson: string }> {
  if (typeof input?.origin !== 'string' || input.origin.length === 0 || input.origin.length > 1000) {
    throw new StoreValidationError('origin', 'origin must be a non-empty string of at most 1000 characters.');
  }
  if (!Array.isArray(input.entries) || input.entries.length > MAX_ENTRIES) {
    throw new StoreValidationError('entries', `entries must be a list of at most ${MAX_ENTRIES}.`);
  }
  const seen = new Set<string>();
  return input.entries.map((entry, index) => {
    if (!KINDS.includes(entry.kind)) {
      throw new StoreValidationError(
        'entries',
        `entries[${index}].kind must be one of ${KINDS.join(', ')}, got '${String(entry.kind)}'.`,
      );
    }
    if (typeof entry.key !== 'string' || entry.key.length === 0 || entry.key.length > 2048) {
      throw new StoreValidationError('entries', `entries[${index}].key must be 1 to 2048 characters.`);
    }
    const id = `${entry.kind}:${entry.key}`;
    if (seen.has(id))
      throw new StoreValidationError('entries', `entries repeat the ${entry.kind.replace('_', ' ')} '${entry.key}'.`);
    seen.add(id);
    const definitionJson = JSON.stringify(entry.definition);
    if (new TextEncoder().encode(definitionJson).length > MAX_DEFINITION_BYTES) {
      throw new StoreValidationError(
        'entries',
        `The definition of '${entry.key}' is more than ${MAX_DEFINITION_BYTES} bytes of JSON.`,
      );
    }
    return { ...entry, definitionJson };
  });
}

function recordOf(row: Selectable<McpCatalogTable>): McpCatalogRecord {
  return {
    workspaceId: row.workspace_id,
    kind: row.kind as McpCatalogKind,
    key: row.key,
    name: row.name,
    description: row.description,
    definition: JSON.parse(row.definition) as Record<string, unknown>,
    agents: JSON.parse(row.agents) as string[],
    source: row.source,
    origin: row.origin,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
  };
}
