import { REST_TOOL_SCHEMA } from '../config/config-schema.js';
import { describeValue } from '../core/define-tool.js';
import { isPlainObject, type JsonObjectSchema, type JsonSchema } from '../core/json-schema.js';
import type { ToolAnnotations } from '../core/tool-spec.js';
import { compileValidator } from '../schema/compile-validator.js';
import { STORE_LIMITS, type ToolPatch, type ToolRecord } from '../store/index.js';
import { validationError } from './api-error.js';
import {
  checkRestToolDefinition,
  definitionError,
  REST_TOOL_FIELDS,
  refuseUnfitExamples,
  refuseUnusableParameters,
  restAnnotations,
  restToolColumns,
} from './rest-tool-definition.js';
import { HTTP_HANDLER_KEY } from './workspace-registries.js';

const REST_PROPERTIES = REST_TOOL_SCHEMA.properties ?? {};

/**
 * The body of `PATCH /api/tools/:id` for a tool that is not a REST definition (a code tool): its
 * description and metadata, in the API's snake_case, with the same limits as the store's.
 */
const METADATA_PATCH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: STORE_LIMITS.nameChars },
    description: { type: 'string', pattern: '\\S', maxLength: STORE_LIMITS.textChars },
    when_to_use: { type: ['string', 'null'], maxLength: STORE_LIMITS.textChars },
    category: { type: 'string', minLength: 1, maxLength: STORE_LIMITS.nameChars },
    tags: {
      type: 'array',
      maxItems: STORE_LIMITS.tagItems,
      items: { type: 'string', pattern: '\\S', maxLength: STORE_LIMITS.tagChars },
    },
    annotations: REST_PROPERTIES.annotations as JsonSchema,
    requires_approval: { type: 'boolean' },
    parameters: REST_PROPERTIES.parameters as JsonSchema,
    input_examples: { anyOf: [REST_PROPERTIES.input_examples as JsonSchema, { type: 'null' }] },
  },
  additionalProperties: false,
};

const validateMetadataPatch = compileValidator(METADATA_PATCH_SCHEMA);

/**
 * The fields `PATCH /api/tools/:id` takes for a tool that is not a REST definition.
 *
 * @example
 * ```ts
 * METADATA_PATCH_FIELDS.includes('endpoint'); // false: only a REST tool has one
 * ```
 */
export const METADATA_PATCH_FIELDS: readonly string[] = Object.freeze(
  Object.keys(METADATA_PATCH_SCHEMA.properties ?? {}),
);

/**
 * The store patch of `PATCH /api/tools/:id` for a tool the API owns (`api`, `code`), or a 400 naming
 * the field. A workspace REST tool's body is a partial REST definition: each field given replaces the
 * tool's, `null` removes an optional one, and the result is checked exactly as `POST /api/tools`
 * checks a new tool (its `id` cannot change). Another tool takes `title`, `description`,
 * `when_to_use` (`null` clears it), `category`, `tags`, `annotations`, `requires_approval`,
 * `parameters` and `input_examples` (`null` removes them; they must fit the parameters the tool ends with).
 *
 * @example
 * ```ts
 * const patch = toolPatchOf(tool, { description: 'Search the wiki.', tags: ['search'] });
 * await store.tools.update(workspaceId, tool.id, patch);
 * ```
 */
export function toolPatchOf(tool: ToolRecord, body: unknown): ToolPatch {
  if (!isPlainObject(body)) {
    throw validationError('body', `The request body must be a JSON object, got ${describeValue(body)}.`);
  }
  const restDefinition = isRestDefinition(tool);
  const fields = restDefinition
    ? REST_TOOL_FIELDS.filter((field) => field !== 'id')
    : // A code tool's `code` is checked in its sandbox by the route before the rest gets here.
      [...METADATA_PATCH_FIELDS, ...(tool.source === 'code' ? ['code'] : [])];
  if (Object.hasOwn(body, 'id') && body.id !== tool.id) {
    throw validationError(
      'id',
      `A tool's id cannot change; create a tool named ${describeValue(body.id)} with POST /api/tools and delete '${tool.id}'.`,
    );
  }
  // The tool's own id, sent back unchanged (a client that PATCHes what it read), changes nothing.
  const changes = Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'id'));
  const keys = Object.keys(changes);
  if (keys.length === 0) {
    throw validationError('body', `The request body changes nothing; send one or more of: ${fields.join(', ')}.`);
  }
  for (const key of keys) {
    if (!fields.includes(key)) {
      const shown = key.length > 64 ? `${key.slice(0, 61)}...` : key;
      throw validationError(
        key,
        `Unknown field '${shown}'; a ${restDefinition ? 'REST' : tool.source} tool can change: ${fields.join(', ')}.`,
      );
    }
  }
  return restDefinition ? restDefinitionPatch(tool, changes) : metadataPatch(tool, changes);
}

/** A workspace REST tool created through the API: its `config` is its REST definition. */
function isRestDefinition(tool: ToolRecord): tool is ToolRecord & { config: Record<string, unknown> } {
  return tool.source === 'api' && tool.handlerKey === HTTP_HANDLER_KEY && isPlainObject(tool.config);
}

function restDefinitionPatch(tool: ToolRecord & { config: Record<string, unknown> }, body: Record<string, unknown>) {
  // Own entries only (fromEntries), so no key of the body can reach a prototype.
  const definition = Object.fromEntries([
    ...Object.entries(tool.config).filter(([key]) => !Object.hasOwn(body, key)),
    ...Object.entries(body).filter(([, value]) => value !== null),
  ]);
  checkRestToolDefinition(definition, body);
  return restToolColumns(definition);
}

function metadataPatch(tool: ToolRecord, body: Record<string, unknown>): ToolPatch {
  const issue = validateMetadataPatch(structuredClone(body))?.[0];
  if (issue !== undefined) throw definitionError('tool patch', issue, body);
  const patch: ToolPatch = {};
  if (typeof body.title === 'string') patch.name = body.title;
  if (typeof body.description === 'string') patch.description = body.description;
  if (body.when_to_use !== undefined) patch.whenToUse = body.when_to_use as string | null;
  if (typeof body.category === 'string') patch.category = body.category;
  if (Array.isArray(body.tags)) patch.tags = body.tags as string[];
  if (body.parameters !== undefined) patch.parametersSchema = body.parameters as JsonObjectSchema;
  if (body.input_examples !== undefined)
    patch.inputExamples = body.input_examples as Array<Record<string, unknown>> | null;
  if (patch.parametersSchema !== undefined) refuseUnusableParameters(patch.parametersSchema, 'tool patch');
  // Only a change of the examples or of the parameters can make an example unfit.
  if (patch.inputExamples !== undefined || patch.parametersSchema !== undefined) {
    refuseUnfitExamples(
      patch.inputExamples === undefined ? tool.inputExamples : patch.inputExamples,
      patch.parametersSchema ?? tool.parametersSchema,
      'tool patch',
    );
  }
  if (body.annotations !== undefined || body.requires_approval !== undefined) {
    const current = tool.annotations as ToolAnnotations & { requiresApproval?: boolean };
    const hints = body.annotations === undefined ? current : restAnnotations({ annotations: body.annotations });
    const approval = body.requires_approval === undefined ? current.requiresApproval === true : body.requires_approval;
    const { requiresApproval: _dropped, ...rest } = hints as ToolAnnotations & { requiresApproval?: boolean };
    // The row keeps approval beside the hints, as POST /api/tools stores it.
    patch.annotations = approval === true ? ({ ...rest, requiresApproval: true } as ToolAnnotations) : rest;
  }
  return patch;
}
