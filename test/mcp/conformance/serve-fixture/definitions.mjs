// The tools of the MCP conformance suite's server scenarios, defined once: `tools.mjs` beside this
// file defines them with the toolshed package for `toolshed serve` (scripts/conformance.mjs), and
// test/mcp/conformance-tools.ts with the library's source for the tests.
import { z } from 'zod';

/** A 1×1 red PNG. */
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** Eight samples of silence: 8 kHz, mono, 8-bit PCM WAV. */
export const SILENT_WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tools the MCP conformance suite (`@modelcontextprotocol/conformance` server scenarios) calls,
 * defined the ordinary toolshed way: `defineTool`, handlers that return values or `ToolResult`s, and
 * `ctx.log` / `ctx.progress` / `ctx.elicit` / `ctx.sample` for talking back to the client. `toolshed`
 * is the module they are defined with: the package (`tools.mjs`, which `toolshed serve` loads) or the
 * library's source (`test/mcp/conformance-tools.ts`, for the tests).
 *
 * @param {{ defineTool: Function, ToolResult: { content: Function } }} toolshed
 */
export function conformanceToolDefinitions({ defineTool, ToolResult }) {
  return [
    defineTool({
      name: 'test_simple_text',
      description: 'Returns a simple text response.',
      handler: () => 'This is a simple text response for testing.',
    }),
    defineTool({
      name: 'test_image_content',
      description: 'Returns a 1x1 red PNG image.',
      annotations: { readOnly: true },
      handler: () => ToolResult.content([{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }]),
    }),
    defineTool({
      name: 'test_audio_content',
      description: 'Returns a short WAV audio clip.',
      handler: () => ToolResult.content([{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }]),
    }),
    defineTool({
      name: 'test_embedded_resource',
      description: 'Returns an embedded text resource.',
      handler: () =>
        ToolResult.content([
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ]),
    }),
    defineTool({
      name: 'test_multiple_content_types',
      description: 'Returns text, an image and an embedded resource in one result.',
      handler: () =>
        ToolResult.content([
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ]),
    }),
    defineTool({
      name: 'test_tool_with_logging',
      description: 'Sends three info log messages while it runs.',
      handler: async (_args, ctx) => {
        ctx.log('info', 'Tool execution started');
        await pause(50);
        ctx.log('info', 'Tool processing data');
        await pause(50);
        ctx.log('info', 'Tool execution completed');
        return 'Tool with logging executed successfully';
      },
    }),
    defineTool({
      name: 'test_tool_with_progress',
      description: 'Reports progress 0, 50 and 100 out of 100 while it runs.',
      handler: async (_args, ctx) => {
        ctx.progress(0, 100);
        await pause(50);
        ctx.progress(50, 100);
        await pause(50);
        ctx.progress(100, 100);
        return 'Tool with progress executed successfully';
      },
    }),
    defineTool({
      name: 'test_error_handling',
      description: 'Always fails, to test error reporting.',
      handler: () => {
        throw new Error('This tool intentionally returns an error for testing');
      },
    }),
    defineTool({
      name: 'test_sampling',
      description: "Asks the client's model to answer a prompt (MCP sampling).",
      input: z.object({ prompt: z.string().describe('The prompt to send to the model') }),
      handler: async ({ prompt }, ctx) => {
        const answer = await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        });
        const text = answer.content.type === 'text' ? String(answer.content.text) : JSON.stringify(answer.content);
        return `LLM response: ${text}`;
      },
    }),
    defineTool({
      name: 'test_elicitation',
      description: 'Asks the user for a username and an email address (MCP elicitation).',
      input: z.object({ message: z.string().describe('The message to show the user') }),
      handler: async ({ message }, ctx) => {
        const answer = await ctx.elicit(message, {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        });
        return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'test_elicitation_sep1034_defaults',
      description: 'Asks the user for values, offering a default for every primitive type (SEP-1034).',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit('Please review and update the form fields with defaults', {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        });
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'test_elicitation_sep1330_enums',
      description: 'Asks the user to pick from every kind of enum field (SEP-1330).',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit('Please select options from the enum fields', {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Select one option',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        });
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
        },
        additionalProperties: false,
      },
      handler: (args) => `Received: ${JSON.stringify(args)}`,
    }),
    defineTool({
      name: 'test_reconnection',
      description:
        'Runs for a second and a half: the server closes its stream meanwhile (toolshed serve --mcp-poll-after) and the client resumes it with Last-Event-ID.',
      handler: async () => {
        await pause(1500);
        return 'Reconnection test completed.';
      },
    }),
  ];
}
