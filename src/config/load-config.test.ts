import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelText } from '../core/tool-result.js';
import { ConfigError } from './config-diagnostic.js';
import { loadConfig } from './load-config.js';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

let folder: string;
let api: Server;
let apiUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-config-'));
  mkdirSync(join(folder, 'tools'));
  writeFileSync(
    join(folder, 'tools', 'greet.yaml'),
    [
      'name: greet',
      'description: Greet someone, in the style the agent is configured for.',
      'parameters:',
      '  type: object',
      '  properties:',
      '    who: {type: string}',
      '  required: [who]',
      'handler: ./handlers.js#greet',
    ].join('\n'),
  );
  writeFileSync(
    join(folder, 'tools', 'handlers.js'),
    'export const greet = ({ who }, ctx) => `${ctx.config.greeting ?? "Hello"}, ${who}!`;\n',
  );
  writeFileSync(join(folder, 'notes.txt'), 'first line\nsecond line\n');
  api = createServer((request, response) => {
    seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ results: [{ title: 'Onboarding' }] }));
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await new Promise((done) => api.close(done));
});

function writeConfig(text: string): string {
  const file = join(folder, 'toolshed.yaml');
  writeFileSync(file, text);
  return file;
}

describe('loadConfig', () => {
  it('builds a registry from definitions, built-ins, REST tools and an MCP server, with per-agent views', async () => {
    const file = writeConfig(
      [
        'tools: [./tools]',
        'builtins: [read_file, calculator]',
        'custom_tools:',
        '  - id: handbook_search',
        '    type: rest_api',
        '    description: Search the handbook.',
        `    endpoint: ${apiUrl}/search`,
        '    auth: {type: bearer, token_env: HANDBOOK_TOKEN}',
        '    parameters: {type: object, properties: {q: {type: string}}, required: [q]}',
        '    response: {path: results}',
        '    allow_private_network: true',
        'mcp_servers:',
        '  - name: everything',
        `    command: ${process.execPath}`,
        `    args: [${EVERYTHING}, stdio]`,
        'agents:',
        '  - id: concierge',
        '    tools: [greet, handbook_search, everything__echo]',
        '    config:',
        '      greet: {greeting: Welcome}',
        '  - id: analyst',
        '    tools: [greet, calculator, read_file]',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { env: { HANDBOOK_TOKEN: 'secret-token-1234' }, dotenv: false });
    try {
      expect(loaded.registry.has('greet')).toBe(true);
      expect(loaded.registry.has('read_file')).toBe(true);
      expect(loaded.registry.has('everything__echo')).toBe(true);
      expect(loaded.registry.has('write_file')).toBe(false);

      const concierge = loaded.agent('concierge');
      expect(concierge.list()).toEqual(['everything__echo', 'greet', 'handbook_search']);
      expect(toModelText(await concierge.call('greet', { who: 'Ada' }))).toBe('Welcome, Ada!');
      expect(toModelText(await concierge.call('everything__echo', { message: 'hi' }))).toBe('Echo: hi');
      const search = await concierge.call('handbook_search', { q: 'leave' });
      expect(search.status === 'success' && search.data).toEqual([{ title: 'Onboarding' }]);
      expect(seen.at(-1)).toBe('GET /search?q=leave Bearer secret-token-1234');
      const outside = await concierge.call('calculator', { expression: '1 + 1' });
      expect(toModelText(outside)).toContain("Tool 'calculator' not found.");

      const analyst = loaded.agent('analyst');
      expect(toModelText(await analyst.call('greet', { who: 'Bo' }))).toBe('Hello, Bo!');
      const read = await analyst.call('read_file', { path: 'notes.txt', start_line: 2, end_line: 2 });
      expect(read.status).toBe('success');
      expect(JSON.stringify(read.status === 'success' && read.data)).toContain('second line');
      expect(() => loaded.agent('nobody')).toThrow("No agent 'nobody'");
    } finally {
      await loaded.close();
    }
  });

  it('loads a tool whose credentials are missing and fails only its calls', async () => {
    const file = writeConfig(
      [
        'builtins: [serper_search, calculator]',
        'nodes:',
        '  - id: research',
        '    tools: [serper_search, calculator]',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { env: {}, dotenv: false });
    try {
      expect(loaded.diagnostics.map((diagnostic) => diagnostic.severity)).toEqual(['warning']);
      const research = loaded.agent('research');
      const search = await research.call('serper_search', { query: 'toolshed' });
      expect(search.status === 'error' && search.error.code).toBe('MISSING_CREDENTIALS');
      const sum = await research.call('calculator', { expression: '6 * 7' });
      expect(sum.status).toBe('success');
    } finally {
      await loaded.close();
    }
  });

  it("hands out specs that carry the file's defaults, so a registry without them treats the tools the same", async () => {
    const file = writeConfig(
      [
        'tools: [./tools]',
        'builtins: [calculator]',
        'defaults: {timeout: 2, max_output_chars: 500, extra_args: reject}',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { env: { FROM_ENV: 'yes' }, dotenv: false });
    try {
      const specs = loaded.specs();
      // read_tool_output reads the outputs its own registry cut: a registry given these specs brings its own.
      expect(specs.map((spec) => spec.name)).toEqual(['calculator', 'greet']);
      expect(specs.map((spec) => [spec.timeoutMs, spec.maxOutputChars, spec.extraArgs])).toEqual([
        [2000, 500, 'reject'],
        [2000, 500, 'reject'],
      ]);
      expect(loaded.env.FROM_ENV).toBe('yes');
      const { ToolRegistry } = await import('../registry/tool-registry.js');
      const bare = new ToolRegistry();
      bare.registerAll(specs);
      const refused = await bare.call('greet', { who: 'Ada', mood: 'cheerful' });
      expect(refused.status === 'error' && refused.error.message).toBe(
        "Invalid arguments for 'greet': unexpected argument 'mood'; accepted arguments are who.",
      );
      expect(bare.has('read_tool_output')).toBe(true);
    } finally {
      await loaded.close();
    }
  });

  it("keeps a tool's own settings over the file's defaults in the specs it hands out", async () => {
    mkdirSync(join(folder, 'own'), { recursive: true });
    writeFileSync(
      join(folder, 'own', 'quick.yaml'),
      [
        'name: quick',
        'description: Answer at once.',
        'parameters: {type: object, properties: {}}',
        'handler: ../tools/handlers.js#greet',
        'timeout: 7',
        'max_output_chars: 40',
        'extra_args: drop',
      ].join('\n'),
    );
    const file = writeConfig(
      ['tools: [./own]', 'defaults: {timeout: 2, max_output_chars: 500, extra_args: reject}'].join('\n'),
    );
    const loaded = await loadConfig(file, { env: {}, dotenv: false });
    try {
      const [quick] = loaded.specs();
      expect([quick?.name, quick?.timeoutMs, quick?.maxOutputChars, quick?.extraArgs]).toEqual([
        'quick',
        7000,
        40,
        'drop',
      ]);
    } finally {
      await loaded.close();
    }
  });

  it('gives a custom tool its execution.task_support, and refuses one MCP does not define with the line', async () => {
    const tool = (support: string) =>
      writeConfig(
        [
          'custom_tools:',
          '  - id: slow_export',
          '    type: rest_api',
          '    description: Export the archive.',
          `    endpoint: ${apiUrl}/export`,
          '    parameters: {type: object, properties: {}}',
          '    allow_private_network: true',
          `    execution: {task_support: ${support}}`,
        ].join('\n'),
      );
    const loaded = await loadConfig(tool('required'), { env: {}, dotenv: false });
    try {
      expect(loaded.registry.get('slow_export').execution).toEqual({ taskSupport: 'required' });
      expect(loaded.registry.toMcpTools().tools[0]?.execution).toEqual({ taskSupport: 'required' });
    } finally {
      await loaded.close();
    }
    const failure = await loadConfig(tool('sometimes'), { env: {}, dotenv: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toContain(':8:');
    expect((failure as ConfigError).message).toContain('task_support');
  });

  it('refuses a configuration with errors, listing every one', async () => {
    const file = writeConfig(['builtins: [calculater]', 'agents:', '  - id: a', '    tools: [nope]'].join('\n'));
    const failure = await loadConfig(file, { env: {}, dotenv: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toContain("unknown built-in 'calculater'. Did you mean 'calculator'?");
    expect((failure as ConfigError).message).toContain("unknown tool 'nope' in agent 'a'.");
  });
});

describe('agent views', () => {
  it('pick up a listed tool that an MCP server adds later', async () => {
    const fixture = resolve(import.meta.dirname, '../../test/cli/fixtures/mcp-config/dynamic-server.mjs');
    const file = writeConfig(
      [
        'mcp_servers:',
        '  - name: dyn',
        `    command: ${process.execPath}`,
        `    args: [${fixture}]`,
        'agents:',
        '  - id: late',
        '    tools: [dyn__add_tool, dyn__extra_tool]',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { env: {}, dotenv: false });
    try {
      const view = loaded.agent('late');
      expect(view.list()).toEqual(['dyn__add_tool']);
      const changes: string[][] = [];
      view.on('change', (change) => changes.push(change.names));
      await view.call('dyn__add_tool', {});
      await expect.poll(() => view.list()).toEqual(['dyn__add_tool', 'dyn__extra_tool']);
      expect(changes).toContainEqual(['dyn__extra_tool']);
      expect((await view.call('dyn__extra_tool', {})).status).toBe('success');
    } finally {
      await loaded.close();
    }
  });
});
