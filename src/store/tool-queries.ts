import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import type { Database, ToolsTable } from './database.js';
import { cacheKey, readCachesOf, workspaceKeys, writeDropping } from './read-cache.js';
import { nowIso, toolRecordOf, workspaceToolKey } from './row-mapping.js';
import { SourceSyncQueries } from './source-sync-queries.js';
import { StoreConflictError } from './store-conflict-error.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { StoreNotFoundError } from './store-not-found-error.js';
import { StoreReadOnlyError } from './store-read-only-error.js';
import type { StoreChange, ToolRecord } from './store-records.js';
import {
  isPlainObject,
  isWellFormedId,
  optionalText,
  requireId,
  requireText,
  STORE_LIMITS,
  serializeInputExamples,
  serializeJsonObject,
  serializeTags,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import {
  definitionHash,
  serializeSchema,
  sortById,
  specColumns,
  taskSupportColumn,
  visibleToolById,
  visibleTools,
} from './tool-rows.js';
import type {
  BuiltinToolSpec,
  StoreTools,
  SyncToolsInput,
  ToolPatch,
  ToolSyncResult,
  UpsertBuiltinsOptions,
  UpsertBuiltinsResult,
  WorkspaceToolInput,
} from './toolshed-store.js';

/**
 * The `tools` part of a store: global built-ins (upserted from their specs at start) and workspace
 * tools (defined as data, such as REST tools).
 *
 * @example
 * ```ts
 * await store.tools.upsertBuiltins(createBuiltins());
 * const tools = await store.tools.list('acme', { category: 'filesystem' });
 * ```
 */
export class ToolQueries implements StoreTools {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async upsertBuiltins(
    specs: readonly BuiltinToolSpec[],
    options: UpsertBuiltinsOptions = {},
  ): Promise<UpsertBuiltinsResult> {
    if (!Array.isArray(specs)) throw new StoreValidationError('specs', 'upsertBuiltins needs an array of tool specs.');
    const handlerKey = options.handlerKey ?? ((spec: BuiltinToolSpec) => spec.name);
    const source = options.source ?? 'builtin';
    if (source !== 'builtin' && source !== 'module') {
      throw new StoreValidationError(
        'source',
        `Global tools are of source 'builtin' or 'module', got ${describeValue(source)}.`,
      );
    }
    const rows = new Map<string, BuiltinRow>();
    for (const spec of specs) {
      const row = { ...builtinRow(spec, handlerKey), source };
      if (rows.has(row.id)) throw new StoreValidationError('specs', `Built-in '${row.id}' is listed twice.`);
      rows.set(row.id, row);
    }
    const ids = [...rows.keys()];
    return this.#writeDroppingCaches(null, async (trx, changes) => {
      const result: UpsertBuiltinsResult = { upserted: [], unchanged: [], conflicts: [], removed: [] };
      const existing =
        ids.length === 0 ? [] : await trx.selectFrom('tools').selectAll().where('id', 'in', ids).execute();
      const byId = new Map(existing.map((row) => [row.id, row]));
      // A workspace tool keeps its id: a built-in of the same name would shadow it in that workspace.
      const shadowed =
        ids.length === 0
          ? []
          : await trx
              .selectFrom('tools')
              .select(sql<string>`substr(id, length(workspace_id) + 2)`.as('exposed_id'))
              .where('workspace_id', 'is not', null)
              .where(sql<string>`substr(id, length(workspace_id) + 2)`, 'in', ids)
              .execute();
      const taken = new Set(shadowed.map((row) => row.exposed_id));
      for (const row of rows.values()) {
        const current = byId.get(row.id);
        if (taken.has(row.id) || (current !== undefined && current.workspace_id !== null)) {
          result.conflicts.push(row.id);
          continue;
        }
        if (current !== undefined && sameBuiltin(current, row)) {
          result.unchanged.push(row.id);
          continue;
        }
        const written = await trx
          .insertInto('tools')
          .values({ ...row, created_at: nowIso(), updated_at: nowIso(), definition_hash: definitionHash(row) })
          .onConflict((conflict) =>
            conflict
              .column('id')
              .doUpdateSet((eb) => ({
                name: eb.ref('excluded.name'),
                description: eb.ref('excluded.description'),
                parameters_schema: eb.ref('excluded.parameters_schema'),
                handler_key: eb.ref('excluded.handler_key'),
                category: eb.ref('excluded.category'),
                when_to_use: eb.ref('excluded.when_to_use'),
                annotations: eb.ref('excluded.annotations'),
                requires: eb.ref('excluded.requires'),
                tags: eb.ref('excluded.tags'),
                input_examples: eb.ref('excluded.input_examples'),
                task_support: eb.ref('excluded.task_support'),
                definition_hash: eb.ref('excluded.definition_hash'),
                source: eb.ref('excluded.source'),
                updated_at: eb.ref('excluded.updated_at'),
              }))
              // A workspace tool that took the id in the meantime is left alone.
              .where('tools.workspace_id', 'is', null),
          )
          .returning('id')
          .executeTakeFirst();
        (written === undefined ? result.conflicts : result.upserted).push(row.id);
      }
      if (options.prune === true) {
        const removed = await trx
          .deleteFrom('tools')
          .where('workspace_id', 'is', null)
          .where('source', '=', source)
          .$if(ids.length > 0, (query) => query.where('id', 'not in', ids))
          .returning('id')
          .execute();
        result.removed = removed.map((row) => row.id).sort();
      }
      if (result.upserted.length > 0 || result.removed.length > 0) changes.push({ workspaceId: null, kind: 'tool' });
      return result;
    });
  }

  async createWorkspaceTool(workspaceId: string, input: WorkspaceToolInput): Promise<ToolRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(input)) throw new StoreValidationError('input', 'A workspace tool must be an object.');
    const id = requireId(input.id, 'id', TOOL_NAME_PATTERN);
    const row = {
      id: workspaceToolKey(workspace, id),
      workspace_id: workspace,
      name: input.name === undefined ? id : requireText(input.name, 'name', STORE_LIMITS.nameChars),
      description: requireText(input.description, 'description', STORE_LIMITS.textChars),
      parameters_schema: serializeSchema(input.parametersSchema, 'parametersSchema'),
      handler_key: requireText(input.handlerKey, 'handlerKey', STORE_LIMITS.nameChars),
      category:
        input.category === undefined ? 'general' : requireText(input.category, 'category', STORE_LIMITS.nameChars),
      created_at: nowIso(),
      when_to_use: optionalText(input.whenToUse, 'whenToUse', STORE_LIMITS.textChars),
      annotations: serializeJsonObject(input.annotations ?? {}, 'annotations', STORE_LIMITS.configBytes) ?? '{}',
      requires: serializeJsonObject(input.requires ?? {}, 'requires', STORE_LIMITS.configBytes) ?? '{}',
      config: serializeJsonObject(input.config, 'config', STORE_LIMITS.configBytes),
      tags: serializeTags(input.tags, 'tags'),
      input_examples: serializeInputExamples(input.inputExamples, 'inputExamples'),
      task_support: taskSupportColumn(input.execution, 'execution'),
      source: workspaceToolSource(input.source),
      origin: null,
      definition_hash: null as string | null,
      updated_at: nowIso(),
    } satisfies Insertable<ToolsTable>;
    row.definition_hash = definitionHash(row);
    let inserted: { id: string } | undefined;
    try {
      inserted = await this.#writeDroppingCaches(workspace, async (trx, changes) => {
        const global = await trx
          .selectFrom('tools')
          .select('id')
          .where('id', '=', id)
          .where('workspace_id', 'is', null)
          .executeTakeFirst();
        if (global !== undefined) return undefined;
        const written = await trx
          .insertInto('tools')
          .values(row)
          .onConflict((conflict) => conflict.doNothing())
          .returning('id')
          .executeTakeFirst();
        if (written !== undefined) changes.push({ workspaceId: workspace, kind: 'tool' });
        return written;
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
    if (inserted === undefined) {
      throw new StoreConflictError('tool', id, `Tool id '${id}' is already taken; choose another id.`);
    }
    return toolRecordOf(row);
  }

  sync(workspaceId: string, input: SyncToolsInput): Promise<ToolSyncResult> {
    return new SourceSyncQueries(this.#context).syncTools(workspaceId, input);
  }

  async get(workspaceId: string, id: string): Promise<ToolRecord | undefined> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(id, TOOL_NAME_PATTERN)) return undefined;
    const row = await visibleToolById(this.#context.dialect.db, workspaceId, id).executeTakeFirst();
    return row === undefined ? undefined : toolRecordOf(row);
  }

  async list(workspaceId: string, options: { category?: string } = {}): Promise<ToolRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    const category = options.category;
    if (category !== undefined && typeof category !== 'string') {
      throw new StoreValidationError('category', `category must be a string, got ${describeValue(category)}.`);
    }
    // Every tool call without an agent lists the workspace's tools: a hot read, kept briefly. A
    // category's list is kept apart from the whole list, the empty category's too.
    const part = category === undefined ? '' : `category:${category}`;
    const tools = await readCachesOf(this.#context).tools.get(cacheKey(workspaceId, part), async () => {
      const rows = await visibleTools(this.#context.dialect.db, workspaceId)
        .$if(category !== undefined, (query) => query.where('tools.category', '=', category as string))
        .execute();
      return sortById(rows.map(toolRecordOf), (tool) => tool.id);
    });
    return [...tools];
  }

  async update(workspaceId: string, id: string, patch: ToolPatch): Promise<ToolRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const values = toolPatchValues(patch);
    if (!isWellFormedId(id, TOOL_NAME_PATTERN)) throw toolNotFound(workspace, id);
    const rowLocks = this.#context.dialect.supportsRowLocks;
    return this.#writeDroppingCaches(workspace, async (trx, changes) => {
      const current = await visibleToolById(trx, workspace, id)
        .$if(rowLocks, (query) => query.forUpdate())
        .executeTakeFirst();
      if (current === undefined) throw toolNotFound(workspace, id);
      if (!isApiSource(current.source)) throw StoreReadOnlyError.forTool(id, current.source, current.origin);
      const next = { ...current, ...values };
      const hash = definitionHash(next);
      // The same definition again (a form saved unchanged) writes nothing and announces nothing.
      if (hash === current.definition_hash) return toolRecordOf(current);
      const updated = { ...next, definition_hash: hash, updated_at: nowIso() };
      await trx
        .updateTable('tools')
        .set({ ...values, definition_hash: hash, updated_at: updated.updated_at })
        .where('id', '=', current.id)
        .execute();
      changes.push({ workspaceId: workspace, kind: 'tool' });
      return toolRecordOf(updated);
    });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(id, TOOL_NAME_PATTERN)) return false;
    return this.#writeDroppingCaches(workspaceId, async (trx, changes) => {
      const current = await visibleToolById(trx, workspaceId, id).executeTakeFirst();
      if (current === undefined) return false;
      if (!isApiSource(current.source)) throw StoreReadOnlyError.forTool(id, current.source, current.origin);
      // Its attachments and default-set entries go with it (ON DELETE CASCADE).
      const result = await trx
        .deleteFrom('tools')
        .where('id', '=', workspaceToolKey(workspaceId, id))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      const deleted = result.numDeletedRows > 0n;
      if (deleted) changes.push({ workspaceId, kind: 'tool' });
      return deleted;
    });
  }

  /**
   * A write to tools that drops the cached tool lists and agents' tool lists it may change: the
   * workspace's (`null`: every workspace's, for global tools), before it commits (so change
   * listeners read the new rows) and again once it settled.
   */
  async #writeDroppingCaches<T>(
    workspaceId: string | null,
    work: (trx: Kysely<Database>, changes: StoreChange[]) => Promise<T>,
  ): Promise<T> {
    const drop = () => {
      const caches = readCachesOf(this.#context);
      const matches = workspaceId === null ? undefined : workspaceKeys(workspaceId);
      caches.tools.invalidate(matches);
      caches.attachments.invalidate(matches);
    };
    return writeDropping(this.#context, drop, async (trx, changes) => {
      const result = await work(trx, changes);
      return result;
    });
  }
}

