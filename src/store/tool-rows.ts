import { createHash } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { canonicalJson } from '../core/approvals.js';
import { describeValue, TASK_SUPPORT } from '../core/define-tool.js';
import type { Database, ToolsTable } from './database.js';
import { toolRecordOf, workspaceToolKey } from './row-mapping.js';
import type { StoreContext } from './store-context.js';
import type { ToolRecord } from './store-records.js';
import {
  isPlainObject,
  optionalText,
  requireText,
  STORE_LIMITS,
  serializeInputExamples,
  serializeJsonObject,
  serializeTags,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { BuiltinToolSpec } from './toolshed-store.js';

/**
 * The tools a workspace can see: the global ones and its own. Every tool read goes through this.
 *
 * @example
 * ```ts
 * const row = await visibleTools(db, 'acme').where('tools.id', '=', 'read_file').executeTakeFirst();
 * ```
 */
export function visibleTools(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('tools')
    .selectAll('tools')
    .where((eb) =>
      eb.or([
        eb.and([eb('tools.workspace_id', 'is', null), notHiddenIn(eb, workspaceId)]),
        eb('tools.workspace_id', '=', workspaceId),
      ]),
    );
}

/** A global tool the workspace has not hidden (`workspace_hidden_tools`). */
function notHiddenIn(eb: ExpressionBuilder<Database, 'tools'>, workspaceId: string) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('workspace_hidden_tools')
        .select('workspace_hidden_tools.tool_id')
        .where('workspace_hidden_tools.workspace_id', '=', workspaceId)
        .whereRef('workspace_hidden_tools.tool_id', '=', 'tools.id'),
    ),
  );
}

/**
 * The visible tool the workspace calls `id`: a global tool of that name or the workspace's own
 * (whose row is keyed by {@link workspaceToolKey}).
 *
 * @example
 * ```ts
 * const row = await visibleToolById(db, 'acme', 'my_company_api').executeTakeFirst();
 * ```
 */
export function visibleToolById(db: Kysely<Database>, workspaceId: string, id: string) {
  return db
    .selectFrom('tools')
    .selectAll('tools')
    .where((eb) =>
      eb.or([
        eb.and([eb('tools.workspace_id', 'is', null), eb('tools.id', '=', id), notHiddenIn(eb, workspaceId)]),
        eb.and([eb('tools.workspace_id', '=', workspaceId), eb('tools.id', '=', workspaceToolKey(workspaceId, id))]),
      ]),
    );
}

/**
 * Sort tool records by the id clients see (the SQL order of the row keys differs for workspace tools).
 *
 * @example
 * ```ts
 * sortById(records, (tool) => tool.id);
 * ```
 */
