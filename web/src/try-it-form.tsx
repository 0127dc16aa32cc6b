import Form, { type IChangeEvent } from '@rjsf/core';
import type { RJSFValidationError, UiSchema } from '@rjsf/utils';
import { useMemo, useState } from 'react';
import { ApiFailure } from './api-client.js';
import type { Agent, ToolResultBody } from './api-types.js';
import { CodeWidget, codeFieldsUiSchema } from './code-widget.js';
import { InterpretingValidator } from './schema-validator.js';
import { useApi, useSession } from './session.js';
import { ErrorState } from './states.js';
import { ToolResultView } from './tool-result-view.js';

type Arguments = Record<string, unknown>;

const SUBMIT: UiSchema = { 'ui:submitButtonOptions': { submitText: 'Run tool' } };

/** Fields whose schema sets `contentMediaType` get the code editor. */
const WIDGETS = { code: CodeWidget };

/** Validates without code generated at run time: the page's CSP has no 'unsafe-eval'. */
const VALIDATOR = new InterpretingValidator<Arguments>();

/**
 * The "try it" form of a tool, generated from its JSON Schema by rjsf: it validates the arguments in
 * the browser (errors under each field, focus on the first), sends them to
 * `POST /api/tools/:id/call` (optionally as one of the workspace's agents) and shows the ToolResult.
 * A string field whose schema sets `contentMediaType` (the code of `execute_python`) is a code editor.
 * With `unavailable` (why this server cannot run the tool) the form is shown disabled, with the reason.
 *
 * @example
 * ```tsx
 * <TryItForm toolId="calculator" schema={tool.parameters_schema} />
 * ```
 */
export function TryItForm(props: { toolId: string; schema: Record<string, unknown>; unavailable?: string }) {
  const { request } = useSession();
  const agents = useApi<{ agents: Agent[] }>('/api/agents');
  const [formData, setFormData] = useState<Arguments>({});
  const [agentId, setAgentId] = useState('');
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<ToolResultBody | undefined>();
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const uiSchema = useMemo(() => ({ ...codeFieldsUiSchema(props.schema), ...SUBMIT }), [props.schema]);

  const run = async ({ formData: submitted }: IChangeEvent<Arguments>) => {
    if (props.unavailable !== undefined) return;
    setRunning(true);
    setFailure(undefined);
    try {
      const body = { arguments: submitted ?? {}, ...(agentId === '' ? {} : { agent_id: agentId }) };
      setResult(
        await request<ToolResultBody>(`/api/tools/${encodeURIComponent(props.toolId)}/call`, { method: 'POST', body }),
      );
    } catch (error) {
      setResult(undefined);
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className="try-it">
      {props.unavailable === undefined ? null : (
        <p className="unavailable-notice" id="try-it-unavailable" data-testid="try-it-unavailable">
          <strong>This server cannot run this tool now.</strong> {props.unavailable}
        </p>
      )}
      {agents.status === 'ready' && agents.data.agents.length > 0 ? (
        <div className="field">
          <label htmlFor="run-as">Run as</label>
          <select
            id="run-as"
            value={agentId}
            onChange={(event) => setAgentId(event.target.value)}
            disabled={props.unavailable !== undefined}
          >
            <option value="">No agent (every workspace tool)</option>
            {agents.data.agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name} ({agent.id})
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <Form<Arguments>
        schema={props.schema}
        uiSchema={uiSchema}
        widgets={WIDGETS}
        validator={VALIDATOR}
        formData={formData}
        onChange={(event) => setFormData(event.formData ?? {})}
        onSubmit={run}
        transformErrors={friendlier}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={running || props.unavailable !== undefined}
        idPrefix="arg"
      />
      <section className="result-area" aria-live="polite" aria-label="Result">
        {running ? <p className="muted">Running…</p> : null}
        {failure === undefined ? null : <ErrorState error={failure} title="The call was refused." />}
        {result === undefined || running ? null : <ToolResultView result={result} />}
      </section>
    </div>
  );
}

/** The validator's messages, phrased for the person at the form. */
function friendlier(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((error) => (error.name === 'required' ? { ...error, message: 'This field is required.' } : error));
}
