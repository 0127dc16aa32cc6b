import type { ReactNode } from 'react';
import type { ApiFailure } from './api-client.js';

/**
 * What a section shows while its data loads.
 *
 * @example
 * ```tsx
 * <LoadingState label="Loading tools" />
 * ```
 */
export function LoadingState(props: { label: string }) {
  return (
    <p className="state state-loading" role="status" aria-busy="true">
      <span className="spinner" aria-hidden="true" />
      {props.label}…
    </p>
  );
}

/**
 * An API failure with its code, and a way to try again.
 *
 * @example
 * ```tsx
 * <ErrorState error={failure} onRetry={reload} />
 * ```
 */
export function ErrorState(props: { error: ApiFailure; onRetry?: () => void; title?: string }) {
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>{props.title ?? 'Something went wrong.'}</strong> {props.error.message}{' '}
        <code className="code-tag">{props.error.code}</code>
      </p>
      {props.onRetry === undefined ? null : (
        <button type="button" className="button" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/**
 * What a list shows when it has nothing, with what to do next.
 *
 * @example
 * ```tsx
 * <EmptyState title="No agents yet.">Create one above.</EmptyState>
 * ```
 */
export function EmptyState(props: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p>
        <strong>{props.title}</strong>
      </p>
      {props.children === undefined ? null : <p>{props.children}</p>}
    </div>
  );
}
