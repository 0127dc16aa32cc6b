import { describe, expect, it } from 'vitest';
import { fileNameOf, sourceDescription, sourceKey, sourceLabel } from './tool-source-labels.js';

// The words the catalog's source badges, their tooltips and its source filter use for each source.

describe('tool sources in the catalog', () => {
  it('labels each source in a few words', () => {
    expect(sourceLabel({ source: 'builtin', origin: null })).toBe('built-in');
    expect(sourceLabel({ source: 'config', origin: '/srv/app/toolshed.yaml' })).toBe('toolshed.yaml');
    expect(sourceLabel({ source: 'config', origin: 'C:\\app\\tools.yaml' })).toBe('tools.yaml');
    expect(sourceLabel({ source: 'config', origin: null })).toBe('config');
    expect(sourceLabel({ source: 'module', origin: '/srv/app/toolshed.yaml' })).toBe('module');
    expect(sourceLabel({ source: 'mcp:github', origin: '/srv/app/toolshed.yaml' })).toBe('MCP: github');
    expect(sourceLabel({ source: 'api', origin: null })).toBe('API');
    expect(sourceLabel({ source: 'code', origin: null })).toBe('code');
    // A source a later server may add is shown as it is.
    expect(sourceLabel({ source: 'something-new' as 'api', origin: null })).toBe('something-new');
  });

  it('says where a tool is defined in its tooltip', () => {
    expect(sourceDescription({ source: 'config', origin: '/srv/app/toolshed.yaml' })).toBe(
      'Defined in /srv/app/toolshed.yaml.',
    );
    expect(sourceDescription({ source: 'mcp:github', origin: 'toolshed.yaml' })).toBe(
      "Imported from MCP server 'github' of toolshed.yaml.",
    );
    expect(sourceDescription({ source: 'module', origin: null })).toBe('A tool module loaded by a configuration file.');
  });

  it('keeps two configuration files apart in the filter, and one MCP server together', () => {
    expect(sourceKey({ source: 'config', origin: '/a/toolshed.yaml' })).not.toBe(
      sourceKey({ source: 'config', origin: '/b/toolshed.yaml' }),
    );
    expect(sourceKey({ source: 'mcp:github', origin: '/a/toolshed.yaml' })).toBe('mcp:github');
    expect(fileNameOf('/trailing/slash/')).toBe('slash');
  });
});
