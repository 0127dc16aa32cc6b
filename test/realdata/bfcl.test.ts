import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/core/define-tool.js';
import { isPlainObject, type JsonSchema } from '../../src/core/json-schema.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { EXPORTER_TARGETS } from '../../src/exporters/exporters.cases.js';
import { lintSchema } from '../../src/exporters/schema-lint.js';
import { isExclusion } from '../../src/exporters/shared/export-result.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';

// The Berkeley Function Calling Leaderboard's schemas and answers (see ../shared/realdata/README.md):
// no one here wrote them, so they show what toolshed does with schemas as they come.
const BFCL = resolve(import.meta.dirname, '../../../shared/realdata/bfcl');
const present = existsSync(BFCL);

/** BFCL's Python, Java and JavaScript type names, as JSON Schema types (`undefined`: any value). */
const TYPES: Readonly<Record<string, string | undefined>> = {
  dict: 'object',
  float: 'number',
  tuple: 'array',
  any: undefined,
  '': undefined,
  String: 'string',
  char: 'string',
  Boolean: 'boolean',
  Array: 'array',
  ArrayList: 'array',
  HashMap: 'object',
  long: 'integer',
  double: 'number',
};

interface FunctionDoc {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A BFCL schema node in JSON Schema: its types mapped, everything else kept. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && typeof value === 'string') {
      const mapped = Object.hasOwn(TYPES, value) ? TYPES[value] : value;
      if (mapped !== undefined) out.type = mapped;
    } else if (key === 'properties' && isPlainObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, toJsonSchema(child)]));
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = toJsonSchema(value);
    } else out[key] = value;
  }
  return out;
}

function jsonLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One ground-truth call: the function doc it calls and its acceptable values per parameter. */
interface GroundTruth {
  doc: FunctionDoc;
  answers: Record<string, unknown[]>;
}

interface Corpus {
  docs: Map<string, FunctionDoc>;
  calls: GroundTruth[];
}

function loadCorpus(): Corpus {
  const docs = new Map<string, FunctionDoc>();
  const calls: GroundTruth[] = [];
  const keep = (doc: FunctionDoc) => docs.set(JSON.stringify(doc), doc);
  for (const file of readdirSync(BFCL).filter((name) => /^BFCL_v4_.*\.json$/.test(name))) {
    const questions = new Map<string, FunctionDoc[]>();
    for (const line of jsonLines(join(BFCL, file))) {
      const functions = line.function as FunctionDoc[];
      functions.forEach(keep);
      questions.set(line.id as string, functions);
    }
    const answers = join(BFCL, 'possible_answer', file);
    if (!existsSync(answers)) continue;
    for (const line of jsonLines(answers)) {
      const functions = questions.get(line.id as string) ?? [];
      for (const call of line.ground_truth as Array<Record<string, Record<string, unknown[]>>>) {
        for (const [name, args] of Object.entries(call)) {
          const doc = functions.find((candidate) => candidate.name === name);
          if (doc !== undefined) calls.push({ doc, answers: args });
        }
      }
    }
  }
  for (const file of readdirSync(join(BFCL, 'multi_turn_func_doc'))) {
    for (const line of jsonLines(join(BFCL, 'multi_turn_func_doc', file))) keep(line as unknown as FunctionDoc);
  }
  return { docs, calls };
}

/** A registry tool name for a BFCL function name (`math.factorial` → `math_factorial`), unique in `taken`. */
function toolName(name: string, taken: Set<string>): string {
  let base = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .slice(0, 60);
  if (!/^[a-z]/.test(base)) base = `f_${base}`.slice(0, 60);
  let candidate = base;
  for (let suffix = 2; taken.has(candidate); suffix++) candidate = `${base}_${suffix}`;
  taken.add(candidate);
  return candidate;
}

/**
 * The `choice`-th argument set of a call: each parameter takes its `choice`-th acceptable value (its
 * last one when it has fewer), `""` leaves it out; a nested object's answers are picked the same way.
 */
function argumentSet(answers: Record<string, unknown[]>, schema: unknown, choice: number): Record<string, unknown> {
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  const args: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(answers)) {
    if (!Array.isArray(values) || values.length === 0) continue;
    const value = values[Math.min(choice, values.length - 1)];
    if (value === '') continue;
    args[name] = pickNested(value, properties[name], choice);
  }
  return args;
}

