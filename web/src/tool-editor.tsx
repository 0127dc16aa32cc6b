import { type FormEvent, useState } from 'react';
import { ApiFailure } from './api-client.js';
import type { ToolDetail } from './api-types.js';
import { navigate } from './router.js';
import { useSession } from './session.js';
import { ErrorState } from './states.js';

/** Tags as typed in the form: comma-separated, blanks dropped. */
function parseTags(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * The form that changes a workspace's own tool (`PATCH /api/tools/:id`): its description, when to use
 * it, its category and its tags. A field the server refuses shows its message under the field.
 *
 * @example
 * ```tsx
 * <ToolEditor tool={tool} onSaved={reload} />
 * ```
 */
export function ToolEditor(props: { tool: ToolDetail; onSaved(): void }) {
  const { request } = useSession();
  const { tool } = props;
  const [description, setDescription] = useState(tool.description);
  const [whenToUse, setWhenToUse] = useState(tool.when_to_use ?? '');
  const [category, setCategory] = useState(tool.category);
  const [tags, setTags] = useState(tool.tags.join(', '));
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setSaved(false);
    setFailure(undefined);
    try {
      await request(`/api/tools/${encodeURIComponent(tool.id)}`, {
        method: 'PATCH',
        body: {
          description,
          when_to_use: whenToUse.trim() === '' ? null : whenToUse,
          category: category.trim(),
          tags: parseTags(tags),
        },
      });
      setSaved(true);
      props.onSaved();
    } catch (error) {
      const refused = error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error));
      setFailure(refused);
      if (refused.field !== undefined) document.getElementById(`edit-${refused.field}`)?.focus();
    } finally {
      setSaving(false);
    }
  };

  const fieldError = (field: string) => (failure?.field === field ? failure.message : undefined);
  const fieldProps = (field: string) => ({
    id: `edit-${field}`,
    'aria-invalid': fieldError(field) === undefined ? undefined : true,
    'aria-describedby': fieldError(field) === undefined ? undefined : `edit-${field}-error`,
  });
  const errorOf = (field: string) =>
    fieldError(field) === undefined ? null : (
      <p className="field-error" id={`edit-${field}-error`} role="alert">
        {fieldError(field)}
      </p>
    );
  const fieldErrors = ['description', 'when_to_use', 'category', 'tags'];
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="edit-heading">
      <h2 id="edit-heading">Edit</h2>
      <div className="field">
        <label htmlFor="edit-description">Description</label>
        <textarea
          {...fieldProps('description')}
          rows={3}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
        {errorOf('description')}
      </div>
      <div className="field">
        <label htmlFor="edit-when_to_use">When to use (optional)</label>
        <textarea
          {...fieldProps('when_to_use')}
          rows={2}
          value={whenToUse}
          onChange={(event) => setWhenToUse(event.target.value)}
        />
        {errorOf('when_to_use')}
      </div>
      <div className="form-row">
        <div className="field">
          <label htmlFor="edit-category">Category</label>
          <input
            {...fieldProps('category')}
            value={category}
            maxLength={200}
            onChange={(event) => setCategory(event.target.value)}
          />
          {errorOf('category')}
        </div>
        <div className="field field-grow">
          <label htmlFor="edit-tags">Tags (comma-separated)</label>
          <input {...fieldProps('tags')} value={tags} onChange={(event) => setTags(event.target.value)} />
          {errorOf('tags')}
        </div>
      </div>
      {failure !== undefined && !fieldErrors.includes(failure.field ?? '') ? (
        <ErrorState error={failure} title="Not saved." />
      ) : null}
      <button type="submit" className="button button-primary" disabled={saving}>
        {saving ? 'Saving…' : 'Save changes'}
      </button>{' '}
      {saved ? (
        <span className="muted" role="status">
          Saved.
        </span>
      ) : null}
    </form>
  );
}

/**
 * Delete a workspace's own tool, after a confirmation (`DELETE /api/tools/:id`); its attachments go
 * with it. Back to the catalog afterwards.
 *
 * @example
 * ```tsx
 * <DeleteTool toolId="company_search" name="Company search" />
 * ```
 */
export function DeleteTool(props: { toolId: string; name: string }) {
  const { request } = useSession();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const remove = async () => {
    try {
      await request(`/api/tools/${encodeURIComponent(props.toolId)}`, { method: 'DELETE' });
      navigate('/');
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
    }
  };
  return (
    <section aria-labelledby="delete-tool-heading" className="card card-danger">
      <h2 id="delete-tool-heading">Delete</h2>
      {confirming ? (
        <p>
          Delete <strong>{props.name}</strong>? Agents that have it lose it.{' '}
          <button type="button" className="button button-danger" onClick={remove}>
            Yes, delete
          </button>{' '}
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </p>
      ) : (
        <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
          Delete this tool
        </button>
      )}
      {failure === undefined ? null : <ErrorState error={failure} title="Not deleted." />}
    </section>
  );
}
