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
      {result.status === 'success' ? <ResultData data={result.data} /> : null}
      {result.error === undefined ? null : (
        <div className="result-error">
          {result.error.message.includes('\n') ? (
            <>
              <p>
                <code className="code-tag">{result.error.code}</code>
              </p>
              <pre className="code-block" data-testid="error-message">
                {result.error.message}
              </pre>
            </>
          ) : (
            <p>
              <code className="code-tag">{result.error.code}</code> {result.error.message}
            </p>
          )}
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
 * Success data: a text as it is; an object's multi-line text fields (stdout, a traceback) each as a
 * block of their own, with their line breaks, and the rest as JSON.
 */
function ResultData(props: { data: unknown }) {
  const { data } = props;
  if (typeof data === 'string') return <pre className="code-block">{data}</pre>;
  const texts =
    typeof data === 'object' && data !== null && !Array.isArray(data)
      ? Object.entries(data).filter((entry): entry is [string, string] => isMultiline(entry[1]))
      : [];
  if (texts.length === 0) return <pre className="code-block">{JSON.stringify(data, null, 2) ?? 'undefined'}</pre>;
  const rest = Object.fromEntries(Object.entries(data as object).filter((entry) => !isMultiline(entry[1])));
  return (
    <>
      {texts.map(([name, text]) => (
        <figure key={name} className="result-text">
          <figcaption>{name}</figcaption>
          <pre className="code-block" data-testid={`result-${name}`}>
            {text}
          </pre>
        </figure>
      ))}
      {Object.keys(rest).length === 0 ? null : <pre className="code-block">{JSON.stringify(rest, null, 2)}</pre>}
    </>
  );
}

function isMultiline(value: unknown): value is string {
  return typeof value === 'string' && value.includes('\n');
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
