import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import { isPlainObject } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { CASE_SPECS, OPENAI_NAME, openAIStrictProblems } from '../exporters.cases.js';
import { isExclusion } from '../shared/export-result.js';
import { namespaceName, type OpenAIResponsesToolParam, toOpenAIResponsesTools } from './to-openai-responses-tools.js';

/**
 * The Responses API's rules for a `tools` list with namespaces and tool search, written from OpenAI's
 * documentation (not from the exporter): a namespace has a valid name, a non-empty description and at
 * least one function; `defer_loading` sits on functions, never on a namespace; deferred functions need
 * a `tool_search` tool, and there is at most one; a client tool search declares an object schema;
 * function names are unique across the list.
 */
function responsesListProblems(tools: readonly unknown[], strict: boolean): string[] {
  const problems: string[] = [];
  const names: string[] = [];
  let deferred = 0;
  let searches = 0;
  const checkFunction = (value: unknown, where: string) => {
    const tool = isPlainObject(value) ? value : {};
    if (tool.type !== 'function') problems.push(`${where}: a namespace holds function tools only`);
    if (typeof tool.name !== 'string' || !OPENAI_NAME.test(tool.name)) problems.push(`${where}: bad name`);
    else names.push(tool.name);
    if (typeof tool.strict !== 'boolean') problems.push(`${where}: strict must be explicit`);
    if (!isPlainObject(tool.parameters) || tool.parameters.type !== 'object') problems.push(`${where}: parameters`);
    if (strict && tool.strict === true && isPlainObject(tool.parameters))
      problems.push(...openAIStrictProblems(tool.parameters).map((problem) => `${where}: ${problem}`));
    if (tool.defer_loading === true) deferred++;
    else if (tool.defer_loading !== undefined) problems.push(`${where}: defer_loading must be true or absent`);
  };
  tools.forEach((value, index) => {
    const tool = isPlainObject(value) ? value : {};
    const where = `#${index}`;
    if (tool.type === 'function') checkFunction(tool, where);
    else if (tool.type === 'namespace') {
      if (typeof tool.name !== 'string' || !OPENAI_NAME.test(tool.name)) problems.push(`${where}: bad namespace name`);
      if (typeof tool.description !== 'string' || tool.description === '')
        problems.push(`${where}: a namespace needs a description`);
      if (!Array.isArray(tool.tools) || tool.tools.length === 0) problems.push(`${where}: an empty namespace`);
      if ('defer_loading' in tool) problems.push(`${where}: defer_loading belongs on the functions of a namespace`);
      for (const [inner, fn] of (Array.isArray(tool.tools) ? tool.tools : []).entries())
        checkFunction(fn, `${where}.${inner}`);
    } else if (tool.type === 'tool_search') {
      searches++;
      if (tool.execution !== undefined && tool.execution !== 'client') problems.push(`${where}: bad execution`);
      if (tool.execution === 'client' && (!isPlainObject(tool.parameters) || tool.parameters.type !== 'object'))
        problems.push(`${where}: a client tool search declares object parameters`);
    } else problems.push(`${where}: unknown tool type ${JSON.stringify(tool.type)}`);
  });
  if (deferred > 0 && searches === 0) problems.push('deferred functions without a tool_search tool');
  if (searches > 1) problems.push('more than one tool_search tool');
  if (new Set(names).size !== names.length) problems.push('function names repeat');
  return problems;
}

const tool = (name: string, category: string, description = `${name.replaceAll('_', ' ')}.`): ToolSpec =>
  defineTool({ name, description, category, handler: () => `${name} done` });

const BILLING = [
  tool('create_invoice', 'billing', 'Create an invoice for a customer.'),
  tool('refund_payment', 'billing', 'Refund a card payment, fully or in part.'),
  tool('send_email', 'email', 'Send an email message.'),
  tool('search_email', 'email', 'Search the mailbox.'),
];

