import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type ts from 'typescript';
import { describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import type { JsonObjectSchema, JsonSchema } from '../core/json-schema.js';
import { displayPath } from './display-path.js';
import { combineExtractErrors, ExtractError, type ExtractErrorReason } from './extract-error.js';
import { jsdocSummary, jsdocText } from './jsdoc-text.js';
import { literalValue } from './literal-value.js';
import { toSnakeCase } from './to-snake-case.js';
import { annotate, type SchemaSite, type TypeScriptModule, TypeToSchema, UnsupportedType } from './type-to-schema.js';

/** Options of {@link extractTools}. */
export interface ExtractOptions {
  /**
   * The JavaScript module the generated handlers import: where the source file is compiled to.
   * Relative paths resolve against the working folder. Default: the source path with `.ts` → `.js`
   * (`.mts` → `.mjs`, `.cts` → `.cjs`).
   */
  moduleOut?: string | undefined;
  /**
   * The `tsconfig.json` whose compiler options are used to read the file. Default: the nearest one in
   * the file's folder or above; `false` for built-in defaults. `strictNullChecks` is always on: without
   * it `T | null` and optional members cannot be told apart.
   */
  tsconfig?: string | false | undefined;
}

/** MCP annotation hints in the snake_case form of a YAML definition. */
export interface ExtractedAnnotations {
  read_only?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  open_world?: boolean;
}

/** A tool definition in the YAML form (SPEC §4.1), without `handler`: that depends on where it is written. */
export interface ExtractedDefinition {
  name: string;
  description: string;
  when_to_use?: string;
  category?: string;
  parameters: JsonObjectSchema;
  timeout?: number;
  annotations?: ExtractedAnnotations;
}

/** One exported `@tool` function and the definition extracted from it. */
export interface ExtractedTool {
  definition: ExtractedDefinition;
  /** The name the module exports the function under (`default` for a default export). */
  exportName: string;
  /** Absolute path of the TypeScript source. */
  sourceFile: string;
  /** 1-based line of the function's name in the source. */
  line: number;
  /** Absolute path of the JavaScript module the handler imports. */
  module: string;
  /**
   * How the function takes its arguments: `object` — the arguments object itself (the handler points
   * straight at the export); `positional` — one parameter per argument, in {@link argumentNames} order,
   * or only a `ToolContext` (the handler is a generated wrapper that spreads the arguments object).
   */
  callStyle: 'object' | 'positional';
  /** The argument names, in parameter order. */
  argumentNames: string[];
  /** The function's last parameter is a `ToolContext` (it receives the call context). */
  takesContext: boolean;
}

type FunctionLike = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

interface Candidate {
  exportName: string;
  functionName: string;
  /** The node JSDoc is attached to: the function declaration, or the variable declaration. */
  docNode: ts.Node;
  nameNode: ts.Node;
  functions: FunctionLike[];
  symbol: ts.Symbol;
}

interface ToolTags {
  toolName: string | undefined;
  whenToUse: string | undefined;
  category: string | undefined;
  timeout: number | undefined;
  annotations: ExtractedAnnotations;
  parameters: Map<string, string>;
  /** Every `@param` tag by the name it gives, for checking that it names something. */
  parameterTags: Map<string, ts.Node>;
}

const TYPESCRIPT_EXTENSIONS = /\.(?:ts|mts|cts|tsx)$/;
const CATEGORY_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
const ANNOTATION_TAGS: Record<string, keyof ExtractedAnnotations> = {
  readonly: 'read_only',
  destructive: 'destructive',
  idempotent: 'idempotent',
  openworld: 'open_world',
};

/**
 * Read the exported functions tagged `@tool` in a TypeScript file and make one declarative definition
 * each (SPEC §4.3): the function's name in snake_case, its JSDoc summary as description, its
 * parameters as a JSON Schema, and `@whenToUse`, `@category`, `@timeout`, `@readOnly`,
 * `@destructive`, `@idempotent`, `@openWorld` as the fields of the same names. `docs/extract.md`
 * lists the tags and the type mapping.
 *
 * The parameters are either one object (`function search({ query, limit = 10 }: SearchInput)`: its
 * members become the properties) or positional (`function add(a: number, b: number)`: each parameter
 * becomes a property, in order). A last parameter of type `ToolContext` receives the call context and
 * is not part of the schema. Functions without `@tool`, and functions the module does not export, are
 * ignored. The result is in source order.
 *
 * Uses the TypeScript compiler API, loaded on first use. Throws {@link ExtractError} for a missing or
 * unparsable file, a file without tools, a tagged function without a summary, a bad tag value,
 * a duplicate tool name, or a type that has no JSON form — every problem in the file at once.
 *
 * @example
 * ```ts
 * // src/tools.ts:
 * //   /** Add two numbers. @tool @readOnly *\/
 * //   export function addNumbers(a: number, b: number) { return a + b; }
 * const [tool] = await extractTools('src/tools.ts');
 * tool.definition.name; // 'add_numbers'
 * tool.definition.parameters; // { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }
 * ```
 */
export async function extractTools(file: string, options: ExtractOptions = {}): Promise<ExtractedTool[]> {
  const sourcePath = resolve(file);
  const shown = displayPath(sourcePath);
  checkSourcePath(sourcePath, shown);
  const typescript = (await import('typescript')).default;
  const program = createProgram(typescript, sourcePath, options.tsconfig);
  const sourceFile = program.getSourceFile(sourcePath);
  if (sourceFile === undefined) {
    throw new ExtractError('FILE_NOT_FOUND', `Cannot extract tools from '${shown}': TypeScript could not read it.`);
  }
  const syntax = program.getSyntacticDiagnostics(sourceFile);
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const position = sourceFile.getLineAndCharacterOfPosition(first.start ?? 0);
    const more =
      syntax.length > 1 ? ` (and ${syntax.length - 1} more syntax error${syntax.length > 2 ? 's' : ''})` : '';
    throw new ExtractError(
      'SYNTAX_ERROR',
      `TypeScript syntax error: ${typescript.flattenDiagnosticMessageText(first.messageText, ' ')}${more}`,
      { file: shown, line: position.line + 1, column: position.character + 1 },
    );
  }
  const extractor = new Extractor(typescript, program, sourcePath, options);
  const candidates = extractor.candidates(sourceFile);
  if (candidates.length === 0) {
    throw new ExtractError(
      'NO_TOOLS',
      "no exported function is tagged @tool; tag each tool's JSDoc with @tool (functions the module does not export are ignored).",
      { file: shown },
    );
  }
  const tools: ExtractedTool[] = [];
  const errors: ExtractError[] = [];
  const byName = new Map<string, Candidate>();
  for (const candidate of candidates) {
    try {
      const tool = extractor.tool(candidate);
      const taken = byName.get(tool.definition.name);
      if (taken !== undefined) {
        throw extractor.error(
          'DUPLICATE_NAME',
          candidate.nameNode,
          candidate.functionName,
          `functions '${taken.functionName}' (line ${extractor.lineOf(taken.nameNode)}) and '${candidate.functionName}' both make the tool name '${tool.definition.name}'; rename one or name it with '@tool NAME'.`,
        );
      }
      byName.set(tool.definition.name, candidate);
      tools.push(tool);
    } catch (error) {
      if (!ExtractError.isInstance(error)) throw error;
      errors.push(error);
    }
  }
  if (errors.length > 0) throw combineExtractErrors(errors, shown);
  return tools;
}

