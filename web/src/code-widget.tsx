import { ariaDescribedByIds, type UiSchema, type WidgetProps } from '@rjsf/utils';
import { type KeyboardEvent, useRef } from 'react';
import { indentEdit } from './code-editing.js';

/**
 * The try-it form's editor for a string that holds code (its schema sets `contentMediaType`, such as
 * `text/x-python`): a multi-line monospace box where Tab indents (four spaces, or every selected
 * line) and Shift-Tab outdents. Where there is nothing to outdent Shift-Tab moves the focus back as
 * usual, and after Escape the next Tab or Shift-Tab moves the focus on. Ctrl+Enter (⌘+Enter) runs the
 * tool.
 *
 * @example
 * ```tsx
 * <Form schema={schema} uiSchema={codeFieldsUiSchema(schema)} widgets={{ code: CodeWidget }} validator={validator} />
 * ```
 */
export function CodeWidget(props: WidgetProps) {
  const { id, value, disabled, readonly, autofocus, onChange, onBlur, onFocus, options, schema } = props;
  const released = useRef(false);
  const text = typeof value === 'string' ? value : '';

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    const field = event.currentTarget;
    if (event.key === 'Escape') {
      released.current = true;
      return;
    }
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      field.form?.requestSubmit();
      return;
    }
    if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) {
      released.current = false;
      return;
    }
    if (released.current) {
      released.current = false;
      return;
    }
    const edit = indentEdit(field.value, field.selectionStart, field.selectionEnd, event.shiftKey);
    if (edit === undefined) return;
    event.preventDefault();
    // setRangeText keeps the caret where the edit puts it; the input event tells React (and rjsf).
    field.setRangeText(edit.text, 0, field.value.length);
    field.setSelectionRange(edit.selectionStart, edit.selectionEnd);
    field.dispatchEvent(new Event('input', { bubbles: true }));
  };

  return (
    <textarea
      id={id}
      name={id}
      className="code-editor"
      value={text}
      rows={Math.min(24, Math.max(6, text.split('\n').length + 1))}
      wrap="off"
      spellCheck={false}
      autoCapitalize="off"
      autoComplete="off"
      autoCorrect="off"
      data-language={typeof schema.contentMediaType === 'string' ? schema.contentMediaType : undefined}
      disabled={disabled || readonly}
      // biome-ignore lint/a11y/noAutofocus: rjsf passes autofocus only when the schema's uiSchema asks for it.
      autoFocus={autofocus}
      aria-describedby={ariaDescribedByIds(id)}
      onKeyDown={onKeyDown}
      onChange={(event) => onChange(event.target.value === '' ? options.emptyValue : event.target.value)}
      onBlur={(event) => {
        released.current = false;
        onBlur(id, event.target.value);
      }}
      onFocus={(event) => onFocus(id, event.target.value)}
    />
  );
}

/**
 * A uiSchema that gives every string property with a `contentMediaType` (at any depth of `properties`)
 * the {@link CodeWidget}, registered under the name `code`.
 *
 * @example
 * ```ts
 * codeFieldsUiSchema({ type: 'object', properties: { code: { type: 'string', contentMediaType: 'text/x-python' } } });
 * // { code: { 'ui:widget': 'code' } }
 * ```
 */
export function codeFieldsUiSchema(schema: unknown): UiSchema {
  const uiSchema: UiSchema = {};
  if (!isObject(schema) || !isObject(schema.properties)) return uiSchema;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    if (property.type === 'string' && typeof property.contentMediaType === 'string') {
      uiSchema[name] = { 'ui:widget': 'code' };
    } else {
      const nested = codeFieldsUiSchema(property);
      if (Object.keys(nested).length > 0) uiSchema[name] = nested;
    }
  }
  return uiSchema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
