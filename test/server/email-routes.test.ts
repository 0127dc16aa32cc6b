import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import { EmailStore } from '../../src/emails/email-store.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

function email(id: number, inbox: string): EmailRecord {
  return {
    message_id: `<${id}.routes@example.com>`,
    inbox,
    subject: `Note ${id}`,
    sender: 'ann@example.com',
    recipients: [inbox],
    date: '2001-05-14T09:30:00.000Z',
    body: `Gas forecast number ${id}.`,
  };
}

/** Three inboxes: 5, 2 and 2 emails; the two of 2 were stored in the reverse of their names' order. */
const CORPUS = [
  ...Array.from({ length: 2 }, (_, index) => email(10 + index, 'zoe@example.com')),
  ...Array.from({ length: 5 }, (_, index) => email(20 + index, 'jeff@example.com')),
  ...Array.from({ length: 2 }, (_, index) => email(30 + index, 'amy@example.com')),
];

const LISTED = [
  { inbox: 'jeff@example.com', count: 5 },
  { inbox: 'amy@example.com', count: 2 },
  { inbox: 'zoe@example.com', count: 2 },
];

/** `GET /api/emails/inboxes` on one store. */
function defineEmailRouteCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let app: FastifyInstance;
  let headers: Record<string, string>;
  let otherHeaders: Record<string, string>;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    app = createServer({ store, builtins: false, mcp: false, webCatalog: false });
    await app.ready();
    for (const id of ['mail', 'other']) {
      const workspace = await store.workspaces.create({ id, name: id });
      const { token } = await store.tokens.create(workspace.id);
      const sent = { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id };
      if (id === 'mail') headers = sent;
      else otherHeaders = sent;
    }
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
  }, 30_000);

  const get = (url: string, sent = headers) => app.inject({ method: 'GET', url, headers: sent });

  it('answers an empty list before any email is stored', async () => {
    const response = await get('/api/emails/inboxes');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ inboxes: [], total: 0 });
  });

  it('lists the inboxes with their counts, largest first and then by name', async () => {
    await new EmailStore(store).insertBatch(CORPUS);
    const response = await get('/api/emails/inboxes');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ inboxes: LISTED, total: 3 });
    expect((await get('/api/emails/inboxes?limit=2')).json()).toEqual({ inboxes: LISTED.slice(0, 2), total: 3 });
    expect((await get('/api/emails/inboxes?limit=200')).json()).toEqual({ inboxes: LISTED, total: 3 });
  });

  it('shows every workspace the same corpus, the one email_search reads', async () => {
    expect((await get('/api/emails/inboxes', otherHeaders)).json()).toEqual({ inboxes: LISTED, total: 3 });
  });

  it('needs a token of the workspace named', async () => {
    const none = await get('/api/emails/inboxes', { 'x-workspace-id': 'mail' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const crossed = await get('/api/emails/inboxes', { ...otherHeaders, 'x-workspace-id': 'mail' });
    expect(crossed.statusCode).toBe(403);
    expect(crossed.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(none.body).not.toContain('jeff@example.com');
    expect(crossed.body).not.toContain('jeff@example.com');
  });

  it("refuses a 'limit' that is not a whole number from 1 to 200, naming it", async () => {
    const cases: Array<[string, string]> = [
      ['limit=0', '"0"'],
      ['limit=201', '"201"'],
      ['limit=-1', '"-1"'],
      ['limit=1.5', '"1.5"'],
      ['limit=1e2', '"1e2"'],
      ['limit=0x10', '"0x10"'],
      ['limit=abc', '"abc"'],
      ['limit=', '""'],
      ['limit=%205', '" 5"'],
      ['limit=%00', '"\\u0000"'],
      [`limit=${'9'.repeat(5000)}`, `"${'9'.repeat(57)}..."`],
      ['limit=1&limit=2', 'an array'],
      ['limit=%27%3B%20DROP%20TABLE%20emails%3B%20--', `"'; DROP TABLE emails; --"`],
    ];
    for (const [query, shown] of cases) {
      const response = await get(`/api/emails/inboxes?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: `'limit' must be a whole number from 1 to 200, got ${shown}.`,
          details: { field: 'limit' },
        },
      });
    }
    const misspelt = await get('/api/emails/inboxes?limt=1');
    expect(misspelt.statusCode).toBe(400);
    expect(misspelt.json()).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: "Unknown query parameter 'limt'; did you mean 'limit'? Allowed: limit.",
        details: { field: 'limt' },
      },
    });
    // Refused requests change nothing: the corpus is as it was.
    expect(await new EmailStore(store).count()).toBe(CORPUS.length);
    expect((await get('/api/emails/inboxes')).json()).toEqual({ inboxes: LISTED, total: 3 });
  });

  it('has no route for other methods', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/emails/inboxes', headers, payload: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route POST /api/emails/inboxes.' } });
  });
}

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`GET /api/emails/inboxes on ${harness.dialect}`, () => {
    defineEmailRouteCases(harness);
  });
}