type BuiltinRow = Omit<Insertable<ToolsTable>, 'created_at' | 'category' | 'annotations' | 'requires'> & {
  id: string;
  name: string;
  description: string;
  parameters_schema: string;
  handler_key: string;
  category: string;
  when_to_use: string | null;
  annotations: string;
  requires: string;
  tags: string;
  input_examples: string | null;
  task_support: string | null;
  workspace_id: null;
  source: 'builtin' | 'module';
};

function builtinRow(spec: BuiltinToolSpec, handlerKey: (spec: BuiltinToolSpec) => string): BuiltinRow {
  if (typeof spec !== 'object' || spec === null) {
    throw new StoreValidationError('specs', `A built-in spec must be an object, got ${describeValue(spec)}.`);
  }
  const id = requireId(spec.name, 'name', TOOL_NAME_PATTERN);
  return {
    id,
    workspace_id: null,
    ...specColumns(spec, id),
    handler_key: requireText(handlerKey(spec), `${id}.handlerKey`, STORE_LIMITS.nameChars),
    source: 'builtin',
  };
}

/** Whether the API owns a tool of this source (`api`, `code`): it may change and delete it. */
function isApiSource(source: string): boolean {
  return source === 'api' || source === 'code';
}

function toolNotFound(workspaceId: string, id: unknown): StoreNotFoundError {
  return new StoreNotFoundError(
    'tool',
    String(id),
    `Tool '${String(id)}' does not exist in workspace '${workspaceId}'.`,
  );
}

