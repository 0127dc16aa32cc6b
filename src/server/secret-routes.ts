import type { FastifyInstance } from 'fastify';
import { isPlainObject } from '../core/json-schema.js';
import { requireSecretName, type SecretRecord, StoreError } from '../store/index.js';
import { ApiError, notFound, validationError } from './api-error.js';
import type { ServerContext } from './server-context.js';

/**
 * A workspace secret as the API shows it: its name and dates, never its value.
 *
 * @example
 * ```ts
 * const view: SecretView = { name: 'CRM_TOKEN', created_at: '2025-12-10T10:00:00.000Z', updated_at: '2025-12-10T10:00:00.000Z' };
 * ```
 */
export interface SecretView {
  name: string;
  created_at: string;
  updated_at: string;
}

/**
 * The API view of a secret record.
 *
 * @example
 * ```ts
 * (await store.secrets.list('acme')).map(secretView); // [{ name: 'COMPANY_API_TOKEN', created_at, updated_at }]
 * ```
 */
export function secretView(secret: SecretRecord): SecretView {
  return { name: secret.name, created_at: secret.createdAt, updated_at: secret.updatedAt };
}

/**
 * The workspace's secrets, which its REST tools reference as `auth: {type: bearer, secret: NAME}`:
 * `GET /api/secrets` (names and dates, never values), `PUT /api/secrets/:name` with `{"value": "..."}`
 * (201 when new, 200 when replaced; the answer never holds the value) and `DELETE /api/secrets/:name`
 * (204, or 404 when the workspace has no such secret). A name is like an environment variable's
 * (`^[A-Za-z_][A-Za-z0-9_]{0,127}$`); a value a non-empty string of at most 8 KiB. Anything else is
 * 400 `VALIDATION_ERROR` naming the field, with nothing written. When the server has no usable key
 * (PostgreSQL without `TOOLSHED_SECRET_KEY`) the answer is 503 `UNAVAILABLE` saying so.
 *
 * @example
 * ```ts
 * registerSecretRoutes(app, context);
 * await app.inject({ method: 'PUT', url: '/api/secrets/COMPANY_API_TOKEN', headers, payload: { value: 'tok_live_123' } });
 * ```
 */
export function registerSecretRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get('/api/secrets', async (request) => {
    const secrets = await store.secrets.list(request.workspaceId);
    return { secrets: secrets.map(secretView) };
  });

  // `*` rather than `:name`: Fastify answers a parameter over 100 characters itself, and names go to 128.
  app.put<{ Params: { '*': string } }>('/api/secrets/*', async (request, reply) => {
    const name = requireSecretName(request.params['*']);
    const body = request.body;
    // A body that is not an object is described by its kind only: it may be the value itself.
    if (!isPlainObject(body)) {
      throw validationError(
        'body',
        `The request body must be a JSON object like {"value": "..."}, got ${kindOf(body)}.`,
      );
    }
    for (const key of Object.keys(body)) {
      if (key !== 'value') throw validationError(key, `Unknown field '${key}'; the body has one field, 'value'.`);
    }
    if (!Object.hasOwn(body, 'value')) {
      throw validationError('value', "'value' is required: the secret's value, as a string.");
    }
    const stored = await withSecretKey(context, () =>
      store.secrets.set(request.workspaceId, name, body.value as string),
    );
    return reply.code(stored.created ? 201 : 200).send(secretView(stored));
  });

  app.delete<{ Params: { '*': string } }>('/api/secrets/*', async (request, reply) => {
    const name = requireSecretName(request.params['*']);
    if (!(await store.secrets.delete(request.workspaceId, name))) {
      throw notFound(`Secret '${name}' does not exist in this workspace.`);
    }
    return reply.code(204).send();
  });
}

/**
 * Run a secret write; a missing or unusable key is 503 with the store's message, every path in it cut
 * to its file name (the server's folders are none of a tenant's business), and the whole error goes to
 * the operator's log.
 */
async function withSecretKey<T>(context: ServerContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!StoreError.isInstance(error) || error.code !== 'SECRET_KEY') throw error;
    context.report(error);
    throw new ApiError(503, 'UNAVAILABLE', error.message.replace(/(?:\/[^\s'/]+)+\/([^\s'/]+)/g, '$1'));
  }
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
