import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { createLoggerHook, type StructuredLogger } from './logger-hook.js';
import { ToolRegistry } from './tool-registry.js';

function fakeLogger() {
  return { info: vi.fn(), warn: vi.fn(), debug: vi.fn() } satisfies StructuredLogger;
}

function registryWith(logger: StructuredLogger, options: Parameters<typeof createLoggerHook>[1] = {}) {
  const registry = new ToolRegistry({ hooks: [createLoggerHook(logger, options)] });
  registry.register(
    defineTool({
      name: 'login',
      description: 'Log in.',
      inputSchema: { type: 'object', properties: { password: { type: 'string' } }, required: ['password'] },
      handler: () => 'welcome',
    }),
  );
  return registry;
}

describe('createLoggerHook', () => {
  it('logs a success at info with tool, status and duration, without the arguments', async () => {
    const logger = fakeLogger();
    await registryWith(logger).call('login', { password: 'hunter2' }, { toolCallId: 'call_1' });
    expect(logger.info).toHaveBeenCalledWith(
      { tool: 'login', status: 'success', durationMs: expect.any(Number), toolCallId: 'call_1' },
      'tool call',
    );
    expect(JSON.stringify(logger.info.mock.calls)).not.toContain('hunter2');
  });

  it('logs a failure at warn with the error code and message', async () => {
    const logger = fakeLogger();
    await registryWith(logger).call('login', {});
    expect(logger.warn).toHaveBeenCalledWith(
      {
        tool: 'login',
        status: 'error',
        durationMs: expect.any(Number),
        errorCode: 'INVALID_ARGUMENTS',
        error: "Invalid arguments for 'login': missing required argument 'password' (a string).",
      },
      'tool call failed',
    );
  });

  it('logs arguments and call starts only when asked to', async () => {
    const logger = fakeLogger();
    await registryWith(logger, { logArguments: true, logStart: true }).call('login', { password: 'x' });
    expect(logger.debug).toHaveBeenCalledWith({ tool: 'login', args: { password: 'x' } }, 'tool call started');
    expect(logger.info.mock.calls[0]?.[0]).toMatchObject({ args: { password: 'x' } });
  });

  it('works with a real pino logger', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    await registryWith(pino(stream)).call('login', { password: 'x' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, tool: 'login', status: 'success', msg: 'tool call' });
  });
});
