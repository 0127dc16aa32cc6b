import type { Command } from 'commander';
import type { ToolSpec } from '../../core/tool-spec.js';
import { addToolsOptions, type CliContext, type ToolsOptions } from '../cli-context.js';
import { withTools } from '../load-registry.js';
import { formatTable, oneLine, toJson, wrap } from '../output.js';

/** The timeout a tool gets when it sets none: the registry's default (SPEC §3.1). */
const REGISTRY_DEFAULT_TIMEOUT_MS = 30_000;

/** `describe --json` lists fields in the order of the ToolSpec table (SPEC §3.1); others follow. */
const SPEC_KEY_ORDER = [
  'name',
  'title',
  'description',
  'whenToUse',
  'category',
  'tags',
  'inputSchema',
  'outputSchema',
  'timeoutMs',
  'resetOnProgress',
  'maxTotalMs',
  'annotations',
  'execution',
  'requires',
  'maxOutputChars',
  'extraArgs',
  'maxConcurrency',
  'requiresApproval',
  'cli',
  'metadata',
];

/**
 * Add `toolshed describe <tool>`: everything a caller needs to know about one tool, or the full
 * definition (the spec without its handler) with `--json`.
 *
 * An unknown name fails with exit 1 and the registry's `TOOL_NOT_FOUND` message, which lists the
 * closest names ("Did you mean ...?") and the available tools.
 *
 * @example
 * ```ts
 * defineDescribeCommand(program, context);
 * await program.parseAsync(['describe', 'add_numbers', '--tools', './tools'], { from: 'user' });
 * ```
 */
export function defineDescribeCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('describe')
    .description(
      'Show one tool: title, description, when to use it, category, parameters, requirements, annotations and timeout.',
    )
    .argument('<tool>', 'the tool name');
  return addToolsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolshed describe add_numbers --tools ./tools',
        '  toolshed describe add_numbers --json',
        '  toolshed describe word_count --config examples/toolshed.yaml --agent assistant',
      ].join('\n'),
    )
    .action(async (name: string, options: ToolsOptions) => {
      context.setExitCode(await runDescribe(name, options, context));
    });
}

/** The `describe` action; returns the exit code (a missing tool throws the registry's error). */
export async function runDescribe(name: string, options: ToolsOptions, { io }: CliContext): Promise<0> {
  const tool = await withTools(options, io, (tools) => tools.registry.get(name));
  if (options.json === true) {
    io.stdout.write(toJson(toDefinitionJson(tool)));
    return 0;
  }
  io.stdout.write(`${describeTool(tool, io.env, io.stdout.columns ?? 100).join('\n')}\n`);
  return 0;
}

/**
 * A tool's spec as plain JSON: every field except the handler (and the Standard Schema object it may
 * have been built from); an approval predicate shows as `"requiresApproval": "rule"`.
 *
 * @example
 * ```ts
 * toDefinitionJson(registry.get('add_numbers')); // { name: 'add_numbers', description: '...', inputSchema: {...}, ... }
 * ```
 */
export function toDefinitionJson(tool: ToolSpec): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  const keys = new Set([...SPEC_KEY_ORDER, ...Object.keys(tool)]);
  for (const key of keys) {
    if (key === 'handler' || key === 'input' || !Object.hasOwn(tool, key)) continue;
    const value = (tool as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value === 'function') {
      if (key === 'requiresApproval') json[key] = 'rule';
      continue;
    }
    json[key] = value;
  }
  return json;
}

/**
 * The human-readable `describe` text of a tool, as lines. `env` decides whether each required
 * variable shows as set; values are never printed.
 *
 * @example
 * ```ts
 * describeTool(registry.get('add_numbers'), process.env, 100).join('\n');
 * ```
 */