describe('toOpenAIResponsesTools', () => {
  it('without options, gives the flat function tools of toOpenAITools', () => {
    const { tools, warnings } = toOpenAIResponsesTools(BILLING);
    expect(warnings).toEqual([]);
    expect(tools.map((entry) => entry.type)).toEqual(['function', 'function', 'function', 'function']);
    expect(tools[0]).toEqual({
      type: 'function',
      name: 'create_invoice',
      description: 'Create an invoice for a customer.',
      parameters: { type: 'object', properties: {} },
      strict: false,
    });
  });

  it('groups tools into one namespace per category, in the order the categories come', () => {
    const { tools } = toOpenAIResponsesTools(BILLING, {
      namespaces: { descriptions: { billing: 'Invoices and refunds.' } },
    });
    expect(tools.map((entry) => (entry.type === 'namespace' ? [entry.name, entry.description] : entry.type))).toEqual([
      ['billing', 'Invoices and refunds.'],
      ['email', 'Tools of the email category: send_email, search_email.'],
    ]);
    const billing = tools[0] as Extract<OpenAIResponsesToolParam, { type: 'namespace' }>;
    expect(billing.tools.map((fn) => fn.name)).toEqual(['create_invoice', 'refund_payment']);
    expect(responsesListProblems(tools, false)).toEqual([]);
  });

  it('defers functions (never a namespace), keeps alwaysLoaded ones, and adds the hosted tool search', () => {
    const { tools } = toOpenAIResponsesTools(BILLING, {
      namespaces: true,
      deferLoading: { alwaysLoaded: ['send_email'] },
    });
    const deferredNames = tools.flatMap((entry) =>
      entry.type === 'namespace' ? entry.tools.filter((fn) => fn.defer_loading === true).map((fn) => fn.name) : [],
    );
    expect(deferredNames).toEqual(['create_invoice', 'refund_payment', 'search_email']);
    expect(tools.at(-1)).toEqual({ type: 'tool_search' });
    expect(responsesListProblems(tools, false)).toEqual([]);
  });

  it('declares a client-executed tool search with its parameters when asked', () => {
    const { tools } = toOpenAIResponsesTools(BILLING, { deferLoading: true, toolSearch: 'client' });
    const search = tools.at(-1);
    expect(search).toMatchObject({ type: 'tool_search', execution: 'client', parameters: { required: ['query'] } });
    expect(tools.filter((entry) => entry.type === 'function').every((fn) => fn.defer_loading === true)).toBe(true);
    expect(responsesListProblems(tools, false)).toEqual([]);
  });

  it('renames a category that is not a valid namespace name, with a warning naming both', () => {
    const { tools, warnings } = toOpenAIResponsesTools([tool('web_lookup', 'web search')], { namespaces: true });
    expect(tools[0]).toMatchObject({ type: 'namespace', name: 'web_search' });
    expect(warnings).toEqual([
      {
        tool: 'web_lookup',
        target: 'openai',
        kind: 'rewritten',
        message:
          "Category 'web search' is not a valid namespace name (1-64 letters, digits, '_' or '-'); the tool is in namespace 'web_search'.",
      },
    ]);
    expect(namespaceName('***')).toBe('general');
    expect(namespaceName('c'.repeat(80))).toHaveLength(64);
  });

  it('exports every shared exporter case within the Responses rules, strict and not, namespaced and deferred', () => {
    for (const strict of [false, true]) {
      const result = toOpenAIResponsesTools(CASE_SPECS, { strict, namespaces: true, deferLoading: true });
      expect(responsesListProblems(result.tools, strict)).toEqual([]);
      const exported = result.tools.flatMap((entry) => (entry.type === 'namespace' ? entry.tools : []));
      expect(exported.length + result.warnings.filter(isExclusion).length).toBe(CASE_SPECS.length);
    }
  });
});

describe('registry.answerOpenAIToolSearch', () => {
  const options = { namespaces: true, deferLoading: true, toolSearch: 'client' } as const;

  function billingRegistry(): ToolRegistry {
    const registry = new ToolRegistry();
    for (const spec of BILLING) registry.register(spec);
    registry.register(tool('create_issue', 'github', 'Open an issue in a GitHub repository.'));
    return registry;
  }

  it('answers a tool_search_call with the best matches, namespaced and deferred, which can then be called', async () => {
    const registry = billingRegistry();
    const listed = registry.toOpenAIResponsesTools(options);
    expect(responsesListProblems(listed.tools, false)).toEqual([]);
    const output = registry.answerOpenAIToolSearch(
      {
        type: 'tool_search_call',
        call_id: 'ts_1',
        execution: 'client',
        arguments: '{"query":"refund a card payment"}',
      },
      options,
    );
    expect(output).toMatchObject({
      type: 'tool_search_output',
      call_id: 'ts_1',
      execution: 'client',
      status: 'completed',
    });
    expect(output.tools[0]).toMatchObject({
      type: 'namespace',
      name: 'billing',
      tools: [{ type: 'function', name: 'refund_payment', defer_loading: true }],
    });
    expect(
      responsesListProblems(
        [...output.tools, { type: 'tool_search', execution: 'client', parameters: { type: 'object' } }],
        false,
      ),
    ).toEqual([]);
    // The model then calls the loaded function by name (its namespace comes along in `namespace`).
    const result = await registry.call('refund_payment', {});
    expect(result).toMatchObject({ status: 'success', data: 'refund_payment done' });
  });

  it('keeps a namespace to the tools found in it, within the limit', () => {
    const output = billingRegistry().answerOpenAIToolSearch(
      { type: 'tool_search_call', call_id: 'ts_2', arguments: { query: 'open a github issue', limit: 1 } },
      options,
    );
    expect(output.tools).toEqual([
      expect.objectContaining({ name: 'github', tools: [expect.objectContaining({ name: 'create_issue' })] }),
    ]);
  });

  it('loads nothing for a call without a usable query, and bounds the limit', () => {
    const registry = billingRegistry();
    const answer = (args: unknown) =>
      registry.answerOpenAIToolSearch(
        { type: 'tool_search_call', call_id: 'x', arguments: args },
        { deferLoading: true },
      );
    for (const args of [undefined, '{not json', '', { query: '' }, { query: 42 }, ['refund'], { query: '   ' }])
      expect(answer(args).tools).toEqual([]);
    expect(answer({ query: 'email invoice payment issue', limit: 0 }).tools).toHaveLength(1);
    expect(answer({ query: 'email invoice payment issue', limit: 10_000 }).tools.length).toBeGreaterThan(1);
    expect(answer({ query: 'refund', limit: Number.NaN }).tools.map((fn) => ('name' in fn ? fn.name : ''))).toEqual([
      'refund_payment',
    ]);
  });

  it('answers a call that is not an object without throwing', () => {
    const registry = billingRegistry();
    expect(registry.answerOpenAIToolSearch(null as never, options)).toEqual({
      type: 'tool_search_output',
      call_id: '',
      execution: 'client',
      status: 'completed',
      tools: [],
    });
  });
});
