import { type KeyboardEvent, useState } from 'react';
import { EXPORT_FORMATS, type RequiredEnvVarStatus, type ToolAnnotations, type ToolDetail } from './api-types.js';
import { CopyButton } from './copy-button.js';
import { Link } from './router.js';
import { SchemaTable } from './schema-table.js';
import { useApi } from './session.js';
import { isEditableTool, readOnlyNotice } from './source-badge.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { DeleteTool, ToolEditor } from './tool-editor.js';
import { SourceBadge, UnavailableMark } from './tool-source.js';
import { sourceDescription } from './tool-source-labels.js';
import { TryItForm } from './try-it-form.js';

/** The hints shown as badges when true, in words. */
const HINT_LABELS: ReadonlyArray<readonly [keyof ToolAnnotations, string]> = [
  ['read_only', 'read-only'],
  ['destructive', 'destructive'],
  ['idempotent', 'idempotent'],
  ['open_world', 'open world'],
];

/**
 * One tool: where it comes from (and, when this server cannot run it, why), its description, when to
 * use it, the environment variables it needs (set or not on the server), its input schema as a table,
 * the "try it" form and its export for each provider (a tool this server cannot run has its form
 * disabled and no exports). The workspace's own tools (`api`, `code`) can be edited and deleted here;
 * the others say where they are defined instead.
 *
 * @example
 * ```tsx
 * <ToolPage toolId="calculator" />
 * ```
 */
export function ToolPage(props: { toolId: string }) {
  const tool = useApi<ToolDetail>(`/api/tools/${encodeURIComponent(props.toolId)}`);
  if (tool.status !== 'ready') {
    return (
      <>
        <p className="breadcrumb">
          <Link to="/">Catalog</Link> /
        </p>
        <h1 tabIndex={-1}>
          <code>{props.toolId}</code>
        </h1>
        {tool.status === 'loading' ? (
          <LoadingState label="Loading the tool" />
        ) : (
          <ErrorState error={tool.error} onRetry={tool.reload} title="The tool could not be loaded." />
        )}
      </>
    );
  }
  const { data } = tool;
  const hints = HINT_LABELS.filter(([key]) => data.annotations[key]).map(([, label]) => label);
  if (data.requires_approval === true) hints.push('needs approval');
  const editable = isEditableTool(data.source);
  return (
    <>
      <p className="breadcrumb">
        <Link to="/">Catalog</Link> /
      </p>
      <h1 tabIndex={-1}>{data.name}</h1>
      <p className="tool-meta">
        <code>{data.id}</code> <span className="badge">{data.category}</span>
        <span className="badge badge-quiet">{data.scope}</span>
        <SourceBadge tool={data} />
        {hints.map((label) => (
          <span key={label} className="badge badge-quiet" data-testid="hint-badge">
            {label}
          </span>
        ))}
      </p>
      {data.tags.length === 0 ? null : (
        <ul className="tag-list" aria-label="Tags">
          {data.tags.map((tag) => (
            <li key={tag} className="badge">
              {tag}
            </li>
          ))}
        </ul>
      )}
      {editable ? null : (
        <p className="notice" data-testid="read-only-notice">
          {readOnlyNotice('tool', data.id, data.source, data.origin)}
        </p>
      )}
      <p className="muted" data-testid="tool-source">
        {sourceDescription(data)}
      </p>
      {data.available === false ? (
        <UnavailableMark reason={data.unavailable_reason} quarantined={data.quarantined === true} />
      ) : null}
      <div className="tool-layout">
        <div className="tool-main">
          <section aria-labelledby="about-heading">
            <h2 id="about-heading">Description</h2>
            <p>{data.description}</p>
            <h3>When to use</h3>
            <p>{data.when_to_use ?? <span className="muted">No guidance given.</span>}</p>
          </section>
          {editable ? <ToolEditor tool={data} onSaved={tool.reload} /> : null}
          <section aria-labelledby="requirements-heading">
            <h2 id="requirements-heading">Requirements</h2>
            <Requirements variables={data.requires?.env ?? []} />
          </section>
          {data.code === undefined ? null : (
            <section aria-labelledby="code-heading">
              <h2 id="code-heading">Code ({data.type === 'javascript' ? 'JavaScript' : 'Python'})</h2>
              <pre className="code-block" data-testid="tool-code">
                {data.code}
              </pre>
            </section>
          )}
          <section aria-labelledby="schema-heading">
            <h2 id="schema-heading">Input schema</h2>
            <SchemaTable schema={data.parameters_schema} />
          </section>
          <section aria-labelledby="try-heading" className="card">
            <h2 id="try-heading">Try it</h2>
            <TryItForm
              toolId={data.id}
              schema={data.parameters_schema}
              {...(data.available === false
                ? { unavailable: data.unavailable_reason ?? 'This server cannot run this tool now.' }
                : {})}
            />
          </section>
        </div>
        <section aria-labelledby="exports-heading" className="tool-side">
          <h2 id="exports-heading">Exports</h2>
          {data.available === false ? (
            <EmptyState title="No exports while this server cannot run the tool.">
              A model could call it, but nothing here would answer; the exports come back once it is available.
            </EmptyState>
          ) : (
            // Read again when the tool changed: an edit changes its exports.
            <Exports key={data.updated_at} toolId={data.id} />
          )}
          {editable ? <DeleteTool toolId={data.id} name={data.name} /> : null}
        </section>
      </div>
    </>
  );
}

