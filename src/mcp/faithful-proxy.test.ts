import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { toModelText } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer } from './import-mcp-server.js';
import { listMcpTools } from './mcp-tool-list.js';

const UPSTREAM_TOOL: Tool = {
  name: 'render',
  title: 'Render a chart',
  description: 'Render a chart as SVG.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { series: { type: 'array', items: { type: 'number' } } },
    required: ['series'],
  },
  annotations: { title: 'Render a chart', readOnlyHint: true, openWorldHint: false },
  execution: { taskSupport: 'optional' },
  icons: [{ src: 'https://charts.example.com/icon.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
  _meta: { 'com.example/owner': 'charts-team' },
};

it('serves an imported tool again with its $schema, annotations, execution, icons and _meta', async () => {
  const upstream = new Server({ name: 'charts', version: '1.0.0' }, { capabilities: { tools: {} } });
  upstream.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [UPSTREAM_TOOL] }));
  upstream.setRequestHandler(CallToolRequestSchema, (request) => {
    const series = request.params.arguments?.series as number[];
    return { content: [{ type: 'text', text: `${series.length} points` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(serverSide);
  const registry = new ToolRegistry();
  const connection = await importMcpServer(registry, { name: 'charts' }, { transport: clientSide });
  try {
    expect(listMcpTools(registry).tools).toEqual([
      {
        name: 'charts__render',
        title: 'Render a chart',
        description: 'Render a chart as SVG.',
        inputSchema: UPSTREAM_TOOL.inputSchema,
        annotations: {
          title: 'Render a chart',
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        execution: { taskSupport: 'optional' },
        icons: [{ src: 'https://charts.example.com/icon.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
        _meta: { 'com.example/owner': 'charts-team' },
      },
    ]);
    expect(toModelText(await registry.call('charts__render', { series: [1, 2, 3] }))).toBe('3 points');
  } finally {
    await connection.close();
  }
});