class Extractor {
  readonly #ts: TypeScriptModule;
  readonly #checker: ts.TypeChecker;
  readonly #schemas: TypeToSchema;
  readonly #sourcePath: string;
  readonly #module: string;

  constructor(typescript: TypeScriptModule, program: ts.Program, sourcePath: string, options: ExtractOptions) {
    this.#ts = typescript;
    this.#checker = program.getTypeChecker();
    this.#schemas = new TypeToSchema(typescript, program);
    this.#sourcePath = sourcePath;
    this.#module = resolve(options.moduleOut ?? defaultModulePath(sourcePath));
  }

  /** The exported functions tagged `@tool`, in source order. */
  candidates(sourceFile: ts.SourceFile): Candidate[] {
    const typescript = this.#ts;
    const moduleSymbol = this.#checker.getSymbolAtLocation(sourceFile);
    if (moduleSymbol === undefined) return [];
    const candidates: Array<Candidate & { position: string }> = [];
    for (const exported of this.#checker.getExportsOfModule(moduleSymbol)) {
      const symbol =
        exported.flags & typescript.SymbolFlags.Alias ? this.#checker.getAliasedSymbol(exported) : exported;
      const found = this.#functionsOf(symbol);
      if (found === undefined) continue;
      if (!typescript.getJSDocTags(found.docNode).some((tag) => tag.tagName.text.toLowerCase() === 'tool')) continue;
      const ownName =
        found.nameNode !== undefined && typescript.isIdentifier(found.nameNode) ? found.nameNode.text : undefined;
      candidates.push({
        exportName: exported.name,
        functionName: exported.name === 'default' ? (ownName ?? 'default') : exported.name,
        docNode: found.docNode,
        nameNode: found.nameNode ?? found.docNode,
        functions: found.functions,
        symbol,
        position: `${found.docNode.getSourceFile().fileName}\u0000${String(found.docNode.getStart()).padStart(12, '0')}`,
      });
    }
    candidates.sort((left, right) => (left.position < right.position ? -1 : left.position > right.position ? 1 : 0));
    return candidates;
  }

