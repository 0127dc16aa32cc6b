import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBrowser, type RunningService, startBrowser, startService } from './browser-harness.js';

// The try-it form's code editor, results that keep their line breaks, agent names in the call log and
// an agent page with many tools, in headless Chromium against a real `toolshed serve`.

let service: RunningService;
let browser: RunningBrowser;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startService(), startBrowser()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
  await page.goto(`${service.base}/`);
  await page.getByLabel('Workspace id').fill('default');
  await page.getByLabel('API token').fill(service.token);
  await page.getByLabel('API token').press('Enter');
  await page.getByRole('heading', { name: 'Tool catalog' }).waitFor();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, 30_000);

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      'x-workspace-id': 'default',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The text of an element as the page shows it, line breaks included. */
function shownText(testId: string): Promise<string> {
  return page.evaluate(`document.querySelector('[data-testid="${testId}"]').innerText`);
}

async function openTool(name: string) {
  await page.goto(`${service.base}/tools/${name}`);
  await page.getByRole('heading', { name: 'Try it' }).waitFor();
}

describe('the try-it form for code', () => {
  it('edits execute_python in a multi-line editor and shows the output with its newlines', async () => {
    await openTool('execute_python');
    const code = page.getByLabel('code');
    expect(await page.evaluate('document.getElementById("arg_code").tagName')).toBe('TEXTAREA');
    expect(await page.evaluate('getComputedStyle(document.getElementById("arg_code")).fontFamily')).toMatch(/mono/i);
    await code.click();
    await page.keyboard.type('for n in range(3):\n');
    await page.keyboard.press('Tab');
    await page.keyboard.type('print(n * n)\nprint("done")');
    expect(await code.inputValue()).toBe('for n in range(3):\n    print(n * n)\nprint("done")');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('result-stdout').waitFor({ timeout: 60_000 });
    expect(await shownText('result-stdout')).toBe('0\n1\n4\ndone\n');
  }, 90_000);

  it('shows a traceback line by line', async () => {
    const code = page.getByLabel('code');
    await code.fill('def check(value):\n    raise ValueError(f"bad value {value}")\ncheck(7)');
    await page.getByRole('button', { name: 'Run tool' }).click();
    await page.getByTestId('error-message').waitFor({ timeout: 60_000 });
    expect((await shownText('error-message')).split('\n')).toEqual([
      'Python raised ValueError: bad value 7 (line 2).',
      'Traceback (most recent call last):',
      '  line 3, in <module>',
      '    check(7)',
      '  line 2, in check',
      '    raise ValueError(f"bad value {value}")',
      'ValueError: bad value 7',
    ]);
  }, 90_000);

  it('outdents with Shift-Tab, and after Escape lets Tab move the focus on', async () => {
    await openTool('execute_javascript');
    const code = page.getByLabel('code');
    await code.fill('if (true) {\n    console.log(1);\n}');
    await page.evaluate('document.getElementById("arg_code").setSelectionRange(16, 16)');
    await page.keyboard.press('Shift+Tab');
    expect(await code.inputValue()).toBe('if (true) {\nconsole.log(1);\n}');
    await page.keyboard.press('Tab');
    expect(await code.inputValue()).toBe('if (true) {\n    console.log(1);\n}');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await code.inputValue()).toBe('if (true) {\n    console.log(1);\n}');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Run tool');
  });

  it('keeps a one-line field such as the calculator expression a one-line input', async () => {
    await openTool('calculator');
    expect(await page.evaluate('document.getElementById("arg_expression").tagName')).toBe('INPUT');
  });
});

describe('agents in the catalog', () => {
  it('names the agent of each call in the call log', async () => {
    const agent = await api<{ id: string }>('POST', '/api/agents', { name: 'Number cruncher' });
    const result = await api<{ status: string }>('POST', '/api/tools/calculator/call', {
      arguments: { expression: '6 * 7' },
      agent_id: agent.id,
    });
    expect(result.status).toBe('success');
    await page.goto(`${service.base}/calls`);
    const row = page.locator('table.calls-table tbody tr').filter({ hasText: 'calculator' }).first();
    await row.waitFor();
    const cell = row.getByRole('link', { name: 'Number cruncher' });
    expect(await cell.getAttribute('href')).toBe(`/agents/${agent.id}`);
    expect(await row.textContent()).not.toContain(agent.id);
  });

  it('keeps "Connect over MCP" at the top beside an agent with 50 tools', async () => {
    const agent = await api<{ id: string }>('POST', '/api/agents', { name: 'Fifty tools' });
    for (let index = 1; index <= 50; index++) {
      const id = `lookup_${String(index).padStart(2, '0')}`;
      await api('POST', '/api/tools', {
        id,
        type: 'rest_api',
        description: `Look up record set ${index} of the archive.`,
        endpoint: `https://api.example.com/records/${index}`,
        parameters: { type: 'object', properties: { query: { type: 'string' } } },
      });
      await api('POST', `/api/agents/${agent.id}/tools`, { tool_id: id });
    }
    await page.goto(`${service.base}/agents/${agent.id}`);
    await page.getByTestId('attached-count').filter({ hasText: '50 attached tools.' }).waitFor();
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const top = (selector: string) =>
      page.evaluate(`document.querySelector('${selector}').getBoundingClientRect().top + window.scrollY`);
    const connect = page.locator('section[aria-labelledby="connect-heading"]');
    expect(await top('section[aria-labelledby="connect-heading"]')).toBe(await top('.agent-layout'));
    const tools = await page.getByRole('table', { name: 'Attached tools' }).boundingBox();
    const panel = await connect.boundingBox();
    expect(panel!.x).toBeGreaterThan(tools!.x + tools!.width);
  });

  it('sent nothing to any host but the test server', () => {
    expect(browser.offHostRequests).toEqual([]);
  });
});
