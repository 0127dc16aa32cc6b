import { type OutputUnit, Validator } from '@cfworker/json-schema';
import type {
  CustomValidator,
  ErrorTransformer,
  FormContextType,
  RJSFSchema,
  UiSchema,
  ValidationData,
  ValidatorType,
} from '@rjsf/utils';
import processRawValidationErrors from '@rjsf/validator-ajv8/lib/processRawValidationErrors.js';

/** An error in the shape rjsf's error processing reads (Ajv's `ErrorObject`). */
interface RawError {
  instancePath: string;
  keyword: string;
  params: Record<string, string>;
  schemaPath: string;
  message: string;
}

/**
 * Keywords whose errors only say that a part below them failed; the part's own error says what is
 * wrong, so these are left out (a `false` schema is the part below `additionalProperties: false`).
 */
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  '$ref',
  'allOf',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'false',
]);

/**
 * The "try it" form's validator: JSON Schema checked by an interpreter (`@cfworker/json-schema`)
 * instead of code generated at run time, so the page's Content-Security-Policy needs no
 * `'unsafe-eval'`. Its errors are turned into the shape rjsf's own Ajv validator produces and go
 * through the same processing (`processRawValidationErrors`), so fields show them the same way.
 *
 * @example
 * ```tsx
 * <Form<Arguments> schema={schema} validator={new InterpretingValidator<Arguments>()} />
 * ```
 */
export class InterpretingValidator<T = unknown, F extends FormContextType = FormContextType>
  implements ValidatorType<T, RJSFSchema, F>
{
  validateFormData(
    formData: T | undefined,
    schema: RJSFSchema,
    customValidate?: CustomValidator<T, RJSFSchema, F>,
    transformErrors?: ErrorTransformer<T, RJSFSchema, F>,
    uiSchema?: UiSchema<T, RJSFSchema, F>,
  ): ValidationData<T> {
    const raw = this.rawValidation<RawError>(schema, formData);
    return processRawValidationErrors(
      this,
      // rjsf's processing is typed for Ajv's errors; these carry the fields it reads.
      raw as Parameters<typeof processRawValidationErrors>[1],
      formData,
      schema,
      customValidate,
      transformErrors,
      uiSchema,
    );
  }

  isValid(schema: RJSFSchema, formData: T | undefined, rootSchema: RJSFSchema): boolean {
    // A sub-schema's local references point into the root schema: give it the root's definitions.
    const withDefinitions = {
      ...schema,
      ...(rootSchema.$defs === undefined ? {} : { $defs: rootSchema.$defs }),
      ...(rootSchema.definitions === undefined ? {} : { definitions: rootSchema.definitions }),
    };
    try {
      return new Validator(withDefinitions as object, '2020-12').validate(formData).valid;
    } catch {
      return false;
    }
  }

  rawValidation<Result = RawError>(schema: RJSFSchema, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      const result = new Validator(schema as object, '2020-12', false).validate(formData);
      if (result.valid) return {};
      return { errors: result.errors.filter((error) => !WRAPPERS.has(error.keyword)).map(rawError) as Result[] };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}

function rawError(error: OutputUnit): RawError {
  const instancePath = error.instanceLocation.replace(/^#/, '');
  const base = { instancePath, keyword: error.keyword, schemaPath: error.keywordLocation };
  if (error.keyword === 'required') {
    const missingProperty = /required property "(.*)"\.$/.exec(error.error)?.[1] ?? '';
    return { ...base, params: { missingProperty }, message: `must have required property '${missingProperty}'` };
  }
  if (error.keyword === 'additionalProperties') {
    const additionalProperty = /^Property "(.*)" does not match/.exec(error.error)?.[1] ?? '';
    return {
      ...base,
      params: { additionalProperty },
      message: `must not have the property '${additionalProperty}'`,
    };
  }
  return { ...base, params: {}, message: error.error };
}
