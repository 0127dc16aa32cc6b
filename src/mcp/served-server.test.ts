import { LoggingLevelSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, servedCapabilities } from './served-server.js';

describe('what both MCP eras serve alike', () => {
  it('orders the log levels as the protocol does, least severe first', () => {
    expect(LOG_LEVELS).toEqual(LoggingLevelSchema.options);
  });

  it('gives each server capabilities of its own, so one server extending them leaves the next unchanged', () => {
    const first = servedCapabilities();
    Object.assign(first, { tasks: { list: {} } });
    first.tools.listChanged = false;
    expect(servedCapabilities()).toEqual({
      tools: { listChanged: true },
      logging: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
    });
  });
});
