import { defineTool } from '../../../../core/define-tool.js';

/** A tool defined in code; a YAML definition may name it as its handler. */
export const greet = defineTool<{ who: string }>({
  name: 'greet',
  description: 'Greet someone.',
  inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  handler: ({ who }) => `Hello, ${who}!`,
});
