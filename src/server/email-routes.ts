import type { FastifyInstance } from 'fastify';
import { describeValue } from '../core/define-tool.js';
import { DEFAULT_EMAIL_INBOXES_LIMIT, MAX_EMAIL_INBOXES_LIMIT } from '../emails/email-limits.js';
import { EmailStore } from '../emails/email-store.js';
import { refuseUnknownQuery, validationError } from './api-error.js';
import type { ServerContext } from './server-context.js';

/**
 * `GET /api/emails/inboxes?limit=` — the inboxes of the store's email corpus with their number of
 * emails, largest first (ties by name): `{inboxes: [{inbox, count}], total}`, `total` counting every
 * inbox that holds emails. `limit` is a whole number from 1 to 200 (default 20); anything else is 400
 * `VALIDATION_ERROR` naming `limit`. The corpus is one for the whole service (what `email_search`
 * reads), so every workspace sees the same list; the route still needs a workspace's token, as every
 * `/api` route does.
 *
 * @example
 * ```ts
 * registerEmailRoutes(api, context);
 * const response = await app.inject({ method: 'GET', url: '/api/emails/inboxes?limit=3', headers });
 * ```
 */
export function registerEmailRoutes(app: FastifyInstance, context: ServerContext): void {
  const emails = new EmailStore(context.store);

  app.get<{ Querystring: Record<string, unknown> }>('/api/emails/inboxes', async (request) => {
    refuseUnknownQuery(request.query, ['limit']);
    const { limit } = request.query;
    let size = DEFAULT_EMAIL_INBOXES_LIMIT;
    if (limit !== undefined) {
      size = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Number(limit) : Number.NaN;
      if (!(size >= 1 && size <= MAX_EMAIL_INBOXES_LIMIT)) {
        throw validationError(
          'limit',
          `'limit' must be a whole number from 1 to ${MAX_EMAIL_INBOXES_LIMIT}, got ${describeValue(limit)}.`,
        );
      }
    }
    return emails.inboxes(size);
  });
}
