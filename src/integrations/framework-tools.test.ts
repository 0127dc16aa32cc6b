import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { toAiSdkTools } from './ai-sdk/index.js';
import { toLangChainTools } from './langchain/index.js';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    defineTool({
      name: 'add',
      description: 'Add two numbers.',
      input: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => a + b,
    }),
  );
  tools.register(
    defineTool({
      name: 'slow',
      description: 'Takes a while.',
      handler: async (_args, context) =>
        new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('stopped'))),
    }),
  );
  return tools;
}

describe('LangChain.js tools', () => {
  it('run through registry.call and return what a model reads', async () => {
    const [add] = toLangChainTools(registry(), { names: ['add'] });
    expect(add?.name).toBe('add');
    expect(await add?.invoke({ a: 2, b: 3 })).toBe('5');
    // LangChain checks arguments against the schema itself before calling, with its own error.
    await expect(add?.invoke({ a: 2, b: 'three' })).rejects.toThrow(
      'Received tool input did not match expected schema',
    );
  });

  it('return tool failures as text instead of throwing', async () => {
    const tools = registry();
    tools.register(
      defineTool({
        name: 'broken',
        description: 'Always fails.',
        handler: () => {
          throw new RangeError('index 7 is out of range');
        },
      }),
    );
    const [broken] = toLangChainTools(tools, { names: ['broken'] });
    expect(await broken?.invoke({})).toBe(
      "Error [EXECUTION_FAILED]: Tool 'broken' failed: RangeError: index 7 is out of range",
    );
  });

  it('pass LangChain cancellation to the tool', async () => {
    const tools = toLangChainTools(registry());
    const slow = tools.find((candidate) => candidate.name === 'slow');
    const controller = new AbortController();
    const pending = slow
      ?.invoke({}, { signal: controller.signal })
      .catch((error: unknown) => `rejected: ${(error as Error).name}`);
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toMatch(/Error \[CANCELLED\]|rejected: AbortError/);
  });
});

describe('Vercel AI SDK tools', () => {
  it('serve a model tool call in generateText, errors as text the model reads', async () => {
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step++;
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        };
        if (step === 1) {
          return {
            content: [
              { type: 'tool-call', toolCallId: 'call_1', toolName: 'add', input: '{"a": 20, "b": 22}' },
              { type: 'tool-call', toolCallId: 'call_2', toolName: 'add', input: '{"a": "x", "b": 1}' },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools(registry(), { names: ['add'] }),
      prompt: 'add',
      stopWhen: stepCountIs(3),
    });
    const outputs = result.steps[0]?.toolResults.map((toolResult) => toolResult.output);
    expect(outputs?.[0]).toBe(42);
    expect(String(outputs?.[1])).toContain("Error [INVALID_ARGUMENTS]: Invalid arguments for 'add'");
    expect(result.text).toBe('done');
  });
});
