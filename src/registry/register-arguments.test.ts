import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { ToolRegistry } from './tool-registry.js';

const first = defineTool({ name: 'email_search', description: 'Search emails.', handler: () => [] });
const second = defineTool({ name: 'email_get', description: 'Get one email.', handler: () => ({}) });
const third = defineTool({ name: 'email_count', description: 'Count emails.', handler: () => 0 });

function thrown(run: () => unknown): ToolRegistrationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolRegistrationError) return error;
    throw error;
  }
  throw new Error('expected a ToolRegistrationError');
}

describe('register with more than one tool', () => {
  it('refuses a tool where the options go, and registers nothing', () => {
    const registry = new ToolRegistry();
    const tools = [first, second] as const;
    const error = thrown(() => registry.register(...(tools as unknown as [typeof first])));
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.message).toBe(
      "register() got a tool ('email_get') where its options go: it registers one tool; register several with registerAll([...tools]).",
    );
    expect(registry.list()).toEqual([]);
  });

  it('refuses arguments after the options', () => {
    const registry = new ToolRegistry();
    const register = registry.register.bind(registry) as (...args: unknown[]) => unknown;
    expect(thrown(() => register(first, {}, third)).message).toBe(
      'register() takes a tool and its options, got 3 arguments: register several tools with registerAll([...tools]).',
    );
    expect(registry.list()).toEqual([]);
  });

  it('refuses a tool where the options of registerAll go', () => {
    const registry = new ToolRegistry();
    const registerAll = registry.registerAll.bind(registry) as (...args: unknown[]) => unknown;
    expect(thrown(() => registerAll([first], second)).message).toBe(
      "registerAll() got a tool ('email_get') where its options go: it registers one tool; register several with registerAll([...tools]).",
    );
  });

  it('registers several tools with registerAll, and takes real options', () => {
    const registry = new ToolRegistry();
    registry.registerAll([first, second, third]);
    registry.register(first, { allowOverride: true });
    expect(registry.list()).toEqual(['email_count', 'email_get', 'email_search']);
  });
});