  #functionsOf(
    symbol: ts.Symbol,
  ): { docNode: ts.Node; nameNode: ts.Node | undefined; functions: FunctionLike[] } | undefined {
    const typescript = this.#ts;
    const declarations = symbol.declarations ?? [];
    const functions = declarations.filter((declaration) => typescript.isFunctionDeclaration(declaration));
    if (functions.length > 0) {
      // The JSDoc of an overloaded function usually sits on its first signature.
      return { docNode: functions[0]!, nameNode: functions[0]!.name, functions };
    }
    for (const declaration of declarations) {
      if (!typescript.isVariableDeclaration(declaration) || declaration.initializer === undefined) continue;
      let initializer: ts.Expression = declaration.initializer;
      while (
        typescript.isParenthesizedExpression(initializer) ||
        typescript.isAsExpression(initializer) ||
        typescript.isSatisfiesExpression(initializer)
      ) {
        initializer = initializer.expression;
      }
      if (typescript.isArrowFunction(initializer) || typescript.isFunctionExpression(initializer)) {
        return { docNode: declaration, nameNode: declaration.name, functions: [initializer] };
      }
    }
    return undefined;
  }

  /** The definition of one candidate; throws {@link ExtractError}. */
  tool(candidate: Candidate): ExtractedTool {
    const typescript = this.#ts;
    const fail = (reason: ExtractErrorReason, message: string, node: ts.Node = candidate.nameNode) =>
      this.error(reason, node, candidate.functionName, message);
    if (candidate.functions.length > 1) {
      throw fail(
        'UNSUPPORTED_SIGNATURE',
        `function '${candidate.functionName}' is overloaded; a tool needs a single signature.`,
      );
    }
    const fn = candidate.functions[0]!;
    const summary = jsdocSummary(
      typescript.displayPartsToString(candidate.symbol.getDocumentationComment(this.#checker)),
    );
    if (summary === undefined) {
      throw fail(
        'MISSING_SUMMARY',
        `function '${candidate.functionName}' is tagged @tool but has no JSDoc summary; write a sentence before the tags, it becomes the tool's description.`,
      );
    }
    const tags = this.#tags(candidate, fail);
    const name = tags.toolName ?? toSnakeCase(candidate.functionName);
    if (!TOOL_NAME_PATTERN.test(name)) {
      const rule = '1-64 lowercase letters, digits and underscores, starting with a letter';
      throw fail(
        'INVALID_NAME',
        tags.toolName === undefined
          ? `function '${candidate.functionName}' makes the tool name ${describeValue(name)}, which is not a valid tool name (${rule}); name it with '@tool NAME'.`
          : `function '${candidate.functionName}': @tool names the tool ${describeValue(name)}, which is not a valid tool name (${rule}).`,
      );
    }
    let signature: {
      parameters: JsonObjectSchema;
      callStyle: 'object' | 'positional';
      argumentNames: string[];
      takesContext: boolean;
    };
    try {
      signature = this.#signature(candidate, fn, tags, fail);
    } catch (error) {
      if (!(error instanceof UnsupportedType)) throw error;
      throw this.error(
        'UNSUPPORTED_TYPE',
        error.site.node,
        candidate.functionName,
        `function '${candidate.functionName}', ${error.message}`,
        error.site.path,
      );
    }
    // The YAML key order of SPEC §4.1: parameters before timeout and annotations.
    const definition: ExtractedDefinition = {
      name,
      description: summary,
      ...(tags.whenToUse === undefined ? {} : { when_to_use: tags.whenToUse }),
      ...(tags.category === undefined ? {} : { category: tags.category }),
      parameters: signature.parameters,
      ...(tags.timeout === undefined ? {} : { timeout: tags.timeout }),
      ...(Object.keys(tags.annotations).length === 0 ? {} : { annotations: tags.annotations }),
    };
    return {
      definition,
      exportName: candidate.exportName,
      sourceFile: this.#sourcePath,
      line: this.lineOf(candidate.nameNode),
      module: this.#module,
      callStyle: signature.callStyle,
      argumentNames: signature.argumentNames,
      takesContext: signature.takesContext,
    };
  }

  #tags(candidate: Candidate, fail: (reason: ExtractErrorReason, message: string) => ExtractError): ToolTags {
    const typescript = this.#ts;
    const tags: ToolTags = {
      toolName: undefined,
      whenToUse: undefined,
      category: undefined,
      timeout: undefined,
      annotations: {},
      parameters: new Map(),
      parameterTags: new Map(),
    };
    const where = `function '${candidate.functionName}'`;
    for (const tag of typescript.getJSDocTags(candidate.docNode)) {
      const tagName = tag.tagName.text;
      const text = (typescript.getTextOfJSDocComment(tag.comment) ?? '').trim();
      const key = tagName.toLowerCase();
      if (typescript.isJSDocParameterTag(tag)) {
        const description = jsdocText(text);
        const parameterName = entityName(typescript, tag.name);
        tags.parameterTags.set(parameterName, tag);
        if (description !== undefined) tags.parameters.set(parameterName, description);
      } else if (key === 'tool') {
        if (text !== '') {
          if (/\s/.test(text))
            throw fail(
              'INVALID_TAG',
              `${where}: @tool takes at most one word, the tool name, got ${describeValue(text)}.`,
            );
          tags.toolName = text;
        }
      } else if (key === 'whentouse') {
        const value = jsdocText(text);
        if (value === undefined)
          throw fail('INVALID_TAG', `${where}: @${tagName} needs text: when should a model use this tool?`);
        tags.whenToUse = value;
      } else if (key === 'category') {
        if (!CATEGORY_PATTERN.test(text)) {
          throw fail(
            'INVALID_TAG',
            `${where}: @category must be one lowercase word (letters, digits, '_' or '-'), got ${describeValue(text)}.`,
          );
        }
        tags.category = text;
      } else if (key === 'timeout') {
        const seconds = text === '' ? Number.NaN : Number(text);
        if (!Number.isFinite(seconds) || seconds <= 0) {
          throw fail(
            'INVALID_TAG',
            `${where}: @timeout must be a number of seconds greater than 0, got ${describeValue(text)}.`,
          );
        }
        tags.timeout = seconds;
      } else if (Object.hasOwn(ANNOTATION_TAGS, key)) {
        if (text !== '' && text !== 'true' && text !== 'false') {
          throw fail(
            'INVALID_TAG',
            `${where}: @${tagName} takes no value, or true or false, got ${describeValue(text)}.`,
          );
        }
        tags.annotations[ANNOTATION_TAGS[key]!] = text !== 'false';
      }
    }
    return tags;
  }

  #signature(
    candidate: Candidate,
    fn: FunctionLike,
    tags: ToolTags,
    fail: (reason: ExtractErrorReason, message: string, node?: ts.Node) => ExtractError,
  ): {
    parameters: JsonObjectSchema;
    callStyle: 'object' | 'positional';
    argumentNames: string[];
    takesContext: boolean;
  } {
    const typescript = this.#ts;
    const checker = this.#checker;
    const where = `function '${candidate.functionName}'`;
    const descriptions = tags.parameters;
    const checkTags = (names: Set<string>, object?: { members: string[]; anyBareName: boolean }) =>
      this.#checkParameterTags(tags.parameterTags, names, object, (message, node) =>
        fail('INVALID_TAG', `${where}: ${message}`, node),
      );
    const parameters = fn.parameters.filter(
      (parameter) => !(typescript.isIdentifier(parameter.name) && parameter.name.text === 'this'),
    );
    for (const parameter of parameters) {
      if (parameter.dotDotDotToken !== undefined) {
        throw fail(
          'UNSUPPORTED_SIGNATURE',
          `${where}: the rest parameter '...${parameter.name.getText()}' has no JSON form; take an array parameter instead.`,
          parameter,
        );
      }
    }
    const contextIndex = parameters.findIndex((parameter) => this.#isToolContext(parameter));
    if (contextIndex >= 0 && contextIndex !== parameters.length - 1) {
      throw fail(
        'UNSUPPORTED_SIGNATURE',
        `${where}: the ToolContext parameter '${parameterLabel(typescript, parameters[contextIndex]!)}' must be the last parameter.`,
        parameters[contextIndex],
      );
    }
    const takesContext = contextIndex >= 0;
    const values = takesContext ? parameters.slice(0, -1) : parameters;
    for (const parameter of values) {
      if (parameter.type === undefined && parameter.initializer === undefined) {
        throw fail(
          'UNSUPPORTED_SIGNATURE',
          `${where}: parameter '${parameterLabel(typescript, parameter)}' has no type annotation, so its schema is unknown.`,
          parameter,
        );
      }
    }
    const contextName = takesContext ? parameterLabel(typescript, parameters[contextIndex]!) : undefined;
    if (values.length === 0) {
      checkTags(new Set(contextName === undefined ? [] : [contextName]));
      // With only a ToolContext, the context must not arrive where the arguments object would.
      return {
        parameters: { type: 'object', properties: {} },
        callStyle: takesContext ? 'positional' : 'object',
        argumentNames: [],
        takesContext,
      };
    }
    const first = values[0]!;
    if (values.length === 1 && !typescript.isArrayBindingPattern(first.name)) {
      const objectStyle = this.#objectParameters(first, descriptions);
      if (objectStyle !== undefined) {
        const members = Object.keys(objectStyle.properties);
        const destructured = typescript.isObjectBindingPattern(first.name);
        const names = new Set([...members, ...(destructured ? [] : [parameterLabel(typescript, first)])]);
        if (contextName !== undefined) names.add(contextName);
        checkTags(names, { members, anyBareName: destructured });
        return { parameters: objectStyle, callStyle: 'object', argumentNames: members, takesContext };
      }
    }
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const parameter of values) {
      if (!typescript.isIdentifier(parameter.name)) {
        throw fail(
          'UNSUPPORTED_SIGNATURE',
          `${where}: the destructured parameter '${parameter.name.getText()}' must be the function's only parameter (besides a last ToolContext); with several parameters each needs a name.`,
          parameter,
        );
      }
      const name = parameter.name.text;
      const type = checker.getTypeAtLocation(parameter);
      const schema = this.#schemas.schemaOf(type, parameter.type, { path: name, node: parameter });
      const defaultValue =
        parameter.initializer === undefined ? undefined : literalValue(typescript, checker, parameter.initializer);
      properties[name] = annotate(schema, descriptions.get(name), defaultValue);
      const optional =
        parameter.questionToken !== undefined ||
        parameter.initializer !== undefined ||
        this.#schemas.includesUndefined(type);
      if (!optional) required.push(name);
    }
    const schema: JsonObjectSchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    const names = new Set(Object.keys(properties));
    if (contextName !== undefined) names.add(contextName);
    checkTags(names);
    return { parameters: schema, callStyle: 'positional', argumentNames: Object.keys(properties), takesContext };
  }

  /**
   * Refuse a `@param` that names nothing (a typo would silently lose its description). With an object
   * parameter, `NAME.member` must name a member; a destructured one has no name of its own, so any bare
   * name is accepted for it.
   */
  #checkParameterTags(
    parameterTags: Map<string, ts.Node>,
    names: Set<string>,
    object: { members: string[]; anyBareName: boolean } | undefined,
    fail: (message: string, node: ts.Node) => ExtractError,
  ): void {
    for (const [tagName, tag] of parameterTags) {
      if (names.has(tagName)) continue;
      const dot = tagName.indexOf('.');
      if (object !== undefined) {
        if (dot < 0 && object.anyBareName) continue;
        const member = dot < 0 ? undefined : tagName.slice(dot + 1).split('.')[0];
        if (member !== undefined && object.members.includes(member)) continue;
      }
      const known = object === undefined ? [...names] : object.members;
      throw fail(
        `@param '${tagName}' names no parameter; ${known.length === 0 ? 'the function takes none' : `the parameters are ${known.join(', ')}`}.`,
        tag,
      );
    }
  }

  /**
   * The schema of a single object parameter whose members are the arguments; `undefined` when the
   * parameter is not object-typed (then it is one positional argument).
   */
  #objectParameters(
    parameter: ts.ParameterDeclaration,
    descriptions: Map<string, string>,
  ): JsonObjectSchema | undefined {
    const typescript = this.#ts;
    const checker = this.#checker;
    const destructured = typescript.isObjectBindingPattern(parameter.name);
    const prefix = destructured ? '' : parameter.name.getText();
    const site: SchemaSite = { path: prefix, node: parameter };
    const schema = this.#schemas.schemaOf(checker.getTypeAtLocation(parameter), parameter.type, site);
    if (schema.type !== 'object' || (!destructured && schema.properties === undefined)) {
      if (destructured) {
        throw new UnsupportedType(
          { path: parameter.name.getText(), node: parameter },
          checker.typeToString(checker.getTypeAtLocation(parameter)),
          'a destructured parameter must be an object type',
        );
      }
      return undefined;
    }
    const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
    let required = [...(schema.required ?? [])];
    const defaults = new Map<string, unknown>();
    if (typescript.isObjectBindingPattern(parameter.name)) {
      for (const element of parameter.name.elements) {
        if (element.initializer === undefined) continue;
        const key = element.propertyName ?? element.name;
        if (!typescript.isIdentifier(key) && !typescript.isStringLiteral(key)) continue;
        const value = literalValue(typescript, checker, element.initializer);
        if (value !== undefined) defaults.set(key.text, value);
        required = required.filter((name) => name !== key.text);
      }
    }
    for (const [name, property] of Object.entries(properties)) {
      const description = memberDescription(descriptions, prefix, name);
      properties[name] = annotate(
        property,
        description ?? property.description,
        defaults.get(name) ?? property.default,
      );
    }
    const result: JsonObjectSchema = { type: 'object', properties };
    if (required.length > 0) result.required = required;
    if (schema.additionalProperties !== undefined) result.additionalProperties = schema.additionalProperties;
    return result;
  }

  #isToolContext(parameter: ts.ParameterDeclaration): boolean {
    const type = this.#checker.getNonNullableType(this.#checker.getTypeAtLocation(parameter));
    return (type.aliasSymbol ?? type.getSymbol())?.name === 'ToolContext';
  }

  /** An {@link ExtractError} located at `node`. */
  error(
    reason: ExtractErrorReason,
    node: ts.Node,
    functionName: string,
    message: string,
    parameter?: string,
  ): ExtractError {
    const sourceFile = node.getSourceFile();
    const position = sourceFile.getLineAndCharacterOfPosition(node.getStart());
    return new ExtractError(reason, message, {
      file: displayPath(resolve(sourceFile.fileName)),
      line: position.line + 1,
      column: position.character + 1,
      functionName,
      ...(parameter === undefined ? {} : { parameter }),
    });
  }

  lineOf(node: ts.Node): number {
    return node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
  }
}