export function describeTool(
  tool: ToolSpec,
  env: Readonly<Record<string, string | undefined>>,
  width: number,
): string[] {
  const lines: string[] = [];
  lines.push(tool.title === undefined ? tool.name : `${tool.name} — ${oneLine(tool.title)}`, '');
  lines.push(...wrap(tool.description, width, '  '), '');
  if (tool.whenToUse !== undefined) lines.push('When to use:', ...wrap(tool.whenToUse, width, '  '), '');

  const facts: string[][] = [['Category:', oneLine(tool.category)]];
  if (tool.tags.length > 0) facts.push(['Tags:', oneLine(tool.tags.join(', '))]);
  facts.push(['Timeout:', formatTimeout(tool.timeoutMs)]);
  if (tool.maxOutputChars !== undefined) facts.push(['Output limit:', `${tool.maxOutputChars} characters`]);
  if (tool.requiresApproval !== undefined && tool.requiresApproval !== false) {
    facts.push(['Approval:', tool.requiresApproval === true ? 'required' : 'required by a rule over the arguments']);
  }
  const taskSupport = tool.execution?.taskSupport;
  if (taskSupport === 'optional' || taskSupport === 'required') {
    facts.push(['MCP tasks:', taskSupport === 'required' ? 'required (calls run as tasks)' : 'optional']);
  }
  if (tool.cli !== undefined) facts.push(['CLI keyword:', tool.cli === null ? '(not exposed)' : oneLine(tool.cli)]);
  lines.push(...formatTable(facts), '');

  lines.push('Parameters:');
  const properties = Object.entries(tool.inputSchema.properties ?? {});
  if (properties.length === 0) lines.push('  (none)');
  else {
    const required = new Set(Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : []);
    const rows = properties.map(([key, schema]) => [
      oneLine(key),
      describeType(schema),
      required.has(key) ? 'yes' : 'no',
      isObject(schema) && 'default' in schema
        ? shorten(oneLine(JSON.stringify(schema.default) ?? 'undefined'), 40)
        : '-',
      isObject(schema) && typeof schema.description === 'string' ? oneLine(schema.description) : '',
    ]);
    lines.push(
      ...formatTable([['NAME', 'TYPE', 'REQUIRED', 'DEFAULT', 'DESCRIPTION'], ...rows]).map((line) => `  ${line}`),
    );
  }
  lines.push('');

  lines.push('Requirements:');
  const variables = tool.requires.env ?? [];
  if (variables.length === 0) lines.push('  (none)');
  else {
    const rows = variables.map((variable) => [
      oneLine(variable.name),
      env[variable.name] === undefined || env[variable.name] === '' ? 'not set' : 'set',
      oneLine([variable.description, variable.url].filter((part) => part !== undefined && part !== '').join(' — ')),
    ]);
    lines.push(...formatTable([['ENV VAR', 'STATUS', 'WHERE TO GET IT'], ...rows]).map((line) => `  ${line}`));
  }
  lines.push('');

  lines.push('Annotations:');
  const annotations = tool.annotations;
  const readOnly = annotations.readOnly ?? false;
  const rows: string[][] = [
    ['read-only', flag(annotations.readOnly, false)],
    // MCP: destructiveHint defaults to true, and only means something for a tool that is not read-only.
    ['destructive', flag(annotations.destructive, !readOnly)],
    ['idempotent', flag(annotations.idempotent, false)],
    ['open-world', flag(annotations.openWorld, true)],
  ];
  lines.push(...formatTable(rows).map((line) => `  ${line}`));
  return lines;
}

/**
 * A short, readable type for a JSON Schema: `string`, `integer[]`, `"a" | "b"`, `string | null`,
 * `object`; `any` when the schema says nothing.
 *
 * @example
 * ```ts
 * describeType({ type: 'array', items: { type: 'string' } }); // 'string[]'
 * describeType({ enum: ['asc', 'desc'] }); // '"asc" | "desc"'
 * ```
 */
export function describeType(schema: unknown, depth = 0): string {
  if (schema === true || !isObject(schema) || depth > 3) return 'any';
  if (Array.isArray(schema.enum)) {
    const shown = schema.enum.slice(0, 5).map((value) => shorten(oneLine(JSON.stringify(value) ?? 'null'), 20));
    return shown.join(' | ') + (schema.enum.length > 5 ? ' | …' : '');
  }
  if ('const' in schema) return shorten(oneLine(JSON.stringify(schema.const) ?? 'null'), 20);
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (alternatives !== undefined) return alternatives.map((item) => describeType(item, depth + 1)).join(' | ');
  if (typeof schema.$ref === 'string') return oneLine(schema.$ref.split('/').pop() ?? schema.$ref);
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return 'any';
  return types
    .map((type) => {
      if (type === 'array') {
        const items = describeType(schema.items, depth + 1);
        return items.includes(' ') ? `(${items})[]` : `${items}[]`;
      }
      return oneLine(String(type));
    })
    .join(' | ');
}

function formatTimeout(timeoutMs: number | undefined): string {
  if (timeoutMs === undefined) return `${formatDuration(REGISTRY_DEFAULT_TIMEOUT_MS)} (registry default)`;
  return formatDuration(timeoutMs);
}

function formatDuration(milliseconds: number): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} s` : `${milliseconds} ms`;
}

function flag(value: boolean | undefined, fallback: boolean): string {
  if (value === undefined) return `${fallback ? 'yes' : 'no'} (default)`;
  return value ? 'yes' : 'no';
}

function shorten(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
