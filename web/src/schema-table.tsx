import { isRecord } from './api-client.js';

interface Row {
  path: string;
  depth: number;
  type: string;
  required: boolean;
  description: string;
  constraints: string[];
}

/**
 * A tool's input schema as a table: one row per parameter (nested object properties and array items
 * indented under their parent) with its type, whether it is required, its description and constraints.
 *
 * @example
 * ```tsx
 * <SchemaTable schema={tool.parameters_schema} />
 * ```
 */
export function SchemaTable(props: { schema: Record<string, unknown> }) {
  const rows = rowsOf(props.schema, '', 0);
  if (rows.length === 0) return <p className="muted">This tool takes no arguments.</p>;
  return (
    <div className="table-scroll">
      <table className="table schema-table">
        <caption className="visually-hidden">Input parameters</caption>
        <thead>
          <tr>
            <th scope="col">Parameter</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path}>
              <th scope="row" className={`depth-${Math.min(row.depth, 6)}`}>
                <code>{row.path}</code>
              </th>
              <td data-label="Type">
                <code>{row.type}</code>
              </td>
              <td data-label="Required">{row.required ? 'yes' : 'no'}</td>
              <td>
                {row.description}
                {row.constraints.length === 0 ? null : (
                  <span className="constraints">{row.constraints.join(' · ')}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function rowsOf(schema: Record<string, unknown>, prefix: string, depth: number): Row[] {
  if (depth > 6) return [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const rows: Row[] = [];
  for (const [name, value] of Object.entries(properties)) {
    if (!isRecord(value)) continue;
    const path = prefix === '' ? name : `${prefix}.${name}`;
    rows.push({
      path,
      depth,
      type: typeOf(value),
      required: required.includes(name),
      description: typeof value.description === 'string' ? value.description : '',
      constraints: constraintsOf(value),
    });
    if (isRecord(value.properties)) rows.push(...rowsOf(value, path, depth + 1));
    if (isRecord(value.items) && isRecord(value.items.properties))
      rows.push(...rowsOf(value.items, `${path}[]`, depth + 1));
  }
  return rows;
}

function typeOf(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return 'enum';
  const type = Array.isArray(schema.type)
    ? schema.type.join(' | ')
    : typeof schema.type === 'string'
      ? schema.type
      : '';
  if (type === 'array' && isRecord(schema.items)) return `${typeOf(schema.items)}[]`;
  if (type !== '') return type;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.filter(isRecord).map(typeOf).join(' | ');
  }
  return 'any';
}

function constraintsOf(schema: Record<string, unknown>): string[] {
  const shown: string[] = [];
  const json = (value: unknown) => JSON.stringify(value);
  if (Array.isArray(schema.enum)) shown.push(`one of ${schema.enum.map(json).join(', ')}`);
  if (schema.default !== undefined) shown.push(`default ${json(schema.default)}`);
  const labels: Array<[string, string]> = [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['exclusiveMinimum', 'greater than'],
    ['exclusiveMaximum', 'less than'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
    ['format', 'format'],
  ];
  for (const [key, label] of labels) {
    if (schema[key] !== undefined)
      shown.push(`${label} ${typeof schema[key] === 'string' ? schema[key] : json(schema[key])}`);
  }
  return shown;
}
