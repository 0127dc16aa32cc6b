import { describeValue } from '../core/define-tool.js';
import { nowIso, toIsoTimestamp } from './row-mapping.js';
import { openSecret, sealSecret } from './secret-cipher.js';
import { SECRET_KEY_ENV, type SecretKeyring } from './secret-key.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { StoreError } from './store-error.js';
import type { SecretRecord, SetSecretResult } from './store-records.js';
import { isWellFormedId, requireId, SECRET_NAME_PATTERN, STORE_LIMITS } from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreSecrets } from './toolshed-store.js';

/**
 * The `secrets` part of a store: each workspace's named secrets, encrypted with AES-256-GCM under the
 * store's key. Every value is bound to its workspace and name, so a value copied to another row does
 * not decrypt; listings never read values.
 *
 * @example
 * ```ts
 * const secrets = new SecretQueries(context, new SecretKeyring({ kind: 'ephemeral' }));
 * await secrets.set('acme', 'COMPANY_API_TOKEN', 'tok_live_123');
 * await secrets.reveal('acme', 'COMPANY_API_TOKEN'); // 'tok_live_123'
 * ```
 */
export class SecretQueries implements StoreSecrets {
  readonly #context: StoreContext;
  readonly #keys: SecretKeyring;

  constructor(context: StoreContext, keys: SecretKeyring) {
    this.#context = context;
    this.#keys = keys;
  }

  async set(workspaceId: string, name: string, value: string): Promise<SetSecretResult> {
    const workspace = requireId(workspaceId, 'workspaceId');
    const secretName = requireSecretName(name);
    const plaintext = requireSecretValue(value);
    // Encrypted before the transaction, which may run more than once.
    const sealed = sealSecret(this.#keys.get({ create: true }), plaintext, sealContext(workspace, secretName));
    const now = nowIso();
    try {
      return await this.#context.write(async (trx) => {
        await this.#context.dialect.lock(trx, `secrets:${workspace}`);
        const existing = await trx
          .selectFrom('secrets')
          .select('created_at')
          .where('workspace_id', '=', workspace)
          .where('name', '=', secretName)
          .executeTakeFirst();
        if (existing === undefined) {
          await trx
            .insertInto('secrets')
            .values({
              workspace_id: workspace,
              name: secretName,
              value_encrypted: sealed,
              created_at: now,
              updated_at: now,
            })
            .execute();
          return { name: secretName, createdAt: now, updatedAt: now, created: true };
        }
        await trx
          .updateTable('secrets')
          .set({ value_encrypted: sealed, updated_at: now })
          .where('workspace_id', '=', workspace)
          .where('name', '=', secretName)
          .execute();
        return { name: secretName, createdAt: toIsoTimestamp(existing.created_at), updatedAt: now, created: false };
      });
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspace);
    }
  }

  async list(workspaceId: string): Promise<SecretRecord[]> {
    if (!isWellFormedId(workspaceId)) return [];
    const rows = await this.#context.dialect.db
      .selectFrom('secrets')
      .select(['name', 'created_at', 'updated_at'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('name')
      .execute();
    return rows.map((row) => ({
      name: row.name,
      createdAt: toIsoTimestamp(row.created_at),
      updatedAt: toIsoTimestamp(row.updated_at),
    }));
  }

  async delete(workspaceId: string, name: string): Promise<boolean> {
    if (!isWellFormedId(workspaceId) || !isSecretName(name)) return false;
    const result = await this.#context.write((trx) =>
      trx.deleteFrom('secrets').where('workspace_id', '=', workspaceId).where('name', '=', name).executeTakeFirst(),
    );
    return result.numDeletedRows > 0n;
  }

  async reveal(workspaceId: string, name: string): Promise<string | undefined> {
    if (!isWellFormedId(workspaceId) || !isSecretName(name)) return undefined;
    const row = await this.#context.dialect.db
      .selectFrom('secrets')
      .select('value_encrypted')
      .where('workspace_id', '=', workspaceId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const key = this.#keys.get({ create: false });
    if (key === undefined) {
      throw new StoreError(
        'SECRET_KEY',
        `Secret '${name}' cannot be decrypted: ${this.#keys.describe()} is missing. Restore it (or set ${SECRET_KEY_ENV} to the key the secret was stored with), or store the secret again.`,
      );
    }
    const opened = openSecret(key, row.value_encrypted, sealContext(workspaceId, name));
    if (opened.ok) return opened.value;
    switch (opened.reason) {
      case 'other-key':
        throw new StoreError(
          'SECRET_KEY',
          `Secret '${name}' was stored with another key than ${this.#keys.describe()}; use the key it was stored with, or store the secret again.`,
        );
      case 'damaged':
        throw new StoreError(
          'SECRET_KEY',
          `Secret '${name}' does not decrypt with ${this.#keys.describe()}: its stored value is damaged; store the secret again.`,
        );
      default: {
        const unreachable: never = opened;
        return unreachable;
      }
    }
  }
}

/**
 * Whether `value` is a well-formed secret name (`^[A-Za-z_][A-Za-z0-9_]{0,127}$`).
 *
 * @example
 * ```ts
 * isSecretName('COMPANY_API_TOKEN'); // true
 * isSecretName('1PASSWORD'); // false
 * ```
 */
export function isSecretName(value: unknown): value is string {
  return typeof value === 'string' && SECRET_NAME_PATTERN.test(value);
}

/**
 * `value` as a secret name, or a {@link StoreValidationError} (field `name`) quoting it.
 *
 * @example
 * ```ts
 * requireSecretName('COMPANY_API_TOKEN'); // 'COMPANY_API_TOKEN'
 * requireSecretName('my-token'); // throws StoreValidationError
 * ```
 */
export function requireSecretName(value: unknown): string {
  if (isSecretName(value)) return value;
  throw new StoreValidationError(
    'name',
    `Secret name ${describeValue(value)} is invalid: use 1-128 letters, digits and underscores, not starting with a digit (like an environment variable name).`,
  );
}

/**
 * `value` as a secret value: a non-empty string of at most `STORE_LIMITS.secretValueBytes` bytes of
 * UTF-8, or a {@link StoreValidationError} (field `value`) that never quotes the value.
 *
 * @example
 * ```ts
 * requireSecretValue('tok_live_123'); // 'tok_live_123'
 * requireSecretValue(''); // throws StoreValidationError
 * ```
 */
export function requireSecretValue(value: unknown): string {
  if (typeof value !== 'string') {
    throw new StoreValidationError('value', `A secret's value must be a string, got ${kindOf(value)}.`);
  }
  if (value === '') throw new StoreValidationError('value', "A secret's value must not be empty.");
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > STORE_LIMITS.secretValueBytes) {
    throw new StoreValidationError(
      'value',
      `A secret's value is ${bytes} bytes; the limit is ${STORE_LIMITS.secretValueBytes} bytes.`,
    );
  }
  return value;
}

// What a refused value was, without showing it: a wrongly typed value may still be a real credential.
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function sealContext(workspaceId: string, name: string): string {
  return `toolshed secret\u0000${workspaceId}\u0000${name}`;
}
