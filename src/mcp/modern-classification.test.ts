import { isLegacyRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isModernMcpRequest } from './mcp-modern.js';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** A POST to /mcp with `body` and, when given, an MCP-Protocol-Version header. */
function post(body: unknown, version: string | undefined): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(version === undefined ? {} : { 'mcp-protocol-version': version }),
    },
    body: JSON.stringify(body),
  });
}

const versions = fc.constantFrom(
  undefined,
  '',
  '2024-11-05',
  '2025-06-18',
  '2025-11-25',
  '2026-07-28',
  '2027-01-01',
  'x',
);
const ids = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.constantFrom(1.5, 2 ** 60, null, true, Number.MAX_SAFE_INTEGER),
);
const metas = fc.oneof(
  fc.constant({ progressToken: 7 }),
  fc.constant({ [PROTOCOL_VERSION_KEY]: '2026-07-28' }),
  fc.constant({ [PROTOCOL_VERSION_KEY]: '2025-11-25' }),
  fc.constant(null),
  fc.constant('meta'),
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant({ name: 'add', arguments: { a: 1 } }),
  fc.constant({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
  metas.map((_meta) => ({ name: 'add', _meta })),
  fc.constantFrom([], 'params', null, 3),
);
/** JSON-RPC messages: well-formed requests and notifications, and each of them with one field missing, wrong or extra. */
const wellFormed = fc
  .record({
    id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(undefined)),
    method: fc.constantFrom('tools/call', 'initialize', 'notifications/initialized', 'ping'),
    params,
  })
  .map(({ id, method, params }) => ({
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    method,
    ...(params === undefined ? {} : { params }),
  }));
const messages = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        wellFormed,
        fc.constantFrom('jsonrpc', 'id', 'method', 'result', 'error', 'extra'),
        fc.oneof(ids, fc.constantFrom('1.0', 2, {}, { code: -1, message: 'no' })),
      )
      .map(([message, key, value]) => ({ ...message, [key]: value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(wellFormed, fc.constantFrom('jsonrpc', 'method'))
      .map(([message, key]) => Object.fromEntries(Object.entries(message).filter(([name]) => name !== key))),
  },
);
const bodies = fc.oneof(
  { weight: 8, arbitrary: messages },
  { weight: 1, arbitrary: fc.array(messages, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 'text', 42) },
);

describe('isModernMcpRequest', () => {
  it('classifies every message as the SDK does, with or without a protocol version header', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, versions, async (body, version) => {
        const ours = await isModernMcpRequest(post(body, version), body);
        const sdk = !(await isLegacyRequest(post(body, version), body));
        expect(ours).toBe(sdk);
      }),
      { numRuns: 2000 },
    );
  });

  it('sends a plain 2025-11-25 tools/call to the session lane and an enveloped one to 2026-07-28', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: {} } };
    expect(await isModernMcpRequest(post(call, '2025-11-25'), call)).toBe(false);
    const enveloped = { ...call, params: { ...call.params, _meta: { [PROTOCOL_VERSION_KEY]: '2026-07-28' } } };
    expect(await isModernMcpRequest(post(enveloped, '2026-07-28'), enveloped)).toBe(true);
    // A modern header without the envelope is the modern lane's to refuse.
    expect(await isModernMcpRequest(post(call, '2026-07-28'), call)).toBe(true);
  });

  it('agrees with the SDK on the edges of a request id: fractions, unsafe integers, null', async () => {
    for (const id of [1.5, 2 ** 60, -(2 ** 53), null, true, '']) {
      const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add' } };
      const sdk = !(await isLegacyRequest(post(call, '2025-11-25'), call));
      expect(await isModernMcpRequest(post(call, '2025-11-25'), call), `id ${String(id)}`).toBe(sdk);
    }
  });
});
