import type { JsonSchema } from '../../core/json-schema.js';

/** How deep nested objects and arrays are filled in before a value is left as `null`. */
const MAX_DEPTH = 4;

/**
 * Example arguments for a tool, derived from its input schema: every required property (or the first
 * property when none is required), each with the schema's own `examples[0]`, else its `default`,
 * `const` or first `enum` value, else a placeholder of the right type — `"<name>"` for a string, the
 * minimum (or 1) for a number, `true` for a boolean, one item for an array, and the same rules
 * recursively for an object. Local `$ref`s (`#/$defs/...`) are followed; recursion stops after a few
 * levels with `null`.
 *
 * @example
 * ```ts
 * exampleArguments({ type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', default: 5 } }, required: ['query'] });
 * // { query: '<query>' }
 * ```
 */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const value = exampleObject(schema, schema, 0);
  return isRecord(value) ? value : {};
}

function exampleObject(schema: JsonSchema, root: JsonSchema, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const names = Object.keys(properties);
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string' && Object.hasOwn(properties, name))
    : [];
  const shown = required.length > 0 ? required : names.slice(0, 1);
  const result: Record<string, unknown> = {};
  for (const name of shown) {
    Object.defineProperty(result, name, {
      value: exampleValue(properties[name], name, root, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function exampleValue(schema: unknown, name: string, root: JsonSchema, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return null;
  const node = schema as JsonSchema;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  if ('default' in node) return node.default;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if (typeof node.$ref === 'string') return exampleValue(resolveRef(node.$ref, root), name, root, depth + 1);
  const alternatives = node.anyOf ?? node.oneOf;
  if (Array.isArray(alternatives)) {
    const first = alternatives.find((alternative) => !(isRecord(alternative) && alternative.type === 'null'));
    return exampleValue(first, name, root, depth + 1);
  }
  if (Array.isArray(node.allOf) && node.allOf.length === 1) return exampleValue(node.allOf[0], name, root, depth + 1);
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  const type = types.find((candidate) => candidate !== 'null') ?? (isRecord(node.properties) ? 'object' : undefined);
  switch (type) {
    case 'string':
      return exampleString(node, name);
    case 'integer':
    case 'number':
      return exampleNumber(node, type);
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.max(1, typeof node.minItems === 'number' ? Math.min(node.minItems, 3) : 1);
      const item = exampleValue(node.items, name, root, depth + 1);
      return Array.from({ length: count }, () => item);
    }
    case 'object':
      return exampleObject(node, root, depth);
    case undefined:
      return null;
    default: {
      const unreachable: never = type;
      return unreachable;
    }
  }
}

function exampleString(schema: JsonSchema, name: string): string {
  switch (schema.format) {
    case 'uri':
    case 'url':
    case 'iri':
      return 'https://example.com';
    case 'email':
      return 'user@example.com';
    case 'date':
      return '2025-01-31';
    case 'date-time':
      return '2025-01-31T12:00:00Z';
    case 'uuid':
      return '123e4567-e89b-12d3-a456-426614174000';
    default:
      return `<${name}>`;
  }
}

function exampleNumber(schema: JsonSchema, type: 'integer' | 'number'): number {
  let value = 1;
  if (typeof schema.minimum === 'number') value = schema.minimum;
  else if (typeof schema.exclusiveMinimum === 'number') value = schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === 'number' && value > schema.maximum) value = schema.maximum;
  return type === 'integer' ? Math.ceil(value) : value;
}

function resolveRef(ref: string, root: JsonSchema): unknown {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const definitions = root[match[1] as '$defs' | 'definitions'];
  const name = decodeURIComponent(match[2] ?? '')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  return isRecord(definitions) && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
