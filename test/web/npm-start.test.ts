import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
import {
  apiCall,
  type RunningBrowser,
  type RunningService,
  signIn,
  startBrowser,
  startService,
} from './browser-harness.js';

// What `npm start` serves (`toolshed serve --config examples/toolshed.yaml`), on a copy of the examples
// folder and a temporary database: the four file tools see one folder, the configuration's
// `workspace:`, whether they are called through REST, MCP or the web page's "try it" form.

let service: RunningService;
let browser: RunningBrowser;
let page: Page;
let examples: string;
const clients: Client[] = [];

beforeAll(async () => {
  examples = mkdtempSync(join(tmpdir(), 'toolshed-npm-start-'));
  cpSync(join(ROOT, 'examples'), examples, { recursive: true });
  [service, browser] = await Promise.all([
    startService({ args: ['--config', join(examples, 'toolshed.yaml')] }),
    startBrowser(),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await browser?.close();
  await service?.stop();
  rmSync(examples, { recursive: true, force: true });
}, 30_000);

/** `POST /api/tools/:id/call`, answering the ToolResult. */
async function restCall(tool: string, args: Record<string, unknown>) {
  const { status, body } = await apiCall<{ status: string; data: unknown; error?: { message: string } }>(
    service,
    'POST',
    `/api/tools/${tool}/call`,
    { arguments: args },
  );
  expect(status).toBe(200);
  expect(body.error?.message).toBeUndefined();
  expect(body.status).toBe('success');
  return body.data;
}

async function mcpClient(path: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-npm-start-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, service.base), {
      requestInit: { headers: { authorization: `Bearer ${service.token}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** A tool call over MCP: the text it answered, after checking it is not an error. */
async function mcpCall(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n');
  expect(result.isError ?? false, text).toBe(false);
  return text;
}

/** Fill the "try it" form of a tool (by property name) and run it; answers what the result panel shows. */
async function tryIt(tool: string, fields: Record<string, string>): Promise<string> {
  await page.goto(`${service.base}/tools/${tool}`);
  await page.getByRole('heading', { name: 'Try it' }).waitFor();
  // rjsf names each field's input `arg_<property>` (the form's idPrefix).
  for (const [name, value] of Object.entries(fields)) await page.locator(`#arg_${name}`).fill(value);
  await page.getByRole('button', { name: 'Run tool' }).click();
  const result = page.getByTestId('tool-result');
  await result.waitFor();
  const text = (await result.textContent()) ?? '';
  expect(text).toContain('success');
  return text;
}

const notes = () => join(examples, 'workspace', 'notes');

describe('npm start: write_file, read_file, list_files and search_code share the configuration’s folder', () => {
  it('through REST', async () => {
    const written = await restCall('write_file', { path: 'notes/from-rest.md', content: 'kumquat from REST\n' });
    expect(written).toMatchObject({ path: '/notes/from-rest.md', created: true });
    // The folder the configuration names holds it, not the database.
    expect(readFileSync(join(notes(), 'from-rest.md'), 'utf8')).toBe('kumquat from REST\n');
    expect(await restCall('read_file', { path: 'notes/from-rest.md' })).toMatchObject({
      content: 'kumquat from REST\n',
    });
    expect(await restCall('list_files', { path: 'notes' })).toContain('/notes/from-rest.md');
    const found = (await restCall('search_code', { pattern: 'kumquat' })) as { matches: Array<{ path: string }> };
    expect(found.matches.map((match) => match.path)).toEqual(['/notes/from-rest.md']);
    // The repository's examples folder is left as it was.
    expect(existsSync(join(ROOT, 'examples', 'workspace', 'notes'))).toBe(false);
  });

  it('through MCP on /mcp and on the example agent', async () => {
    const client = await mcpClient('/mcp');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['write_file', 'read_file', 'list_files', 'search_code']));

    expect(await mcpCall(client, 'write_file', { path: 'notes/from-mcp.md', content: 'kumquat from MCP\n' })).toContain(
      '/notes/from-mcp.md',
    );
    expect(readFileSync(join(notes(), 'from-mcp.md'), 'utf8')).toBe('kumquat from MCP\n');
    // MCP reads what REST wrote, and REST what MCP wrote.
    expect(await mcpCall(client, 'read_file', { path: 'notes/from-rest.md' })).toContain('kumquat from REST');
    expect(await restCall('read_file', { path: 'notes/from-mcp.md' })).toMatchObject({ content: 'kumquat from MCP\n' });
    const listed = await mcpCall(client, 'list_files', { path: 'notes' });
    expect(listed).toContain('/notes/from-rest.md');
    expect(listed).toContain('/notes/from-mcp.md');
    const searched = await mcpCall(client, 'search_code', { pattern: 'kumquat' });
    expect(searched).toContain('/notes/from-rest.md');
    expect(searched).toContain('/notes/from-mcp.md');

    // The configuration's agent has the read tools of the same folder.
    const assistant = await mcpClient('/mcp/agents/assistant');
    expect(await mcpCall(assistant, 'read_file', { path: 'notes/from-mcp.md' })).toContain('kumquat from MCP');
    expect(await mcpCall(assistant, 'search_code', { pattern: 'kumquat from REST' })).toContain('/notes/from-rest.md');
  });

  it('through the web page’s "try it" form', async () => {
    await page.goto(`${service.base}/`);
    await signIn(page, service.token);

    expect(await tryIt('write_file', { path: 'notes/from-web.md', content: 'kumquat from the web' })).toContain(
      '"created": true',
    );
    expect(readFileSync(join(notes(), 'from-web.md'), 'utf8')).toBe('kumquat from the web');

    expect(await tryIt('read_file', { path: 'notes/from-mcp.md' })).toContain('kumquat from MCP');
    const listed = await tryIt('list_files', { path: 'notes' });
    for (const file of ['from-rest.md', 'from-mcp.md', 'from-web.md']) expect(listed).toContain(`/notes/${file}`);
    const searched = await tryIt('search_code', { pattern: 'kumquat' });
    for (const file of ['from-rest.md', 'from-mcp.md', 'from-web.md']) expect(searched).toContain(`/notes/${file}`);

    // REST and MCP see the file the form wrote.
    expect(await restCall('read_file', { path: 'notes/from-web.md' })).toMatchObject({
      content: 'kumquat from the web',
    });
    const client = clients[0] as Client;
    expect(await mcpCall(client, 'read_file', { path: 'notes/from-web.md' })).toContain('kumquat from the web');
  });

  it('sent nothing to any host but the test server', () => {
    expect(browser.offHostRequests).toEqual([]);
  });
});
