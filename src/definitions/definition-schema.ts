import type { JsonSchema } from '../core/json-schema.js';

/** The keys of an `annotations:` block in a YAML definition, mapped to ToolSpec annotation names. */
export const ANNOTATION_KEYS = {
  read_only: 'readOnly',
  destructive: 'destructive',
  idempotent: 'idempotent',
  open_world: 'openWorld',
} as const;

/**
 * JSON Schema of a declarative tool definition (SPEC §4.1): the snake_case forms of the ToolSpec
 * fields, `timeout` in seconds. Unknown keys are errors, so typos are never silently ignored.
 */
export const TOOL_DEFINITION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string', pattern: '\\S' },
    when_to_use: { type: 'string', minLength: 1 },
    category: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$' },
    tags: { type: 'array', items: { type: 'string', minLength: 1 } },
    parameters: {
      type: 'object',
      properties: {
        type: { const: 'object' },
        properties: { type: 'object' },
        required: { type: 'array', items: { type: 'string' } },
      },
      required: ['type', 'properties'],
    },
    input_examples: { type: 'array', maxItems: 10, items: { type: 'object' } },
    output_schema: { type: 'object' },
    handler: { type: 'string', pattern: '\\S' },
    timeout: { type: 'number', exclusiveMinimum: 0 },
    async: { type: 'boolean' },
    annotations: {
      type: 'object',
      properties: Object.fromEntries(Object.keys(ANNOTATION_KEYS).map((key) => [key, { type: 'boolean' }])),
      additionalProperties: false,
    },
    execution: {
      type: 'object',
      properties: { task_support: { enum: ['forbidden', 'optional', 'required'] } },
      additionalProperties: false,
    },
    requires: {
      type: 'object',
      properties: {
        env: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
              description: { type: 'string' },
              url: { type: 'string' },
            },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    max_output_chars: { type: 'integer', minimum: 1 },
    extra_args: { enum: ['drop', 'reject'] },
    reset_on_progress: { type: 'boolean' },
    max_total: { type: 'number', exclusiveMinimum: 0 },
    max_concurrency: { type: 'integer', minimum: 1 },
    requires_approval: { type: 'boolean' },
    cli: { type: ['string', 'null'] },
    metadata: { type: 'object' },
  },
  required: ['name', 'description', 'parameters', 'handler'],
  additionalProperties: false,
};
