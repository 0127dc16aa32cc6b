import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import {
  createTestWorkspace,
  injectJson,
  postgresHarness,
  type ServerStoreHarness,
  sqliteHarness,
} from './server-harness.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

for (const harness of [sqliteHarness(), postgresHarness()] as ServerStoreHarness[]) {
  // One database for the file's cases on this dialect: each case has workspaces of its own.
  let store: ToolshedStore;
  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await harness.teardown();
  }, 60_000);

  describe(`the call log as an audit trail on ${harness.dialect}`, () => {
    let app: FastifyInstance;
    let base: string;
    let counter = 0;

    const echo = defineTool({
      name: 'echo',
      description: 'Echo a note.',
      input: z.object({ note: z.string(), n: z.number().optional() }),
      handler: ({ note }) => ({ note }),
    });
    const fail = defineTool({
      name: 'fail',
      description: 'Fail.',
      input: z.object({}),
      handler: () => {
        throw new Error('no');
      },
    });
    const approved = defineTool({
      name: 'approved_echo',
      description: 'Echo a note once a person approved it.',
      input: z.object({ note: z.string() }),
      requiresApproval: true,
      handler: ({ note }) => note,
    });

    beforeAll(async () => {
      app = createServer({ store, builtins: false, webCatalog: false, tools: [echo, fail, approved] });
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }, 60_000);

    afterAll(async () => {
      await app?.close();
    }, 60_000);

    const workspace = () => {
      counter += 1;
      return createTestWorkspace(store, `ws_audit_${counter}`, 'Audit');
    };

    const send = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown) =>
      injectJson(app, method, url, headers, body);

    it('logs who called what: token, agent, arguments digest, result size, and the approval', async () => {
      const acme = await workspace();
      const agent = `audit_agent_${counter}`;
      await store.agents.create(acme.id, { id: agent });
      await store.attachments.attach(acme.id, agent, 'echo');
      const reply = await send('POST', '/api/tools/echo/call', acme.headers, {
        arguments: { n: 1, note: 'hi' },
        agent_id: agent,
      });
      expect(reply.status).toBe(200);
      // The same arguments as JSON text, keys in another order: the same digest.
      await send('POST', '/api/tools/echo/call', acme.headers, { arguments: '{"note":"hi","n":1}' });

      const pending = (
        await send('POST', '/api/tools/approved_echo/call', acme.headers, { arguments: { note: 'go' } })
      ).json() as {
        approval: { id: string };
      };
      const decided = await send('POST', `/api/approvals/${pending.approval.id}`, acme.headers, {
        decision: 'approve',
      });
      expect(decided.status).toBe(200);

      const client = new Client({ name: 'audit-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${acme.token}` } },
        }),
      );
      await client.callTool({ name: 'echo', arguments: { note: 'mcp' } });
      await client.close();

      const { calls } = (await send('GET', '/api/calls', acme.headers)).json() as {
        calls: Array<Record<string, unknown>>;
      };
      const [mcp, approvedRun, pendingCall, text, first] = calls;
      const digest = sha256('{"n":1,"note":"hi"}');
      expect(first).toMatchObject({
        tool_id: 'echo',
        agent_id: agent,
        token_id: acme.tokenId,
        approval_id: null,
        arguments_digest: digest,
        status: 'success',
      });
      expect(first?.result_bytes).toBe(Buffer.byteLength(reply.text));
      expect(text).toMatchObject({ agent_id: null, arguments_digest: digest });
      expect(pendingCall).toMatchObject({ status: 'pending_approval', approval_id: pending.approval.id });
      expect(approvedRun).toMatchObject({
        tool_id: 'approved_echo',
        status: 'success',
        approval_id: pending.approval.id,
        token_id: acme.tokenId,
        arguments_digest: sha256('{"note":"go"}'),
      });
      expect(mcp).toMatchObject({
        tool_id: 'echo',
        token_id: acme.tokenId,
        arguments_digest: sha256('{"note":"mcp"}'),
      });
      // Never the token itself, the arguments or the result.
      const listing = (await send('GET', '/api/calls', acme.headers)).text;
      expect(listing).not.toContain(acme.token);
      expect(listing).not.toContain('"hi"');
    });

    it('logs a call of a name no tool can have, under a name the log can hold', async () => {
      const acme = await workspace();
      const client = new Client({ name: 'audit-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${acme.token}` } },
        }),
      );
      for (const name of ['', 'b'.repeat(300)]) {
        const result = await client.callTool({ name, arguments: {} });
        expect(result).toMatchObject({ isError: true, _meta: { error_code: 'TOOL_NOT_FOUND' } });
      }
      await client.close();
      const { calls } = (await send('GET', '/api/calls', acme.headers)).json() as {
        calls: Array<Record<string, unknown>>;
      };
      expect(calls.map((call) => [call.tool_id, call.status, call.error_code])).toEqual([
        [`${'b'.repeat(199)}…`, 'error', 'TOOL_NOT_FOUND'],
        ['(no name)', 'error', 'TOOL_NOT_FOUND'],
      ]);
    });

    it('filters by status, tool, agent, token and time, and pages with a cursor', async () => {
      const acme = await workspace();
      const second = await store.tokens.create(acme.id, { name: 'second' });
      const times = Array.from({ length: 7 }, (_, index) => `2026-03-0${index + 1}T00:00:00.000Z`);
      for (const [index, createdAt] of times.entries()) {
        await store.toolCalls.record(acme.id, {
          toolId: index % 2 === 0 ? 'echo' : 'fail',
          status: index % 2 === 0 ? 'success' : 'error',
          errorCode: index % 2 === 0 ? null : 'EXECUTION_FAILED',
          agentId: index === 3 ? 'solo' : null,
          tokenId: index < 2 ? second.id : acme.tokenId,
          durationMs: 1,
          createdAt,
        });
      }
      const list = async (query: string) => {
        const reply = await send('GET', `/api/calls?${query}`, acme.headers);
        expect(reply.status).toBe(200);
        const body = reply.json() as { calls: Array<{ created_at: string }>; next: string | null };
        return { at: body.calls.map((call) => call.created_at.slice(0, 10)), next: body.next };
      };
      expect((await list('status=error')).at).toEqual(['2026-03-06', '2026-03-04', '2026-03-02']);
      expect((await list('tool_id=echo&since=2026-03-03&until=2026-03-07T00:00:00Z')).at).toEqual([
        '2026-03-05',
        '2026-03-03',
      ]);
      // A leap day is a day; 2026-02-30 is refused (below), not read as 2 March.
      expect((await list('since=2024-02-29&until=2026-03-02')).at).toEqual(['2026-03-01']);
      expect((await list('agent_id=solo')).at).toEqual(['2026-03-04']);
      expect((await list(`token_id=${second.id}`)).at).toEqual(['2026-03-02', '2026-03-01']);

      const pages: string[][] = [];
      let query = 'limit=3';
      for (;;) {
        const page = await list(query);
        pages.push(page.at);
        if (page.next === null) break;
        query = `limit=3&cursor=${encodeURIComponent(page.next)}`;
      }
      expect(pages).toEqual([
        ['2026-03-07', '2026-03-06', '2026-03-05'],
        ['2026-03-04', '2026-03-03', '2026-03-02'],
        ['2026-03-01'],
      ]);
    });

    it('exports JSON Lines with format=jsonl or Accept: application/x-ndjson', async () => {
      const acme = await workspace();
      for (let index = 0; index < 3; index += 1) {
        await send('POST', '/api/tools/echo/call', acme.headers, { arguments: { note: `n${index}` } });
      }
      const byFormat = await send('GET', '/api/calls?format=jsonl', acme.headers);
      expect(byFormat.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      const lines = byFormat.text.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines.map((line) => (JSON.parse(line) as { tool_id: string }).tool_id)).toEqual(['echo', 'echo', 'echo']);
      const byAccept = await send('GET', '/api/calls?limit=2', { ...acme.headers, accept: 'application/x-ndjson' });
      expect(byAccept.text.trimEnd().split('\n')).toEqual(lines.slice(0, 2));
      const empty = await send('GET', '/api/calls?format=jsonl&status=timeout', acme.headers);
      expect([empty.status, empty.text]).toEqual([200, '']);
    });

    it.each([
      [
        'cursor=abc',
        'cursor',
        `'cursor' is not a cursor this server gave out: pass the 'next' of the previous page unchanged, got "abc".`,
      ],
      [
        `cursor=${Buffer.from('calls:0').toString('base64url')}`,
        'cursor',
        `'cursor' is not a cursor this server gave out: pass the 'next' of the previous page unchanged, got "Y2FsbHM6MA".`,
      ],
      [
        'cursor=%2E%2E%2F',
        'cursor',
        `'cursor' is not a cursor this server gave out: pass the 'next' of the previous page unchanged, got "../".`,
      ],
      [
        'status=ok',
        'status',
        `'status' must be one of success, error, timeout, cancelled, pending_approval, got "ok".`,
      ],
      ['since=yesterday', 'since', `'since' must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got "yesterday".`],
      ['until=2026-13-45', 'until', `'until' must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got "2026-13-45".`],
      ['since=2026-02-30', 'since', `'since' must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got "2026-02-30".`],
      [
        'until=2026-04-31T00:00Z',
        'until',
        `'until' must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got "2026-04-31T00:00Z".`,
      ],
      [
        'since=2026-02-01&until=2026-01-01',
        'until',
        `'until' (2026-01-01T00:00:00.000Z) must be after 'since' (2026-02-01T00:00:00.000Z).`,
      ],
      ['limit=0', 'limit', `'limit' must be a whole number from 1 to 500, got "0".`],
      ['limit=99999999999', 'limit', `'limit' must be a whole number from 1 to 500, got "99999999999".`],
      ['limit=-1', 'limit', `'limit' must be a whole number from 1 to 500, got "-1".`],
      ['tool_id=a&tool_id=b', 'tool_id', `'tool_id' must be given once, got an array.`],
      ['format=csv', 'format', `'format' must be "json" or "jsonl", got "csv".`],
      [
        'secret=1',
        'secret',
        `Unknown query parameter 'secret'; allowed: agent_id, tool_id, token_id, status, since, until, cursor, limit, format.`,
      ],
      [
        `token_id=${'t'.repeat(300)}`,
        'token_id',
        `'token_id' must be a non-empty string of at most 128 characters, got "${'t'.repeat(57)}...".`,
      ],
    ])('refuses ?%s with a 400 naming %s', async (query, field, message) => {
      const acme = await workspace();
      const reply = await send('GET', `/api/calls?${query}`, acme.headers);
      expect(reply.status).toBe(400);
      expect(reply.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message, details: { field } } });
    });
  });

  describe(`call log retention on ${harness.dialect}`, () => {
    let app: FastifyInstance | undefined;

    beforeAll(async () => {
      await store.workspaces.create({ id: 'keep', name: 'Keep' });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('deletes calls older than the retention when the server gets ready, and again every interval', async () => {
      const day = 86_400_000;
      const old = new Date(Date.now() - 3 * day).toISOString();
      const recent = new Date(Date.now() - day / 2).toISOString();
      await store.toolCalls.record('keep', { toolId: 'old', status: 'success', durationMs: 1, createdAt: old });
      await store.toolCalls.record('keep', { toolId: 'recent', status: 'success', durationMs: 1, createdAt: recent });
      app = createServer({
        store,
        builtins: false,
        webCatalog: false,
        mcp: false,
        callLog: { retentionMs: day, pruneIntervalMs: 20 },
      });
      await app.ready();
      expect((await store.toolCalls.listRecent('keep')).map((call) => call.toolId)).toEqual(['recent']);
      await store.toolCalls.record('keep', { toolId: 'late', status: 'success', durationMs: 1, createdAt: old });
      await expect
        .poll(async () => (await store.toolCalls.listRecent('keep')).map((call) => call.toolId), { timeout: 5_000 })
        .toEqual(['recent']);
    });

    it.each([0, -1, 1.5])('refuses a retention of %s', (retentionMs) => {
      expect(() => createServer({ store, builtins: false, webCatalog: false, callLog: { retentionMs } })).toThrow(
        `callLog.retentionMs must be a whole number of at least 1, got ${retentionMs}.`,
      );
    });
  });
}
