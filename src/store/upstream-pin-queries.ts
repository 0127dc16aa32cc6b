import { describeValue } from '../core/define-tool.js';
import { nowIso, toIsoTimestamp } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import type { UpstreamPinRecord, UpstreamPinReview, UpstreamToolDefinition } from './store-records.js';
import { isWellFormedId, MCP_SERVER_NAME_PATTERN, requireId } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreUpstreamPins } from './toolshed-store.js';

/** Most characters of an upstream tool's name (the MCP specification allows 128). */
const MAX_TOOL_NAME_CHARS = 256;

/** Most bytes of one pinned definition's JSON text. */
const MAX_DEFINITION_BYTES = 1024 * 1024;

/** Most tools one review may carry. */
const MAX_REVIEWED_TOOLS = 10_000;

const HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The `upstream_pins` part of a store: the definitions of the tools MCP servers gave each workspace,
 * as first seen or last approved, and the changes waiting for approval.
 *
 * @example
 * ```ts
 * const pins = new UpstreamPinQueries(context);
 * const [review] = await pins.review('default', 'memory', [{ tool: 'read_graph', hash, definition }]);
 * review.status; // 'new' the first time, then 'pinned' — or 'changed' once the definition differs
 * ```
 */
export class UpstreamPinQueries implements StoreUpstreamPins {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async review(
    workspaceId: string,
    server: string,
    tools: readonly UpstreamToolDefinition[],
  ): Promise<UpstreamPinReview[]> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const serverName = requireServer(server);
    const given = requireDefinitions(tools);
    const now = nowIso();
    try {
      return await this.#context.write(async (trx) => {
        await this.#context.dialect.lock(trx, `upstream_pins:${workspace}:${serverName}`);
        const rows = await trx
          .selectFrom('upstream_pins')
          .selectAll()
          .where('workspace_id', '=', workspace)
          .where('server', '=', serverName)
          .execute();
        const pinned = new Map(rows.map((row) => [row.tool, row]));
        const reviews: UpstreamPinReview[] = [];
        for (const tool of given) {
          const row = pinned.get(tool.tool);
          if (row === undefined) {
            await trx
              .insertInto('upstream_pins')
              .values({
                workspace_id: workspace,
                server: serverName,
                tool: tool.tool,
                definition_hash: tool.hash,
                definition: tool.definition,
                approved_at: now,
              })
              .execute();
            reviews.push({ tool: tool.tool, status: 'new', pinned: { hash: tool.hash, definition: tool.definition } });
            continue;
          }
          const match = row.definition_hash === tool.hash;
          if (match ? row.pending_hash !== null : row.pending_hash !== tool.hash) {
            // Back to the approved definition: nothing is pending any more; a new change: it is.
            await trx
              .updateTable('upstream_pins')
              .set(
                match
                  ? { pending_hash: null, pending_definition: null, pending_since: null }
                  : { pending_hash: tool.hash, pending_definition: tool.definition, pending_since: now },
              )
              .where('workspace_id', '=', workspace)
              .where('server', '=', serverName)
              .where('tool', '=', tool.tool)
              .execute();
          }
          reviews.push({
            tool: tool.tool,
            status: match ? 'pinned' : 'changed',
            pinned: { hash: row.definition_hash, definition: row.definition },
          });
        }
        return reviews;
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }

  async list(workspaceId: string, server?: string): Promise<UpstreamPinRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    if (server !== undefined && !isWellFormedId(server, MCP_SERVER_NAME_PATTERN)) return [];
    let query = this.#context.dialect.db
      .selectFrom('upstream_pins')
      .selectAll()
      .where('workspace_id', '=', workspaceId);
    if (server !== undefined) query = query.where('server', '=', server);
    const rows = await query.orderBy('server').orderBy('tool').execute();
    return rows.map((row) => ({
      server: row.server,
      tool: row.tool,
      hash: row.definition_hash,
      definition: row.definition,
      approvedAt: toIsoTimestamp(row.approved_at),
      ...(row.pending_hash === null || row.pending_definition === null || row.pending_since === null
        ? {}
        : {
            pending: {
              hash: row.pending_hash,
              definition: row.pending_definition,
              since: toIsoTimestamp(row.pending_since),
            },
          }),
    }));
  }

  async approve(workspaceId: string, server: string, tool?: string): Promise<string[]> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const serverName = requireServer(server);
    const toolName = tool === undefined ? undefined : requireToolName(tool);
    const now = nowIso();
    return this.#context.write(async (trx) => {
      await this.#context.dialect.lock(trx, `upstream_pins:${workspace}:${serverName}`);
      let query = trx
        .selectFrom('upstream_pins')
        .select(['tool', 'pending_hash', 'pending_definition'])
        .where('workspace_id', '=', workspace)
        .where('server', '=', serverName)
        .where('pending_hash', 'is not', null);
      if (toolName !== undefined) query = query.where('tool', '=', toolName);
      const pending = await query.orderBy('tool').execute();
      for (const row of pending) {
        await trx
          .updateTable('upstream_pins')
          .set({
            definition_hash: row.pending_hash as string,
            definition: row.pending_definition as string,
            approved_at: now,
            pending_hash: null,
            pending_definition: null,
            pending_since: null,
          })
          .where('workspace_id', '=', workspace)
          .where('server', '=', serverName)
          .where('tool', '=', row.tool)
          .execute();
      }
      return pending.map((row) => row.tool);
    });
  }
}

function requireServer(value: unknown): string {
  if (isWellFormedId(value, MCP_SERVER_NAME_PATTERN)) return value;
  throw new StoreValidationError(
    'server',
    `server ${describeValue(value)} is invalid: use an MCP server name (a letter, then up to 31 letters, digits, '_' or '-').`,
  );
}

function requireToolName(value: unknown): string {
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_TOOL_NAME_CHARS) return value;
  throw new StoreValidationError(
    'tool',
    `tool ${describeValue(value)} is invalid: use the tool's name as its MCP server lists it (1-${MAX_TOOL_NAME_CHARS} characters).`,
  );
}

function requireDefinitions(tools: unknown): UpstreamToolDefinition[] {
  if (!Array.isArray(tools) || tools.length > MAX_REVIEWED_TOOLS) {
    throw new StoreValidationError('tools', `tools must be an array of at most ${MAX_REVIEWED_TOOLS} definitions.`);
  }
  const seen = new Set<string>();
  return tools.map((entry: unknown, index) => {
    const { tool, hash, definition } = (entry ?? {}) as Partial<UpstreamToolDefinition>;
    const name = requireToolName(tool);
    if (seen.has(name)) throw new StoreValidationError('tools', `tools[${index}]: tool '${name}' is listed twice.`);
    seen.add(name);
    if (typeof hash !== 'string' || !HASH_PATTERN.test(hash)) {
      throw new StoreValidationError('hash', `tools[${index}].hash must be a lowercase hex SHA-256 (64 characters).`);
    }
    if (typeof definition !== 'string' || Buffer.byteLength(definition, 'utf8') > MAX_DEFINITION_BYTES) {
      throw new StoreValidationError(
        'definition',
        `tools[${index}].definition must be JSON text of at most ${MAX_DEFINITION_BYTES} bytes.`,
      );
    }
    return { tool: name, hash, definition };
  });
}
