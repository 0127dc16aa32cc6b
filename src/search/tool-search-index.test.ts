import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { ToolSearchIndex } from './tool-search-index.js';

function tool(name: string, description: string, extra: Record<string, unknown> = {}) {
  return defineTool({ name, description, handler: () => undefined, ...extra });
}

const currencySchema = {
  type: 'object',
  properties: {
    amount: { type: 'number', description: 'How much money to convert.' },
    from: { type: 'string', description: 'Currency code to convert from, such as EUR.' },
    to: { type: 'string', description: 'Currency code to convert to, such as USD (dollars).' },
  },
} as const;

function catalogue(): ToolSearchIndex {
  const index = new ToolSearchIndex();
  index.add(tool('read_file', 'Read the contents of a file.', { category: 'filesystem', tags: ['files'] }));
  index.add(tool('write_file', 'Write text to a file, creating it if needed.', { category: 'filesystem' }));
  index.add(
    tool('send_email', 'Send an email message to one or more recipients.', { category: 'email', title: 'Send Email' }),
  );
  index.add(
    tool('calculator', 'Evaluate an arithmetic expression.', {
      category: 'math',
      inputSchema: { type: 'object', properties: { expression: { type: 'string', description: 'such as 2 + 2' } } },
    }),
  );
  index.add(
    tool('web_search', 'Search the web for pages about a topic.', {
      category: 'web',
      whenToUse: 'For current events.',
    }),
  );
  return index;
}