function checkSourcePath(sourcePath: string, shown: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(sourcePath).isFile();
  } catch {
    throw new ExtractError('FILE_NOT_FOUND', `Cannot extract tools from '${shown}': file not found.`);
  }
  if (!isFile)
    throw new ExtractError('FILE_NOT_FOUND', `Cannot extract tools from '${shown}': it is a folder, not a file.`);
  if (!TYPESCRIPT_EXTENSIONS.test(sourcePath) || sourcePath.endsWith('.d.ts')) {
    throw new ExtractError(
      'FILE_NOT_FOUND',
      `Cannot extract tools from '${shown}': it is not a TypeScript source file (.ts, .mts, .cts or .tsx).`,
    );
  }
}

/**
 * The compiled module next to a source: `tools.ts` → `tools.js`, `tools.mts` → `tools.mjs`.
 *
 * @example
 * ```ts
 * defaultModulePath('/app/src/tools.mts'); // '/app/src/tools.mjs'
 * ```
 */
export function defaultModulePath(sourcePath: string): string {
  return sourcePath.replace(/\.(m|c)?tsx?$/, (_match, kind: string | undefined) => `.${kind ?? ''}js`);
}

/** Parsed default-library and `node_modules` declaration files, shared by every program this process makes. */
const declarationCache = new Map<string, ts.SourceFile>();

