import { describe, expect, it } from 'vitest';
import { ToolResult } from '../core/tool-result.js';
import { ServerMetrics } from './server-metrics.js';

describe('ServerMetrics', () => {
  it('counts every call by tool and status, errors by code, and each latency', async () => {
    const metrics = new ServerMetrics();
    const ok = { ...ToolResult.success(42), metadata: { tool: 'calculator', durationMs: 3 } };
    const failed = {
      ...ToolResult.error('INVALID_ARGUMENTS', 'bad'),
      metadata: { tool: 'calculator', durationMs: 700 },
    };
    metrics.observe('calculator', ok);
    metrics.observe('calculator', ok);
    metrics.observe('calculator', failed);
    metrics.observe('read_file', ok);
    const text = await metrics.render();
    expect(text).toContain('toolshed_tool_calls_total{tool="calculator",status="success"} 2');
    expect(text).toContain('toolshed_tool_calls_total{tool="calculator",status="error"} 1');
    expect(text).toContain('toolshed_tool_calls_total{tool="read_file",status="success"} 1');
    expect(text).toContain('toolshed_tool_call_errors_total{tool="calculator",code="INVALID_ARGUMENTS"} 1');
    expect(text).toContain('toolshed_tool_call_duration_seconds_count{tool="calculator"} 3');
    expect(text).toContain('toolshed_tool_call_duration_seconds_bucket{le="0.005",tool="calculator"} 2');
    expect(text).toContain('toolshed_tool_call_duration_seconds_bucket{le="1",tool="calculator"} 3');
  });
});