const PATCH_FIELDS: ReadonlyArray<keyof ToolPatch> = [
  'name',
  'description',
  'whenToUse',
  'category',
  'tags',
  'inputExamples',
  'annotations',
  'execution',
  'parametersSchema',
  'config',
];

/** The columns a {@link ToolPatch} sets, each checked as on creation. */
function toolPatchValues(patch: unknown) {
  if (!isPlainObject(patch)) {
    throw new StoreValidationError('patch', `A tool patch must be an object, got ${describeValue(patch)}.`);
  }
  for (const key of Object.keys(patch)) {
    if (!(PATCH_FIELDS as readonly string[]).includes(key)) {
      throw new StoreValidationError(
        key,
        `A tool patch cannot change '${key}'; it may change ${PATCH_FIELDS.join(', ')}.`,
      );
    }
  }
  const values: {
    name?: string;
    description?: string;
    when_to_use?: string | null;
    category?: string;
    tags?: string;
    input_examples?: string | null;
    annotations?: string;
    task_support?: string | null;
    parameters_schema?: string;
    config?: string | null;
  } = {};
  if (patch.name !== undefined) values.name = requireText(patch.name, 'name', STORE_LIMITS.nameChars);
  if (patch.description !== undefined) {
    values.description = requireText(patch.description, 'description', STORE_LIMITS.textChars);
  }
  if (patch.whenToUse !== undefined) {
    values.when_to_use = optionalText(patch.whenToUse, 'whenToUse', STORE_LIMITS.textChars);
  }
  if (patch.category !== undefined) {
    values.category = requireText(patch.category, 'category', STORE_LIMITS.nameChars);
  }
  if (patch.tags !== undefined) values.tags = serializeTags(patch.tags, 'tags');
  if (patch.inputExamples !== undefined)
    values.input_examples = serializeInputExamples(patch.inputExamples, 'inputExamples');
  if (patch.annotations !== undefined) {
    values.annotations = serializeJsonObject(patch.annotations ?? {}, 'annotations', STORE_LIMITS.configBytes) ?? '{}';
  }
  if (patch.execution !== undefined) values.task_support = taskSupportColumn(patch.execution, 'execution');
  if (patch.parametersSchema !== undefined) {
    values.parameters_schema = serializeSchema(patch.parametersSchema, 'parametersSchema');
  }
  if (patch.config !== undefined) {
    values.config = serializeJsonObject(patch.config, 'config', STORE_LIMITS.configBytes);
  }
  return values;
}

/** The source of a tool created through the API: `api` (default) or `code`. */
function workspaceToolSource(source: unknown): 'api' | 'code' {
  if (source === undefined || source === 'api' || source === 'code') return source ?? 'api';
  throw new StoreValidationError(
    'source',
    `A workspace tool's source must be 'api' or 'code', got ${describeValue(source)}.`,
  );
}

function sameBuiltin(existing: Selectable<ToolsTable>, row: BuiltinRow): boolean {
  return (
    existing.definition_hash !== null &&
    existing.source === row.source &&
    existing.name === row.name &&
    existing.description === row.description &&
    existing.parameters_schema === row.parameters_schema &&
    existing.handler_key === row.handler_key &&
    existing.category === row.category &&
    existing.when_to_use === row.when_to_use &&
    existing.annotations === row.annotations &&
    existing.requires === row.requires &&
    existing.tags === row.tags &&
    (existing.input_examples ?? null) === row.input_examples &&
    (existing.task_support ?? null) === row.task_support
  );
}
