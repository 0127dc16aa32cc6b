import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import { renderEnvExample, requiredVariables } from './render-env-example.js';
import { renderToolCatalog } from './render-tool-catalog.js';

const search = defineTool({
  name: 'web_search',
  title: 'Web Search',
  description: 'Search the web. Returns | pipes and <b>tags</b>.',
  whenToUse: 'When the answer needs fresh facts.',
  category: 'web',
  requires: {
    env: [{ name: 'SEARCH_KEY', description: 'API key\nof the search service', url: 'https://example.com/keys' }],
  },
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to search for' },
      order: { enum: ['relevance', 'date'], default: 'relevance' },
    },
    required: ['query'],
  },
  cli: 'search',
  handler: () => [],
});

const news = defineTool({
  name: 'news_search',
  description: "Search news; quotes like it's fine.",
  requires: { env: [{ name: 'SEARCH_KEY' }, { name: 'NEWS_REGION', description: 'Two-letter region' }] },
  inputSchema: { type: 'object', properties: { topic: { type: 'string', default: "it's" } }, required: ['topic'] },
  cli: null,
  handler: () => [],
});

describe('renderToolCatalog', () => {
  const catalog = renderToolCatalog([search, news]);

  it('lists the tools sorted, with a section each', () => {
    expect(catalog.indexOf('## news_search')).toBeLessThan(catalog.indexOf('## web_search'));
    expect(catalog).toContain('| [`web_search`](#web_search) | web | Search the web. |');
    expect(catalog).toContain('**Web Search** · category `web` · CLI keyword `search`');
    expect(catalog).toContain('category `general` · not exposed via CLI');
    expect(catalog).toContain('**When to use:** When the answer needs fresh facts.');
  });

  it('escapes pipes and HTML from definitions', () => {
    expect(catalog).toContain('Search the web. Returns | pipes and &lt;b&gt;tags&lt;/b&gt;.');
    expect(catalog).toContain('| `order` | "relevance" \\| "date" | no | `"relevance"` |  |');
  });

  it('derives an example call, quoting it for a POSIX shell', () => {
    expect(catalog).toContain('```sh\ntoolshed call web_search --args \'{"query":"<query>"}\'\n```');
    expect(catalog).toContain(`toolshed call news_search --args '{"topic":"it'\\''s"}'`);
  });

  it('renders the requirements with where to get them', () => {
    expect(catalog).toContain('| `SEARCH_KEY` | API key of the search service | https://example.com/keys |');
  });

  it('says when there are no tools', () => {
    expect(renderToolCatalog([])).toContain('No tools are registered.');
  });
});

describe('renderEnvExample', () => {
  it('merges a variable several tools need, keeping the first description and URL', () => {
    expect(requiredVariables([search, news])).toEqual([
      { name: 'NEWS_REGION', description: 'Two-letter region', url: undefined, tools: ['news_search'] },
      {
        name: 'SEARCH_KEY',
        description: 'API key\nof the search service',
        url: 'https://example.com/keys',
        tools: ['news_search', 'web_search'],
      },
    ]);
  });

  it('writes each variable as comments and an empty NAME= line', () => {
    expect(renderEnvExample([search, news]).split('\n').slice(3)).toEqual([
      '# NEWS_REGION: Two-letter region',
      '# Used by: news_search',
      'NEWS_REGION=',
      '',
      '# SEARCH_KEY: API key of the search service',
      '# Get it at https://example.com/keys',
      '# Used by: news_search, web_search',
      'SEARCH_KEY=',
      '',
    ]);
  });

  it('says when no variable is needed', () => {
    expect(renderEnvExample([])).toContain('# No tool needs an environment variable.\n');
  });
});
