import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode, isRetryable } from './errors/error-code.js';
import { isSuccess, stringifyData, ToolResult, toModelText } from './tool-result.js';

describe('ToolResult builders', () => {
  it('builds a success envelope whose metadata merges what the caller gave', () => {
    const result = ToolResult.success({ rows: 3 }, { source: 'cache' });
    expect(result).toEqual({
      status: 'success',
      data: { rows: 3 },
      metadata: { tool: '', durationMs: 0, source: 'cache' },
    });
    expect(ToolResult.isToolResult(result)).toBe(true);
    expect(isSuccess(result)).toBe(true);
  });

  it('builds a content envelope with blocks and optional data', () => {
    const result = ToolResult.content([{ type: 'text', text: 'hi' }], { raw: true });
    expect(result.status).toBe('success');
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(result.data).toEqual({ raw: true });
  });

  it('derives the status of an error envelope from its code', () => {
    expect(ToolResult.error('TIMEOUT', 'slow').status).toBe('timeout');
    expect(ToolResult.error('CANCELLED', 'stopped').status).toBe('cancelled');
    expect(ToolResult.error('EXECUTION_FAILED', 'broke').status).toBe('error');
  });

  it('defaults retryable from the code and lets the caller override it', () => {
    for (const code of ERROR_CODES) {
      expect(ToolResult.error(code, 'x').error.retryable).toBe(
        ['TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE'].includes(code),
      );
    }
    expect(ToolResult.error('EXECUTION_FAILED', 'flaky upstream', { retryable: true }).error.retryable).toBe(true);
  });

  it('keeps hint and details only when given', () => {
    expect(ToolResult.error('DISABLED', 'off').error).toEqual({
      code: 'DISABLED',
      message: 'off',
      retryable: false,
    });
    expect(ToolResult.error('DISABLED', 'off', { hint: 'Ask an admin.', details: { by: 'admin' } }).error).toEqual({
      code: 'DISABLED',
      message: 'off',
      retryable: false,
      hint: 'Ask an admin.',
      details: { by: 'admin' },
    });
  });

  it('does not recognise a look-alike plain object as a ToolResult', () => {
    expect(ToolResult.isToolResult({ status: 'success', data: 1, metadata: { tool: 'x', durationMs: 0 } })).toBe(false);
    expect(ToolResult.isToolResult(null)).toBe(false);
    expect(ToolResult.isToolResult('success')).toBe(false);
  });
});

describe('isRetryable', () => {
  it('is true only for TIMEOUT, RATE_LIMITED and UPSTREAM_UNAVAILABLE', () => {
    const retryable = ERROR_CODES.filter((code: ErrorCode) => isRetryable(code));
    expect(retryable).toEqual(['TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE']);
  });

  it('lists the twelve documented error codes', () => {
    expect(ERROR_CODES).toEqual([
      'TOOL_NOT_FOUND',
      'NOT_ATTACHED',
      'DISABLED',
      'INVALID_ARGUMENTS',
      'MISSING_CREDENTIALS',
      'EXECUTION_FAILED',
      'TIMEOUT',
      'CANCELLED',
      'OUTPUT_INVALID',
      'OUTPUT_TOO_LARGE',
      'RATE_LIMITED',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
  });
});

describe('toModelText', () => {
  it('gives string data as is', () => {
    expect(toModelText(ToolResult.success('plain text'))).toBe('plain text');
  });

  it('gives other data as JSON', () => {
    expect(toModelText(ToolResult.success({ a: [1, 2], b: null }))).toBe('{"a":[1,2],"b":null}');
    expect(toModelText(ToolResult.success(42))).toBe('42');
    expect(toModelText(ToolResult.success(false))).toBe('false');
  });

  it('ends a success with a note naming the arguments the tool did not take', () => {
    const one = ToolResult.success({ a: 1 }, { tool: 'list_files', droppedArgs: ['recursive'] });
    expect(toModelText(one)).toBe(
      "{\"a\":1}\n\nNote: the argument 'recursive' was ignored: 'list_files' does not take it.",
    );
    const many = ToolResult.success('listing', {
      tool: 't',
      droppedArgs: ['x'.repeat(100), ...Array.from({ length: 11 }, (_, i) => `k${i}`)],
    });
    expect(toModelText(many)).toBe(
      `listing\n\nNote: the arguments '${'x'.repeat(61)}...', 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', and 2 more were ignored: 't' does not take them.`,
    );
    expect(toModelText(ToolResult.success('ok', { tool: 't', droppedArgs: [] }))).toBe('ok');
    // An error says what is wrong on its own; dropped arguments add nothing to it.
    const failed = ToolResult.error('INVALID_ARGUMENTS', 'Bad.', { metadata: { tool: 't', droppedArgs: ['x'] } });
    expect(toModelText(failed)).toBe('Error [INVALID_ARGUMENTS]: Bad.');
  });

  it('gives an empty string for a success without data or content', () => {
    expect(toModelText(ToolResult.success(undefined))).toBe('');
  });

  it('gives the text of content blocks and names the other blocks', () => {
    const result = ToolResult.content([
      { type: 'text', text: 'A red pixel:' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///tmp/a.txt', text: 'a' } },
      { type: 'resource_link', uri: 'https://example.com/b', name: 'b' },
    ]);
    expect(toModelText(result)).toBe(
      'A red pixel:\n[image image/png]\n[audio audio/wav]\n[resource file:///tmp/a.txt]\n[resource_link https://example.com/b]',
    );
  });

  it('prefers data over content blocks when both are present', () => {
    expect(toModelText(ToolResult.content([{ type: 'text', text: 'blocks' }], 'data'))).toBe('data');
  });

  it('renders an error as Error [CODE]: message, then the hint', () => {
    expect(toModelText(ToolResult.error('EXECUTION_FAILED', "Tool 'x' failed: Error: boom"))).toBe(
      "Error [EXECUTION_FAILED]: Tool 'x' failed: Error: boom",
    );
    expect(
      toModelText(ToolResult.error('TIMEOUT', "Tool 'slow' timed out after 100 ms.", { hint: 'Try again.' })),
    ).toBe("Error [TIMEOUT]: Tool 'slow' timed out after 100 ms.\nHint: Try again.");
  });

  it('renders a cancellation like an error', () => {
    expect(toModelText(ToolResult.error('CANCELLED', "The call to 'x' was cancelled."))).toBe(
      "Error [CANCELLED]: The call to 'x' was cancelled.",
    );
  });

  it('renders a pending approval with the tool and the approval id', () => {
    const result = ToolResult.pendingApproval('appr_1', { path: '/tmp' }, { tool: 'delete_file' });
    expect(toModelText(result)).toBe(
      "Approval required: the call to 'delete_file' is waiting for a person to approve it (approval id appr_1).",
    );
  });
});

describe('stringifyData', () => {
  it('renders bigints as digits and cycles as [Circular]', () => {
    const value: Record<string, unknown> = { big: 12345678901234567890n };
    value.self = value;
    expect(stringifyData(value)).toBe('{"big":"12345678901234567890","self":"[Circular]"}');
  });

  it('renders data nested too deeply for JSON.stringify without throwing', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = { a: deep };
    expect(typeof stringifyData(deep)).toBe('string');
    expect(typeof toModelText(ToolResult.success(deep))).toBe('string');
  });

  it('falls back to String() for values JSON cannot express', () => {
    expect(stringifyData(undefined)).toBe('undefined');
    expect(stringifyData(() => 1)).toBe('() => 1');
  });
});
