import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
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
  // The example project, copied so the service's file tools write into the temp folder only.
  [service, browser] = await Promise.all([
    startService({
      prepare: (folder) => cpSync(join(ROOT, 'examples'), join(folder, 'examples'), { recursive: true }),
      args: ['--config', 'examples/toolshed.yaml'],
    }),
    startBrowser(),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(10_000);
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

async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      'x-workspace-id': 'default',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

function shoot(name: string) {
  return page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

describe('editing tools and agents in the web catalog', () => {
  it("shows where a built-in and a configuration's tool come from, with no edit controls", async () => {
    const origin = (await api('GET', '/api/tools/word_count')).body.origin as string;
    expect(origin).toMatch(/toolshed\.yaml$/);
    for (const [id, notice] of [
      ['read_file', "Tool 'read_file' is a built-in; it cannot be changed."],
      ['word_count', `Tool 'word_count' is defined in ${origin}; edit it there.`],
    ] as const) {
      await page.goto(`${service.base}/tools/${id}`);
      await page.getByTestId('read-only-notice').waitFor();
      expect(await page.getByTestId('read-only-notice').textContent()).toBe(notice);
      expect(await page.locator('.tool-meta').getByTestId('source-badge').textContent()).toBe(
        id === 'read_file' ? 'built-in' : 'toolshed.yaml',
      );
      expect(await page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete this tool' }).count()).toBe(0);
    }
  });

  it("edits a REST tool's description, when to use, category and tags, showing a refused field", async () => {
    const created = await api('POST', '/api/tools', {
      id: 'company_search',
      type: 'rest_api',
      description: 'Search the company knowledge base.',
      endpoint: 'https://api.example.com/search',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    });
    expect(created.status).toBe(201);
    await page.goto(`${service.base}/tools/company_search`);
    await page.getByRole('heading', { name: 'Edit' }).waitFor();
    expect(await page.locator('.tool-meta').getByTestId('source-badge').textContent()).toBe('API');
    expect(await page.getByTestId('read-only-notice').count()).toBe(0);
    // A GET endpoint is read-only and reaches the open world unless its definition says otherwise.
    expect(await page.locator('.tool-meta').getByTestId('hint-badge').allTextContents()).toEqual([
      'read-only',
      'open world',
    ]);

    // A blank description is refused by the server, and the message shows under the field.
    await page.locator('#edit-description').fill('   ');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refused = page.locator('#edit-description-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('Invalid REST tool:');
    expect(await page.evaluate('document.activeElement?.id')).toBe('edit-description');
    expect((await api('GET', '/api/tools/company_search')).body.description).toBe('Search the company knowledge base.');

    await page.locator('#edit-description').fill('Search the wiki and the tickets.');
    await page.getByLabel('When to use (optional)').fill('For questions about internal projects.');
    await page.getByLabel('Category').fill('knowledge');
    await page.getByLabel('Tags (comma-separated)').fill('search, wiki, , search');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('list', { name: 'Tags' }).filter({ hasText: 'wiki' }).waitFor();
    expect(await page.getByRole('list', { name: 'Tags' }).getByRole('listitem').allTextContents()).toEqual([
      'search',
      'wiki',
    ]);
    await page.getByText('Search the wiki and the tickets.', { exact: true }).first().waitFor();
    expect((await api('GET', '/api/tools/company_search')).body).toMatchObject({
      description: 'Search the wiki and the tickets.',
      when_to_use: 'For questions about internal projects.',
      category: 'knowledge',
      tags: ['search', 'wiki'],
    });
    await page.getByTestId('export-json').filter({ hasText: 'Search the wiki and the tickets.' }).waitFor();
    await shoot('tool-edit');
  });

  it('deletes a REST tool after a confirmation', async () => {
    await page.goto(`${service.base}/tools/company_search`);
    await page.getByRole('button', { name: 'Delete this tool' }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect((await api('GET', '/api/tools/company_search')).status).toBe(200);
    await page.getByRole('button', { name: 'Delete this tool' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Tool catalog' }).waitFor();
    expect((await api('GET', '/api/tools/company_search')).status).toBe(404);
  });

  it('shows a config agent read-only, and renames an agent made here', async () => {
    const origin = (await api('GET', '/api/agents/assistant')).body.origin as string;
    await page.goto(`${service.base}/agents`);
    const assistant = page.getByRole('list', { name: 'Agents' }).getByRole('listitem').filter({ hasText: 'assistant' });
    await assistant.waitFor();
    expect(await assistant.getByTestId('source-badge').textContent()).toBe('toolshed.yaml');
    await assistant.getByRole('link').click();
    await page.getByTestId('agent-origin').waitFor();
    expect(await page.getByTestId('agent-origin').textContent()).toContain(`This agent is defined in ${origin}.`);
    await page.getByRole('table', { name: 'Attached tools' }).waitFor();
    for (const control of ['Attach tool', 'Save', 'Delete this agent', 'Detach calculator']) {
      expect(await page.getByRole('button', { name: control }).count(), control).toBe(0);
    }

    const created = await api('POST', '/api/agents', { name: 'Research' });
    const agentId = created.body.id as string;
    await page.goto(`${service.base}/agents/${agentId}`);
    await page.getByRole('heading', { name: 'Research', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#rename-name-error').waitFor();
    expect(await page.locator('#rename-name-error').textContent()).toBe(
      '\'name\' must be a non-empty string of at most 200 characters, got "".',
    );
    await page.getByLabel('Name', { exact: true }).fill('Research (EU)');
    await page.getByLabel('Description (optional)').fill('Finds European sources.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Research (EU)', level: 1 }).waitFor();
    await page.getByText('Finds European sources.').first().waitFor();
    expect((await api('GET', `/api/agents/${agentId}`)).body).toMatchObject({
      name: 'Research (EU)',
      description: 'Finds European sources.',
    });
  });

  it('sent nothing to any host but the test server', () => {
    expect(browser.offHostRequests).toEqual([]);
  });
});
