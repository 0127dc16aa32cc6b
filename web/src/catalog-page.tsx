import { useEffect, useState } from 'react';
import type { Tool } from './api-types.js';
import { Link } from './router.js';
import { useApi } from './session.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { SourceBadge, UnavailableMark } from './tool-source.js';
import { sourceKey, sourceLabel } from './tool-source-labels.js';

/**
 * Every tool of the workspace with its title, name, category, source and description (a tool this
 * server cannot run is marked unavailable); the search box ranks them with the registry's BM25 search
 * as one types, and the category and source filters narrow either list.
 *
 * @example
 * ```tsx
 * <CatalogPage />
 * ```
 */
export function CatalogPage() {
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState('');
  const [source, setSource] = useState('');
  const debouncedQuery = useDebounced(query.trim(), 150);
  const all = useApi<{ tools: Tool[] }>('/api/tools');
  const parameters = new URLSearchParams();
  if (debouncedQuery !== '') parameters.set('q', debouncedQuery);
  if (category !== '') parameters.set('category', category);
  const search = parameters.toString();
  const filtered = search === '' ? null : `/api/tools?${search}`;
  const matches = useApi<{ tools: Tool[] }>(filtered);
  const shown = filtered === null ? all : matches;
  const categories =
    all.status === 'ready' ? [...new Set(all.data.tools.map((tool) => tool.category))].sort() : ([] as string[]);
  const sources = all.status === 'ready' ? sourceOptions(all.data.tools) : [];

  return (
    <>
      <h1 tabIndex={-1}>Tool catalog</h1>
      <search>
        <form className="filters" onSubmit={(event) => event.preventDefault()}>
          <div className="field field-grow">
            <label htmlFor="tool-search">Search tools</label>
            <input
              id="tool-search"
              type="search"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              placeholder="e.g. read a file, convert units"
              maxLength={200}
              autoComplete="off"
            />
          </div>
          <div className="field">
            <label htmlFor="tool-category">Category</label>
            <select id="tool-category" value={category} onChange={(event) => setCategory(event.target.value)}>
              <option value="">All categories</option>
              {categories.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="tool-source">Source</label>
            <select id="tool-source" value={source} onChange={(event) => setSource(event.target.value)}>
              <option value="">All sources</option>
              {sources.map((option) => (
                <option key={option.key} value={option.key}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        </form>
      </search>
      {shown.status === 'loading' ? (
        <LoadingState label="Loading tools" />
      ) : shown.status === 'error' ? (
        <ErrorState error={shown.error} onRetry={shown.reload} title="The tools could not be loaded." />
      ) : (
        <ToolList
          tools={source === '' ? shown.data.tools : shown.data.tools.filter((tool) => sourceKey(tool) === source)}
          query={debouncedQuery}
          filtered={category !== '' || source !== ''}
        />
      )}
    </>
  );
}

/**
 * The sources of these tools for the filter, each once, by label; two configuration files of the same
 * name are told apart by their paths.
 */
function sourceOptions(tools: Tool[]): Array<{ key: string; label: string }> {
  const byKey = new Map(tools.map((tool) => [sourceKey(tool), tool]));
  const labels = [...byKey.values()].map(sourceLabel);
  return [...byKey]
    .map(([key, tool]) => {
      const label = sourceLabel(tool);
      const shared = labels.filter((each) => each === label).length > 1;
      return { key, label: shared && tool.origin !== null ? tool.origin : label };
    })
    .sort((left, right) => left.label.localeCompare(right.label));
}

function ToolList(props: { tools: Tool[]; query: string; filtered: boolean }) {
  const { tools, query, filtered } = props;
  if (tools.length === 0) {
    return (
      <EmptyState title={query === '' ? 'No tools here.' : `No tools match “${query}”.`}>
        {query === '' && !filtered
          ? 'Start the server with a configuration, or add REST tools through the API.'
          : 'Try other words, or clear the search and the filters.'}
      </EmptyState>
    );
  }
  const what = query === '' ? '' : ` for “${query}”, best match first`;
  return (
    <>
      <p className="muted" aria-live="polite">
        {tools.length} {tools.length === 1 ? 'tool' : 'tools'}
        {what}
      </p>
      <ul className="tool-grid" aria-label="Tools">
        {tools.map((tool) => (
          <li key={tool.id} className={`card tool-card${tool.available === false ? ' tool-card-unavailable' : ''}`}>
            <h2>
              <Link to={`/tools/${encodeURIComponent(tool.id)}`}>{tool.name}</Link>
            </h2>
            <p className="tool-meta">
              <code>{tool.id}</code> <span className="badge">{tool.category}</span>
              {tool.scope === 'workspace' ? <span className="badge badge-quiet">workspace</span> : null}
              <SourceBadge tool={tool} />
            </p>
            <p className="tool-description">{tool.description}</p>
            {tool.available === false ? (
              <UnavailableMark reason={tool.unavailable_reason} quarantined={tool.quarantined === true} />
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

function useDebounced<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}
