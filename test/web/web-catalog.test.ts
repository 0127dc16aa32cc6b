import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningBrowser,
  type RunningService,
  SCREENSHOTS,
  startBrowser,
  startService,
} from './browser-harness.js';

let service: RunningService;
let browser: RunningBrowser;
let page: Page;

beforeAll(async () => {
  // Installing Chromium on a fresh machine can take minutes; afterwards this takes a second or two.
  [service, browser] = await Promise.all([startService(), startBrowser()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(10_000);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, 30_000);

function shoot(name: string, fullPage = true) {
  return page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage, animations: 'disabled' });
}

async function signIn(token: string) {
  await page.getByLabel('Workspace id').fill('default');
  await page.getByLabel('API token').fill(token);
  await page.getByLabel('API token').press('Enter');
}

describe('the web catalog in a real browser', () => {
  it('says clearly when the token is wrong, and keeps the right one', async () => {
    await page.goto(`${service.base}/`);
    await page.getByRole('heading', { name: 'toolshed catalog' }).waitFor();
    // The token field has the focus, so typing and Enter are enough.
    expect(await page.evaluate('document.activeElement?.id')).toBe('api-token');
    await signIn('tsk_00000000000000000000000000000000_wrong');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The token was refused: it is malformed, unknown or revoked.');
    await shoot('token-screen');
    await signIn(service.token);
    await page.getByRole('heading', { name: 'Tool catalog' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Tool catalog' }).waitFor();
    expect(await page.evaluate('JSON.parse(localStorage.getItem("toolshed.credentials")).workspaceId')).toBe('default');
  });

  it('lists every tool, searches them with BM25 and filters by category', async () => {
    const tools = page.getByRole('list', { name: 'Tools' }).getByRole('listitem');
    await tools.first().waitFor();
    expect(await tools.count()).toBeGreaterThanOrEqual(8);
    const calculator = tools.filter({ hasText: 'calculator' });
    expect(await calculator.textContent()).toContain('Calculator');
    expect(await calculator.textContent()).toContain('math');
    expect(await calculator.textContent()).toContain('Evaluate a math expression');
    await shoot('catalog');

    await page.getByLabel('Search tools').fill('convert units');
    await page.getByText('for “convert units”, best match first').waitFor();
    expect(await tools.first().getByRole('heading').textContent()).toBe('Calculator');

    await page.getByLabel('Search tools').fill('zzqxv');
    await page.getByText('No tools match “zzqxv”.').waitFor();

    await page.getByLabel('Search tools').fill('');
    await page.getByLabel('Category').selectOption('filesystem');
    await page.getByText(/^\d+ tools$/).waitFor();
    await expect
      .poll(async () =>
        (await page.locator('.tool-card .badge').allTextContents()).every((text) => text === 'filesystem'),
      )
      .toBe(true);
    expect(await tools.filter({ hasText: 'read_file' }).count()).toBe(1);
    expect(await tools.filter({ hasText: 'calculator' }).count()).toBe(0);
    await page.getByLabel('Category').selectOption('');
  });

  it('shows a tool with its requirements, schema and exports, and refuses an invalid form', async () => {
    await page.goto(`${service.base}/tools/serper_search`);
    await page.getByRole('heading', { name: 'Requirements' }).waitFor();
    const requirement = page.locator('.requirements li').first();
    expect(await requirement.textContent()).toContain('SERPER_API_KEY');
    expect(await requirement.textContent()).toContain('not set');

    await page.getByRole('link', { name: 'Catalog' }).first().click();
    await page.getByRole('link', { name: 'Calculator' }).click();
    await page.getByRole('heading', { name: 'Calculator', level: 1 }).waitFor();
    const schema = page.locator('table.schema-table');
    expect(await schema.textContent()).toContain('expression');
    expect(await schema.textContent()).toContain('max length 1000');
    const exported = page.getByTestId('export-json');
    await exported.waitFor();
    expect(await exported.textContent()).toContain('"type": "function"');
    for (const [tab, marker] of [
      ['Anthropic', '"input_schema"'],
      ['Gemini', '"parameters"'],
      ['MCP', '"inputSchema"'],
    ] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByTestId('export-json').filter({ hasText: marker }).waitFor();
    }

    await page.getByRole('button', { name: 'Run tool' }).click();
    const fieldError = page.locator('.error-detail');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toContain('This field is required.');
    // Nothing was sent: the form validated first.
    expect(await page.getByTestId('tool-result').count()).toBe(0);
  });

  it('runs calculator through the form and shows the ToolResult', async () => {
    const expression = page.getByLabel('expression');
    await expression.fill('2 ^ 10');
    await expression.press('Enter');
    const result = page.getByTestId('tool-result');
    await result.waitFor();
    const text = await result.textContent();
    expect(text).toContain('success');
    expect(text).toContain('"result": 1024');
    expect(text).toMatch(/in \d+(\.\d)? m?s/);
    expect(await page.locator('.error-detail').count()).toBe(0);

    await expression.fill('sqrt(');
    await page.getByRole('button', { name: 'Run tool' }).click();
    await page.getByText('INVALID_ARGUMENTS').waitFor();
    expect(await result.textContent()).toContain('Hint:');
    await expression.fill('(2 + 3) * sqrt(16)');
    await expression.press('Enter');
    await page.getByText('"result": 20').waitFor();
    await shoot('tool-page');
  });

  it('creates an agent, attaches a tool with validated config, and detaches it', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByText('No agents yet.').waitFor();
    await page.getByLabel('Name').fill('Research');
    await page.getByLabel('Description (optional)').fill('Digs through numbers.');
    await page.getByLabel('Description (optional)').press('Enter');
    await page.getByRole('heading', { name: 'Research', level: 1 }).waitFor();
    const agentId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(agentId).toMatch(/^agt_/);
    await page.getByTestId('fallback-notice').waitFor();
    expect(await page.getByLabel('MCP URL (Streamable HTTP)').inputValue()).toBe(
      `${service.base}/mcp/agents/${agentId}`,
    );
    expect(await page.getByTestId('claude-config').textContent()).toContain(`/mcp/agents/${agentId}`);

    await page.getByLabel('Tool', { exact: true }).selectOption('calculator');
    const config = page.getByLabel('Config for this agent (JSON object, optional)');
    await config.fill('{"precision": ');
    await page.getByText('The config is not valid JSON').waitFor();
    await config.fill('[1, 2]');
    await page.getByText('The config must be a JSON object such as {"precision": 3}, got an array.').waitFor();
    await page.getByRole('button', { name: 'Attach tool' }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('attach-config');
    await config.fill('{"precision": 3}');
    await page.getByRole('button', { name: 'Attach tool' }).click();
    await page.getByTestId('attached-count').waitFor();
    expect(await page.getByTestId('attached-count').textContent()).toBe('1 attached tool.');
    const attached = page.getByRole('table', { name: 'Attached tools' });
    expect(await attached.textContent()).toContain('{"precision":3}');
    await page.getByTestId('prompt-docs').filter({ hasText: 'calculator' }).waitFor();
    await shoot('agent-page');

    // Detaching the last tool leaves the agent with none: it never falls back to the default set again.
    await page.getByRole('button', { name: 'Detach calculator' }).click();
    await page.getByText('No tools attached: this agent can use none.', { exact: false }).waitFor();
    expect(await page.getByTestId('attached-count').textContent()).toBe('0 attached tools.');
    expect(await page.getByTestId('fallback-notice').count()).toBe(0);
    await page.getByRole('link', { name: 'Agents' }).first().click();
    await page.getByRole('link', { name: 'Research' }).waitFor();
  });

  it('shows the calls in the call log, filterable by agent and tool', async () => {
    await page.getByRole('link', { name: 'Calls' }).click();
    const rows = page.locator('table.calls-table tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const failed = rows.filter({ hasText: 'INVALID_ARGUMENTS' });
    expect(await failed.count()).toBe(1);
    expect(await failed.textContent()).toContain('calculator');
    expect(await failed.textContent()).toContain('error');
    expect(await rows.filter({ hasText: 'success' }).count()).toBe(2);
    await shoot('calls');

    await page.getByLabel('Tool').selectOption('read_file');
    await page.getByText('No calls match these filters.').waitFor();
    await page.getByLabel('Tool').selectOption('calculator');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const agent = page.getByLabel('Agent');
    await agent.selectOption({ label: (await agent.locator('option').nth(1).textContent()) ?? '' });
    await page.getByText('No calls match these filters.').waitFor();
  });

  it('shows a code tool with its code and runs it through the form', async () => {
    const created = await fetch(`${service.base}/api/tools`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.token}`,
        'x-workspace-id': 'default',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        id: 'shout',
        type: 'javascript',
        title: 'Shout',
        description: 'Repeat a word in capitals.',
        parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
        code: 'function shout({ word }) {\n  return word.toUpperCase() + "!";\n}',
      }),
    });
    expect(created.status).toBe(201);
    await page.goto(`${service.base}/`);
    await page.getByLabel('Search tools').fill('capitals');
    await page.getByRole('link', { name: 'Shout' }).click();
    await page.getByRole('heading', { name: 'Shout', level: 1 }).waitFor();
    expect(await page.getByTestId('tool-code').textContent()).toContain('return word.toUpperCase() + "!";');
    expect(await page.getByRole('heading', { name: 'Code (JavaScript)' }).count()).toBe(1);
    const word = page.getByLabel('word');
    await word.fill('hello');
    await word.press('Enter');
    // A string result is shown as it is.
    await page.getByTestId('tool-result').filter({ hasText: 'HELLO!' }).waitFor();
    expect(await page.getByTestId('tool-result').textContent()).toContain('success');
  });

  it('works at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Catalog' }).first().click();
    await page.getByRole('list', { name: 'Tools' }).waitFor();
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
    await shoot('catalog-390', false);
    await page.getByRole('link', { name: 'Calculator' }).click();
    await page.getByLabel('expression').fill('1 + 1');
    await page.getByLabel('expression').press('Enter');
    await page.getByText('"result": 2').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await page.getByRole('heading', { name: 'Try it' }).scrollIntoViewIfNeeded();
    await shoot('tool-page-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('sent nothing to any host but the test server', () => {
    expect(browser.offHostRequests).toEqual([]);
  });
});
