import {
  ContentCatalog,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  ToolRegistry,
  ToolResult,
  type ToolSpec,
} from '../../src/index.js';
import { conformanceToolDefinitions, RED_PIXEL_PNG } from './conformance/serve-fixture/definitions.mjs';

export { RED_PIXEL_PNG, SILENT_WAV } from './conformance/serve-fixture/definitions.mjs';

/**
 * The tools the MCP conformance suite's server scenarios call, defined with the library's source (the
 * same definitions `toolshed serve` loads from test/mcp/conformance/serve-fixture/tools.mjs).
 */
export const conformanceTools: ToolSpec[] = conformanceToolDefinitions({ defineTool, ToolResult });

/** A fresh registry holding {@link conformanceTools}. */
export function createConformanceRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(conformanceTools);
  return registry;
}

/**
 * The prompts, resources and resource template the conformance suite's prompts-*, resources-* and
 * completion-complete scenarios read, defined in code (test/mcp/conformance/serve-fixture/toolshed.yaml
 * defines the same in a configuration for `npm run conformance`).
 */
export function createConformanceCatalog(): ContentCatalog {
  const catalog = new ContentCatalog();
  catalog.registerPrompt(
    definePrompt({
      name: 'test_simple_prompt',
      description: 'A simple prompt without arguments.',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    }),
  );
  catalog.registerPrompt(
    definePrompt({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments.',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, values: ['paris', 'park', 'party'] },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      messages: ({ arg1, arg2 }) => [
        { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
      ],
    }),
  );
  catalog.registerPrompt(
    definePrompt({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that embeds the resource it is given.',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: '{{resourceUri}}',
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  catalog.registerPrompt(
    definePrompt({
      name: 'test_prompt_with_image',
      description: 'A prompt with an image.',
      messages: [
        { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
  catalog.registerResource(
    defineResource({
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A static text resource.',
      mimeType: 'text/plain',
      text: 'This is the content of the static text resource.',
    }),
  );
  catalog.registerResource(
    defineResource({
      uri: 'test://static-binary',
      name: 'static-binary',
      description: 'A 1x1 red PNG.',
      mimeType: 'image/png',
      blob: RED_PIXEL_PNG,
    }),
  );
  catalog.registerResource(
    defineResource({
      uri: 'test://watched-resource',
      name: 'watched-resource',
      description: 'A resource that changes.',
      mimeType: 'text/plain',
      read: () => `Watched at ${new Date().toISOString()}`,
      subscribable: true,
    }),
  );
  catalog.registerResourceTemplate(
    defineResourceTemplate({
      uriTemplate: 'test://template/{id}/data',
      name: 'template-data',
      description: 'Data for any id.',
      mimeType: 'application/json',
      read: ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      complete: { id: ['123', '456'] },
    }),
  );
  return catalog;
}

/**
 * A tool that waits until `release()` is called, or its call is cancelled: a request that stays under
 * way for as long as a test needs.
 *
 * @example
 * ```ts
 * const { tool, release } = waitingTool();
 * registry.register(tool);
 * ```
 */
export function waitingTool(): { tool: ToolSpec; release: () => void } {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool = defineTool({
    name: 'wait_here',
    description: 'Wait until the test lets it go.',
    handler: async (_args, context) => {
      await Promise.race([
        released,
        new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true })),
      ]);
      return 'done';
    },
  });
  return { tool, release };
}
