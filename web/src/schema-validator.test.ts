import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { InterpretingValidator } from './schema-validator.js';

// The try-it form's validator: rjsf's error shape from an interpreting JSON Schema validator (the
// catalog's CSP forbids the code generation Ajv needs).

const validator = new InterpretingValidator<Record<string, unknown>>();

const schema: RJSFSchema = {
  type: 'object',
  properties: {
    expression: { type: 'string', maxLength: 5 },
    count: { type: 'integer', minimum: 1 },
    options: { type: 'object', properties: { precision: { type: 'integer' } }, required: ['precision'] },
  },
  required: ['expression'],
  additionalProperties: false,
};

describe('InterpretingValidator', () => {
  it('puts each error on its field, in the shape rjsf shows', () => {
    const { errors, errorSchema } = validator.validateFormData(
      { count: 0, options: {}, extra: true } as Record<string, unknown>,
      schema,
    );
    expect(errors.map((error) => [error.name, error.property, error.message])).toEqual([
      ['required', 'expression', "must have required property 'expression'"],
      ['minimum', '.count', expect.stringMatching(/1/)],
      ['required', '.options.precision', "must have required property 'precision'"],
      ['additionalProperties', '', "must not have the property 'extra'"],
    ]);
    expect(errorSchema).toMatchObject({
      expression: { __errors: ["must have required property 'expression'"] },
      count: { __errors: [expect.any(String)] },
      options: { precision: { __errors: ["must have required property 'precision'"] } },
    });
  });

  it('reports the length and type of a value under its field', () => {
    const { errorSchema } = validator.validateFormData({ expression: 'toolong', count: 'x' }, schema);
    expect(errorSchema).toMatchObject({
      expression: { __errors: ['String is too long (7 > 5).'] },
      count: { __errors: [expect.stringContaining('integer')] },
    });
  });

  it('passes valid data, applies the transformer, and reports a schema it cannot use', () => {
    expect(validator.validateFormData({ expression: '6*7' }, schema).errors).toEqual([]);
    const renamed = validator.validateFormData({}, schema, undefined, (errors) =>
      errors.map((error) => ({ ...error, message: 'This field is required.' })),
    );
    expect(renamed.errorSchema).toMatchObject({ expression: { __errors: ['This field is required.'] } });
    const broken = validator.rawValidation({ $ref: '#/$defs/missing' } as RJSFSchema, {});
    expect(broken.validationError).toBeInstanceOf(Error);
  });

  it("matches options against sub-schemas that use the root schema's definitions", () => {
    const root: RJSFSchema = {
      $defs: { port: { type: 'integer', minimum: 1, maximum: 65535 } },
      anyOf: [{ $ref: '#/$defs/port' }, { type: 'string' }],
    };
    expect(validator.isValid({ $ref: '#/$defs/port' }, 8080 as never, root)).toBe(true);
    expect(validator.isValid({ $ref: '#/$defs/port' }, 70000 as never, root)).toBe(false);
    expect(validator.isValid({ $ref: '#/$defs/nowhere' }, 1 as never, root)).toBe(false);
  });
});
