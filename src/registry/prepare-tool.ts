import type { PreparedTool } from '../core/dispatch.js';
import { InvalidToolSchemaError } from '../core/errors/invalid-tool-schema-error.js';
import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { CompiledValidator } from '../core/validation-issue.js';
import { withoutHarmfulDefaults } from '../exporters/schema-lint.js';
import { schemaProblems } from '../schema/meta-schema.js';

type Compiler = typeof import('../schema/compile-validator.js');

// Ajv is imported on the first call that needs a validator, not when tools are registered or listed:
// importing it costs more than a CLI start may spend.
let compiler: Compiler | undefined;
let loadingCompiler: Promise<Compiler> | undefined;

/** Load the validator compiler (Ajv); calls resolve at once after the first time. */
export function loadValidatorCompiler(): Promise<Compiler> {
  loadingCompiler ??= import('../schema/compile-validator.js').then((module) => {
    compiler = module;
    return module;
  });
  return loadingCompiler;
}

/**
 * Precompute what dispatch needs for `spec`. Schemas compile on first use (compiling costs ~1 ms, so
 * a registry of 100 000 tools registers in well under a second) and the compiled validator replaces
 * the lazy one, so every later call goes straight to it.
 */
export function prepareTool(spec: ToolSpec, hasApprovalRule = false): PreparedTool {
  const declaredArgs = declaredArguments(spec.inputSchema);
  // With declared arguments, undeclared ones count as extra: the validator refuses them itself, so a
  // call without extras needs no separate pass over its keys (dispatch looks for them only on failure).
  const schema =
    declaredArgs === undefined || spec.inputSchema.additionalProperties === false
      ? spec.inputSchema
      : { ...spec.inputSchema, additionalProperties: false };
  const prepared = {
    spec,
    validateInput: undefined as unknown as PreparedTool['validateInput'],
    validateOutput: undefined as CompiledValidator | undefined,
    declaredArgs,
    copyArgs: defaultsDepth(schema),
    requiredEnv: spec.requires.env ?? [],
    extraArgs: spec.extraArgs,
    mayNeedApproval: hasApprovalRule || (spec.requiresApproval !== undefined && spec.requiresApproval !== false),
  };
  const compileInput = (value: unknown) => {
    const validator = compileOrExplain(spec, schema, 'input');
    prepared.validateInput = validator;
    return validator(value);
  };
  prepared.validateInput = (value) =>
    compiler === undefined ? loadValidatorCompiler().then(() => compileInput(value)) : compileInput(value);
  if (spec.outputSchema !== undefined) {
    const outputSchema = spec.outputSchema;
    prepared.validateOutput = (value) => {
      const validator = compileOrExplain(spec, outputSchema, 'output');
      prepared.validateOutput = validator;
      return validator(value);
    };
  }
  return prepared;
}

function compileOrExplain(spec: ToolSpec, schema: JsonSchema, which: 'input' | 'output'): CompiledValidator {
  const problems = schemaProblems(schema);
  if (problems.length > 0) return brokenSchema(spec, which, problems.join('; '));
  if (compiler === undefined) {
    // Only reachable for output checks of a call that skipped input validation; see resolveApproval.
    return brokenSchema(spec, which, 'the validator compiler is not loaded yet');
  }
  try {
    // A default that fails its own schema, or would fill in a required argument, is never applied.
    return compiler.compileValidator(which === 'input' ? withoutHarmfulDefaults(schema) : schema);
  } catch (error) {
    return brokenSchema(spec, which, (error as Error).message);
  }
}

function brokenSchema(spec: ToolSpec, which: string, problem: string): CompiledValidator {
  const message = `Tool '${spec.name}' has an invalid ${which} schema: ${problem}.`;
  return () => {
    throw new InvalidToolSchemaError(message);
  };
}

function declaredArguments(schema: JsonSchema): ReadonlySet<string> | undefined {
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== false) return undefined;
  // Composed schemas may declare properties elsewhere; never drop what they might accept.
  if (schema.patternProperties !== undefined || schema.allOf || schema.anyOf || schema.oneOf || schema.$ref)
    return undefined;
  if (schema.unevaluatedProperties !== undefined && schema.unevaluatedProperties !== false) return undefined;
  return new Set(Object.keys(schema.properties ?? {}));
}

function defaultsDepth(schema: JsonSchema): 'none' | 'shallow' | 'deep' {
  let depth: 'none' | 'shallow' | 'deep' = 'none';
  for (const key in schema) {
    if (key !== 'properties' && containsDefault(schema[key])) return 'deep';
  }
  const properties = schema.properties ?? {};
  for (const name in properties) {
    const property = properties[name] as Record<string, unknown> | undefined;
    if (property === null || typeof property !== 'object') continue;
    for (const key in property) {
      if (key === 'default') depth = 'shallow';
      else if (containsDefault(property[key])) return 'deep';
    }
  }
  return depth;
}

function containsDefault(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsDefault(item)) return true;
    return false;
  }
  for (const key in value) {
    if (key === 'default' || containsDefault((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
