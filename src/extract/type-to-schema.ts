import type ts from 'typescript';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import type { JsonSchema, JsonSchemaType } from '../core/json-schema.js';
import { jsdocText } from './jsdoc-text.js';

/** The `typescript` module, loaded lazily by the extractor. */
export type TypeScriptModule = typeof ts;

/** The name of the alias that marks a number as an integer: `type Integer = number`. */
export const INTEGER_ALIAS = 'Integer';

/** Objects nested deeper than this are refused: no tool argument needs it, and it stops runaway types. */
const MAX_DEPTH = 32;

/** Where a value sits in a tool's arguments, for messages and error positions. */
export interface SchemaSite {
  /** Path of the value in the arguments (`filter.labels[]`). */
  path: string;
  /** The nearest declaration (parameter or member), where an error points. */
  node: ts.Node;
}

/**
 * A type with no JSON Schema form; the extractor turns it into an `UNSUPPORTED_TYPE` error.
 *
 * @example
 * ```ts
 * new UnsupportedType({ path: 'key', node }, 'symbol', 'symbols have no JSON form').message;
 * // "parameter 'key': type 'symbol' is not supported: symbols have no JSON form."
 * ```
 */
export class UnsupportedType extends ToolshedError<'UNSUPPORTED_TYPE'> {
  constructor(
    readonly site: SchemaSite,
    readonly typeText: string,
    readonly reason: string,
  ) {
    super('UNSUPPORTED_TYPE', `parameter '${site.path}': type '${typeText}' is not supported: ${reason}.`);
    this.name = 'UnsupportedType';
  }
}

interface UnionMember {
  type: ts.Type;
  node: ts.TypeNode | undefined;
}

/**
 * Converts TypeScript types (from the checker) into JSON Schema (draft 2020-12) for tool arguments.
 * Type nodes are followed beside the types where the source spells them out, so the `Integer` alias —
 * which the checker resolves to plain `number` — is still seen.
 *
 * Throws {@link UnsupportedType} for a type JSON cannot carry.
 *
 * @example
 * ```ts
 * const schemas = new TypeToSchema(ts, program);
 * schemas.schemaOf(checker.getTypeAtLocation(parameter), parameter.type, { path: 'limit', node: parameter });
 * // { type: 'integer' } for `limit: Integer`
 * ```
 */
export class TypeToSchema {
  readonly #ts: TypeScriptModule;
  readonly #checker: ts.TypeChecker;
  readonly #program: ts.Program;
  readonly #open: Array<{ type: ts.Type; path: string }> = [];

  constructor(typescript: TypeScriptModule, program: ts.Program) {
    this.#ts = typescript;
    this.#program = program;
    this.#checker = program.getTypeChecker();
  }

  /** True when a type includes `undefined` (or `void`): the property may be left out. */
  includesUndefined(type: ts.Type): boolean {
    const flags = this.#ts.TypeFlags.Undefined | this.#ts.TypeFlags.Void;
    if (type.isUnion()) return type.types.some((member) => (member.flags & flags) !== 0);
    return (type.flags & flags) !== 0;
  }

