import { REST_TOOL_SCHEMA } from '../config/config-schema.js';
import { describeValue } from '../core/define-tool.js';
import type { JsonObjectSchema, JsonSchema } from '../core/json-schema.js';
import type { SandboxLanguage } from '../sandbox/sandbox.js';
import { compileValidator } from '../schema/compile-validator.js';
import { STORE_LIMITS, type WorkspaceToolInput } from '../store/index.js';
import { validationError } from './api-error.js';
import { CODE_TOOL_TYPES, type CodeToolConfig } from './code-tool.js';
import {
  definitionError,
  refuseUnfitExamples,
  refuseUnusableParameters,
  restAnnotations,
} from './rest-tool-definition.js';

/**
 * The most bytes `code` may take in its row: the store's limit of a tool's config (64 KiB), less what
 * the rest of the config takes, measured on its JSON text (where a newline or a quote takes 2 bytes).
 */
export const MAX_CODE_BYTES = STORE_LIMITS.configBytes - 64;

const restFields = (REST_TOOL_SCHEMA as { properties: Record<string, JsonSchema> }).properties;

/**
 * The body of `POST /api/tools` for a code tool: the fields a REST tool shares with it (`id`,
 * `title`, `description`, `when_to_use`, `category`, `input_examples`, `parameters`, `annotations`,
 * `requires_approval`), `type` (`python` or `javascript`) and `code`.
 */
export const CODE_TOOL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: restFields.id as JsonSchema,
    type: { enum: [...CODE_TOOL_TYPES] },
    code: { type: 'string', pattern: '\\S' },
    title: restFields.title as JsonSchema,
    description: restFields.description as JsonSchema,
    when_to_use: restFields.when_to_use as JsonSchema,
    category: restFields.category as JsonSchema,
    input_examples: restFields.input_examples as JsonSchema,
    parameters: restFields.parameters as JsonSchema,
    annotations: restFields.annotations as JsonSchema,
    requires_approval: restFields.requires_approval as JsonSchema,
  },
  required: ['id', 'type', 'code', 'description', 'parameters'],
  additionalProperties: false,
};

const validateCodeTool = compileValidator(CODE_TOOL_SCHEMA);

/** A code tool as `POST /api/tools` takes it, checked for shape (not yet for its code). */
export interface CodeToolInput {
  type: SandboxLanguage;
  id: string;
  code: string;
  /** What `store.tools.createWorkspaceTool` takes. */
  record: WorkspaceToolInput & { config: CodeToolConfig & Record<string, unknown> };
}

/**
 * Check the shape of a code tool's body and make its row: 400 `VALIDATION_ERROR` naming the field
 * for anything malformed, and for a `code` over {@link MAX_CODE_BYTES}.
 *
 * @example
 * ```ts
 * const input = codeToolInputOf({ id: 'add', type: 'python', code: 'def add(a, b):\n    return a + b',
 *   description: 'Add two numbers.', parameters: { type: 'object', properties: {} } });
 * await store.tools.createWorkspaceTool('acme', input.record);
 * ```
 */
export function codeToolInputOf(body: Record<string, unknown>): CodeToolInput {
  const issue = validateCodeTool(structuredClone(body))?.[0];
  if (issue !== undefined) throw definitionError('code tool', issue, body);
  const type = body.type as SandboxLanguage;
  const id = body.id as string;
  const code = body.code as string;
  refuseUnusableParameters(body.parameters, 'code tool');
  refuseUnfitExamples(body.input_examples, body.parameters, 'code tool');
  const bytes = Buffer.byteLength(JSON.stringify(code)) - 2;
  if (bytes > MAX_CODE_BYTES) {
    throw validationError(
      'code',
      `'code' must be at most ${MAX_CODE_BYTES} bytes as JSON text (where a newline or a quote takes 2), got ${bytes}; keep data out of the code or split the tool in two.`,
    );
  }
  return {
    type,
    id,
    code,
    record: {
      id,
      name: typeof body.title === 'string' ? body.title : id,
      description: body.description as string,
      parametersSchema: body.parameters as JsonObjectSchema,
      handlerKey: type,
      category: typeof body.category === 'string' ? body.category : 'code',
      ...(typeof body.when_to_use === 'string' ? { whenToUse: body.when_to_use } : {}),
      ...(Array.isArray(body.input_examples)
        ? { inputExamples: body.input_examples as Array<Record<string, unknown>> }
        : {}),
      annotations: restAnnotations(body),
      config: { type, code },
      source: 'code',
    },
  };
}

/**
 * Refuse a `type` that names no kind of tool `POST /api/tools` makes.
 *
 * @example
 * ```ts
 * refuseUnknownToolType({ type: 'ruby' }); // throws: 'type' must be 'rest_api', 'python' or 'javascript' ...
 * ```
 */
export function refuseUnknownToolType(body: Record<string, unknown>): void {
  const type = body.type;
  if (type === 'rest_api' || CODE_TOOL_TYPES.includes(type as SandboxLanguage)) return;
  throw validationError(
    'type',
    `'type' must be 'rest_api' (a REST tool), 'python' or 'javascript' (a code tool), got ${describeValue(type)}.`,
  );
}