export function sortById<T>(records: T[], idOf: (record: T) => string): T[] {
  return records.sort((left, right) => {
    const a = idOf(left);
    const b = idOf(right);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/**
 * SHA-256 (hex) of what a tool row is built from: its definition columns, not its id, dates or source.
 *
 * @example
 * ```ts
 * definitionHash({ name: 'echo', description: 'Echo.', parameters_schema: '{"type":"object"}' });
 * ```
 */
export function definitionHash(row: Partial<Record<keyof ToolsTable, unknown>>): string {
  const {
    name,
    description,
    parameters_schema,
    handler_key,
    category,
    when_to_use,
    annotations,
    requires,
    config,
    tags,
    input_examples,
    task_support,
  } = row;
  const definition = {
    name,
    description,
    parameters_schema,
    handler_key,
    category,
    when_to_use,
    annotations,
    requires,
    config,
    tags: tags ?? '[]',
    // Only when present, so rows without examples keep the hash they had before the column existed.
    ...(input_examples === undefined || input_examples === null ? {} : { input_examples }),
    ...(task_support === undefined || task_support === null ? {} : { task_support }),
  };
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/**
 * A parameters schema as the `parameters_schema` column holds it: a JSON object schema of `type: object`,
 * at most {@link STORE_LIMITS}.schemaBytes.
 *
 * @example
 * ```ts
 * serializeSchema({ type: 'object', properties: {} }, 'parametersSchema'); // '{"type":"object","properties":{}}'
 * ```
 */
export function serializeSchema(value: unknown, field: string): string {
  if (!isPlainObject(value) || value.type !== 'object') {
    throw new StoreValidationError(field, `${field} must be a JSON Schema object with type "object".`);
  }
  return serializeJsonObject(value, field, STORE_LIMITS.schemaBytes) as string;
}

/**
 * The workspace's default tool set, sorted by id: the tools it chose (`workspace_default_tools`), else
 * the store's `defaultTools` option, else every tool the workspace sees.
 *
 * @example
 * ```ts
 * const tools = await defaultToolRecords(context, 'acme');
 * ```
 */
export async function defaultToolRecords(context: StoreContext, workspaceId: string): Promise<ToolRecord[]> {
  const db = context.dialect.db;
  const workspace = await db
    .selectFrom('workspaces')
    .select('custom_default_tools')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  let rows: Awaited<ReturnType<ReturnType<typeof visibleTools>['execute']>>;
  if (workspace !== undefined && Number(workspace.custom_default_tools) === 1) {
    rows = await visibleTools(db, workspaceId)
      .where('tools.id', 'in', (eb) =>
        eb
          .selectFrom('workspace_default_tools')
          .select('workspace_default_tools.tool_id')
          .where('workspace_default_tools.workspace_id', '=', workspaceId),
      )
      .execute();
  } else {
    const configured = context.options.defaultTools;
    if (configured !== undefined && configured.length === 0) return [];
    const keys =
      configured === undefined ? [] : [...configured, ...configured.map((id) => workspaceToolKey(workspaceId, id))];
    rows = await visibleTools(db, workspaceId)
      .$if(configured !== undefined, (query) => query.where('tools.id', 'in', keys))
      .execute();
  }
  return sortById(rows.map(toolRecordOf), (tool) => tool.id);
}

/**
 * A tool's `execution` as the `task_support` column holds it: its `taskSupport`, or `null` when it
 * declares none. Throws {@link StoreValidationError} naming `field` for anything else.
 *
 * @example
 * ```ts
 * taskSupportColumn({ taskSupport: 'optional' }, 'execution'); // 'optional'
 * ```
 */
export function taskSupportColumn(execution: unknown, field: string): string | null {
  if (execution === undefined || execution === null) return null;
  if (!isPlainObject(execution)) {
    throw new StoreValidationError(field, `${field} must be an object such as { taskSupport: 'optional' }.`);
  }
  const support = execution.taskSupport;
  if (support === undefined) return null;
  if (typeof support !== 'string' || !(TASK_SUPPORT as readonly string[]).includes(support)) {
    throw new StoreValidationError(
      `${field}.taskSupport`,
      `${field}.taskSupport must be 'forbidden', 'optional' or 'required', got ${describeValue(support)}.`,
    );
  }
  return support;
}

/** The parts of a tool spec a row keeps as its definition columns. */
export type SpecDefinition = Omit<BuiltinToolSpec, 'annotations' | 'requires'> &
  Partial<Pick<BuiltinToolSpec, 'annotations' | 'requires'>>;

/**
 * The definition columns of a row built from a spec (a built-in's or a configuration's tool), each
 * checked against the store's limits, named `<id>.<field>` in errors.
 *
 * @example
 * ```ts
 * specColumns({ name: 'echo', description: 'Echo.', category: 'text', tags: [], inputSchema: { type: 'object' } }, 'echo');
 * ```
 */
export function specColumns(spec: SpecDefinition, id: string) {
  return {
    name: spec.title === undefined ? id : requireText(spec.title, `${id}.title`, STORE_LIMITS.nameChars),
    description: requireText(spec.description, `${id}.description`, STORE_LIMITS.textChars),
    parameters_schema: serializeSchema(spec.inputSchema, `${id}.inputSchema`),
    category: requireText(spec.category ?? 'general', `${id}.category`, STORE_LIMITS.nameChars),
    when_to_use: optionalText(spec.whenToUse, `${id}.whenToUse`, STORE_LIMITS.textChars),
    annotations: serializeJsonObject({ ...spec.annotations }, `${id}.annotations`, STORE_LIMITS.configBytes) ?? '{}',
    requires: serializeJsonObject({ ...spec.requires }, `${id}.requires`, STORE_LIMITS.configBytes) ?? '{}',
    tags: serializeTags(spec.tags, `${id}.tags`),
    input_examples: serializeInputExamples(spec.inputExamples, `${id}.inputExamples`),
    task_support: taskSupportColumn(spec.execution, `${id}.execution`),
  };
}
