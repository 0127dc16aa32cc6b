import { describe, expect, it, vi } from 'vitest';
import { ChangeListeners } from '../../src/store/change-listeners.js';
import { createStore } from '../../src/store/create-store.js';
import { redactUrl } from '../../src/store/postgres/postgres-driver.js';
import { randomId } from '../../src/store/random-id.js';
import { nowIso, parseJsonColumn, toIsoTimestamp } from '../../src/store/row-mapping.js';
import { SqliteChangeFeed } from '../../src/store/sqlite/sqlite-change-feed.js';
import { resolveStoreOptions } from '../../src/store/store-options.js';
import { StoreReadOnlyError } from '../../src/store/store-read-only-error.js';
import {
  isWellFormedId,
  optionalText,
  RESOURCE_ID_PATTERN,
  requireId,
  requireLimit,
  requireText,
  serializeJsonObject,
  serializeTags,
} from '../../src/store/store-validation.js';
import { StoreValidationError } from '../../src/store/store-validation-error.js';

// The @example blocks of the store's TSDoc, run as written (those that need no surrounding program).
describe('documented store examples', () => {
  it('validation helpers', () => {
    expect(isWellFormedId('research', RESOURCE_ID_PATTERN)).toBe(true);
    expect(isWellFormedId('../etc', RESOURCE_ID_PATTERN)).toBe(false);
    expect(requireId('research', 'agentId')).toBe('research');
    expect(() => requireId('has space', 'agentId')).toThrow(StoreValidationError);
    expect(requireText('Research', 'name', 200)).toBe('Research');
    expect(optionalText(undefined, 'description', 100)).toBeNull();
    expect(serializeJsonObject({ limit: 20 }, 'config', 65_536)).toBe('{"limit":20}');
    expect(() => serializeJsonObject([1], 'config', 65_536)).toThrow(StoreValidationError);
    expect(requireLimit(undefined, 50, 500)).toBe(50);
    expect(() => requireLimit(501, 50, 500)).toThrow(StoreValidationError);
    expect(serializeTags(['search', 'internal', 'search'], 'tags')).toBe('["search","internal"]');
    expect(() => serializeTags('search', 'tags')).toThrow(StoreValidationError);
  });

  it('read-only refusals', () => {
    expect(StoreReadOnlyError.forTool('read_file', 'builtin', null).message).toBe(
      "Tool 'read_file' is a built-in; it cannot be changed.",
    );
    expect(StoreReadOnlyError.forAgent('assistant', 'examples/toolshed.yaml').message).toBe(
      "Agent 'assistant' is defined in examples/toolshed.yaml; edit it there.",
    );
  });

  it('row mapping, ids, options and URLs', () => {
    expect(nowIso()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(toIsoTimestamp(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(parseJsonColumn('{"a":1}')).toEqual({ a: 1 });
    expect(randomId('agt')).toMatch(/^agt_[0-9a-f]{24}$/);
    expect(resolveStoreOptions({}).poolSize).toBe(10);
    expect(() => resolveStoreOptions({ poolSize: 0 })).toThrow(RangeError);
    expect(redactUrl('postgres://app:secret@db:5432/toolshed')).toBe('postgres://app:***@db:5432/toolshed');
  });

  it('ChangeListeners and SqliteChangeFeed', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const listeners = new ChangeListeners((error) => console.error(error));
      const remove = listeners.add((change) => console.log(change.kind));
      listeners.emit({ workspaceId: 'default', kind: 'tool' });
      remove();
      listeners.emit({ workspaceId: 'default', kind: 'agent' });
      const feed = new SqliteChangeFeed((error) => console.error(error));
      feed.subscribe((change) => console.log(change.kind));
      feed.committed([{ workspaceId: 'acme', kind: 'tool' }]);
      expect(log.mock.calls).toEqual([['tool'], ['tool']]);
    } finally {
      log.mockRestore();
    }
  });

  it('ToolshedStore', async () => {
    const store = await createStore(':memory:');
    await store.migrate();
    const workspace = await store.workspaces.create({ id: 'default', name: 'Default' });
    const { token } = await store.tokens.create(workspace.id, { name: 'cli' });
    await store.agents.create(workspace.id, { id: 'research', name: 'Research' });
    const tools = await store.attachments.listAttachments(workspace.id, 'research');
    expect(tools.fallback).toBe(true);
    expect(await store.tokens.verify(token)).toMatchObject({ workspaceId: 'default' });
    await store.close();
  });
});