function pickNested(value: unknown, schema: unknown, choice: number): unknown {
  if (!isPlainObject(schema)) return value;
  if (isPlainObject(value) && isPlainObject(schema.properties) && Object.values(value).every(Array.isArray))
    return argumentSet(value as Record<string, unknown[]>, schema, choice);
  if (Array.isArray(value) && isPlainObject(schema.items))
    return value.map((item) => pickNested(item, schema.items, choice));
  return value;
}

/** What toolshed documents for `null` sent for an optional property that does not accept it: absent. */
function withoutOptionalNulls(args: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const required = new Set(schema.required ?? []);
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties?.[name];
    const acceptsNull =
      property === undefined ||
      property.type === undefined ||
      property.type === 'null' ||
      (Array.isArray(property.type) && property.type.includes('null'));
    if (value === null && !required.has(name) && !acceptsNull) continue;
    kept[name] = value;
  }
  return kept;
}

/** The arguments a model in OpenAI strict mode sends: every declared property, `null` for those left out. */
function strictForm(value: unknown, schema: unknown): unknown {
  if (!isPlainObject(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => strictForm(item, schema.items));
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties))
    out[name] = Object.hasOwn(value, name) ? strictForm(value[name], property) : null;
  for (const [name, item] of Object.entries(value)) if (!Object.hasOwn(out, name)) out[name] = item;
  return out;
}

/** A value of another type than the property's single declared type, or `undefined` when there is none. */
function wrongType(property: JsonSchema): unknown {
  switch (property.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not a list';
    case 'object':
      return 'not an object';
    default:
      return undefined;
  }
}

interface Tool {
  name: string;
  schema: JsonSchema;
  independent: Validator;
}

