import { describe, expect, it } from 'vitest';
import { ToolResult } from '../core/tool-result.js';
import { ServerMetrics, WORKSPACE_TOOL_LABEL } from './server-metrics.js';

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

  it('counts the tools namedTool does not name together, under tool="(workspace)"', async () => {
    const metrics = new ServerMetrics({ namedTool: (tool) => tool === 'calculator' });
    const ok = { ...ToolResult.success(1), metadata: { tool: 'x', durationMs: 2 } };
    const failed = { ...ToolResult.error('EXECUTION_FAILED', 'down'), metadata: { tool: 'x', durationMs: 2 } };
    metrics.observe('calculator', ok);
    metrics.observe('acme_crm_lookup', ok);
    metrics.observe('globex_billing', ok);
    metrics.observe('globex_billing', failed);
    const text = await metrics.render();
    expect(WORKSPACE_TOOL_LABEL).toBe('(workspace)');
    expect(text).toContain('toolshed_tool_calls_total{tool="calculator",status="success"} 1');
    expect(text).toContain('toolshed_tool_calls_total{tool="(workspace)",status="success"} 2');
    expect(text).toContain('toolshed_tool_calls_total{tool="(workspace)",status="error"} 1');
    expect(text).toContain('toolshed_tool_call_errors_total{tool="(workspace)",code="EXECUTION_FAILED"} 1');
    expect(text).toContain('toolshed_tool_call_duration_seconds_count{tool="(workspace)"} 3');
    expect(text).not.toMatch(/acme|globex/);
  });

  it('shows each sandbox pool as it is at the scrape: processes by state and queued calls', async () => {
    const stats = { size: 2, idle: 1, busy: 1, starting: 0, queued: 0, queuedTenants: 0, runs: 5, recycled: 4 };
    const metrics = new ServerMetrics({ sandboxes: () => [{ language: 'python', stats }] });
    expect(await metrics.render()).toContain(
      [
        'toolshed_sandbox_processes{language="python",state="idle"} 1',
        'toolshed_sandbox_processes{language="python",state="busy"} 1',
        'toolshed_sandbox_processes{language="python",state="starting"} 0',
      ].join('\n'),
    );
    Object.assign(stats, { idle: 0, busy: 2, queued: 3 });
    const text = await metrics.render();
    expect(text).toContain('toolshed_sandbox_processes{language="python",state="busy"} 2');
    expect(text).toContain('toolshed_sandbox_queued_calls{language="python"} 3');
  });
});