describe('ToolSearchIndex', () => {
  it('ranks tools whose name matches above those whose description does', () => {
    const hits = catalogue().search('file');
    expect(hits.map((hit) => hit.name)).toEqual(['read_file', 'write_file']);
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('matches words split from snake_case and camelCase names', () => {
    const index = catalogue();
    index.add(tool('createInvoiceDraft'.toLowerCase(), 'Drafts.'));
    index.add(defineTool({ name: 'list_open_invoices', description: 'List invoices not yet paid.', handler: () => 0 }));
    expect(index.search('open invoices')[0]?.name).toBe('list_open_invoices');
  });

  it('finds a snake_case tool from a question phrased the way a user asks it', () => {
    const index = catalogue();
    index.add(tool('get_current_weather', 'Current conditions at a location.'));
    index.add(tool('convert_currency', 'Convert an amount between currencies.', { inputSchema: currencySchema }));
    index.add(tool('search_recipes', 'Find recipes by ingredient or dish.'));
    expect(index.search("What's the current weather in Paris?")[0]?.name).toBe('get_current_weather');
    expect(index.search('How much is 100 euros in dollars?')[0]?.name).toBe('convert_currency');
    expect(index.search('I am searching for a recipe with mushrooms')[0]?.name).toBe('search_recipes');
  });

  it('matches stems, not only exact words, and skips stop words', () => {
    const index = catalogue();
    index.add(tool('search_recipes', 'Find recipes by ingredient or dish.'));
    expect(index.search('recipe')[0]?.name).toBe('search_recipes');
    expect(index.search('ingredients dishes')[0]?.name).toBe('search_recipes');
    expect(index.search('searching').map((hit) => hit.name)).toEqual(['web_search', 'search_recipes']);
    expect(index.search('the of and to')).toEqual([]);
  });

  it('splits acronyms out of camelCase and dotted names', () => {
    const index = new ToolSearchIndex();
    index.addName('getHTTPResponse');
    index.addName('weather.OpenWeatherMap');
    expect(index.search('http response')[0]?.name).toBe('getHTTPResponse');
    expect(index.search('open weather map')[0]?.name).toBe('weather.OpenWeatherMap');
  });

  it('matches the last word as a prefix while it is being typed', () => {
    expect(
      catalogue()
        .search('calc')
        .map((hit) => hit.name),
    ).toEqual(['calculator']);
  });

  it('corrects a misspelt word to the closest indexed words', () => {
    expect(catalogue().search('emial')[0]?.name).toBe('send_email');
  });

  it('corrects a short word by one edit (or one swap of neighbouring letters) only, so other words stay apart', () => {
    const index = new ToolSearchIndex();
    index.add(tool('fetch_url', 'Fetch a page.', { category: 'web' }));
    expect(index.search('french')).toEqual([]);
    expect(index.search('fecth')[0]?.name).toBe('fetch_url');
    expect(index.search('fetc')[0]?.name).toBe('fetch_url');
  });

  it('searches parameter descriptions and when-to-use guidance', () => {
    expect(catalogue().search('expression')[0]?.name).toBe('calculator');
    expect(catalogue().search('current events')[0]?.name).toBe('web_search');
  });

  it("finds a tool by the allowed values of its parameters, at any depth and through zod's optional choices", () => {
    const index = catalogue();
    index.add(
      tool('find_movies', 'Search for movies that fit what the user likes.', {
        inputSchema: {
          type: 'object',
          properties: { genre: { type: 'string', description: 'The genre.', enum: ['Comedy', 'Horror', 'Drama'] } },
        },
      }),
    );
    index.add(
      tool('find_provider', 'Discover a therapist near the user.', {
        input: z.object({ city: z.string(), type: z.enum(['Psychologist', 'Family Counselor']).optional() }),
      }),
    );
    index.add(
      tool('create_order', 'Create an order.', {
        inputSchema: {
          type: 'object',
          properties: {
            lines: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  size: { type: 'string', enum: ['small', 'large'] },
                  topping: { type: 'string', description: 'Pizza topping such as pepperoni.' },
                },
              },
            },
            currency: { const: 'EUR' },
            note: { type: 'string', title: 'Delivery instructions' },
          },
        },
      }),
    );
    expect(index.search('a comedy to watch tonight')[0]?.name).toBe('find_movies');
    expect(index.search('I need a family counselor in Los Gatos')[0]?.name).toBe('find_provider');
    expect(index.search('psychologist')[0]?.name).toBe('find_provider');
    expect(index.search('large pepperoni')[0]?.name).toBe('create_order');
    expect(index.search('eur')[0]?.name).toBe('create_order');
    expect(index.search('delivery instructions')[0]?.name).toBe('create_order');
  });

  it('reads a bounded part of huge and self-referencing parameter schemas', () => {
    const index = new ToolSearchIndex();
    const values = Array.from({ length: 5_000 }, (_, number) => `value${number}`);
    values[4_999] = 'zebra';
    index.add(
      tool('pick_value', 'Pick one value.', {
        inputSchema: { type: 'object', properties: { value: { type: 'string', enum: values } } },
      }),
    );
    expect(index.search('value0')[0]?.name).toBe('pick_value');
    expect(index.search('value199')[0]?.name).toBe('pick_value');
    expect(index.search('zebra')).toEqual([]);
    const node: Record<string, unknown> = { type: 'object', description: 'A tree node.' };
    node.properties = { child: node };
    // A schema object may refer to itself; the index reads a few levels and stops.
    index.add({
      name: 'walk_tree',
      description: 'Walk a tree.',
      category: 'general',
      tags: [],
      inputSchema: { type: 'object', properties: { root: node } },
    } as never);
    expect(index.search('tree node')[0]?.name).toBe('walk_tree');
  });

  it('leaves out words of asking beside the words of the task, but still finds them alone', () => {
    const index = catalogue();
    index.add(tool('help', 'Show help about the available commands.'));
    index.add(tool('get_weather', 'The weather in a city.'));
    expect(index.search('Hi, could you help me check the weather, please?').map((hit) => hit.name)).toEqual([
      'get_weather',
    ]);
    expect(index.search('help')[0]?.name).toBe('help');
    expect(index.search('please help')[0]?.name).toBe('help');
  });

  it('puts a tool the query names outright first', () => {
    const index = catalogue();
    expect(index.search('read the file')[0]?.name).toBe('read_file');
    expect(index.search('read the file with write_file.')[0]?.name).toBe('write_file');
    expect(
      index
        .search('first `Send_Email`, then read the file')
        .map((hit) => hit.name)
        .slice(0, 2),
    ).toEqual(['send_email', 'read_file']);
    expect(index.search('read the file with no_such_tool')[0]?.name).toBe('read_file');
    expect(index.search('write_file', { category: 'email' })).toEqual([]);
  });

  it('filters by category and honours the limit', () => {
    const index = catalogue();
    expect(index.search('file email web', { category: 'email' }).map((hit) => hit.name)).toEqual(['send_email']);
    expect(index.search('file', { limit: 1 })).toHaveLength(1);
    expect(index.search('file', { limit: 0 })).toEqual([]);
  });

  it('returns the title, description and category of each hit', () => {
    expect(catalogue().search('send')[0]).toMatchObject({
      name: 'send_email',
      title: 'Send Email',
      description: 'Send an email message to one or more recipients.',
      category: 'email',
    });
  });

  it('forgets removed tools and replaces re-added ones', () => {
    const index = catalogue();
    expect(index.remove('read_file')).toBe(true);
    expect(index.remove('read_file')).toBe(false);
    expect(index.search('read').map((hit) => hit.name)).not.toContain('read_file');
    index.add(tool('write_file', 'Overwrite a document.'));
    expect(index.search('document')[0]?.name).toBe('write_file');
    expect(index.search('creating')).toEqual([]);
    expect(index.size).toBe(4);
  });

  it('stays correct after compacting thousands of removals', () => {
    const index = new ToolSearchIndex();
    for (let number = 0; number < 3_000; number++) index.add(tool(`tool_${number}`, `Does thing number ${number}.`));
    for (let number = 0; number < 2_500; number++) index.remove(`tool_${number}`);
    expect(index.size).toBe(500);
    expect(index.search('2999')[0]?.name).toBe('tool_2999');
    expect(index.search('12')).toEqual([]);
    expect(index.search('thing', { limit: 1000 })).toHaveLength(500);
  });

  it('answers empty, huge and hostile queries without throwing', () => {
    const index = catalogue();
    expect(index.search('')).toEqual([]);
    expect(index.search('   !!! ??? ')).toEqual([]);
    expect(index.search('file '.repeat(5_000))[0]?.name).toBe('read_file');
    expect(index.search('constructor __proto__ hasOwnProperty')).toEqual([]);
    expect(index.search('файл 文件 📁')).toEqual([]);
  });

  it('finds nothing once cleared', () => {
    const index = catalogue();
    index.clear();
    expect(index.size).toBe(0);
    expect(index.search('file')).toEqual([]);
  });
});