function Requirements(props: { variables: RequiredEnvVarStatus[] }) {
  if (props.variables.length === 0) return <p className="muted">Needs nothing from the server's environment.</p>;
  return (
    <ul className="requirements">
      {props.variables.map((variable) => (
        <li key={variable.name}>
          <code>{variable.name}</code>{' '}
          <span className={`status ${variable.set ? 'status-success' : 'status-error'}`}>
            {variable.set ? 'set' : 'not set'}
          </span>
          {variable.description === undefined ? null : <span> — {variable.description}</span>}
          {variable.url === undefined ? null : (
            <span className="muted">
              {' '}
              (get one at{' '}
              <a href={variable.url} target="_blank" rel="noreferrer noopener">
                {variable.url}
              </a>
              )
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Exports(props: { toolId: string }) {
  const [format, setFormat] = useState<(typeof EXPORT_FORMATS)[number]['id']>('openai');
  const exported = useApi<{ tools: unknown[]; warnings?: unknown[] }>(
    `/api/tools/${encodeURIComponent(props.toolId)}/export?format=${format}`,
  );
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = EXPORT_FORMATS.findIndex((each) => each.id === format);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = EXPORT_FORMATS[(index + step + EXPORT_FORMATS.length) % EXPORT_FORMATS.length];
    if (next === undefined) return;
    setFormat(next.id);
    document.getElementById(`export-tab-${next.id}`)?.focus();
  };
  const text = exported.status === 'ready' ? JSON.stringify(exported.data.tools, null, 2) : '';
  return (
    <div className="exports">
      <div role="tablist" aria-label="Provider" className="tabs" onKeyDown={onKeyDown}>
        {EXPORT_FORMATS.map((each) => (
          <button
            key={each.id}
            id={`export-tab-${each.id}`}
            type="button"
            role="tab"
            aria-selected={format === each.id}
            aria-controls="export-panel"
            tabIndex={format === each.id ? 0 : -1}
            className="tab"
            onClick={() => setFormat(each.id)}
          >
            {each.label}
          </button>
        ))}
      </div>
      <div id="export-panel" role="tabpanel" aria-labelledby={`export-tab-${format}`} className="export-panel">
        {exported.status === 'loading' ? (
          <LoadingState label="Loading the export" />
        ) : exported.status === 'error' ? (
          <ErrorState error={exported.error} onRetry={exported.reload} />
        ) : (
          <>
            <div className="panel-actions">
              <CopyButton text={text} label={`Copy the ${format} export`} />
            </div>
            <pre className="code-block" data-testid="export-json">
              {text}
            </pre>
            {exported.data.warnings !== undefined && exported.data.warnings.length > 0 ? (
              <details>
                <summary>{exported.data.warnings.length} rewrite(s) for this provider</summary>
                <pre className="code-block">{JSON.stringify(exported.data.warnings, null, 2)}</pre>
              </details>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}
