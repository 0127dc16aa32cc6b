import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolView } from '../../src/server/api-shapes.js';
import { CHANGED_GREET, writeGatewayConfig } from '../support/gateway-fixture.js';
import {
  apiCall,
  type RunningBrowser,
  type RunningService,
  signIn,
  startBrowser,
  startService,
} from './browser-harness.js';

// A tool an MCP server changed between two runs of `toolshed serve`, reviewed and approved in the
// catalog's MCP servers page in headless Chromium.

const CHANGED = CHANGED_GREET;

let service: RunningService;
let browser: RunningBrowser;
let page: Page;
let folder: string;

function writeConfig(description: string): void {
  writeGatewayConfig(folder, description);
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-web-pins-'));
  writeConfig('Say hello.');
  const first = await startService({ args: ['--config', 'toolshed.yaml'], folder });
  await first.stop();
  writeConfig(CHANGED);
  [service, browser] = await Promise.all([
    startService({ args: ['--config', 'toolshed.yaml'], folder, token: first.token }),
    startBrowser(),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const greet = async () =>
  (await apiCall<{ tools: ToolView[] }>(service, 'GET', '/api/tools')).body.tools.find(
    (tool) => tool.id === 'fixture__greet',
  );

describe('the MCP servers page', () => {
  it('shows the server, the quarantined tool with its diff, and approves it', async () => {
    expect(await greet()).toMatchObject({ available: false });
    await page.goto(`${service.base}/`);
    await signIn(page, service.token);
    // The catalog marks the tool quarantined; its page links to the review.
    await page.goto(`${service.base}/tools/fixture__greet`);
    const mark = page.getByTestId('unavailable');
    await mark.waitFor();
    expect(await mark.textContent()).toMatch(
      /^quarantined Tool 'fixture__greet' is quarantined: MCP server 'fixture' changed its description/,
    );
    await mark.getByRole('link', { name: 'Review the change' }).click();
    await page.getByRole('heading', { name: 'MCP servers', level: 1 }).waitFor();
    await page.getByRole('heading', { name: /fixture/ }).waitFor();
    expect(await page.getByRole('heading', { name: /fixture/ }).textContent()).toBe('fixture up');
    const change = page.getByRole('region', { name: 'Change of greet' });
    expect(await change.locator('pre.diff').textContent()).toBe(`description:\n- Say hello.\n+ ${CHANGED}\n`);
    expect(await change.locator('.diff-removed').textContent()).toBe('- Say hello.\n');
    expect(await change.locator('.diff-added').textContent()).toBe(`+ ${CHANGED}\n`);

    await change.getByRole('button', { name: 'Approve the change of greet' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved: fixture greet is served again.' }).waitFor();
    await page.getByText('No changed tools waiting for approval.').waitFor();
    // toolshed serve syncs the approved tool into the workspace right after the approval.
    await expect.poll(greet, { timeout: 10_000 }).toMatchObject({ available: true, description: CHANGED });
    expect(browser.offHostRequests).toEqual([]);
  }, 60_000);
});
