import { ToolshedError } from './toolshed-error.js';

/**
 * What `ctx.elicit` and `ctx.sample` reject with when the caller cannot answer: only an MCP client
 * that declared `elicitation` (or `sampling`) can. `capability` names which one was missing.
 *
 * @example
 * ```ts
 * handler: async (args, ctx) => {
 *   try {
 *     return await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 50 });
 *   } catch (error) {
 *     if (error instanceof CallerCapabilityError) return 'no model to ask';
 *     throw error;
 *   }
 * }
 * ```
 */
export class CallerCapabilityError extends ToolshedError<'CALLER_CAPABILITY_MISSING'> {
  readonly capability: 'elicitation' | 'sampling';
  constructor(capability: 'elicitation' | 'sampling', message: string) {
    super('CALLER_CAPABILITY_MISSING', message);
    this.name = 'CallerCapabilityError';
    this.capability = capability;
  }
}
