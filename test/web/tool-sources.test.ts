import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentView, DefaultToolSetView, ToolView } from '../../src/server/api-shapes.js';
import { ROOT } from '../cli/run-cli.js';
import { freePort } from '../support/free-port.js';
import {
  apiCall,
  type RunningBrowser,
  type RunningService,
  SCREENSHOTS,
  signIn,
  startBrowser,
  startService,
} from './browser-harness.js';

// Where each tool and agent comes from, tools this server cannot run, and the workspace's default tool
// set, in headless Chromium against `toolshed serve --config` on a copy of the examples. The server is
// restarted on the same database and port: without the configuration (its tools become unavailable),
// and with a configuration that dropped a tool (the page's stale choice is refused).

let service: RunningService;
let browser: RunningBrowser;
let page: Page;
let examples: string;
let folder: string;
let port: number;
let config: string;

/** Stop the running server and start another on the same database, port and token. */
async function restart(args: string[]): Promise<void> {
  await service.stop();
  service = await startService({ args, folder, port, token: service.token });
}

beforeAll(async () => {
  examples = mkdtempSync(join(tmpdir(), 'toolshed-sources-examples-'));
  cpSync(join(ROOT, 'examples'), examples, { recursive: true });
  config = join(examples, 'toolshed.yaml');
  folder = mkdtempSync(join(tmpdir(), 'toolshed-sources-'));
  port = await freePort();
  [service, browser] = await Promise.all([startService({ args: ['--config', config], folder, port }), startBrowser()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
  const created = await apiCall(service, 'POST', '/api/tools', {
    id: 'crm_lookup',
    type: 'rest_api',
    description: 'Look a customer up in the CRM by name.',
    endpoint: 'http://127.0.0.1:9/never-called',
    method: 'GET',
    parameters: { type: 'object', properties: { name: { type: 'string' } } },
  });
  expect(created.status).toBe(201);
  await page.goto(`${service.base}/`);
  await signIn(page, service.token);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(folder, { recursive: true, force: true });
  rmSync(examples, { recursive: true, force: true });
}, 30_000);

function shoot(name: string) {
  return page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

const cards = () => page.getByRole('list', { name: 'Tools' }).getByRole('listitem');
const card = (id: string) => cards().filter({ has: page.locator('code', { hasText: new RegExp(`^${id}$`) }) });

async function shownIds(): Promise<string[]> {
  return (await cards().locator('.tool-meta code').allTextContents()).sort();
}

async function defaultSet(): Promise<{ custom: boolean; ids: string[] }> {
  const { status, body } = await apiCall<DefaultToolSetView>(service, 'GET', '/api/workspace/default-tools');
  expect(status).toBe(200);
  return { custom: body.custom, ids: body.tools.map((tool) => tool.id).sort() };
}

async function mcpToolNames(): Promise<string[]> {
  const client = new Client({ name: 'toolshed-sources-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', service.base), {
      requestInit: { headers: { authorization: `Bearer ${service.token}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('sources, availability and the default tool set in the web catalog', () => {
  it('marks each tool with its source and filters the catalog by source', async () => {
    await cards().first().waitFor();
    expect(await card('calculator').getByTestId('source-badge').textContent()).toBe('built-in');
    expect(await card('word_count').getByTestId('source-badge').textContent()).toBe('toolshed.yaml');
    expect(await card('word_count').getByTestId('source-badge').getAttribute('title')).toBe(`Defined in ${config}.`);
    expect(await card('crm_lookup').getByTestId('source-badge').textContent()).toBe('API');
    expect(await page.getByTestId('unavailable').count()).toBe(0);
    await shoot('catalog-sources');

    const listed = (await apiCall<{ tools: ToolView[] }>(service, 'GET', '/api/tools')).body.tools;
    const source = page.getByLabel('Source');
    expect(await source.locator('option').allTextContents()).toEqual([
      'All sources',
      'API',
      'built-in',
      'toolshed.yaml',
    ]);
    await source.selectOption({ label: 'toolshed.yaml' });
    const fromConfig = listed.filter((tool) => tool.source === 'config').map((tool) => tool.id);
    expect(fromConfig).toContain('word_count');
    await expect.poll(shownIds).toEqual(fromConfig.sort());
    await source.selectOption({ label: 'API' });
    await expect.poll(shownIds).toEqual(['crm_lookup']);
    await page.getByLabel('Search tools').fill('words of a text');
    await page.getByText('No tools match “words of a text”.').waitFor();
    await source.selectOption({ label: 'toolshed.yaml' });
    await expect
      .poll(async () => (await cards().first().locator('.tool-meta code').textContent()) ?? '')
      .toBe('word_count');
    await page.getByLabel('Search tools').fill('');
    await source.selectOption('');
    await expect.poll(async () => (await shownIds()).length).toBe(listed.length);
  });

  it('shows where a tool is defined on its page, and runs an available one', async () => {
    await page.goto(`${service.base}/tools/word_count`);
    await page.getByRole('heading', { name: 'Try it' }).waitFor();
    expect(await page.locator('.tool-meta').getByTestId('source-badge').textContent()).toBe('toolshed.yaml');
    expect(await page.getByTestId('tool-source').textContent()).toBe(`Defined in ${config}.`);
    expect(await page.getByTestId('unavailable').count()).toBe(0);
    expect(await page.getByTestId('try-it-unavailable').count()).toBe(0);
    await page.locator('#arg_text').fill('the cat and the hat');
    await page.getByRole('button', { name: 'Run tool' }).click();
    const result = page.getByTestId('tool-result');
    await result.waitFor();
    expect(await result.textContent()).toContain('"words": 5');

    await page.goto(`${service.base}/tools/crm_lookup`);
    await page.getByRole('heading', { name: 'Try it' }).waitFor();
    expect(await page.getByTestId('tool-source').textContent()).toBe('Created through the REST API.');
    expect(await page.getByRole('button', { name: 'Run tool' }).isEnabled()).toBe(true);
  });

  it('lists config agents with their file and offers no controls that would change them', async () => {
    const helper = await apiCall<AgentView>(service, 'POST', '/api/agents', { name: 'Helper' });
    expect(helper.status).toBe(201);
    await page.getByRole('link', { name: 'Agents' }).first().click();
    const agents = page.getByRole('list', { name: 'Agents' }).getByRole('listitem');
    await agents.first().waitFor();
    expect(await agents.count()).toBe(2);
    const assistant = agents.filter({ hasText: 'Workspace assistant' });
    expect(await assistant.getByTestId('source-badge').textContent()).toBe('toolshed.yaml');
    expect(await assistant.getByTestId('agent-origin').textContent()).toBe(`defined in ${config}`);
    const mine = agents.filter({ hasText: 'Helper' });
    expect(await mine.getByTestId('source-badge').textContent()).toBe('API');
    expect(await mine.getByTestId('agent-origin').count()).toBe(0);
    await shoot('agents-sources');

    await page.getByRole('link', { name: 'Workspace assistant' }).click();
    await page.getByRole('heading', { name: 'Workspace assistant', level: 1 }).waitFor();
    expect(await page.getByTestId('agent-origin').textContent()).toContain(`This agent is defined in ${config}.`);
    const attached = page.getByRole('table', { name: 'Attached tools' });
    await attached.waitFor();
    expect(await attached.locator('tbody tr').count()).toBe(5);
    expect(await attached.textContent()).toContain('{"top":3}');
    expect(await page.getByRole('button', { name: /^Detach/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Attach a tool' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete this agent' }).count()).toBe(0);
    // Connecting to it is still offered.
    expect(await page.getByLabel('MCP URL (Streamable HTTP)').inputValue()).toBe(
      `${service.base}/mcp/agents/assistant`,
    );
    await shoot('agent-config');

    await page.goto(`${service.base}/agents/${helper.body.id}`);
    await page.getByRole('heading', { name: 'Helper', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Attach a tool' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete this agent' }).count()).toBe(1);
  });

  it('chooses the default tool set with checkboxes, saves it for /mcp, and resets it', async () => {
    await page.getByRole('link', { name: 'Default tools' }).click();
    await page.getByRole('heading', { name: 'Default tools', level: 1 }).waitFor();
    const status = page.getByTestId('default-set-status');
    await status.waitFor();
    const before = await defaultSet();
    expect(before.custom).toBe(false);
    expect(await status.textContent()).toBe(
      `The default set is every tool of the workspace: ${before.ids.length} tools now, and tools added later too.`,
    );
    const boxes = page.getByRole('list', { name: 'Tools to choose from' }).getByRole('checkbox');
    expect(await boxes.count()).toBe(before.ids.length);
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(before.ids.length);
    expect(await page.getByRole('button', { name: 'Reset to every tool' }).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Choose none' }).click();
    await page.getByRole('checkbox', { name: 'calculator' }).check();
    await page.getByRole('checkbox', { name: 'read_file' }).check();
    expect(await page.getByTestId('default-set-count').textContent()).toBe(
      `(2 of ${before.ids.length} chosen, not saved yet)`,
    );
    await page.getByRole('button', { name: 'Save default set' }).click();
    expect(await page.getByTestId('default-set-saved').textContent()).toBe('Saved: the default set is now 2 tools.');
    expect(await status.textContent()).toContain('The default set is the 2 tools chosen below');
    expect(await defaultSet()).toEqual({ custom: true, ids: ['calculator', 'read_file'] });
    // The configuration shortens long outputs (max_output_chars), so each view adds read_tool_output.
    expect(await mcpToolNames()).toEqual(['calculator', 'read_file', 'read_tool_output']);
    await shoot('default-tools');

    await page.reload();
    await status.waitFor();
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(2);
    expect(await page.getByRole('checkbox', { name: 'read_file' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'word_count' }).isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Reset to every tool' }).click();
    expect(await page.getByTestId('default-set-saved').textContent()).toBe(
      `Reset: the default set is every tool of the workspace (${before.ids.length} tools now).`,
    );
    expect(await defaultSet()).toEqual(before);
    expect(await mcpToolNames()).toEqual([...before.ids, 'read_tool_output'].sort());
    expect(await page.getByRole('button', { name: 'Reset to every tool' }).isDisabled()).toBe(true);

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('marks a tool this server cannot run as unavailable, with the reason, and disables its form', async () => {
    // Served without the configuration, its tools stay rows of the workspace but have no handler here.
    await restart([]);
    const reason = `Tool 'word_count' is defined in ${config}, which this server does not serve (or no longer defines it); serve that configuration (toolshed serve --config ${config}) to run it.`;
    await page.goto(`${service.base}/`);
    const mark = card('word_count').getByTestId('unavailable');
    await mark.waitFor();
    expect(await mark.textContent()).toBe(`unavailable ${reason}`);
    expect(await card('calculator').getByTestId('unavailable').count()).toBe(0);

    await page.getByRole('link', { name: 'Word Count' }).click();
    await page.getByRole('heading', { name: 'Try it' }).waitFor();
    expect(await page.locator('main > [data-testid="unavailable"]').textContent()).toBe(`unavailable ${reason}`);
    expect(await page.getByTestId('try-it-unavailable').textContent()).toBe(
      `This server cannot run this tool now. ${reason}`,
    );
    expect(await page.getByRole('button', { name: 'Run tool' }).isDisabled()).toBe(true);
    expect(await page.locator('#arg_text').isDisabled()).toBe(true);
    expect(await page.getByText('No exports while this server cannot run the tool.').count()).toBe(1);
    await shoot('tool-unavailable');

    await page.getByRole('link', { name: 'Default tools' }).click();
    const box = page
      .getByRole('list', { name: 'Tools to choose from' })
      .getByRole('listitem')
      .filter({
        has: page.getByRole('checkbox', { name: 'word_count' }),
      });
    expect(await box.getByTestId('unavailable').getAttribute('title')).toBe(reason);
  });

  it('shows why the default set was not saved, and keeps the saved one', async () => {
    const status = page.getByTestId('default-set-status');
    await status.waitFor();
    await page.getByRole('button', { name: 'Choose none' }).click();
    await page.getByRole('checkbox', { name: 'calculator' }).check();
    await page.getByRole('checkbox', { name: 'word_count' }).check();

    // The server is gone: the save fails and says so.
    await service.stop();
    await page.getByRole('button', { name: 'Save default set' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Not saved. Could not reach the toolshed server');
    expect(await alert.textContent()).toContain('NETWORK');

    // Back with a configuration that no longer defines word_count: its row is gone, so the choice the
    // page still shows is refused, and the set stays as it was.
    writeFileSync(
      config,
      [
        'workspace: ./workspace',
        'builtins: [read_file, write_file, list_files, search_code, calculator, fetch_url, serper_search]',
        'agents:',
        '  - id: assistant',
        '    name: Workspace assistant',
        '    tools: [read_file, calculator]',
        '',
      ].join('\n'),
    );
    service = await startService({ args: ['--config', config], folder, port, token: service.token });
    await page.getByRole('button', { name: 'Save default set' }).click();
    await alert.filter({ hasText: 'NOT_FOUND' }).waitFor();
    expect(await alert.textContent()).toBe(
      "Not saved. Tool 'word_count' does not exist in workspace 'default'. NOT_FOUND",
    );
    expect(await status.textContent()).toContain('The default set is every tool of the workspace');
    expect((await defaultSet()).custom).toBe(false);
    expect(await page.getByTestId('default-set-saved').count()).toBe(0);
  });

  it('sent nothing to any host but the test server', () => {
    expect(browser.offHostRequests).toEqual([]);
  });
});