  /** The JSON Schema of `type`; `typeNode` is how the source wrote it, when it did. */
  schemaOf(type: ts.Type, typeNode: ts.TypeNode | undefined, site: SchemaSite): JsonSchema {
    const { TypeFlags } = this.#ts;
    const node = this.#consistentNode(type, typeNode);
    if (this.#isInteger(type, node)) return { type: 'integer' };
    const flags = type.flags;
    if (flags & TypeFlags.Any) {
      const intrinsic = (type as { intrinsicName?: string }).intrinsicName;
      throw this.#unsupported(
        type,
        site,
        intrinsic === 'error'
          ? 'the type cannot be resolved; check its import'
          : "'any' says nothing about the value; use a concrete type, or unknown for any JSON value",
      );
    }
    if (flags & TypeFlags.Unknown) return {};
    if (flags & TypeFlags.String) return { type: 'string' };
    if (flags & TypeFlags.Number) return { type: 'number' };
    if (flags & TypeFlags.Boolean) return { type: 'boolean' };
    if (type.isStringLiteral()) return { type: 'string', const: type.value };
    if (type.isNumberLiteral()) return { type: 'number', const: type.value };
    if (flags & TypeFlags.BooleanLiteral) return { type: 'boolean', const: type === this.#checker.getTrueType() };
    if (flags & TypeFlags.Null) return { type: 'null' };
    if (flags & (TypeFlags.BigInt | TypeFlags.BigIntLiteral)) {
      throw this.#unsupported(type, site, 'bigint has no JSON form; use number or string');
    }
    if (flags & (TypeFlags.ESSymbol | TypeFlags.UniqueESSymbol)) {
      throw this.#unsupported(type, site, 'symbols have no JSON form');
    }
    if (flags & (TypeFlags.Void | TypeFlags.Undefined | TypeFlags.Never)) {
      throw this.#unsupported(type, site, 'it has no JSON value');
    }
    if (flags & (TypeFlags.TemplateLiteral | TypeFlags.StringMapping)) {
      throw this.#unsupported(type, site, 'template literal types have no JSON Schema form; use string');
    }
    if (flags & TypeFlags.TypeParameter) {
      throw this.#unsupported(type, site, 'a generic type parameter cannot be resolved to a concrete type');
    }
    if (flags & TypeFlags.NonPrimitive) return { type: 'object' };
    if (type.isUnion()) return this.#union(type, typeNode, site);
    if (type.isIntersection()) return this.#intersection(type, site);
    if (flags & TypeFlags.Object) return this.#object(type as ts.ObjectType, node, site);
    throw this.#unsupported(
      type,
      site,
      'it cannot be resolved to a concrete type (conditional, indexed and generic types are not supported)',
    );
  }

