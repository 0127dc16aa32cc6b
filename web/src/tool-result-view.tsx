import type { ToolResultBody } from './api-types.js';

/**
 * A ToolResult as the try-it form shows it: status, duration, then the data, or the error with its
 * code and hint, or the pending approval.
 *
 * @example
 * ```tsx
 * <ToolResultView result={{ status: 'success', data: 1024, metadata: { durationMs: 3.2 } }} />
 * ```
 */
export function ToolResultView(props: { result: ToolResultBody }) {
  const { result } = props;
  const duration = result.metadata?.durationMs;
  return (
    <div className={`result result-${result.status}`} data-testid="tool-result">
      <p className="result-head">
        <span className={`status status-${result.status}`}>{result.status}</span>
        {typeof duration === 'number' ? <span className="muted">in {formatDuration(duration)}</span> : null}
      </p>
      {result.status === 'success' ? (
        <pre className="code-block">{JSON.stringify(result.data, null, 2) ?? 'undefined'}</pre>
      ) : null}
      {result.error === undefined ? null : (
        <div className="result-error">
          <p>
            <code className="code-tag">{result.error.code}</code> {result.error.message}
          </p>
          {result.error.hint === undefined ? null : (
            <p className="hint">
              <strong>Hint:</strong> {result.error.hint}
            </p>
          )}
        </div>
      )}
      {result.status === 'pending_approval' && result.approval !== undefined ? (
        <p>
          Waiting for approval <code>{result.approval.id}</code>: decide it with{' '}
          <code>POST /api/approvals/{result.approval.id}</code>.
        </p>
      ) : null}
      {Array.isArray(result.warnings) && result.warnings.length > 0 ? (
        <details>
          <summary>{result.warnings.length} warning(s)</summary>
          <pre className="code-block">{JSON.stringify(result.warnings, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

/**
 * A duration in milliseconds for people: `0.8 ms`, `136 ms`, `2.4 s`.
 *
 * @example
 * ```ts
 * formatDuration(136.08); // '136 ms'
 * ```
 */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 10) return `${milliseconds.toFixed(1)} ms`;
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  return `${(milliseconds / 1000).toFixed(1)} s`;
}
