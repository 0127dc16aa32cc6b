import { type FormEvent, useState } from 'react';
import { ApiFailure } from './api-client.js';
import type { DefaultToolSet, Tool } from './api-types.js';
import { Link } from './router.js';
import { useApi, useSession } from './session.js';
import { ErrorState, LoadingState } from './states.js';
import { SourceBadge, UnavailableMark } from './tool-source.js';

/**
 * The workspace's default tool set: what `/mcp` serves and what an agent that never had a tool
 * attached uses. It shows whether the set is chosen or "every tool", lets the user tick the tools and
 * save them (`PUT /api/workspace/default-tools`) or go back to every tool (`DELETE`). A refused
 * request is shown with the server's message and nothing is taken as saved.
 *
 * @example
 * ```tsx
 * <DefaultToolsPage />
 * ```
 */
export function DefaultToolsPage() {
  const current = useApi<DefaultToolSet>('/api/workspace/default-tools');
  const catalog = useApi<{ tools: Tool[] }>('/api/tools');
  // The set the server answered last (after a save or a reset), over what the page first read.
  const [saved, setSaved] = useState<{ set: DefaultToolSet; message: string; version: number } | undefined>();

  const loaded = current.status === 'ready' && catalog.status === 'ready';
  return (
    <>
      <h1 tabIndex={-1}>Default tools</h1>
      <p className="muted">
        The tools <code>/mcp</code> serves, and the tools of an agent that never had one attached. Until a set is
        chosen, it is every tool of the workspace, tools added later included. Where the server shortens long outputs, a
        view also gets <code>read_tool_output</code> to page through them.
      </p>
      {current.status === 'error' ? (
        <ErrorState error={current.error} onRetry={current.reload} title="The default set could not be loaded." />
      ) : catalog.status === 'error' ? (
        <ErrorState error={catalog.error} onRetry={catalog.reload} title="The tools could not be loaded." />
      ) : !loaded ? (
        <LoadingState label="Loading the default set" />
      ) : (
        <DefaultToolsForm
          key={saved?.version ?? 0}
          set={saved?.set ?? current.data}
          catalog={catalog.data.tools}
          savedMessage={saved?.message}
          onSaved={(set, message) => setSaved({ set, message, version: (saved?.version ?? 0) + 1 })}
        />
      )}
    </>
  );
}

/** The catalog's tools, then any tool of the set the catalog does not list, each once. */
function choices(catalog: Tool[], set: DefaultToolSet): Tool[] {
  const ids = new Set(catalog.map((tool) => tool.id));
  return [...catalog, ...set.tools.filter((tool) => !ids.has(tool.id))];
}

function countOf(count: number): string {
  return `${count} ${count === 1 ? 'tool' : 'tools'}`;
}

function DefaultToolsForm(props: {
  set: DefaultToolSet;
  catalog: Tool[];
  savedMessage: string | undefined;
  onSaved(set: DefaultToolSet, message: string): void;
}) {
  const { request } = useSession();
  const tools = choices(props.catalog, props.set);
  const [checked, setChecked] = useState<ReadonlySet<string>>(() => new Set(props.set.tools.map((tool) => tool.id)));
  const [busy, setBusy] = useState<'save' | 'reset' | undefined>();
  const [failure, setFailure] = useState<{ error: ApiFailure; title: string } | undefined>();
  const initial = new Set(props.set.tools.map((tool) => tool.id));
  const changed = checked.size !== initial.size || [...checked].some((id) => !initial.has(id));

  const toggle = (id: string, on: boolean) => {
    const next = new Set(checked);
    if (on) next.add(id);
    else next.delete(id);
    setChecked(next);
  };

  const send = async (kind: 'save' | 'reset') => {
    setBusy(kind);
    setFailure(undefined);
    try {
      if (kind === 'save') {
        // In the catalog's order, so the saved set reads like the list.
        const ids = tools.map((tool) => tool.id).filter((id) => checked.has(id));
        const set = await request<DefaultToolSet>('/api/workspace/default-tools', {
          method: 'PUT',
          body: { tool_ids: ids },
        });
        props.onSaved(
          set,
          set.tools.length === 0
            ? 'Saved: the default set is now empty.'
            : `Saved: the default set is now ${countOf(set.tools.length)}.`,
        );
      } else {
        const set = await request<DefaultToolSet>('/api/workspace/default-tools', { method: 'DELETE' });
        props.onSaved(set, `Reset: the default set is every tool of the workspace (${countOf(set.tools.length)} now).`);
      }
    } catch (error) {
      const failed = error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error));
      setFailure({ error: failed, title: kind === 'save' ? 'Not saved.' : 'Not reset.' });
      setBusy(undefined);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send('save');
  };

  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="default-set-heading">
      <h2 id="default-set-heading">
        {props.set.custom ? 'A chosen set' : 'Every tool'} ({countOf(props.set.tools.length)})
      </h2>
      <p data-testid="default-set-status">
        {props.set.custom
          ? `The default set is the ${countOf(props.set.tools.length)} chosen below; tools added later are not in it until you add them.`
          : `The default set is every tool of the workspace: ${countOf(props.set.tools.length)} now, and tools added later too.`}
      </p>
      {props.savedMessage === undefined ? null : (
        <p className="notice" role="status" data-testid="default-set-saved">
          {props.savedMessage}
        </p>
      )}
      <fieldset className="tool-choices" disabled={busy !== undefined}>
        <legend>
          Tools in the default set{' '}
          <span className="muted" data-testid="default-set-count">
            ({checked.size} of {tools.length} chosen{changed ? ', not saved yet' : ''})
          </span>
        </legend>
        <div className="form-actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => setChecked(new Set(tools.map((t) => t.id)))}
          >
            Choose all
          </button>
          <button type="button" className="button button-small" onClick={() => setChecked(new Set())}>
            Choose none
          </button>
        </div>
        <ul className="tool-checklist" aria-label="Tools to choose from">
          {tools.map((tool) => (
            <li key={tool.id}>
              <label>
                <input
                  type="checkbox"
                  checked={checked.has(tool.id)}
                  onChange={(event) => toggle(tool.id, event.target.checked)}
                  aria-label={tool.id}
                />
                <Link to={`/tools/${encodeURIComponent(tool.id)}`}>{tool.name}</Link> <code>{tool.id}</code>{' '}
                <SourceBadge tool={tool} />
                {tool.available === false ? <UnavailableMark reason={tool.unavailable_reason} compact /> : null}
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      {failure === undefined ? null : <ErrorState error={failure.error} title={failure.title} />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy !== undefined}>
          {busy === 'save' ? 'Saving…' : 'Save default set'}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void send('reset')}
          disabled={busy !== undefined || !props.set.custom}
          title={props.set.custom ? undefined : 'The default set is already every tool.'}
        >
          {busy === 'reset' ? 'Resetting…' : 'Reset to every tool'}
        </button>
      </div>
    </form>
  );
}