  #union(type: ts.UnionType, typeNode: ts.TypeNode | undefined, site: SchemaSite): JsonSchema {
    const { TypeFlags } = this.#ts;
    const members = this.#orderedMembers(type, typeNode);
    const trueType = this.#checker.getTrueType();
    const falseType = this.#checker.getFalseType();
    const hasBoth =
      members.some((member) => member.type === trueType) && members.some((member) => member.type === falseType);
    let nullable = false;
    const literals: Array<string | number | boolean> = [];
    const pieces: JsonSchema[] = [];
    let literalIndex = -1;
    let booleanDone = false;
    for (const member of members) {
      const memberType = member.type;
      if (memberType.flags & TypeFlags.Null) {
        nullable = true;
      } else if (memberType.flags & (TypeFlags.Undefined | TypeFlags.Void)) {
        // JSON has no undefined: the property is optional instead (decided by the caller).
      } else if (hasBoth && (memberType === trueType || memberType === falseType)) {
        if (!booleanDone) pieces.push({ type: 'boolean' });
        booleanDone = true;
      } else if (
        memberType.isStringLiteral() ||
        memberType.isNumberLiteral() ||
        memberType.flags & TypeFlags.BooleanLiteral
      ) {
        if (literalIndex < 0) {
          literalIndex = pieces.length;
          pieces.push({});
        }
        literals.push(
          memberType.isStringLiteral() || memberType.isNumberLiteral() ? memberType.value : memberType === trueType,
        );
      } else {
        pieces.push(this.schemaOf(memberType, member.node, site));
      }
    }
    if (literalIndex >= 0) pieces[literalIndex] = literalSchema(literals);
    let schema: JsonSchema;
    if (pieces.length === 0) {
      if (!nullable) throw this.#unsupported(type, site, 'it has no JSON value');
      return { type: 'null' };
    }
    if (pieces.length === 1) {
      schema = pieces[0]!;
    } else if (pieces.every((piece) => Object.keys(piece).length === 1 && typeof piece.type === 'string')) {
      schema = { type: pieces.map((piece) => piece.type as JsonSchemaType) };
    } else {
      schema = { anyOf: pieces };
    }
    return nullable ? withNull(schema) : schema;
  }

  #intersection(type: ts.IntersectionType, site: SchemaSite): JsonSchema {
    const { TypeFlags } = this.#ts;
    // A branded primitive (`string & { readonly brand: 'Email' }`) is that primitive on the wire.
    const primitive = type.types.find(
      (member) => member.flags & (TypeFlags.String | TypeFlags.Number | TypeFlags.Boolean),
    );
    if (primitive !== undefined) return this.schemaOf(primitive, undefined, site);
    if (type.types.every((member) => member.flags & TypeFlags.Object)) return this.#object(type, undefined, site);
    throw this.#unsupported(type, site, 'only intersections of object types (or a branded primitive) are supported');
  }

  #object(type: ts.Type, node: ts.TypeNode | undefined, site: SchemaSite): JsonSchema {
    const typescript = this.#ts;
    const checker = this.#checker;
    if (
      checker.getSignaturesOfType(type, typescript.SignatureKind.Call).length > 0 ||
      checker.getSignaturesOfType(type, typescript.SignatureKind.Construct).length > 0
    ) {
      throw this.#unsupported(type, site, 'functions cannot be sent as JSON arguments');
    }
    if (checker.isArrayType(type)) {
      const item = checker.getTypeArguments(type as ts.TypeReference)[0];
      if (item === undefined) return { type: 'array' };
      return {
        type: 'array',
        items: this.schemaOf(item, this.#elementNode(node), { path: `${site.path}[]`, node: site.node }),
      };
    }
    if (checker.isTupleType(type)) return this.#tuple(type as ts.TupleTypeReference, node, site);
    const symbol = type.getSymbol();
    if (symbol !== undefined && symbol.name === 'Date' && this.#isLibrarySymbol(symbol)) {
      return { type: 'string', format: 'date-time' };
    }
    if (symbol !== undefined && symbol.flags & typescript.SymbolFlags.Class) {
      throw this.#unsupported(type, site, 'class instances cannot be built from JSON arguments; use an interface');
    }
    if (symbol !== undefined && symbol.flags & typescript.SymbolFlags.Interface && this.#isLibrarySymbol(symbol)) {
      throw this.#unsupported(type, site, 'it is not plain JSON data');
    }
    const cycle = this.#open.find((open) => open.type === type);
    if (cycle !== undefined) {
      throw this.#unsupported(
        type,
        site,
        `it contains itself (at '${cycle.path}' and '${site.path}'); recursive types are not supported`,
      );
    }
    if (this.#open.length >= MAX_DEPTH) {
      throw this.#unsupported(type, site, `it is nested more than ${MAX_DEPTH} levels deep`);
    }
    this.#open.push({ type, path: site.path });
    try {
      return this.#objectSchema(type, site);
    } finally {
      this.#open.pop();
    }
  }

  #objectSchema(type: ts.Type, site: SchemaSite): JsonSchema {
    const typescript = this.#ts;
    const checker = this.#checker;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const members = checker.getPropertiesOfType(type);
    if (members.some((member) => member.flags & typescript.SymbolFlags.Method)) {
      throw this.#unsupported(type, site, 'it has methods, so it is not plain JSON data');
    }
    for (const member of members) {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      const memberType = checker.getTypeOfSymbol(member);
      const memberNode =
        declaration !== undefined &&
        (typescript.isPropertySignature(declaration) || typescript.isPropertyDeclaration(declaration))
          ? declaration.type
          : undefined;
      const memberSite: SchemaSite = {
        path: site.path === '' ? member.name : `${site.path}.${member.name}`,
        node: declaration ?? site.node,
      };
      const schema = this.schemaOf(memberType, memberNode, memberSite);
      const description = jsdocText(typescript.displayPartsToString(member.getDocumentationComment(checker)));
      const defaultValue = declaration === undefined ? undefined : this.#defaultTag(declaration, memberSite);
      properties[member.name] = annotate(schema, description, defaultValue);
      const optional = (member.flags & typescript.SymbolFlags.Optional) !== 0 || this.includesUndefined(memberType);
      if (!optional && defaultValue === undefined) required.push(member.name);
    }
    const result: JsonSchema = { type: 'object' };
    if (members.length > 0) result.properties = properties;
    if (required.length > 0) result.required = required;
    for (const index of checker.getIndexInfosOfType(type)) {
      if (!(index.keyType.flags & typescript.TypeFlags.String)) {
        throw this.#unsupported(type, site, 'JSON object keys are strings; use Record<string, T>');
      }
      result.additionalProperties = this.schemaOf(index.type, index.declaration?.type, {
        path: `${site.path}[key]`,
        node: index.declaration ?? site.node,
      });
    }
    return result;
  }

  #tuple(type: ts.TupleTypeReference, node: ts.TypeNode | undefined, site: SchemaSite): JsonSchema {
    const typescript = this.#ts;
    const elements = this.#checker.getTypeArguments(type);
    const target = type.target;
    const elementNodes = node !== undefined && typescript.isTupleTypeNode(node) ? node.elements : undefined;
    const prefixItems: JsonSchema[] = [];
    let rest: JsonSchema | undefined;
    for (const [index, element] of elements.entries()) {
      const flag = target.elementFlags[index] ?? typescript.ElementFlags.Required;
      let elementNode = elementNodes?.[index];
      if (elementNode !== undefined && typescript.isNamedTupleMember(elementNode)) elementNode = elementNode.type;
      if (
        elementNode !== undefined &&
        (typescript.isOptionalTypeNode(elementNode) || typescript.isRestTypeNode(elementNode))
      ) {
        elementNode = elementNode.type;
      }
      const elementSite = { path: `${site.path}[${index}]`, node: site.node };
      if (flag & typescript.ElementFlags.Variable) {
        rest = this.schemaOf(element, undefined, elementSite);
      } else {
        prefixItems.push(this.schemaOf(element, elementNode, elementSite));
      }
    }
    const schema: JsonSchema = { type: 'array', prefixItems, items: rest ?? false, minItems: target.minLength };
    if (rest === undefined) schema.maxItems = prefixItems.length;
    return schema;
  }

  /** `@defaultValue` (TSDoc) or `@default` on a member: a JSON value, or a bare word taken as a string. */
  #defaultTag(declaration: ts.Node, site: SchemaSite): unknown {
    for (const tag of this.#ts.getJSDocTags(declaration)) {
      const name = tag.tagName.text;
      if (name !== 'defaultValue' && name !== 'default') continue;
      const text = (this.#ts.getTextOfJSDocComment(tag.comment) ?? '').trim().replace(/^`(.*)`$/s, '$1');
      if (text === '') continue;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        if (/^[\w.-]+$/.test(text)) return text;
        throw new UnsupportedType(site, text, `@${name} must be a JSON value`);
      }
    }
    return undefined;
  }

  /** `typeNode` when it spells `type` (so facts read from it apply), after unwrapping parentheses. */
  #consistentNode(type: ts.Type, typeNode: ts.TypeNode | undefined): ts.TypeNode | undefined {
    let node = typeNode;
    while (node !== undefined && this.#ts.isParenthesizedTypeNode(node)) node = node.type;
    if (node === undefined) return undefined;
    return this.#checker.getTypeFromTypeNode(node) === type ? node : undefined;
  }

  #isInteger(type: ts.Type, node: ts.TypeNode | undefined): boolean {
    const { TypeFlags } = this.#ts;
    const numeric =
      (type.flags & TypeFlags.Number) !== 0 ||
      (type.isIntersection() && type.types.some((member) => member.flags & TypeFlags.Number));
    if (!numeric) return false;
    if (type.aliasSymbol?.name === INTEGER_ALIAS) return true;
    let current = node;
    while (current !== undefined) {
      while (this.#ts.isParenthesizedTypeNode(current)) current = current.type;
      if (!this.#ts.isTypeReferenceNode(current)) return false;
      const name = this.#ts.isIdentifier(current.typeName) ? current.typeName.text : current.typeName.right.text;
      if (name === INTEGER_ALIAS) return true;
      current = this.#aliasedNode(current);
    }
    return false;
  }

  /** The type node a non-generic alias reference stands for (`type Limit = Integer` → `Integer`). */
  #aliasedNode(node: ts.TypeReferenceNode): ts.TypeNode | undefined {
    if (node.typeArguments !== undefined) return undefined;
    let symbol = this.#checker.getSymbolAtLocation(node.typeName);
    if (symbol !== undefined && symbol.flags & this.#ts.SymbolFlags.Alias)
      symbol = this.#checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.find((each) => this.#ts.isTypeAliasDeclaration(each));
    return declaration !== undefined && this.#ts.isTypeAliasDeclaration(declaration) ? declaration.type : undefined;
  }

  /** The node of an array's element type: `T[]`, `readonly T[]`, `Array<T>`, or through an alias. */
  #elementNode(node: ts.TypeNode | undefined): ts.TypeNode | undefined {
    const typescript = this.#ts;
    let current = node;
    for (let hops = 0; current !== undefined && hops < 8; hops++) {
      if (typescript.isParenthesizedTypeNode(current) || typescript.isTypeOperatorNode(current)) {
        current = current.type;
      } else if (typescript.isArrayTypeNode(current)) {
        return current.elementType;
      } else if (typescript.isTypeReferenceNode(current)) {
        const name = typescript.isIdentifier(current.typeName) ? current.typeName.text : undefined;
        if ((name === 'Array' || name === 'ReadonlyArray') && current.typeArguments?.length === 1) {
          return current.typeArguments[0];
        }
        current = this.#aliasedNode(current);
      } else {
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * A union's members in the order the source wrote them (the checker orders them by creation), each
   * with its node when the source spelled it.
   */
  #orderedMembers(type: ts.UnionType, typeNode: ts.TypeNode | undefined): UnionMember[] {
    const written: UnionMember[] = [];
    const collect = (node: ts.TypeNode, hops: number): void => {
      if (hops > 8) return;
      if (this.#ts.isParenthesizedTypeNode(node)) {
        collect(node.type, hops + 1);
      } else if (this.#ts.isUnionTypeNode(node)) {
        for (const member of node.types) collect(member, hops + 1);
      } else {
        const memberType = this.#checker.getTypeFromTypeNode(node);
        const aliased =
          memberType.isUnion() && this.#ts.isTypeReferenceNode(node) ? this.#aliasedNode(node) : undefined;
        if (aliased !== undefined) {
          collect(aliased, hops + 1);
        } else if (memberType.isUnion()) {
          for (const each of memberType.types) written.push({ type: each, node: undefined });
        } else {
          written.push({ type: memberType, node });
        }
      }
    };
    if (typeNode !== undefined) collect(typeNode, 0);
    const members = new Set(type.types);
    const ordered: UnionMember[] = [];
    const seen = new Set<ts.Type>();
    for (const member of [...written, ...type.types.map((each) => ({ type: each, node: undefined }))]) {
      if (!members.has(member.type) || seen.has(member.type)) continue;
      seen.add(member.type);
      ordered.push(member);
    }
    return ordered;
  }

  #isLibrarySymbol(symbol: ts.Symbol): boolean {
    const declarations = symbol.declarations ?? [];
    return (
      declarations.length > 0 &&
      declarations.every((declaration) => this.#program.isSourceFileDefaultLibrary(declaration.getSourceFile()))
    );
  }

  #unsupported(type: ts.Type, site: SchemaSite, reason: string): UnsupportedType {
    const text = this.#checker.typeToString(type, undefined, this.#ts.TypeFormatFlags.NoTruncation);
    return new UnsupportedType(site, text, reason);
  }
}

