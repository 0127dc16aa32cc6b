import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import type { CliIo } from '../../src/cli/output.js';
import { startTracing } from '../../src/cli/serve/start-tracing.js';
import { activeTracer } from '../../src/core/tracing.js';

const TRACE_ID = '80f198ee56343ba864fe8b2a57d3eff7';
const CALLER_SPAN = 'e457b5a2e4d86bd1';

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>;
  }>;
}

function attributesOf(list: readonly OtlpAttribute[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]),
  );
}

describe('startTracing', () => {
  it.each([
    ['no endpoint', {}],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }],
    ['the SDK disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' }],
  ])('registers nothing with %s', async (_case, env) => {
    expect(await startTracing(env, '1.0.0')).toBeUndefined();
    expect(activeTracer()).toBeUndefined();
  });

  it('posts to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, over the general endpoint, until shut down', async () => {
    const tracing = await startTracing(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/custom/spans',
      },
      '1.0.0',
    );
    try {
      expect(tracing?.endpoint).toBe('http://127.0.0.1:9/custom/spans');
      expect(activeTracer()).toBeDefined();
    } finally {
      await tracing?.shutdown();
    }
    expect(activeTracer()).toBeUndefined();
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'localhost:4318'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'not a url'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'file:///etc/passwd'],
  ])('refuses %s=%s, naming the variable, and registers nothing', async (variable, value) => {
    await expect(startTracing({ [variable]: value }, '1.0.0')).rejects.toThrow(
      `error: ${variable} must be an http:// or https:// URL of an OTLP/HTTP collector (such as http://localhost:4318), got '${value}'.`,
    );
    expect(activeTracer()).toBeUndefined();
  });
});

describe('toolshed serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the tool call spans to an OTLP/HTTP collector as JSON, and flushes them on shutdown', async () => {
    const received: Array<{ path: string | undefined; headers: IncomingHttpHeaders; body: OtlpExport }> = [];
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          path: request.url,
          headers: request.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport,
        });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-otlp-'));
    let stderr = '';
    const io = {
      stdout: { write: () => true },
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
      stdin: (async function* () {})(),
      env: {
        TOOLSHED_DATABASE_URL: join(folder, 'service.db'),
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/`,
        OTEL_SERVICE_NAME: 'tools-under-test',
      },
      cwd: folder,
    } as unknown as CliIo;
    try {
      const running = runServe({ host: '127.0.0.1', port: 0 } as never, { io, setExitCode: () => undefined });
      for (let attempt = 0; attempt < 200 && !stderr.includes('REST API at'); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stderr).toContain(`toolshed serve: exporting traces to ${collectorUrl}/v1/traces\n`);
      const token = /shown once\): (\S+)/.exec(stderr)?.[1];
      const base = /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(stderr)?.[1];
      const response = await fetch(`${base}/api/tools/read_file/call`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-workspace-id': 'default',
          'content-type': 'application/json',
          traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
        },
        body: JSON.stringify({ arguments: { path: 'missing.txt' } }),
      });
      const result = (await response.json()) as { status: string; error: { code: string } };
      expect(result).toMatchObject({ status: 'error', error: { code: expect.any(String) } });
      // Nothing is sent before the batch is due; SIGINT flushes it.
      process.emit('SIGINT');
      expect(await running).toBe(0);

      expect(received.length).toBeGreaterThan(0);
      expect(received[0]?.path).toBe('/v1/traces');
      expect(received[0]?.headers['content-type']).toBe('application/json');
      const resources = received.flatMap((entry) => entry.body.resourceSpans);
      expect(attributesOf(resources[0]?.resource.attributes ?? [])).toMatchObject({
        'service.name': 'tools-under-test',
        'service.version': (
          JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
        ).version,
      });
      const spans = resources.flatMap((resource) =>
        resource.scopeSpans.filter((scope) => scope.scope.name === 'toolshed').flatMap((scope) => scope.spans),
      );
      const call = spans.find((span) => span.name === 'execute_tool read_file');
      expect(call?.traceId).toBe(TRACE_ID);
      expect(call?.parentSpanId).toBe(CALLER_SPAN);
      expect(attributesOf(call?.attributes ?? [])).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_file',
        'toolshed.status': 'error',
        'toolshed.error.code': result.error.code,
        'error.type': result.error.code,
      });
      // Shut down: the API is no-op again.
      expect(activeTracer()).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => collector.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
