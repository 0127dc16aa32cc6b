import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  checkRestToolDefinition,
  fieldOf,
  restAnnotations,
  restExecution,
  restToolColumns,
} from './rest-tool-definition.js';

const definition = {
  id: 'company_search',
  type: 'rest_api',
  description: 'Search the company knowledge base.',
  endpoint: 'https://api.example.com/search',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};

describe('REST tool definitions of the API', () => {
  it('turns a checked definition into the columns of its row', () => {
    checkRestToolDefinition(definition);
    expect(restToolColumns({ ...definition, tags: ['search'], annotations: { read_only: true } })).toEqual({
      name: 'company_search',
      description: 'Search the company knowledge base.',
      whenToUse: null,
      category: 'api',
      tags: ['search'],
      inputExamples: null,
      annotations: { readOnly: true },
      execution: {},
      parametersSchema: definition.parameters,
      config: { ...definition, tags: ['search'], annotations: { read_only: true } },
    });
    expect(restAnnotations({ annotations: { read_only: true } })).toEqual({ readOnly: true });
    expect(restAnnotations({ requires_approval: true })).toEqual({ requiresApproval: true });
    expect(restExecution({ execution: { task_support: 'optional' } })).toEqual({ taskSupport: 'optional' });
    expect(restExecution({})).toEqual({});
  });

  it('names the field of a refused definition, checking what was sent for operator fields', () => {
    const refused = (() => {
      try {
        checkRestToolDefinition({ ...definition, allow_private_network: true }, { allow_private_network: true });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(ApiError.isInstance(refused) && refused.details).toEqual({ field: 'allow_private_network' });
    expect(fieldOf('auth.secret', 'pattern', '...')).toBe('auth');
    expect(fieldOf('', 'additionalProperties', "unknown property 'surprise'")).toBe('surprise');
    expect(fieldOf('', 'type', 'must be an object')).toBe('body');
  });
});
