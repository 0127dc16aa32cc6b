import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type ElicitRequest,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { importMcpServer, type McpServerConnection } from './import-mcp-server.js';
import { createMcpServer } from './mcp-server.js';

/** An upstream MCP server whose tools ask their client's model (sampling) and its user (elicitation). */
function upstreamServer(): McpServer {
  const server = new McpServer({ name: 'asker', version: '1.0.0' });
  server.registerTool('summarize', { description: "Summarize with the client's model." }, async () => {
    try {
      const answer = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: the cat sat on the mat.' } }],
        maxTokens: 40,
        systemPrompt: 'Be brief.',
      });
      const text = answer.content.type === 'text' ? answer.content.text : '(not text)';
      return { content: [{ type: 'text', text: `summary by ${answer.model}: ${text}` }] };
    } catch (error) {
      return { content: [{ type: 'text', text: `no summary: ${(error as Error).message}` }], isError: true };
    }
  });
  server.registerTool('confirm', { description: 'Ask the user to confirm.' }, async () => {
    const answer = await server.server.elicitInput({
      message: 'Delete the draft?',
      requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
    });
    return { content: [{ type: 'text', text: `${answer.action} ${JSON.stringify(answer.content ?? {})}` }] };
  });
  return server;
}

/** toolshed importing the upstream, served again over MCP to a calling client with `capabilities`. */
async function gateway(capabilities: Record<string, unknown>): Promise<{
  caller: Client;
  connection: McpServerConnection;
}> {
  const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
  const [upstreamClientSide, upstreamServerSide] = InMemoryTransport.createLinkedPair();
  await upstreamServer().connect(upstreamServerSide);
  const connection = await importMcpServer(registry, { name: 'asker' }, { transport: upstreamClientSide });
  const caller = new Client({ name: 'caller', version: '1.0.0' }, { capabilities });
  const [callerSide, toolshedSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry).connect(toolshedSide);
  await caller.connect(callerSide);
  return { caller, connection };
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('sampling and elicitation requests of an imported MCP server', () => {
  let opened: { caller: Client; connection: McpServerConnection } | undefined;
  afterEach(async () => {
    await opened?.caller.close();
    await opened?.connection.close();
  });

  it('reach the client that called the tool through toolshed, and its answers go back upstream', async () => {
    opened = await gateway({ sampling: {}, elicitation: {} });
    const sampled: CreateMessageRequest['params'][] = [];
    const elicited: ElicitRequest['params'][] = [];
    opened.caller.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params);
      return { role: 'assistant', model: 'caller-model-1', content: { type: 'text', text: 'A cat sat.' } };
    });
    opened.caller.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return { action: 'accept', content: { sure: true } };
    });

    const summary = await opened.caller.callTool({ name: 'asker__summarize', arguments: {} });
    expect(summary.isError).toBeFalsy();
    expect(text(summary)).toBe('summary by caller-model-1: A cat sat.');
    expect(sampled).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: the cat sat on the mat.' } }],
        maxTokens: 40,
        systemPrompt: 'Be brief.',
      },
    ]);

    const confirmed = await opened.caller.callTool({ name: 'asker__confirm', arguments: {} });
    expect(text(confirmed)).toBe('accept {"sure":true}');
    expect(elicited).toMatchObject([
      {
        message: 'Delete the draft?',
        requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
      },
    ]);
  });

  it("make the server's tools visible: toolshed's client declares both capabilities upstream", async () => {
    opened = await gateway({});
    const listed = await opened.caller.listTools();
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['asker__confirm', 'asker__summarize']);
  });

  it('from a calling client without the capability: the call ends in a tool error that says what it lacks', async () => {
    opened = await gateway({});
    const summary = await opened.caller.callTool({ name: 'asker__summarize', arguments: {} });
    expect(summary.isError).toBe(true);
    expect(text(summary)).toBe(
      "Error [EXECUTION_FAILED]: MCP server 'asker' asked the client for sampling (sampling/createMessage) during 'asker__summarize', and the client calling through toolshed does not support it. It answered: no summary: MCP error -32600: The client calling 'asker__summarize' through toolshed does not support sampling (sampling/createMessage).",
    );

    const confirmed = await opened.caller.callTool({ name: 'asker__confirm', arguments: {} });
    expect(confirmed.isError).toBe(true);
    expect(text(confirmed)).toMatch(
      /^Error \[EXECUTION_FAILED\]: MCP server 'asker' asked the client for elicitation \(elicitation\/create\) during 'asker__confirm', and the client calling through toolshed does not support it\./,
    );
  });

  it('from a call made in code (no MCP client at all): the same tool error', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 10_000 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await upstreamServer().connect(serverSide);
    const connection = await importMcpServer(registry, { name: 'asker' }, { transport: clientSide });
    try {
      const result = await registry.call('asker__summarize', {});
      expect(result.status === 'error' && result.error).toMatchObject({
        code: 'EXECUTION_FAILED',
        details: { mcpServer: 'asker', unsupported: 'sampling (sampling/createMessage)' },
      });
    } finally {
      await connection.close();
    }
  });
});