describe.skipIf(!present)(
  `BFCL real-world schemas${present ? '' : ' (skipped: ../shared/realdata/bfcl is absent, so there is no corpus to run)'}`,
  () => {
    let corpus: Corpus;
    const registry = new ToolRegistry({ defaultTimeoutMs: 60_000 });
    const tools = new Map<string, Tool>();
    const counts = {
      functions: 0,
      calls: 0,
      argumentSets: 0,
      invalidByIndependentValidator: 0,
      accepted: { object: 0, json: 0, strict: 0 },
      excluded: {} as Record<string, number>,
      linted: { tools: 0, findings: 0 },
      corrupted: { droppedRequired: 0, wrongType: 0, outsideEnum: 0, fractionForInteger: 0 },
    };

    beforeAll(() => {
      corpus = loadCorpus();
      const taken = new Set<string>();
      for (const [key, doc] of corpus.docs) {
        const schema = toJsonSchema(doc.parameters) as JsonSchema;
        const name = toolName(doc.name, taken);
        tools.set(key, { name, schema, independent: new Validator(schema as object, '2020-12', false) });
      }
    });

    it('registers every function', () => {
      for (const [key, tool] of tools) {
        const doc = corpus.docs.get(key)!;
        registry.register(
          defineTool({
            name: tool.name,
            description: doc.description,
            inputSchema: tool.schema,
            handler: (args) => args,
          }),
        );
      }
      counts.functions = registry.size;
      for (const spec of registry.tools()) {
        const findings = lintSchema(spec.inputSchema);
        if (findings.length > 0) counts.linted.tools++;
        counts.linted.findings += findings.length;
      }
      expect(registry.size).toBe(corpus.docs.size);
      expect(registry.size).toBeGreaterThan(3400);
    });

    for (const target of EXPORTER_TARGETS) {
      it(`exports every function to ${target.id} within the provider's rules`, () => {
        const result = target.exportTools(registry.tools());
        const entries = target.entries(result);
        const broken = entries
          .map((entry) => ({ tool: target.nameOf(entry), problems: target.problems(entry) }))
          .filter((entry) => entry.problems.length > 0);
        expect(broken).toEqual([]);
        const excluded = result.warnings.filter(isExclusion);
        counts.excluded[target.id] = excluded.length;
        if (target.id === 'gemini') {
          // Gemini's OpenAPI subset has no any-value schema and no object without properties; those tools
          // export in its JSON Schema mode (the next target) instead.
          for (const warning of excluded)
            expect(warning.message).toMatch(
              /^Gemini cannot express (a schema that accepts any value \(Gemini needs a type\)|an object without properties|an open object \(a map of any keys\)) \(at [^)]*\); the tool is left out\.$/,
            );
        } else expect(excluded).toEqual([]);
        expect(entries.length + excluded.length).toBe(registry.size);
      });
    }

    it('accepts every valid ground-truth call as an object, as JSON text and in OpenAI strict form', async () => {
      const rejected: string[] = [];
      const note = (form: string, name: string, args: unknown, result: ToolResult) => {
        if (result.status !== 'success' && rejected.length < 20)
          rejected.push(`${form} ${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
        return result.status === 'success';
      };
      for (const call of corpus.calls) {
        const tool = tools.get(JSON.stringify(call.doc))!;
        counts.calls++;
        const choices = Math.max(1, ...Object.values(call.answers).map((values) => values.length));
        const seen = new Set<string>();
        for (let choice = 0; choice < choices; choice++) {
          const args = argumentSet(call.answers, tool.schema, choice);
          const text = JSON.stringify(args);
          if (seen.has(text)) continue;
          seen.add(text);
          counts.argumentSets++;
          if (!tool.independent.validate(withoutOptionalNulls(args, tool.schema)).valid) {
            counts.invalidByIndependentValidator++;
            continue;
          }
          if (note('object', tool.name, args, await registry.call(tool.name, args))) counts.accepted.object++;
          if (note('json', tool.name, text, await registry.call(tool.name, text))) counts.accepted.json++;
          const strict = strictForm(args, tool.schema);
          if (note('strict', tool.name, strict, await registry.call(tool.name, strict))) counts.accepted.strict++;
        }
      }
      expect(rejected).toEqual([]);
      const valid = counts.argumentSets - counts.invalidByIndependentValidator;
      expect(counts.accepted).toEqual({ object: valid, json: valid, strict: valid });
      expect(valid).toBeGreaterThan(5000);
    });

    it('rejects corrupted calls: a required argument dropped, a wrong type, a value outside an enum, 1.5 for an integer', async () => {
      const accepted: string[] = [];
      const check = async (kind: keyof typeof counts.corrupted, tool: Tool, args: Record<string, unknown>) => {
        // Only corruptions JSON Schema itself refuses count (an `any` property takes every type).
        if (tool.independent.validate(args).valid) return;
        const result = await registry.call(tool.name, args);
        if (result.status === 'error' && result.error.code === 'INVALID_ARGUMENTS') counts.corrupted[kind]++;
        else if (accepted.length < 20) accepted.push(`${kind} ${tool.name} ${JSON.stringify(args)}`);
      };
      for (const call of corpus.calls) {
        const tool = tools.get(JSON.stringify(call.doc))!;
        const args = withoutOptionalNulls(argumentSet(call.answers, tool.schema, 0), tool.schema);
        if (!tool.independent.validate(args).valid) continue;
        const properties = tool.schema.properties ?? {};
        const required = (tool.schema.required ?? []).find((name) => Object.hasOwn(args, name));
        if (required !== undefined) {
          const { [required]: _dropped, ...rest } = args;
          await check('droppedRequired', tool, rest);
        }
        for (const [name, value] of Object.entries(args)) {
          const property = properties[name];
          if (property === undefined) continue;
          const wrong = wrongType(property);
          if (wrong !== undefined) await check('wrongType', tool, { ...args, [name]: wrong });
          if (Array.isArray(property.enum) && typeof value === 'string')
            await check('outsideEnum', tool, { ...args, [name]: `${value} (not one of the values)` });
          if (property.type === 'integer') await check('fractionForInteger', tool, { ...args, [name]: 1.5 });
        }
      }
      expect(accepted).toEqual([]);
      for (const kind of Object.keys(counts.corrupted) as Array<keyof typeof counts.corrupted>)
        expect(counts.corrupted[kind], kind).toBeGreaterThan(0);
    });

    afterAll(() => {
      if (process.env.TOOLSHED_REALDATA_REPORT === '1') console.log(JSON.stringify(counts));
    });
  },
);