function createProgram(
  typescript: TypeScriptModule,
  sourcePath: string,
  tsconfig: string | false | undefined,
): ts.Program {
  const options = compilerOptions(typescript, sourcePath, tsconfig);
  const host = typescript.createCompilerHost(options, true);
  const libraryFolder = dirname(typescript.getDefaultLibFilePath(options));
  const readSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const shared =
      fileName.endsWith('.d.ts') && (fileName.startsWith(libraryFolder) || fileName.includes('/node_modules/'));
    if (!shared) return readSourceFile(fileName, languageVersion, onError, shouldCreate);
    const settings = typeof languageVersion === 'object' ? languageVersion : { languageVersion };
    const key = `${fileName}\u0000${settings.languageVersion}\u0000${String((settings as ts.CreateSourceFileOptions).impliedNodeFormat)}`;
    let sourceFile = declarationCache.get(key);
    if (sourceFile === undefined) {
      sourceFile = readSourceFile(fileName, languageVersion, onError, shouldCreate);
      if (sourceFile !== undefined) declarationCache.set(key, sourceFile);
    }
    return sourceFile;
  };
  return typescript.createProgram({ rootNames: [sourcePath], options, host });
}

function compilerOptions(
  typescript: TypeScriptModule,
  sourcePath: string,
  tsconfig: string | false | undefined,
): ts.CompilerOptions {
  let base: ts.CompilerOptions = {
    target: typescript.ScriptTarget.ES2022,
    module: typescript.ModuleKind.NodeNext,
    moduleResolution: typescript.ModuleResolutionKind.NodeNext,
    strict: true,
  };
  const configPath =
    tsconfig === false
      ? undefined
      : tsconfig !== undefined
        ? resolve(tsconfig)
        : typescript.findConfigFile(dirname(sourcePath), typescript.sys.fileExists);
  if (configPath !== undefined) {
    const read = typescript.readConfigFile(configPath, typescript.sys.readFile);
    if (read.error !== undefined) {
      throw new ExtractError(
        'SYNTAX_ERROR',
        `cannot read the TypeScript configuration: ${typescript.flattenDiagnosticMessageText(read.error.messageText, ' ')}`,
        { file: displayPath(configPath) },
      );
    }
    base = typescript.parseJsonConfigFileContent(
      read.config,
      typescript.sys,
      dirname(configPath),
      undefined,
      configPath,
    ).options;
  }
  // Only the signatures are read: no output, and declarations of libraries are trusted.
  return {
    ...base,
    strictNullChecks: true,
    noEmit: true,
    skipLibCheck: true,
    incremental: false,
    composite: false,
    declaration: false,
    sourceMap: false,
  };
}

function entityName(typescript: TypeScriptModule, name: ts.EntityName): string {
  return typescript.isIdentifier(name) ? name.text : `${entityName(typescript, name.left)}.${name.right.text}`;
}

function parameterLabel(typescript: TypeScriptModule, parameter: ts.ParameterDeclaration): string {
  return typescript.isIdentifier(parameter.name) ? parameter.name.text : parameter.name.getText();
}

/**
 * The `@param` text of a member of the object parameter: `@param options.limit` (for a destructured
 * parameter any name before the dot, as TSDoc tools write `root0.limit`), or a bare `@param limit`.
 */
function memberDescription(descriptions: Map<string, string>, prefix: string, member: string): string | undefined {
  if (prefix !== '') return descriptions.get(`${prefix}.${member}`) ?? descriptions.get(member);
  for (const [key, text] of descriptions) {
    const dot = key.indexOf('.');
    if (dot > 0 && dot === key.lastIndexOf('.') && key.slice(dot + 1) === member) return text;
  }
  return descriptions.get(member);
}