/**
 * Add a description and a default to a schema (description right after `type`, for readable YAML).
 *
 * @example
 * ```ts
 * annotate({ type: 'integer' }, 'How many.', 10); // { type: 'integer', description: 'How many.', default: 10 }
 * ```
 */
export function annotate(schema: JsonSchema, description: string | undefined, defaultValue: unknown): JsonSchema {
  const { type, ...rest } = schema;
  const result: JsonSchema = type === undefined ? {} : { type };
  if (description !== undefined && description !== '') result.description = description;
  Object.assign(result, rest);
  if (defaultValue !== undefined) result.default = defaultValue;
  return result;
}

function literalSchema(values: Array<string | number | boolean>): JsonSchema {
  const types: JsonSchemaType[] = [];
  for (const value of values) {
    const type = typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean';
    if (!types.includes(type)) types.push(type);
  }
  const type = types.length === 1 ? types[0]! : types;
  return values.length === 1 ? { type, const: values[0] } : { type, enum: values };
}

function withNull(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0) return schema;
  if (schema.anyOf !== undefined) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  if (schema.type === undefined) return { anyOf: [schema, { type: 'null' }] };
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const result: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (result.const !== undefined) {
    result.enum = [result.const, null];
    delete result.const;
  } else if (result.enum !== undefined) {
    result.enum = [...result.enum, null];
  }
  return result;
}
