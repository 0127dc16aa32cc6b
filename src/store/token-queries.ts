import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readCachesOf, writeDropping } from './read-cache.js';
import { apiTokenRecordOf, nowIso } from './row-mapping.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import type { ApiTokenRecord, CreatedApiToken, TokenIdentity } from './store-records.js';
import { isPlainObject, isWellFormedId, requireId, requireText, STORE_LIMITS } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreTokens } from './toolshed-store.js';

// `tsk_` + the token id (32 hex digits) + `_` + the secret (32 random bytes, base64url). The id lets
// `verify` find the row without an index over anything derived from the secret.
const TOKEN_PATTERN = /^tsk_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/;

/**
 * The `api_tokens` part of a store: tokens are random, shown once, and stored as SHA-256 hashes.
 *
 * @example
 * ```ts
 * const { token } = await store.tokens.create('acme', { name: 'ci' });
 * await store.tokens.verify(token); // { tokenId: 'tok_...', workspaceId: 'acme' }
 * ```
 */
export class TokenQueries implements StoreTokens {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async create(workspaceId: string, input: { name?: string } = {}): Promise<CreatedApiToken> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(input)) throw new StoreValidationError('input', 'Token options must be an object.');
    const name = input.name === undefined ? 'token' : requireText(input.name, 'name', STORE_LIMITS.nameChars);
    const hex = randomBytes(16).toString('hex');
    const token = `tsk_${hex}_${randomBytes(32).toString('base64url')}`;
    const record: ApiTokenRecord = {
      id: `tok_${hex}`,
      workspaceId: workspace,
      name,
      createdAt: nowIso(),
      revokedAt: null,
    };
    try {
      await this.#context.write((trx) =>
        trx
          .insertInto('api_tokens')
          .values({
            id: record.id,
            workspace_id: workspace,
            token_hash: sha256Hex(token),
            name,
            created_at: record.createdAt,
          })
          .execute(),
      );
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
    return { ...record, token };
  }

  async verify(token: string): Promise<TokenIdentity | undefined> {
    if (typeof token !== 'string') return undefined;
    const match = TOKEN_PATTERN.exec(token);
    if (match === null) return undefined;
    const presentedHex = sha256Hex(token);
    // Every API request verifies its token: a success is kept briefly under the token's hash (the
    // plaintext is never kept); failures are not, so guessing always reaches the database.
    const identity = await readCachesOf(this.#context).tokens.get(presentedHex, async () => {
      const presented = Buffer.from(presentedHex, 'hex');
      const row = await this.#context.dialect.db
        .selectFrom('api_tokens')
        .select(['id', 'workspace_id', 'token_hash', 'revoked_at'])
        .where('id', '=', `tok_${match[1]}`)
        .executeTakeFirst();
      // Compare even when there is no row, so the time taken does not depend on whether the id exists.
      const stored = row === undefined ? Buffer.alloc(presented.length) : Buffer.from(row.token_hash, 'hex');
      const equal = stored.length === presented.length && timingSafeEqual(stored, presented);
      if (row === undefined || !equal || row.revoked_at !== null) return undefined;
      return { tokenId: row.id, workspaceId: row.workspace_id };
    });
    return identity === undefined ? undefined : { ...identity };
  }

  async revoke(workspaceId: string, tokenId: string): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !isWellFormedId(tokenId)) return false;
    const drop = () => readCachesOf(this.#context).tokens.invalidate((_key, identity) => identity?.tokenId === tokenId);
    return writeDropping(this.#context, drop, async (trx, changes) => {
      const result = await trx
        .updateTable('api_tokens')
        .set({ revoked_at: nowIso() })
        .where('id', '=', tokenId)
        .where('workspace_id', '=', workspaceId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const revoked = result.numUpdatedRows > 0n;
      // Other server processes drop the token from their read caches when they hear of it.
      if (revoked) changes.push({ workspaceId, kind: 'token' });
      return revoked;
    });
  }

  async list(workspaceId: string): Promise<ApiTokenRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('api_tokens')
      .select(['id', 'workspace_id', 'name', 'created_at', 'revoked_at'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(apiTokenRecordOf);
  }
}

function sha256Hex(text: string): string {
  // The one-shot form: about a sixth of the time of createHash().update().digest() for a token.
  return hash('sha256', text, 'hex');
}
